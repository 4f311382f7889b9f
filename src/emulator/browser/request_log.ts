/**
 * @module The console's request log: totals, the chart, the newest rows, and the detail of the row
 * clicked — its request and reply bodies, latency and whether it streamed, read from
 * `GET /_emulator/requests/<request ID>` (the emulator keeps them for its newest calls).
 */

import type { RequestDetail } from "../state/request_details.js";
import type { RequestLogEntry } from "../state/state_records.js";
import { api } from "./api.js";
import { drawChart } from "./chart.js";
import { byId, el, replaceRows } from "./dom.js";
import { characters, duration, money, shortTime } from "./format.js";

/** Rows shown: the newest first. */
const SHOWN_ROWS = 50;

/** The request whose detail is open, and what was read of it. */
let selected: string | undefined;
let detail: RequestDetail | undefined;

export function renderLog(log: readonly RequestLogEntry[]): void {
  let tokens = 0;
  let cost = 0;
  for (const entry of log) {
    tokens += entry.totalTokens;
    cost += entry.cost;
  }
  byId("total-requests").textContent = String(log.length);
  byId("total-tokens").textContent = String(tokens);
  byId("total-cost").textContent = money(cost);
  replaceRows(
    byId("request-rows"),
    log.slice(-SHOWN_ROWS).reverse().map(requestRow),
    `No requests yet: call ${location.origin}/inference/v1`,
    6,
  );
  drawChart(log);
}

function requestRow(entry: RequestLogEntry): HTMLTableRowElement {
  const kind =
    entry.status === 0 ? "bad" : entry.status < 300 ? "ok" : entry.status < 500 ? "warn" : "bad";
  const label = entry.status === 0 ? "closed" : String(entry.status);
  const status: HTMLElement[] = [el("span", { className: `badge ${kind}`, text: label })];
  if (entry.fault) status.push(el("span", { className: "muted", text: ` fault ${entry.fault}` }));
  const open = () => void showDetail(entry.requestId);
  return el(
    "tr",
    {
      className: `request${entry.requestId === selected ? " selected" : ""}`,
      dataset: { requestId: entry.requestId },
      attributes: { tabindex: "0", title: "Show the request and its reply" },
      on: {
        click: open,
        keydown: (event) => {
          if ((event as KeyboardEvent).key === "Enter") open();
        },
      },
    },
    [
      el("td", { text: shortTime(entry.time) }),
      el("td", {}, status),
      el("td", {}, [
        el("code", { text: entry.model || entry.serviceName || "—" }),
        el("span", {
          className: "muted",
          text: entry.surface === "dedicated" ? " Service-Name" : "",
        }),
      ]),
      el("td", { className: "num", text: String(entry.totalTokens) }),
      el("td", { className: "num", text: money(entry.cost) }),
      el("td", { className: "mono", text: entry.requestId }),
    ],
  );
}

/** Opens the detail of one request: its row marked, its bodies read from the admin API. */
async function showDetail(requestId: string): Promise<void> {
  selected = requestId;
  detail = undefined;
  for (const row of byId("request-rows").querySelectorAll<HTMLElement>("tr.request")) {
    row.classList.toggle("selected", row.dataset.requestId === requestId);
  }
  byId("request-detail").hidden = false;
  byId("detail-id").textContent = requestId;
  byId("detail-summary").textContent = "Loading…";
  await loadDetail();
}

/** Reads the open detail again while its stream has not ended: its latency is known only then. */
export function refreshDetail(): void {
  if (selected !== undefined && detail !== undefined && unfinished(detail)) void loadDetail();
}

/** Closes the detail (the log was cleared or the emulator reset). */
export function closeDetail(): void {
  selected = undefined;
  detail = undefined;
  byId("request-detail").hidden = true;
}

const unfinished = (d: RequestDetail) => d.latencyMs === undefined && !d.stalled;

async function loadDetail(): Promise<void> {
  const requestId = selected;
  if (requestId === undefined) return;
  try {
    const read = await api<RequestDetail>("GET", `/requests/${encodeURIComponent(requestId)}`);
    if (selected !== requestId) return;
    detail = read;
    renderDetail(read);
  } catch (error) {
    if (selected !== requestId) return;
    byId("detail-summary").textContent = (error as Error).message;
    for (const id of DETAIL_PARTS) byId(id).textContent = "";
  }
}

const DETAIL_PARTS = [
  "detail-request-line",
  "detail-request-headers",
  "detail-request-body",
  "detail-response-line",
  "detail-response-headers",
  "detail-response-body",
];

function renderDetail(d: RequestDetail): void {
  byId("detail-summary").textContent = summaryOf(d);
  byId("detail-request-line").textContent = `${d.request.method} ${d.request.url}`;
  byId("detail-request-headers").textContent = headerLines(d.request.headers);
  byId("detail-request-body").textContent = bodyText(d.request.body);
  const { response } = d;
  byId("detail-response-line").textContent = response
    ? `HTTP ${response.status}`
    : d.dropped === "reset"
      ? "No response: the connection was reset"
      : "No response: the connection was closed";
  byId("detail-response-headers").textContent = response ? headerLines(response.headers) : "";
  byId("detail-response-body").textContent = response ? bodyText(response.body) : "";
}

/** `200 · 412 ms · streamed: 38 of 38 events`, as one line. */
function summaryOf(d: RequestDetail): string {
  const parts = [d.response ? String(d.response.status) : "no response"];
  if (d.stalled) parts.push("stalled on purpose: never ends");
  else if (d.latencyMs === undefined) parts.push("still streaming");
  else parts.push(duration(d.latencyMs));
  if (d.stream) {
    const { total = 0, delivered } = d.events ?? {};
    parts.push(
      delivered === undefined || delivered === total
        ? `streamed: ${total} events`
        : `streamed: ${delivered} of ${total} events relayed before the client left`,
    );
  } else parts.push("not streamed");
  return parts.join(" · ");
}

function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join("\n");
}

/** A body as text: JSON laid out, anything else (events, HTML) as it was sent. */
function bodyText({ text, truncated }: { text: string; truncated: boolean }): string {
  if (text === "") return "(empty)";
  let shown = text;
  if (!truncated) {
    try {
      shown = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      // Not JSON: shown as sent.
    }
  }
  return truncated ? `${shown}\n… (only the first ${characters(text.length)} are kept)` : shown;
}
