/** @module Run-wide settings: `BENCH_QUICK=1` shrinks every iteration count about tenfold (smoke runs). */

/** True when `BENCH_QUICK` is set to anything but "" or "0". */
export const QUICK = !["", "0", undefined].includes(process.env.BENCH_QUICK);

/** `n` for a full run, about a tenth of it (at least `min`) for a quick one. */
export function scaled(n: number, min = 1): number {
  return QUICK ? Math.max(min, Math.round(n / 10)) : n;
}
