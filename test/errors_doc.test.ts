/**
 * docs/errors.md's table of the gateway's codes is generated from the table the mapper reads:
 * the page fails this test as soon as the two disagree, and says how to regenerate it.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GATEWAY_CODES } from "../src/errors/gateway_codes.js";
import {
  ERRORS_DOC,
  gatewayCodesTable,
  REGENERATE,
  shownTable,
  withTable,
} from "./helpers/errors_doc.js";

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
