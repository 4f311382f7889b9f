/**
 * @module The three tables of docs/errors.md the mapper reads, generated from them — "By
 * status" from `STATUS_ROWS`, "By the gateway's `code`" from `GATEWAY_CODES`, "Without a
 * response, or after one began" from `FAILURE_ROWS` — so the page cannot drift from what the
 * mapper does. Run `npm run docs:errors` to rewrite them; test/errors_doc.test.ts fails while they
 * differ.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as errors from "../src/errors/errors.js";
import { FAILURE_ROWS, type FailureRow } from "../src/errors/failure_rows.js";
import {
  type ErrorClass,
  fill,
  GATEWAY_CODES,
  type GatewayCode,
} from "../src/errors/gateway_codes.js";
import { STATUS_ROWS, type StatusRow } from "../src/errors/status_rows.js";
import {
  cell,
  type GeneratedPage,
  type GeneratedTable,
  tableIn,
  withTableIn,
} from "./generated_table.js";

export type { GeneratedTable };

/** The page, from the repository root. */
export const ERRORS_DOC = "docs/errors.md";
/** The command that regenerates the table, for messages. */
export const REGENERATE = "npm run docs:errors";

const PAGE: GeneratedPage = { page: ERRORS_DOC, command: REGENERATE };

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
  const who =
    row.setBy === "model server"
      ? " (passed through)"
      : row.setBy === "emulator replay"
        ? " (the emulator, replaying a cassette)"
        : "";
  return `${first}${also}${who}`;
}

/** The class, and the public class it also is when it extends one (`BadRequestError`). */
export function classCell(cls: ErrorClass): string {
  let parent: string | undefined;
  for (let p = Object.getPrototypeOf(cls); p && !parent; p = Object.getPrototypeOf(p)) {
    const name = (p as { name?: string }).name;
    if (name && name !== cls.name && Object.hasOwn(errors, name)) parent = name;
  }
  const also = parent && parent !== "InferenceServiceError" ? ` (a \`${parent}\`)` : "";
  return `\`${cls.name}\`${also}`;
}

/** Every cell of a row but its code. */
function cellsOf(row: GatewayCode): string[] {
  return [
    statusCell(row),
    classCell(row.cls),
    row.retryable ? "yes" : "no",
    fill(row.summary, PARTS),
    fill(row.hint, PARTS),
  ].map(cell);
}

/** `` `code` ``, and the message a row reads the code with, when it reads one. */
function codeCell(row: GatewayCode): string {
  const says = row.message ? ` with the message "${row.message.says}"` : "";
  return cell(`\`${row.code}\`${says}`);
}

/** The Markdown table: one line per run of rows that differ in their code alone. */
export function gatewayCodesTable(rows: readonly GatewayCode[] = GATEWAY_CODES): string {
  const lines: Array<{ codes: string[]; cells: string[] }> = [];
  for (const row of rows) {
    const cells = cellsOf(row);
    const last = lines.at(-1);
    const code = codeCell(row);
    if (last && last.cells.join("|") === cells.join("|")) last.codes.push(code);
    else lines.push({ codes: [code], cells });
  }
  const body = lines.map(({ codes, cells }) => {
    const [status, ...rest] = cells;
    return `| ${[status, codes.join(", "), ...rest].join(" | ")} |`;
  });
  return [...HEADER, ...body].join("\n");
}

/** "By status": one line per row of `STATUS_ROWS`. */
export function statusTable(rows: readonly StatusRow[] = STATUS_ROWS): string {
  return [
    "| condition | class | retryable | what a program should do |",
    "| --- | --- | --- | --- |",
    ...rows.map(
      ({ cls, doc }) =>
        `| ${[doc.condition, classCell(cls), cls.retryable ? "yes" : "no", doc.action].map(cell).join(" | ")} |`,
    ),
  ].join("\n");
}

/** "Without a response, or after one began": one line per row of `FAILURE_ROWS`. */
export function failureTable(rows: readonly FailureRow[] = FAILURE_ROWS): string {
  return [
    "| condition | class | `code` (set by this package) | retryable | what a program should do |",
    "| --- | --- | --- | --- | --- |",
    ...rows.map(({ cls, code, doc }) => {
      const cells = cls
        ? [classCell(cls), code ? `\`${code}\`` : "—", cls.retryable ? "yes" : "no"]
        : ["by its code and status", "the service's", "per that row"];
      return `| ${[doc.condition, ...cells, doc.action].map(cell).join(" | ")} |`;
    }),
  ].join("\n");
}

/** The generated tables of docs/errors.md, in the order the page shows them. */
export const TABLES: readonly GeneratedTable[] = [
  { name: "STATUS_ROWS", file: "src/errors/status_rows.ts", render: () => statusTable() },
  { name: "GATEWAY_CODES", file: "src/errors/gateway_codes.ts", render: () => gatewayCodesTable() },
  { name: "FAILURE_ROWS", file: "src/errors/failure_rows.ts", render: () => failureTable() },
];

/** `table` as `doc` shows it now. */
export function shownTable(doc: string, table: GeneratedTable = TABLES[1]!): string {
  return tableIn(doc, PAGE, table);
}

/** `doc` with `table` replaced by `text` (by default, what the code generates). */
export function withTable(doc: string, text?: string, table: GeneratedTable = TABLES[1]!): string {
  return withTableIn(doc, PAGE, table, text);
}

/** `doc` with every generated table as the code has it. */
export function withTables(doc: string): string {
  return TABLES.reduce((page, table) => withTable(page, undefined, table), doc);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const doc = readFileSync(ERRORS_DOC, "utf8");
  const next = withTables(doc);
  if (next === doc) console.log(`${ERRORS_DOC}: the tables are up to date.`);
  else {
    writeFileSync(ERRORS_DOC, next);
    console.log(`${ERRORS_DOC}: the tables of the error mapper were regenerated.`);
  }
}
