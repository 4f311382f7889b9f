/**
 * @module Benchmark 10, embeddings: `embedDocuments` of 10,000 short texts, ours against
 * `OpenAIEmbeddings` pointed at the same emulator with the same batch size and concurrency.
 */

import { OpenAIEmbeddings } from "@langchain/openai";
import { InferenceServiceEmbeddings } from "../src/index.js";
import { QUICK, scaled } from "./lib/config.js";
import type { BenchContext } from "./lib/context.js";
import type { Section } from "./lib/report.js";
import { collectInterleaved } from "./lib/rounds.js";
import { int, pairedRatio, summarize } from "./lib/stats.js";

const MODEL = "emulator-embedding";
const BATCH_SIZE = 512;
const CONCURRENCY = [2, 8] as const;
const GOAL = 0.95;

/** Short texts of a few words each, all different, as a corpus split into small pieces would be. */
function corpus(count: number): string[] {
  const topics = ["wallet credit", "service name", "model list", "base url", "stream events"];
  return Array.from(
    { length: count },
    (_, i) => `Note ${i} on the ${topics[i % topics.length]} of tenant ${i % 97}.`,
  );
}

interface Embedder {
  embedDocuments(texts: string[]): Promise<number[][]>;
}

export async function embeddings(ctx: BenchContext): Promise<Section> {
  const texts = corpus(QUICK ? 1_000 : 10_000);
  const repeats = scaled(10, 2);
  const { emulatorBaseURL: baseURL, emulatorApiKey: apiKey } = ctx.servers;
  const rows: string[][] = [];
  const ratios: number[] = [];
  for (const maxConcurrency of CONCURRENCY) {
    const contenders: Array<[string, Embedder]> = [
      [
        "InferenceServiceEmbeddings",
        new InferenceServiceEmbeddings(MODEL, {
          apiKey,
          baseURL,
          batchSize: BATCH_SIZE,
          maxConcurrency,
        }),
      ],
      [
        "OpenAIEmbeddings",
        new OpenAIEmbeddings({
          model: MODEL,
          apiKey,
          configuration: { baseURL },
          batchSize: BATCH_SIZE,
          maxConcurrency,
        }),
      ],
    ];
    ctx.progress(
      `embeddings: ${int(texts.length)} texts, maxConcurrency ${maxConcurrency}, ${repeats}×`,
    );
    // Warm-up: opens the connections and compiles the paths the timed runs take.
    for (const [, embedder] of contenders) await embedder.embedDocuments(texts);
    const rates = await collectInterleaved(
      contenders.map(([name, embedder]) => ({
        name,
        run: async () => {
          const started = performance.now();
          const vectors = await embedder.embedDocuments(texts);
          if (vectors.length !== texts.length)
            throw new Error(`${name}: ${vectors.length} vectors`);
          return texts.length / ((performance.now() - started) / 1000);
        },
      })),
      { warmup: 0, rounds: repeats, perRound: 1 },
    );
    const oursRates = rates.get("InferenceServiceEmbeddings")!;
    const baseRates = rates.get("OpenAIEmbeddings")!;
    // Paired by round: the server's own pauses (its GC, the other core's load) hit both alike.
    const paired = pairedRatio(
      oursRates.map((r) => [r]),
      baseRates.map((r) => [r]),
    );
    ratios.push(paired.median);
    rows.push([
      String(maxConcurrency),
      int(summarize(oursRates).median),
      int(summarize(baseRates).median),
      `${paired.median.toFixed(2)}× (${paired.q1.toFixed(2)}–${paired.q3.toFixed(2)})`,
    ]);
  }
  return {
    name: "embeddings",
    heading: "10. Embeddings",
    tables: [
      {
        title: `\`embedDocuments\` of ${int(texts.length)} short texts`,
        how:
          `texts/s of one \`embedDocuments(${int(texts.length)} texts)\` against the emulator's ` +
          `\`${MODEL}\` (base64 vectors of 256 floats), batchSize ${BATCH_SIZE} for both, median of ` +
          `${repeats} runs per contender, the two alternating, after a warm-up run of all the texts each; ` +
          "the ratio is the median of the rounds' ratios (quartiles in brackets).",
        goal: `ours ≥ ${GOAL}× OpenAIEmbeddings' texts/s (issue 22).`,
        summary: [
          `Embeddings, ${int(texts.length)} texts: ours ÷ OpenAIEmbeddings texts/s ` +
            `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}× at maxConcurrency ` +
            `${CONCURRENCY.join(" and ")} (goal ≥ ${GOAL}×).`,
        ],
        headers: [
          "maxConcurrency",
          "InferenceServiceEmbeddings texts/s",
          "OpenAIEmbeddings texts/s",
          "ours ÷ OpenAIEmbeddings (paired)",
        ],
        rows,
      },
    ],
  };
}
