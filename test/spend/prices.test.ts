import { describe, expect, it } from "vitest";
import { Prices } from "../../src/spend/prices.js";

describe("Prices", () => {
  const prices = new Prices({ m: { input: 2, output: 10, cachedInput: 5 } });

  it("prices cached prompt tokens at cachedInput, at most the whole prompt", () => {
    expect(prices.cost("m", { inputTokens: 1e6, outputTokens: 0, cachedInputTokens: 4e5 })).toBe(
      3.2,
    );
    expect(prices.cost("m", { inputTokens: 1e6, outputTokens: 0, cachedInputTokens: 2e6 })).toBe(5);
    expect(prices.cost("other", { inputTokens: 1, outputTokens: 1 })).toBeUndefined();
  });

  it("prices a worst case's prompt at the dearer of input and cachedInput", () => {
    expect(prices.cost("m", { inputTokens: 1e6, outputTokens: 1e5 }, { worstCase: true })).toBe(6);
    expect(prices.cost("m", { inputTokens: 1e6, outputTokens: 1e5 })).toBe(3);
  });
});
