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

  it("prices cache writes at cacheWrite and those that live an hour at cacheWrite1h, the rest of the prompt at input", () => {
    const claude = new Prices({
      c: { input: 3, cachedInput: 0.3, cacheWrite: 3.75, cacheWrite1h: 6, output: 15 },
    });
    const usage = {
      inputTokens: 1e6,
      outputTokens: 0,
      cachedInputTokens: 4e5,
      cacheWriteTokens: 5e5,
      cacheWrite1hTokens: 2e5,
    };
    // 100k at 3, 400k at 0.3, 300k at 3.75, 200k at 6.
    expect(claude.cost("c", usage)).toBeCloseTo(0.3 + 0.12 + 1.125 + 1.2, 12);
    // Reads and writes that overlap (OpenAI counts each from the start of the prompt) leave no
    // negative rest, as the gateway bills them.
    expect(
      claude.cost("c", { ...usage, cacheWriteTokens: 9e5, cacheWrite1hTokens: 0 }),
    ).toBeCloseTo(0.12 + 3.375, 12);
    // The hour's writes are never more than the writes.
    expect(claude.cost("c", { inputTokens: 1e6, outputTokens: 0, cacheWrite1hTokens: 5 })).toBe(3);
    // Unpriced writes cost input; unpriced hour writes cost cacheWrite.
    const plain = new Prices({ p: { input: 2, output: 0, cacheWrite: 4 } });
    expect(
      plain.cost("p", {
        inputTokens: 1e6,
        outputTokens: 0,
        cacheWriteTokens: 1e6,
        cacheWrite1hTokens: 1e6,
      }),
    ).toBe(4);
    expect(
      new Prices({ p: { input: 2, output: 0 } }).cost("p", {
        inputTokens: 1e6,
        outputTokens: 0,
        cacheWriteTokens: 1e6,
      }),
    ).toBe(2);
  });

  it("prices a worst case's prompt at the dearest rate it may be billed at, a 1-hour write included", () => {
    const claude = new Prices({
      c: { input: 3, cachedInput: 0.3, cacheWrite: 3.75, cacheWrite1h: 6, output: 15 },
    });
    expect(claude.cost("c", { inputTokens: 1e6, outputTokens: 1e6 }, { worstCase: true })).toBe(21);
    const fiveMinutes = new Prices({ c: { input: 3, cacheWrite: 3.75, output: 15 } });
    expect(fiveMinutes.cost("c", { inputTokens: 1e6, outputTokens: 0 }, { worstCase: true })).toBe(
      3.75,
    );
  });
});
