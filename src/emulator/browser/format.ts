/** @module How the console writes numbers and times: amounts of credit, latencies, sizes, clock times. */

/**
 * An amount of credit, as a person reads it: whole numbers plain, at most four decimals from 1
 * up, three significant digits below 1 — a call's cost of 0.00012 credit reads `0.00012`, never
 * `0.000000` (the emulator's prices are per million tokens, so one call costs very little).
 */
export function money(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (value === 0) return "0";
  const digits = Math.abs(value) >= 1 ? Number(value.toFixed(4)) : Number(value.toPrecision(3));
  return String(digits);
}

/** A duration in milliseconds: `240 ms`, `1.3 s`, `2 min 5 s`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(1))} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms - minutes * 60_000) / 1000)} s`;
}

/** A count of characters: `812 characters`, `32.8k characters`. */
export function characters(count: number): string {
  return count < 1000 ? `${count} characters` : `${Number((count / 1000).toFixed(1))}k characters`;
}

/** The local clock time of an ISO date. */
export function shortTime(iso: string): string {
  return new Date(iso).toLocaleTimeString();
}
