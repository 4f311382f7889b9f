/** @module Interleaved measuring: contenders take turns in rounds (the order rotating), so drift hits all alike. */

/** Something measured one call at a time; `run` returns the call's measurement. */
export interface Measured<T> {
  name: string;
  run: () => Promise<T>;
}

/** Something timed one call at a time. */
export type Contender = Measured<unknown>;

export interface RoundsOptions {
  /** Unrecorded calls per contender before the first round. */
  warmup: number;
  rounds: number;
  /** Recorded calls per contender per round. */
  perRound: number;
}

/** Runs the contenders in rotating rounds; returns each call's measurement by contender name. */
export async function collectInterleaved<T>(
  contenders: readonly Measured<T>[],
  { warmup, rounds, perRound }: RoundsOptions,
): Promise<Map<string, T[]>> {
  for (const contender of contenders) {
    for (let i = 0; i < warmup; i++) await contender.run();
  }
  const results = new Map(contenders.map((c) => [c.name, [] as T[]]));
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const contender = contenders[(round + k) % contenders.length]!;
      const into = results.get(contender.name)!;
      for (let i = 0; i < perRound; i++) into.push(await contender.run());
    }
  }
  return results;
}

/** Times each call of each contender, keeping each round's durations apart for paired comparisons. */
export async function timeRounds(
  contenders: readonly Contender[],
  { warmup, rounds, perRound }: RoundsOptions,
): Promise<Map<string, number[][]>> {
  for (const contender of contenders) {
    for (let i = 0; i < warmup; i++) await contender.run();
  }
  const results = new Map(contenders.map((c) => [c.name, [] as number[][]]));
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const contender = contenders[(round + k) % contenders.length]!;
      const durations: number[] = [];
      for (let i = 0; i < perRound; i++) {
        const started = performance.now();
        await contender.run();
        durations.push(performance.now() - started);
      }
      results.get(contender.name)!.push(durations);
    }
  }
  return results;
}
