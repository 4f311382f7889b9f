import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../src/stores/memory_store.js";
import { describeStoreContract } from "../helpers/store_cases.js";

describeStoreContract("MemoryStore", () => new MemoryStore());

describe("MemoryStore bookkeeping", () => {
  it("counts the holds of calls in flight and forgets each once settled", async () => {
    const store = new MemoryStore();
    await store.reserve("a", { id: "1", amount: 1, budget: 5 });
    await store.reserve("b", { id: "2", amount: 1, budget: 5 });
    expect(store.reservations).toBe(2);
    await store.settle("a", "1", 0.5);
    await store.settle("b", "2", 0);
    expect(store.reservations).toBe(0);
  });
});

describe("MemoryStore reservations", () => {
  it("holds exactly 0 once every call has settled, whatever float dust the amounts leave", async () => {
    const store = new MemoryStore();
    await store.reserve("k", { id: "1", amount: 0.1, budget: 5 });
    await store.reserve("k", { id: "2", amount: 0.2, budget: 5 });
    await store.settle("k", "1", 0);
    await store.settle("k", "2", 0);
    expect(await store.budgetState("k")).toEqual({ spent: 0, reserved: 0 });
  });
});
