import { afterEach, describe, expect, it, vi } from "vitest";
import { BudgetExceededError } from "../../src/errors/errors.js";
import { Budget } from "../../src/spend/budget.js";
import { MemoryStore } from "../../src/stores/memory_store.js";

afterEach(() => {
  vi.restoreAllMocks();
});

/** A store holding 3 spent and 1.5 reserved under key "k". */
async function storeWithSpend() {
  const store = new MemoryStore();
  await store.charge("k", 3);
  await store.reserve("k", { id: "held", amount: 1.5, budget: 100 });
  return store;
}

describe("Budget", () => {
  it("shows what is left of the limit, never below 0, and only the store's figures without one", async () => {
    const store = await storeWithSpend();
    expect(await new Budget(store, "k", 10, "credit").status()).toEqual({
      spent: 3,
      reserved: 1.5,
      budget: 10,
      remaining: 5.5,
    });
    expect((await new Budget(store, "k", 4, undefined).status()).remaining).toBe(0);
    expect(await new Budget(store, "k", undefined, undefined).status()).toEqual({
      spent: 3,
      reserved: 1.5,
    });
  });

  it("refuses a model that cannot reserve once spent and reserved together reach the limit", async () => {
    const store = await storeWithSpend();
    await expect(new Budget(store, "k", 4.5, "credit").refuseWhenSpent("m")).rejects.toMatchObject({
      name: "BudgetExceededError",
      budget: 4.5,
      spent: 3,
      reserved: 1.5,
    });
    await expect(new Budget(store, "k", 4.6, undefined).refuseWhenSpent("m")).resolves.toBe(
      undefined,
    );
  });

  it("without a limit, holds, charges and resets nothing in its store", async () => {
    const store = await storeWithSpend();
    const unlimited = new Budget(store, "k", undefined, undefined);
    await unlimited.hold("h", 1000, "m");
    await unlimited.charge(7);
    await unlimited.reset();
    await unlimited.refuseWhenSpent("m");
    expect(await store.budgetState("k")).toEqual({ spent: 3, reserved: 1.5 });
  });

  it("holds an amount that fits, and refuses one that does not with what was asked", async () => {
    const store = await storeWithSpend();
    const budget = new Budget(store, "k", 6, "credit");
    await budget.hold("a", 1, "m");
    expect(await store.budgetState("k")).toEqual({ spent: 3, reserved: 2.5 });
    const refused = await budget.hold("b", 1, "m").catch((error: unknown) => error);
    expect(BudgetExceededError.isInstance(refused)).toBe(true);
    expect(refused).toMatchObject({ requested: 1, spent: 3, reserved: 2.5, currency: "credit" });
  });

  it("warns, naming the write, when its store fails to settle or charge, and does not throw", async () => {
    const store = new MemoryStore();
    const down = () => Promise.reject(new Error("down"));
    vi.spyOn(store, "settle").mockImplementation(down);
    vi.spyOn(store, "charge").mockImplementation(down);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const budget = new Budget(store, "k", 10, undefined);
    await budget.settle("a", 1);
    await budget.charge(1);
    expect(warn.mock.calls).toEqual([
      ["UsageTracker could not settle with its store: Error: down"],
      ["UsageTracker could not charge with its store: Error: down"],
    ]);
  });
});
