/**
 * @module Benchmark 14, the Responses API: one call through `ChatInferenceService` with
 * `useResponsesApi: true` against `ChatOpenAI` with `useResponsesApi: true` (its Responses path)
 * on the same emulator, and the tokens per second of a long streamed reply through each — the
 * cost of the channel (meter, typed errors, watched stream) and of keeping the reasoning whole.
 */
import type { BaseMessageLike } from "@langchain/core/messages";
import { scaled } from "./lib/config.js";
import { chatOpenAI, ours, PROMPT, type Target } from "./lib/contenders.js";
import { type BenchContext, emulatorTarget } from "./lib/context.js";
import type { Section, Table } from "./lib/report.js";
import { collectInterleaved, type Measured, timeRounds } from "./lib/rounds.js";
import { int, ms, pairedRatio, ratio, summarize } from "./lib/stats.js";

const OURS = "ChatInferenceService (useResponsesApi)";
const BASELINE = "ChatOpenAI (useResponsesApi)";
const CALL_GOAL = 1.05;
const STREAM_GOAL = 1.0;

// The emulator answers from a `Context:` passage with its best-matching sentence, a token per
// event: one long sentence makes a long reply (about 2,400 deltas).
const LONG_SENTENCE = `${Array.from({ length: 600 }, (_, i) => `word${i % 50} capital France`).join(" ")}.`;
const LONG: BaseMessageLike[] = [
  ["system", `Context: ${LONG_SENTENCE}`],
  ["user", "Question: What is the capital of France?"],
];

function models(target: Target) {
  return {
    ours: ours(target, { useResponsesApi: true }),
    baseline: chatOpenAI(target, { useResponsesApi: true }),
  };
}

async function perCallTable(ctx: BenchContext): Promise<Table> {
  // As in per_call.ts: both clients' code is still being optimised for some 3,500 calls.
  const options = { warmup: scaled(3000, 20), rounds: scaled(100, 10), perRound: scaled(10, 5) };
  ctx.progress(`responses: per call, ${options.rounds}×${options.perRound} calls each`);
  const { ours: model, baseline } = models(emulatorTarget(ctx.servers));
  const rounds = await timeRounds(
    [
      { name: OURS, run: () => model.invoke(PROMPT) },
      { name: BASELINE, run: () => baseline.invoke(PROMPT) },
    ],
    options,
  );
  const base = rounds.get(BASELINE)!;
  const paired = pairedRatio(rounds.get(OURS)!, base);
  const rows = [...rounds].map(([name, r]) => {
    const wall = summarize(r.flat());
    const isBase = name === BASELINE;
    return [
      name,
      ms(wall.median),
      ms(wall.p95),
      isBase ? "1.000×" : `${paired.median.toFixed(3)}×`,
      isBase ? "–" : `${paired.q1.toFixed(2)}–${paired.q3.toFixed(2)}`,
    ];
  });
  return {
    title: "One call through the Responses API, emulator (`emulator-chat`)",
    how:
      `${options.rounds} rounds × ${options.perRound} sequential \`invoke\`s per contender after ` +
      `${options.warmup} warm-up calls each, taking turns within each round; the same prompt, to ` +
      "the same emulator in a child process. × ChatOpenAI is paired: the median over rounds of " +
      "this round's median ÷ ChatOpenAI's in the same round, with its interquartile range.",
    goal: `ours ≤ ${CALL_GOAL.toFixed(2)}× ChatOpenAI's Responses path (issue 39).`,
    headers: ["contender", "median", "p95", "× ChatOpenAI (paired)", "IQR of the ratio"],
    rows,
    summary: [
      `Responses API, one call ÷ ChatOpenAI's Responses path: **${paired.median.toFixed(3)}×** (IQR ${paired.q1.toFixed(2)}–${paired.q3.toFixed(2)}) — goal ≤ ${CALL_GOAL.toFixed(2)}×.`,
    ],
  };
}

interface StreamRun {
  totalMs: number;
  tokens: number;
}

async function consume(stream: AsyncIterable<{ text: string }>): Promise<StreamRun> {
  const started = performance.now();
  let tokens = 0;
  for await (const chunk of stream) if (chunk.text !== "") tokens++;
  return { totalMs: performance.now() - started, tokens };
}

async function streamingTable(ctx: BenchContext): Promise<Table> {
  const options = { warmup: scaled(5, 1), rounds: scaled(20, 2), perRound: scaled(3, 1) };
  ctx.progress(`responses: streaming, ${options.rounds}×${options.perRound} streams each`);
  const { ours: model, baseline } = models(emulatorTarget(ctx.servers));
  const contenders: Measured<StreamRun>[] = [
    { name: OURS, run: async () => consume(await model.stream(LONG)) },
    { name: BASELINE, run: async () => consume(await baseline.stream(LONG)) },
  ];
  const runs = await collectInterleaved(contenders, options);
  const rate = (list: StreamRun[]) =>
    summarize(list.map((r) => (r.tokens * 1000) / r.totalMs)).median;
  const mine = rate(runs.get(OURS)!);
  const base = rate(runs.get(BASELINE)!);
  const tokens = runs.get(OURS)![0]!.tokens;
  return {
    title: `Tokens per second of a streamed reply through the Responses API (${int(tokens)} text deltas), emulator`,
    how:
      `${options.rounds} interleaved rounds × ${options.perRound} streams per contender after ` +
      `${options.warmup} warm-up streams; tokens: chunks with text, over the whole stream's time.`,
    goal: `ours ≥ ${STREAM_GOAL.toFixed(2)}× ChatOpenAI's tokens per second (issue 39).`,
    headers: ["contender", "tokens/s median", "× ChatOpenAI"],
    rows: [
      [OURS, int(mine), ratio(mine, base)],
      [BASELINE, int(base), "1.00×"],
    ],
    summary: [
      `Responses API, streaming tokens/s ÷ ChatOpenAI's: **${ratio(mine, base)}** — goal ≥ ${STREAM_GOAL.toFixed(2)}×.`,
    ],
  };
}

export async function responses(ctx: BenchContext): Promise<Section> {
  return {
    name: "responses",
    heading: "14. Responses API",
    tables: [await perCallTable(ctx), await streamingTable(ctx)],
  };
}
