/**
 * @module The console page's script: reads and changes the emulator through its admin API (same
 * origin, JSON), polling once a second. The entry of the bundle that `npm run build:console`
 * writes into `../console/script.generated.ts`, which the page inlines.
 */

import type { RequestsView, StateView } from "../routes/admin.js";
import type { KeyDescription, RequestLogEntry } from "../state/state_records.js";
import { api } from "./api.js";
import { drawChart } from "./chart.js";
import { byId } from "./dom.js";
import { closeDetail, refreshDetail, renderLog } from "./request_log.js";
import { applyFaults, renderState } from "./state_view.js";

const POLL_MS = 1000;
let log: RequestLogEntry[] = [];
let lastId: string | null = null;
const statusEl = byId("status");

function showStatus(text: string, isError: boolean): void {
  statusEl.textContent = text;
  statusEl.className = isError ? "error" : "live";
}

/** Runs an admin call, then refreshes the page, or shows why the call failed. */
function act(call: Promise<unknown>): void {
  call.then(refresh).catch((error: Error) => showStatus(error.message, true));
}

/** Reads the state and the requests logged since the last read, and draws both. */
async function refresh(): Promise<void> {
  const query = lastId ? `?after=${encodeURIComponent(lastId)}` : "";
  const [state, page] = await Promise.all([
    api<StateView>("GET", "/state"),
    api<RequestsView>("GET", `/requests${query}`),
  ]);
  log = page.continued ? log.concat(page.requests) : page.requests;
  lastId = log.length > 0 ? log[log.length - 1]!.requestId : null;
  renderState(state, act);
  renderLog(log);
  refreshDetail();
  showStatus("Live", false);
}

function poll(): void {
  refresh()
    .catch((error: Error) => showStatus(`Emulator unreachable: ${error.message}`, true))
    .then(() => setTimeout(poll, POLL_MS));
}

/** The create-key form: the full secret is in the reply only, shown once like the service's. */
async function createKey(): Promise<void> {
  const hours = Number(byId<HTMLSelectElement>("key-expiry").value);
  const body: { name?: string; permissions: string[]; expiresAt?: string } = {
    name: byId<HTMLInputElement>("key-name").value.trim() || undefined,
    permissions: byId<HTMLInputElement>("key-permission").checked ? ["Inference Service"] : [],
  };
  if (hours !== 0) body.expiresAt = new Date(Date.now() + hours * 3600 * 1000).toISOString();
  const key = await api<KeyDescription>("POST", "/keys", body);
  byId("new-secret-value").textContent = key.secret;
  byId("new-secret-name").textContent = key.name;
  byId("new-secret").hidden = false;
  byId<HTMLInputElement>("key-name").value = "";
  await refresh();
}

function wireActions(): void {
  byId("key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    createKey().catch((error: Error) => showStatus(error.message, true));
  });
  byId("copy-secret").addEventListener("click", () => {
    navigator.clipboard.writeText(byId("new-secret-value").textContent ?? "").catch(() => {});
  });
  byId("dismiss-secret").addEventListener("click", () => {
    byId("new-secret-value").textContent = "";
    byId("new-secret").hidden = true;
  });
  byId("topup-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const amount = Number(byId<HTMLInputElement>("topup-amount").value);
    act(api("POST", "/top-up", { amount }));
  });
  byId("clear-log").addEventListener("click", () => {
    closeDetail();
    act(api("DELETE", "/requests"));
  });
  byId("reset").addEventListener("click", () => {
    byId("new-secret").hidden = true;
    closeDetail();
    act(api("POST", "/reset"));
  });
  byId("detail-close").addEventListener("click", closeDetail);
  byId("fault-rate").addEventListener("change", () => applyFaults(act));
  window.addEventListener("resize", () => drawChart(log));
}

wireActions();
poll();
