import { describe, expect, it } from "vitest";
import { holdersOf, type SpendGuard, spendGuardsOf } from "../../src/spend/spend_guard.js";
import { UsageTracker } from "../../src/spend/usage_tracker.js";
import { MemoryStore } from "../../src/stores/memory_store.js";

const guard = (sharedBudget?: { store: object; key: string }) =>
  ({ sharedBudget }) as unknown as SpendGuard;

describe("spendGuardsOf", () => {
  it("finds each tracker among a run's handlers once, and nothing in no handlers", () => {
    const tracker = new UsageTracker();
    expect(spendGuardsOf([{}, tracker, "x", tracker])).toEqual([tracker]);
    expect(spendGuardsOf(undefined)).toEqual([]);
  });
});

describe("holdersOf", () => {
  it("lets the first guard of each shared budget hold, and every guard without one", () => {
    const store = new MemoryStore();
    const other = new MemoryStore();
    expect(
      holdersOf([
        guard(),
        guard({ store, key: "a" }),
        guard({ store, key: "a" }),
        guard({ store, key: "b" }),
        guard({ store: other, key: "a" }),
        guard(),
      ]),
    ).toEqual([true, true, false, true, true, true]);
  });
});
