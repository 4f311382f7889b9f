/**
 * docs/emulator.md's fault tables are generated from the emulator's tables of faults, whose
 * summaries the console shows beside each switch: the page fails this test as soon as it
 * disagrees with them, and says how to regenerate it.
 */
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import {
  EMULATOR_DOC,
  faultTables,
  type Raised,
  REGENERATE_FAULTS,
  raisedByEachGatewayFault,
  shownFaultTable,
} from "../scripts/faults_doc.js";
import { FAULT_KINDS, FAULT_SUMMARIES } from "../src/emulator/faults/faults.js";

let raised: Raised;

beforeAll(async () => {
  raised = await raisedByEachGatewayFault();
});

describe("docs/emulator.md's fault tables", () => {
  it("show what the fault tables generate", () => {
    const doc = readFileSync(EMULATOR_DOC, "utf8");
    for (const table of faultTables(raised)) {
      expect(
        shownFaultTable(doc, table),
        `${EMULATOR_DOC} disagrees with ${table.name} (${table.file}); run \`${REGENERATE_FAULTS}\``,
      ).toBe(table.render());
    }
  });

  it("name every fault the X-Emulator-Fault header takes once, with the console's summary", () => {
    const doc = readFileSync(EMULATOR_DOC, "utf8");
    const shown = faultTables(raised).flatMap((table) =>
      shownFaultTable(doc, table)
        .split("\n")
        .slice(2)
        .map((line) => /^\| `([^`]+)` \| (.*?) \|/.exec(line)!.slice(1, 3)),
    );
    const named = shown.map(([name]) => name).filter((name) => name !== "latency=<ms>");
    expect(named).toEqual([...FAULT_KINDS]);
    for (const [name, summary] of shown) {
      if (name !== "latency=<ms>") expect(summary, name).toBe(FAULT_SUMMARIES[name!]);
    }
  });

  it("have a one-line summary for every fault, short enough to sit beside a switch", () => {
    for (const kind of FAULT_KINDS) {
      const summary = FAULT_SUMMARIES[kind];
      expect(summary, kind).toMatch(/^[^\n|]{20,140}$/);
    }
  });

  it("say which class the package raises for every gateway reply", () => {
    for (const [name, cell] of Object.entries(raised)) {
      expect(cell, name).toMatch(/^`\w+Error`( \(a `\w+Error`\))?, (retried|not retried)$/);
    }
  });
});
