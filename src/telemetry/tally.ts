/**
 * @module `Tally`: a monotonic sum per attribute set that the package keeps itself and reports
 * through an observable counter when the app's metric reader collects. A call adds to a number in
 * a map instead of recording a measurement — the SDK's sorting and hashing of each measurement's
 * attributes is the largest part of what a metric point costs — and the exported data is the same
 * `Sum` a counter gives.
 */
import { telemetryFailed } from "./failures.js";
import type { Attributes, ObservableResult } from "./otel.js";

/** How many attribute sets one tally keeps apart: the SDK's default cardinality limit. */
const LIMIT = 2000;
/** Where sums past the limit go, as the SDK puts its own overflow. */
const OVERFLOW: Attributes = { "otel.metric.overflow": true };

/** One sum of a tally, with the attributes it is reported with. */
interface Sum {
  readonly attributes: Attributes;
  value: number;
}

/** A monotonic sum per attribute set: see the module's comment. */
export class Tally {
  readonly #sums = new Map<string, Sum>();

  /** Adds `value` to the sum named by `key`, which `attributes` describes. */
  add(value: number, key: string, attributes: Attributes): void {
    let sum = this.#sums.get(key);
    if (sum === undefined) {
      const full = this.#sums.size >= LIMIT;
      const at = full ? "\u0000overflow" : key;
      sum = this.#sums.get(at) ?? { attributes: full ? OVERFLOW : attributes, value: 0 };
      this.#sums.set(at, sum);
    }
    sum.value += value;
  }

  /**
   * Reports every sum (the reader asked). Runs in the app's metric reader: a result that throws
   * is reported once and ignored, not thrown into the reader's collection.
   */
  observe(result: ObservableResult): void {
    try {
      for (const { value, attributes } of this.#sums.values()) result.observe(value, attributes);
    } catch (error) {
      telemetryFailed("report the counters to the metric reader", error);
    }
  }
}
