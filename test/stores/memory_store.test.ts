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
