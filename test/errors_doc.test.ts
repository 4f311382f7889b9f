/**
 * docs/errors.md's table of the gateway's codes is generated from the table the mapper reads:
 * the page fails this test as soon as the two disagree, and says how to regenerate it.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  ERRORS_DOC,
  failureTable,
  gatewayCodesTable,
  REGENERATE,
  shownTable,
  statusTable,
  TABLES,
  withTable,
} from "../scripts/errors_doc.js";
import { FAILURE_ROWS } from "../src/errors/failure_rows.js";
import { GATEWAY_CODES } from "../src/errors/gateway_codes.js";
import { STATUS_ROWS } from "../src/errors/status_rows.js";

describe("docs/errors.md's generated tables", () => {
  it.each(TABLES.map((table) => [table.name, table] as const))(
    "shows the table %s generates",
    (name, table) => {
      const doc = readFileSync(ERRORS_DOC, "utf8");
      expect(
        shownTable(doc, table),
        `${ERRORS_DOC} disagrees with ${name} (${table.file}); run \`${REGENERATE}\` to regenerate its tables`,
      ).toBe(table.render());
    },
  );

  it("has a line for every status row and every failure row, with its class and retryability", () => {
    const statuses = statusTable().split("\n").slice(2);
    expect(statuses).toHaveLength(STATUS_ROWS.length);
    STATUS_ROWS.forEach((row, i) => {
      expect(statuses[i]).toContain(`\`${row.cls.name}\``);
      expect(statuses[i]).toContain(`| ${row.cls.retryable ? "yes" : "no"} |`);
    });
    const failures = failureTable().split("\n").slice(2);
    expect(failures).toHaveLength(FAILURE_ROWS.length);
    FAILURE_ROWS.forEach((row, i) => {
      if (row.cls) expect(failures[i]).toContain(`\`${row.cls.name}\``);
      if (row.code) expect(failures[i]).toContain(`\`${row.code}\``);
    });
  });
});

describe("docs/errors.md's table of gateway codes", () => {
  it("is the one GATEWAY_CODES generates", () => {
    const doc = readFileSync(ERRORS_DOC, "utf8");
    expect(
      shownTable(doc),
      `${ERRORS_DOC} disagrees with GATEWAY_CODES (src/errors/gateway_codes.ts); run \`${REGENERATE}\` to regenerate its table`,
    ).toBe(gatewayCodesTable());
  });

  it("names every code of the table once, with its class and retryability", () => {
    const table = gatewayCodesTable();
    for (const row of GATEWAY_CODES) {
      const lines = table.split("\n").filter((line) => line.includes(`\`${row.code}\``));
      expect(lines, row.code).toHaveLength(1);
      expect(lines[0]).toContain(`| \`${row.cls.name}\``);
      expect(lines[0]).toContain(`| ${row.retryable ? "yes" : "no"} |`);
    }
  });

  it("regenerates only the table, leaving the rest of the page as it is", () => {
    const doc = readFileSync(ERRORS_DOC, "utf8");
    const stale = withTable(doc, "| stale |");
    expect(shownTable(stale)).toBe("| stale |");
    expect(withTable(stale)).toBe(withTable(doc));
    expect(() => shownTable("no markers")).toThrow(/lost the markers/);
  });
});
