import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../../src/errors/errors.js";
import { validateUsageTrackerOptions } from "../../src/spend/usage_tracker_options.js";

/** The ConfigurationError `fn` throws, as the fields a program reads. */
function problem(fn: () => unknown): { option: string; message: string } {
  try {
    fn();
  } catch (error) {
    expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
    const { option, message } = error as ConfigurationError;
    return { option, message };
  }
  throw new Error("expected a ConfigurationError");
}

describe("the usage tracker's options", () => {
  it("name a model's price by its path, and an unknown option with the list of options", () => {
    expect(
      problem(() => validateUsageTrackerOptions({ prices: { m: { input: -1, output: 1 } } })),
    ).toEqual({
      option: "prices.m.input",
      message: "`prices.m.input` must be a number ≥ 0 (price per million tokens); got -1.",
    });
    expect(
      problem(() =>
        validateUsageTrackerOptions({ prices: { m: { input: 1, output: 1, cachedInput: -0.1 } } }),
      ),
    ).toEqual({
      option: "prices.m.cachedInput",
      message: "`prices.m.cachedInput` must be a number ≥ 0 (price per million tokens); got -0.1.",
    });
    expect(problem(() => validateUsageTrackerOptions({ price: {} } as never))).toEqual({
      option: "price",
      message:
        "`price` is not an option of UsageTracker; it takes prices, budget, currency, onUsage, maxRecords, store, budgetKey, defaultReplyTokens, and prices of { input, output, cachedInput }.",
    });
  });

  it("refuse a budget without prices", () => {
    expect(problem(() => validateUsageTrackerOptions({ budget: 1 })).option).toBe("budget");
  });
});
