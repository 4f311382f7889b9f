/**
 * @module Prices per model, and the cost of a call's tokens at them: the one rule every figure of
 * a `UsageTracker` (records, totals, reservations, the budget) is computed by.
 */
import type { TokenCount } from "./spend_guard.js";
import type { ModelPrice } from "./usage_tracker_options.js";

/** The prices of a tracker, by model ID or Service-Name. */
export class Prices {
  readonly #byModel: ReadonlyMap<string, ModelPrice>;

  constructor(prices: Readonly<Record<string, ModelPrice>>) {
    this.#byModel = new Map(Object.entries(prices));
  }

  /** The price given for a model, if any. */
  of(model: string): ModelPrice | undefined {
    return this.#byModel.get(model);
  }

  /**
   * The cost of `usage` at the model's price, as the gateway bills it: its cached prompt tokens
   * at `cachedInput`, the tokens it wrote to the cache at `cacheWrite` (`cacheWrite1h` for those
   * that live an hour), the rest of the prompt at `input`. With `worstCase`, every prompt token
   * at the dearest of those prices (a reservation does not know how much of the prompt the
   * cache will hold, and a gateway may write the cache without being asked). Undefined without
   * a price.
   */
  cost(model: string, usage: TokenCount, { worstCase = false } = {}): number | undefined {
    const price = this.#byModel.get(model);
    if (price === undefined) return undefined;
    const rates = ratesOf(price);
    if (worstCase) {
      const input = Math.max(rates.input, rates.read, rates.write, rates.write1h);
      return (usage.inputTokens * input + usage.outputTokens * rates.output) / 1e6;
    }
    const read = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens);
    const written = usage.cacheWriteTokens ?? 0;
    const anHour = Math.min(usage.cacheWrite1hTokens ?? 0, written);
    // As the gateway does: reads and writes that overlap in the counts never make the rest negative.
    const rest = Math.max(0, usage.inputTokens - read - written);
    return (
      (rest * rates.input +
        read * rates.read +
        (written - anHour) * rates.write +
        anHour * rates.write1h +
        usage.outputTokens * rates.output) /
      1e6
    );
  }
}

/** A price with its defaults filled in: reads and writes at `input` unless priced. */
function ratesOf(price: ModelPrice) {
  const write = price.cacheWrite ?? price.input;
  return {
    input: price.input,
    output: price.output,
    read: price.cachedInput ?? price.input,
    write,
    write1h: price.cacheWrite1h ?? write,
  };
}
