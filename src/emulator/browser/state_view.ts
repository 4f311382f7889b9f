/** @module The console's view of the state: tenant, Wallet, keys, endpoints, models and fault switches. */

import type { FaultsView, StateView } from "../routes/admin.js";
import {
  type Endpoint,
  type HostedModel,
  type KeyDescription,
  kindOf,
  MODEL_KINDS,
} from "../state/state_records.js";
import { api } from "./api.js";
import { byId, el, replaceChildren, replaceRows, withCode } from "./dom.js";
import { money } from "./format.js";

/** Runs an admin call, then refreshes the page (or shows the error). */
export type Act = (call: Promise<unknown>) => void;

/** Every part of the page that the state fills. */
export function renderState(state: StateView, act: Act): void {
  const tenant = state.tenants[0] ?? { id: "", name: "" };
  byId("tenant-name").textContent = tenant.name;
  byId("tenant-id").textContent = tenant.id;
  showBaseUrl(byId("base-url"), `${location.origin}/inference/v1`);

  const amount = byId("wallet-credit");
  amount.textContent = money(state.credit);
  amount.className = `amount${state.credit <= 0 ? " empty" : ""}`;

  byId("key-count").textContent = `(${state.keys.length})`;
  replaceRows(
    byId("key-rows"),
    state.keys.map((key) => keyRow(key, act)),
    "No API keys",
    6,
  );
  byId("endpoint-count").textContent = `(${state.endpoints.length})`;
  replaceRows(
    byId("endpoint-rows"),
    state.endpoints.map((endpoint) => endpointRow(endpoint, act)),
    "No endpoints",
    5,
  );
  replaceRows(byId("model-rows"), state.models.map(modelRow), "No models", 5);
  renderFaults(state.faults, act);
}

/**
 * The base URL with a line-break chance after each "/": the narrow sidebar then wraps it between
 * its parts (`http://127.0.0.1:8787/` | `inference/v1`), never inside a word.
 */
function showBaseUrl(code: HTMLElement, url: string): void {
  if (code.textContent === url) return;
  const parts = url.split(/(?<=\/)/);
  replaceChildren(
    code,
    parts.flatMap((part) => [document.createTextNode(part), el("wbr")]),
  );
}

function keyRow(key: KeyDescription, act: Act): HTMLTableRowElement {
  const status = key.expired
    ? el("span", { className: "badge bad", text: "Expired" })
    : el("span", { className: "badge ok", text: "Active" });
  const revoke = () => act(api("DELETE", `/keys/${encodeURIComponent(key.id)}`));
  return el("tr", { dataset: { keyId: key.id } }, [
    el("td", {}, [
      el("div", { text: key.name }),
      el("div", { className: "muted mono", text: key.id }),
    ]),
    el("td", { className: "mono", text: key.secret }),
    el("td", {
      text: key.permissions.length > 0 ? key.permissions.join(", ") : "none (hosted only)",
    }),
    el("td", { text: key.expiresAt ? new Date(key.expiresAt).toLocaleString() : "Never" }),
    el("td", {}, [status]),
    el("td", {}, [
      el("button", { className: "danger revoke", text: "Revoke", on: { click: revoke } }),
    ]),
  ]);
}

function endpointRow(endpoint: Endpoint, act: Act): HTMLTableRowElement {
  const running = endpoint.state === "Running";
  const toggle = () =>
    act(
      api("PATCH", `/endpoints/${encodeURIComponent(endpoint.serviceName)}`, {
        state: running ? "Pending" : "Running",
      }),
    );
  return el("tr", { dataset: { serviceName: endpoint.serviceName } }, [
    el("td", {}, [el("code", { text: endpoint.serviceName })]),
    el("td", { text: endpoint.jobAlias }),
    el("td", { className: "num scaling", text: endpoint.scaling }),
    el("td", {}, [
      el("span", { className: `badge state ${running ? "ok" : "warn"}`, text: endpoint.state }),
    ]),
    el("td", {}, [
      el("button", {
        className: "toggle",
        text: running ? "Set Pending" : "Set Running",
        on: { click: toggle },
      }),
    ]),
  ]);
}

function modelRow(model: HostedModel): HTMLTableRowElement {
  const context = model.profile?.maxInputTokens;
  const own = kindOf(model);
  const kind = own === "chat" ? own : MODEL_KINDS[own].label(model);
  // The APIs the gateway lists it under (`supported_endpoint_types`), e.g. openai-response.
  const apis = el("div", { className: "muted", text: (model.endpointTypes ?? []).join(", ") });
  return el("tr", {}, [
    el("td", {}, [el("code", { text: model.id })]),
    el("td", {}, [el("div", { text: kind }), apis]),
    el("td", { className: "num", text: String(model.prices.input) }),
    el("td", { className: "num", text: String(model.prices.output) }),
    el("td", { className: "num", text: context ? String(context) : "—" }),
  ]);
}

// Filled from the admin API's list on the first state, so the switches never lag behind it.
let faultKinds: readonly string[] = [];

const faultBox = (kind: string) =>
  document.querySelector<HTMLInputElement>(`input[data-fault="${kind}"]`)!;

/** One switch per fault: its name, and under it what it does (the fault table's summary). */
function buildFaultSwitches(faults: FaultsView, act: Act): void {
  faultKinds = (faults.available ?? []).slice();
  const apply = () => applyFaults(act);
  replaceChildren(
    byId("fault-switches"),
    faultKinds.map((kind) => {
      const box = el("input", {
        dataset: { fault: kind },
        attributes: { type: "checkbox" },
        on: { change: apply },
      });
      const summary = faults.summaries?.[kind] ?? "";
      return el("label", { className: "switch" }, [
        box,
        el("span", {}, [
          el("code", { text: kind }),
          el("span", { className: "summary" }, withCode(summary)),
        ]),
      ]);
    }),
  );
}

function renderFaults(faults: FaultsView, act: Act): void {
  if (faultKinds.length === 0) buildFaultSwitches(faults, act);
  const on = faults.rate > 0;
  for (const kind of faultKinds) {
    const box = faultBox(kind);
    if (document.activeElement !== box) box.checked = on && faults.kinds.includes(kind);
  }
  const rate = byId<HTMLInputElement>("fault-rate");
  if (document.activeElement !== rate && on) rate.value = String(faults.rate);
  byId("fault-summary").textContent = on
    ? `${Math.round(faults.rate * 100)}% of authenticated calls get one of: ${faults.kinds.join(", ")}`
    : "Off: calls fail only when they send the X-Emulator-Fault header.";
}

/** Sends the switches and the rate to the admin API: no switch on means no random faults. */
export function applyFaults(act: Act): void {
  const kinds = faultKinds.filter((kind) => faultBox(kind).checked);
  const rate = Number(byId<HTMLInputElement>("fault-rate").value);
  act(api("PUT", "/faults", kinds.length > 0 ? { rate, kinds } : { rate: 0 }));
}
