import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../src/stores/memory_store.js";
import { fitsBudget, isUsageStore } from "../../src/stores/usage_store.js";

const EMPTY = { spent: 0, reserved: 0 };

describe("fitsBudget", () => {
  it("refuses a reservation larger than what is left, though the budget is not reached yet", () => {
    expect(fitsBudget({ spent: 2, reserved: 0 }, 1, 3)).toBe(true);
    expect(fitsBudget({ spent: 2, reserved: 0 }, 2, 3)).toBe(false);
  });

  it("lets a reservation over the budget by float noise (a billionth of it) fill it", () => {
    expect(fitsBudget(EMPTY, 1 + 1e-9, 1)).toBe(true);
    expect(fitsBudget(EMPTY, 1 + 3e-9, 1)).toBe(false);
  });

  it("scales the float noise with the budget: a millionth of a unit on a budget of a million is noise", () => {
    expect(fitsBudget(EMPTY, 1_000_000.0005, 1_000_000)).toBe(true);
    expect(fitsBudget({ spent: 1_000_000 - 0.0015, reserved: 0 }, 0, 1_000_000)).toBe(true);
  });

  it("counts a budget spent to within half the float noise of its end as reached", () => {
    expect(fitsBudget({ spent: 2 - 1e-9, reserved: 0 }, 0, 2)).toBe(false);
  });
});

describe("isUsageStore", () => {
  const methods = {
    reserve() {},
    settle() {},
    charge() {},
    budgetState() {},
    resetBudget() {},
    takeRate() {},
    penalizeRate() {},
  };

  it("takes an object with the seven methods, such as a MemoryStore", () => {
    expect(isUsageStore(new MemoryStore())).toBe(true);
    expect(isUsageStore({ ...methods })).toBe(true);
  });

  it("refuses null, a function and an object missing a method or holding one that is not a function", () => {
    expect(isUsageStore(null)).toBe(false);
    expect(isUsageStore(Object.assign(() => {}, methods))).toBe(false);
    expect(isUsageStore({})).toBe(false);
    expect(isUsageStore({ reserve() {} })).toBe(false);
    const { penalizeRate: _, ...sixMethods } = methods;
    expect(isUsageStore(sixMethods)).toBe(false);
    expect(isUsageStore({ ...methods, charge: "charge" })).toBe(false);
  });
});
