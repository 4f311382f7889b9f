/**
 * @module The two fault tables of docs/emulator.md, generated from the emulator's tables — "Fault
 * injection" from its own faults (`OWN_FAULTS`, own_faults.ts), "The gateway's other
 * replies" from `GATEWAY_FAULTS` (gateway_faults.ts) — so the page says what the console says
 * beside each switch. A gateway reply's status, `code`, `type` and message are read from the reply
 * the emulator builds, and the class the package raises from a call that gets it. Run `npm run
 * docs:faults` to rewrite them; test/emulator_faults_doc.test.ts fails while they differ.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { LATENCY_SUMMARY, OWN_FAULT_SUMMARIES } from "../src/emulator/faults/faults.js";
import { GATEWAY_FAULTS } from "../src/emulator/faults/gateway_faults.js";
import { createEmulator, FAULT_HEADER } from "../src/emulator/index.js";
import type { EmulatorResponse } from "../src/emulator/reply.js";
import type { ErrorClass } from "../src/errors/gateway_codes.js";
import { ChatInferenceService } from "../src/index.js";
import { classCell } from "./errors_doc.js";
import {
  cell,
  type GeneratedPage,
  type GeneratedTable,
  tableIn,
  withTableIn,
} from "./generated_table.js";

/** The page, from the repository root. */
export const EMULATOR_DOC = "docs/emulator.md";
/** The command that regenerates the tables, for messages. */
export const REGENERATE_FAULTS = "npm run docs:faults";

const PAGE: GeneratedPage = { page: EMULATOR_DOC, command: REGENERATE_FAULTS };

/** What the package raises for each gateway reply, as `classCell` writes it with "retried" or not. */
export type Raised = Readonly<Record<string, string>>;

/** The table of the emulator's own faults: one line per fault, `latency=<ms>` after the statuses. */
export function ownFaultsTable(): string {
  const rows = Object.entries(OWN_FAULT_SUMMARIES).map(([name, summary]) => [name, summary]);
  const afterStatuses = rows.findIndex(([name]) => !/^\d+$/.test(name!));
  rows.splice(afterStatuses, 0, ["latency=<ms>", LATENCY_SUMMARY]);
  return [
    "| Value | Effect |",
    "| --- | --- |",
    ...rows.map(([name, summary]) => `| \`${name}\` | ${cell(summary!)} |`),
  ].join("\n");
}

/**
 * The call a sample reply answers: the request ID and the model as the table shows them, with
 * every part a reply may be about (a `json_schema` response format).
 */
const SAMPLE = {
  requestId: "<ID>",
  body: JSON.stringify({ model: "<model>", response_format: { type: "json_schema" } }),
  url: "/inference/v1/chat/completions",
  retryAfterSeconds: 1,
};

/** The longest message shown whole; a longer one ends with "…". */
const MESSAGE_LIMIT = 60;

/** `503, Content-Type: text/event-stream`; `429, no body`. */
function statusCell(status: number, headers: Record<string, string>, body: string): string {
  const type = headers["Content-Type"];
  if (type === undefined) return body === "" ? `${status}, no body` : String(status);
  return /json/.test(type) ? String(status) : `${status}, \`Content-Type: ${type}\``;
}

/** The `error` object of a JSON reply, or undefined for a body that is none. */
function errorOf(
  body: string,
): { code?: string; type?: string; message?: string; param?: string } | undefined {
  try {
    return (JSON.parse(body) as { error?: Record<string, string> }).error;
  } catch {
    return undefined;
  }
}

/** `` `access_denied` ``; `` `""` (`type`, `param: "messages"`) ``. */
function codeCell(error: ReturnType<typeof errorOf>): string {
  if (error === undefined) return "—";
  const notes = [
    ...(error.type !== undefined && error.type !== "new_api_error" ? [`\`${error.type}\``] : []),
    ...(error.param !== undefined ? [`\`param: ${JSON.stringify(error.param)}\``] : []),
  ];
  return `\`${JSON.stringify(error.code ?? "")}\`${notes.length > 0 ? ` (${notes.join(", ")})` : ""}`;
}

function messageCell(error: ReturnType<typeof errorOf>): string {
  const message = error?.message;
  if (message === undefined) return "—";
  const shown = message.length > MESSAGE_LIMIT ? `${message.slice(0, MESSAGE_LIMIT)}…` : message;
  return `\`${shown}\``;
}

/** The table of the gateway's replies: what the emulator sends for each, and what the package makes of it. */
export function gatewayFaultsTable(raised: Raised): string {
  const rows = Object.entries(GATEWAY_FAULTS).map(([name, { summary, answer }]) => {
    const reply = answer!(SAMPLE) as EmulatorResponse;
    const body = typeof reply.body === "string" ? reply.body : reply.body.join("");
    const error = errorOf(body);
    return `| ${[
      `\`${name}\``,
      summary,
      statusCell(reply.status, reply.headers, body),
      codeCell(error),
      messageCell(error),
      raised[name] ?? "?",
    ]
      .map(cell)
      .join(" | ")} |`;
  });
  return [
    "| Value | What it is | Status | `code` (`type`) | Message | The package raises |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}

/**
 * What the package raises for each gateway reply: a chat model's call (no retries, with a
 * `json_schema` response format) that gets it from the in-process emulator, its error's class and
 * whether it would be retried.
 */
export async function raisedByEachGatewayFault(): Promise<Raised> {
  const emulator = createEmulator();
  const raised: Record<string, string> = {};
  for (const name of Object.keys(GATEWAY_FAULTS)) {
    const model = new ChatInferenceService("emulator-chat", {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch: emulator.fetch,
      maxRetries: 0,
      configuration: { defaultHeaders: { [FAULT_HEADER]: name } },
    });
    // A request with every part a reply may be about: a `json_schema` response format.
    const response_format = {
      type: "json_schema" as const,
      json_schema: { name: "extract", schema: { type: "object", properties: {} } },
    };
    const error = await model.invoke("hi", { response_format }).then(
      () => undefined,
      (caught: unknown) => caught as { constructor: ErrorClass; retryable?: boolean },
    );
    raised[name] = error
      ? `${classCell(error.constructor)}, ${error.retryable ? "retried" : "not retried"}`
      : "nothing: the call succeeds";
  }
  return raised;
}

/** The generated tables of docs/emulator.md, in the order the page shows them. */
export function faultTables(raised: Raised): GeneratedTable[] {
  return [
    { name: "OWN_FAULTS", file: "src/emulator/faults/own_faults.ts", render: ownFaultsTable },
    {
      name: "GATEWAY_FAULTS",
      file: "src/emulator/faults/gateway_faults.ts",
      render: () => gatewayFaultsTable(raised),
    },
  ];
}

/** `table` as `doc` shows it now. */
export function shownFaultTable(doc: string, table: GeneratedTable): string {
  return tableIn(doc, PAGE, table);
}

/** `doc` with every fault table as the code has it. */
export function withFaultTables(doc: string, raised: Raised): string {
  return faultTables(raised).reduce((page, table) => withTableIn(page, PAGE, table), doc);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const doc = readFileSync(EMULATOR_DOC, "utf8");
  const next = withFaultTables(doc, await raisedByEachGatewayFault());
  if (next === doc) console.log(`${EMULATOR_DOC}: the fault tables are up to date.`);
  else {
    writeFileSync(EMULATOR_DOC, next);
    console.log(`${EMULATOR_DOC}: the fault tables were regenerated.`);
  }
}
