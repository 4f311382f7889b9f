/** @module The console's request log: totals, the chart and the newest rows. */

import type { RequestLogEntry } from "../../state_records.js";
import { drawChart } from "./chart.js";
import { byId, el, money, replaceRows, shortTime } from "./dom.js";

/** Rows shown: the newest first. */
const SHOWN_ROWS = 50;

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
  return el("tr", { dataset: { requestId: entry.requestId } }, [
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
  ]);
}
