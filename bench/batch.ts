/** @module Benchmark 4, batch throughput: `batch()` of 1,000 calls at `maxConcurrency` 1, 8 and 64. */

import { QUICK, scaled } from "./lib/config.js";
import { chatOpenAI, ours, PROMPT } from "./lib/contenders.js";
import { type BenchContext, emulatorTarget, fixedTarget } from "./lib/context.js";
import type { Section } from "./lib/report.js";
import { collectInterleaved } from "./lib/rounds.js";
import { int, ratio, summarize } from "./lib/stats.js";

const CONCURRENCY = [1, 8, 64] as const;

/** Something with LangChain's `batch`. */
interface Batcher {
  batch(inputs: string[], options: { maxConcurrency: number }): Promise<unknown[]>;
}

export async function batch(ctx: BenchContext): Promise<Section> {
  const calls = QUICK ? 100 : 1_000;
  const repeats = scaled(4, 2);
  const warmup = Math.min(calls, 200);
  const inputs = Array.from({ length: calls }, () => PROMPT);
  const rows: string[][] = [];
  const ratios: number[] = [];
  for (const target of [emulatorTarget(ctx.servers), fixedTarget(ctx.servers, "json")]) {
    const models: Array<[string, Batcher]> = [
      ["ChatInferenceService", ours(target)],
      ["ChatOpenAI", chatOpenAI(target)],
    ];
    for (const maxConcurrency of CONCURRENCY) {
      ctx.progress(
        `batch: ${target.label}, maxConcurrency ${maxConcurrency}, ${repeats}× ${calls}`,
      );
      // Warm-up at this concurrency: opens the connections the timed batches will reuse.
      for (const [, model] of models)
        await model.batch(inputs.slice(0, warmup), { maxConcurrency });
      const rates = await collectInterleaved(
        models.map(([name, model]) => ({
          name,
          run: async () => {
            const started = performance.now();
            await model.batch(inputs, { maxConcurrency });
            return calls / ((performance.now() - started) / 1000);
          },
        })),
        { warmup: 0, rounds: repeats, perRound: 1 },
      );
      const oursRate = summarize(rates.get("ChatInferenceService")!).median;
      const baseRate = summarize(rates.get("ChatOpenAI")!).median;
      ratios.push(oursRate / baseRate);
      rows.push([
        target.label,
        String(maxConcurrency),
        int(oursRate),
        int(baseRate),
        ratio(oursRate, baseRate),
      ]);
    }
  }
  return {
    name: "batch",
    heading: "4. Batch throughput",
    tables: [
      {
        title: `\`batch()\` of ${int(calls)} non-streamed calls`,
        how:
          `calls/s of one \`model.batch(${int(calls)} prompts, { maxConcurrency })\`, median of ` +
          `${repeats} batches per contender, the two contenders alternating; a warm-up batch of ${warmup} ` +
          "calls each at every concurrency.",
        goal: "none stated in issue 8; by the per-call goal, ours ≥ 1/1.05 ≈ 0.95× ChatOpenAI's calls/s.",
        summary: [
          `Batch of ${int(calls)}: ours ÷ ChatOpenAI calls/s ${Math.min(...ratios).toFixed(2)}–` +
            `${Math.max(...ratios).toFixed(2)}× over maxConcurrency 1, 8, 64 on both servers.`,
        ],
        headers: [
          "server",
          "maxConcurrency",
          "ChatInferenceService calls/s",
          "ChatOpenAI calls/s",
          "ours ÷ ChatOpenAI",
        ],
        rows,
      },
    ],
  };
}
