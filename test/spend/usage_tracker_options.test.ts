import { describe, expect, it } from "vitest";
import { validateUsageTrackerOptions } from "../../src/spend/usage_tracker_options.js";
import { configurationProblem } from "../helpers/errors.js";

describe("the usage tracker's options", () => {
  it("name a model's price by its path, and an unknown option with the list of options", () => {
    expect(
      configurationProblem(() =>
        validateUsageTrackerOptions({ prices: { m: { input: -1, output: 1 } } }),
      ),
    ).toEqual({
      option: "prices.m.input",
      message: "`prices.m.input` must be a number ≥ 0 (price per million tokens); got -1.",
    });
    expect(
      configurationProblem(() =>
        validateUsageTrackerOptions({ prices: { m: { input: 1, output: 1, cachedInput: -0.1 } } }),
      ),
    ).toEqual({
      option: "prices.m.cachedInput",
      message: "`prices.m.cachedInput` must be a number ≥ 0 (price per million tokens); got -0.1.",
    });
    expect(configurationProblem(() => validateUsageTrackerOptions({ price: {} } as never))).toEqual(
      {
        option: "price",
        message:
          "`price` is not an option of UsageTracker; it takes prices, budget, currency, onUsage, maxRecords, store, budgetKey, defaultReplyTokens, and prices of { input, output, cachedInput, cacheWrite, cacheWrite1h }.",
      },
    );
  });

  it("refuse a budget without prices", () => {
    expect(configurationProblem(() => validateUsageTrackerOptions({ budget: 1 })).option).toBe(
      "budget",
    );
  });
});
