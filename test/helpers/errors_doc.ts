/**
 * @module The table "By the gateway's `code`" of docs/errors.md, generated from `GATEWAY_CODES`
 * (src/errors/gateway_codes.ts), so the page cannot drift from what the mapper does. Run
 * `npm run docs:errors` to rewrite it; test/errors_doc.test.ts fails while they differ.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as errors from "../../src/errors/errors.js";
import { fill, GATEWAY_CODES, type GatewayCode } from "../../src/errors/gateway_codes.js";

/** The page, from the repository root. */
export const ERRORS_DOC = "docs/errors.md";
/** The command that regenerates the table, for messages. */
export const REGENERATE = "npm run docs:errors";

const BEGIN = `<!-- generated from GATEWAY_CODES (src/errors/gateway_codes.ts) by \`${REGENERATE}\`: edit the table there -->`;
const END = "<!-- end of the generated table -->";

/** What a row's `{…}` parts read as on the page. */
const PARTS = {
  message: "*its message*",
  subject: 'model "…"',
  models:
    "*Then, when the service lists its models, the near misses of yours and the IDs it lists ([below](#unknown-model-ids-the-listed-models)).*",
};

const HEADER = [
  "| status sent | `code` | class | retryable | what it means | what to change |",
  "| --- | --- | --- | --- | --- | --- |",
];

/** `503 (or 404)`, and `(passed through)` for a model server's code. */
function statusCell(row: GatewayCode): string {
  const [first, ...others] = row.status;
  const also = others.length > 0 ? ` (or ${others.join(", ")})` : "";
  return `${first}${also}${row.setBy === "model server" ? " (passed through)" : ""}`;
}

/** The class, and the public class it also is when it extends one (`BadRequestError`). */
function classCell(row: GatewayCode): string {
  let parent: string | undefined;
  for (let p = Object.getPrototypeOf(row.cls); p && !parent; p = Object.getPrototypeOf(p)) {
    const name = (p as { name?: string }).name;
    if (name && name !== row.cls.name && Object.hasOwn(errors, name)) parent = name;
  }
  const also = parent && parent !== "InferenceServiceError" ? ` (a \`${parent}\`)` : "";
  return `\`${row.cls.name}\`${also}`;
}

const cell = (text: string) => text.replace(/\|/g, "\\|");

/** Every cell of a row but its code. */
function cellsOf(row: GatewayCode): string[] {
  return [
    statusCell(row),
    classCell(row),
    row.retryable ? "yes" : "no",
    fill(row.summary, PARTS),
    fill(row.hint, PARTS),
  ].map(cell);
}

/** The Markdown table: one line per run of rows that differ in their code alone. */
export function gatewayCodesTable(rows: readonly GatewayCode[] = GATEWAY_CODES): string {
  const lines: Array<{ codes: string[]; cells: string[] }> = [];
  for (const row of rows) {
    const cells = cellsOf(row);
    const last = lines.at(-1);
    if (last && last.cells.join("|") === cells.join("|")) last.codes.push(row.code);
    else lines.push({ codes: [row.code], cells });
  }
  const body = lines.map(({ codes, cells }) => {
    const [status, ...rest] = cells;
    return `| ${[status, codes.map((code) => `\`${code}\``).join(", "), ...rest].join(" | ")} |`;
  });
  return [...HEADER, ...body].join("\n");
}

/** Where the generated table stands in `doc`; throws when the markers are missing. */
function section(doc: string): { start: number; end: number } {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start === -1 || end < start) {
    throw new Error(`${ERRORS_DOC} has lost the markers of its generated table:\n${BEGIN}\n${END}`);
  }
  return { start: start + BEGIN.length, end };
}

/** The table as `doc` shows it now. */
export function shownTable(doc: string): string {
  const { start, end } = section(doc);
  return doc.slice(start, end).trim();
}

/** `doc` with its generated table replaced by `table`. */
export function withTable(doc: string, table: string = gatewayCodesTable()): string {
  const { start, end } = section(doc);
  return `${doc.slice(0, start)}\n\n${table}\n\n${doc.slice(end)}`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const doc = readFileSync(ERRORS_DOC, "utf8");
  const next = withTable(doc);
  if (next === doc) console.log(`${ERRORS_DOC}: the table is up to date.`);
  else {
    writeFileSync(ERRORS_DOC, next);
    console.log(`${ERRORS_DOC}: the table of gateway codes was regenerated.`);
  }
}
