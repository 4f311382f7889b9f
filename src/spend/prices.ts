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
   * The cost of `usage` at the model's price, its cached prompt tokens at `cachedInput`; with
   * `worstCase`, every prompt token at the dearer of `input` and `cachedInput` (a reservation
   * does not know how much of the prompt the cache will hold). Undefined without a price.
   */
  cost(model: string, usage: TokenCount, { worstCase = false } = {}): number | undefined {
    const price = this.#byModel.get(model);
    if (price === undefined) return undefined;
    const cachedPrice = price.cachedInput ?? price.input;
    if (worstCase) {
      const input = Math.max(price.input, cachedPrice);
      return (usage.inputTokens * input + usage.outputTokens * price.output) / 1e6;
    }
    const cached = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens);
    return (
      ((usage.inputTokens - cached) * price.input +
        cached * cachedPrice +
        usage.outputTokens * price.output) /
      1e6
    );
  }
}
