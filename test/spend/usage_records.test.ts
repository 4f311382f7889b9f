import { describe, expect, it } from "vitest";
import { addTally, emptyTally, summaryTable, tallyOf } from "../../src/spend/usage_records.js";

describe("summaryTable", () => {
  const totals = { calls: 1, failed: 0, inputTokens: 1, outputTokens: 1, totalTokens: 2, cost: 1 };

  it("says what share of the budget is spent, and no share of a budget of 0", () => {
    expect(summaryTable({ m: totals }, totals, "credit", { budget: 4, spent: 1 })).toMatch(
      /\nbudget 4: spent 1 \(25\.0%\)$/,
    );
    expect(summaryTable({}, totals, undefined, { budget: 0, spent: 0 })).toMatch(
      /\nbudget 0: spent 0$/,
    );
  });

  it("shows the tokens written to a cache in a column of their own once a model wrote some", () => {
    const written = { ...totals, cacheWriteTokens: 7 };
    const [header, row] = summaryTable({ m: written }, written, undefined, undefined).split("\n");
    expect(header?.split(/\s+/)).toEqual([
      "model",
      "calls",
      "failed",
      "input",
      "written",
      "output",
      "total",
      "cost",
    ]);
    expect(row?.split(/\s+/)).toEqual(["m", "1", "0", "1", "7", "1", "2", "1"]);
    expect(summaryTable({ m: totals }, totals, undefined, undefined)).not.toContain("written");
  });
});

describe("tallies", () => {
  it("add up calls, failures and tokens", () => {
    const into = emptyTally();
    const failed = tallyOf({
      runId: "r",
      model: "m",
      durationMs: 0,
      inputTokens: 3,
      outputTokens: 2,
      totalTokens: 5,
      inputTokenDetails: { cache_read: 1, cache_creation: 2, ephemeral_1h_input_tokens: 1 },
      error: { name: "Error", message: "x" },
      settlement: "estimated",
    });
    addTally(into, failed);
    addTally(into, failed);
    expect(into).toEqual({
      calls: 2,
      failed: 2,
      refused: 0,
      stopped: 0,
      estimated: 2,
      inputTokens: 6,
      cachedInputTokens: 2,
      cacheWriteTokens: 4,
      cacheWrite1hTokens: 2,
      outputTokens: 4,
      totalTokens: 10,
    });
  });
});
