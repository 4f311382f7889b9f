/** @module Order statistics and number formatting shared by the benchmarks. */

/** Median, 95th percentile and count of a set of samples (milliseconds or any unit). */
export interface Summary {
  median: number;
  p95: number;
  min: number;
  max: number;
  n: number;
}

/** The q-quantile (0–1) of already sorted samples, interpolated between neighbours. */
function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    median: quantile(sorted, 0.5),
    p95: quantile(sorted, 0.95),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
    n: sorted.length,
  };
}

/**
 * The ratio of two contenders measured in the same rounds: each round's median of `a` over that
 * round's median of `b`, then the median (and quartiles) of those ratios. Pairing by round cancels
 * the drift that other load on the machine causes between rounds.
 */
export function pairedRatio(
  a: readonly (readonly number[])[],
  b: readonly (readonly number[])[],
): { median: number; q1: number; q3: number } {
  const ratios = a
    .map((round, i) => summarize(round).median / summarize(b[i] ?? []).median)
    .filter(Number.isFinite)
    .sort((x, y) => x - y);
  return { median: quantile(ratios, 0.5), q1: quantile(ratios, 0.25), q3: quantile(ratios, 0.75) };
}

/** Milliseconds with precision that suits their size: `0.412 ms`, `12.3 ms`, `1,234 ms`. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return "–";
  if (value < 1) return `${value.toFixed(3)} ms`;
  if (value < 100) return `${value.toFixed(2)} ms`;
  return `${Math.round(value).toLocaleString("en-US")} ms`;
}

/** Seconds for long, computed durations: `94.5 s`. */
export function seconds(valueMs: number): string {
  return `${(valueMs / 1000).toFixed(1)} s`;
}

/** A ratio against a baseline: `1.03×`. */
export function ratio(value: number, baseline: number): string {
  if (!Number.isFinite(value) || !Number.isFinite(baseline) || baseline === 0) return "–";
  const r = value / baseline;
  return `${r < 10 ? r.toFixed(2) : r < 1000 ? r.toFixed(1) : Math.round(r).toLocaleString("en-US")}×`;
}

/** An integer with thousands separators. */
export function int(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "–";
}

/** Bytes as MB (decimal, 1 MB = 10^6 bytes) or kB. */
export function bytes(value: number): string {
  if (Math.abs(value) >= 1e6) return `${(value / 1e6).toFixed(1)} MB`;
  return `${(value / 1e3).toFixed(1)} kB`;
}
