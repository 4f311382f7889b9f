/** @module Micro-timings without network: µs per operation, median over interleaved rounds. */

import { collectInterleaved } from "./rounds.js";
import { summarize } from "./stats.js";

/** One operation timed in isolation; `units` operations happen per `run` (default 1). */
export interface MicroCase {
  name: string;
  run: () => Promise<unknown>;
  units?: number;
}

/** µs per unit of each case: `repeat` back-to-back runs per round, median over `rounds` rounds. */
export async function microTimings(
  cases: readonly MicroCase[],
  repeat: number,
  rounds: number,
): Promise<Map<string, number>> {
  const results = await collectInterleaved(
    cases.map(({ name, run, units = 1 }) => ({
      name,
      run: async () => {
        const started = performance.now();
        for (let i = 0; i < repeat; i++) await run();
        return ((performance.now() - started) * 1000) / (repeat * units);
      },
    })),
    { warmup: 1, rounds, perRound: 1 },
  );
  return new Map([...results].map(([name, list]) => [name, summarize(list).median]));
}
