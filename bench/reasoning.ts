/**
 * @module Benchmark 8, reasoning: what reading reasoning out of a stream costs — time to the first
 * token of a reply without `<think>` tags (where nothing may be held back) and of one with them,
 * through `ChatInferenceService.stream` vs `ChatOpenAI.stream`, and the reader's cost per chunk.
 */

import type { OpenAI } from "openai";
import { readStreamReasoning } from "../src/apis/chat/reasoning/read_reasoning.js";
import { scaled } from "./lib/config.js";
import { chatOpenAI, ours, type Target } from "./lib/contenders.js";
import { type BenchContext, emulatorTarget } from "./lib/context.js";
import { FIXED_MODEL } from "./lib/fixed_server.js";
import { microTimings } from "./lib/micro.js";
import type { Section, Table } from "./lib/report.js";
import { collectInterleaved, type Measured } from "./lib/rounds.js";
import { int, ms, ratio, summarize } from "./lib/stats.js";

const OURS = "ChatInferenceService.stream";
const BASELINE = "ChatOpenAI.stream";
const QUESTION = "What is the capital of France?";

/** One consumed stream: when its first reasoning and its first answer text arrived. */
interface FirstTokens {
  /** From the call to the first chunk with reasoning (NaN when none came). */
  reasoningMs: number;
  /** From the call to the first chunk with text. */
  textMs: number;
}

type Chunk = { text: string; additional_kwargs: Record<string, unknown> };

async function firstTokens(stream: AsyncIterable<Chunk>, started: number): Promise<FirstTokens> {
  let reasoningMs = Number.NaN;
  let textMs = Number.NaN;
  for await (const chunk of stream) {
    const now = performance.now() - started;
    const reasoning = chunk.additional_kwargs.reasoning_content;
    if (Number.isNaN(reasoningMs) && typeof reasoning === "string" && reasoning !== "") {
      reasoningMs = now;
    }
    if (Number.isNaN(textMs) && chunk.text !== "") textMs = now;
  }
  return { reasoningMs, textMs };
}

function contenders(target: Target): Measured<FirstTokens>[] {
  const model = ours(target);
  const baseline = chatOpenAI(target);
  return [
    {
      name: OURS,
      run: async () => {
        const started = performance.now();
        return firstTokens(await model.stream(QUESTION), started);
      },
    },
    {
      name: BASELINE,
      run: async () => {
        const started = performance.now();
        return firstTokens(await baseline.stream(QUESTION), started);
      },
    },
  ];
}

/** The emulator's model for each kind of reply, and what ChatOpenAI shows of it. */
const REPLIES = [
  {
    label: "no tags (`emulator-chat`)",
    model: "emulator-chat",
    note: "both: the answer's first token",
  },
  {
    label: "`<think>` tags (`emulator-think-tags`)",
    model: "emulator-think-tags",
    note: "ChatOpenAI: its first token is `<think>` itself, shown as text; ours: the first reasoning token, the tag held back and dropped",
  },
];

async function firstTokenTable(ctx: BenchContext): Promise<Table> {
  const options = { warmup: scaled(20, 3), rounds: scaled(20, 4), perRound: scaled(10, 2) };
  const rows: string[][] = [];
  const summary: string[] = [];
  for (const reply of REPLIES) {
    ctx.progress(`reasoning: ${reply.label}, ${options.rounds}×${options.perRound} streams each`);
    const runs = await collectInterleaved(
      contenders(emulatorTarget(ctx.servers, reply.model)),
      options,
    );
    const first = (list: FirstTokens[]) =>
      summarize(list.map((r) => (Number.isNaN(r.reasoningMs) ? r.textMs : r.reasoningMs)));
    const base = first(runs.get(BASELINE)!);
    const mine = first(runs.get(OURS)!);
    const text = summarize(runs.get(OURS)!.map((r) => r.textMs));
    rows.push(
      [
        reply.label,
        OURS,
        ms(mine.median),
        ms(mine.p95),
        ratio(mine.median, base.median),
        ms(text.median),
      ],
      [reply.label, BASELINE, ms(base.median), ms(base.p95), "1.00×", "–"],
    );
    summary.push(`${reply.label} ${ratio(mine.median, base.median)}`);
  }
  return {
    title: "Time to the first token of a streamed reply, emulator",
    how:
      `${options.rounds} interleaved rounds × ${options.perRound} streams per contender after ` +
      `${options.warmup} warm-up streams, the same prompt; first token: the first chunk with ` +
      "reasoning, else with text, from the call; ours' answer column: its first chunk with text.",
    goal: "replies without tags: ours ÷ ChatOpenAI unchanged by the reader (it holds nothing back).",
    headers: [
      "reply",
      "contender",
      "first token median",
      "p95",
      "× ChatOpenAI",
      "answer's first token",
    ],
    rows,
    notes: REPLIES.map((reply) => `${reply.label}: ${reply.note}.`),
    summary: [
      `Reasoning reader, first token ÷ ChatOpenAI's in the same run: ${summary.join("; ")} — goal: unchanged by the reader without tags.`,
    ],
  };
}

/** Chunks of a stream whose deltas carry `pieces` as content, one each. */
function chunksOf(pieces: readonly string[]): OpenAI.Chat.Completions.ChatCompletionChunk[] {
  return pieces.map((content) => ({
    id: "chatcmpl-bench",
    object: "chat.completion.chunk",
    created: 1_735_689_600,
    model: FIXED_MODEL,
    choices: [{ index: 0, delta: { content }, finish_reason: null, logprobs: null }],
  }));
}

/** `chunks` from an async generator, with fresh deltas each run: the reader rewrites them in place. */
async function* from(chunks: OpenAI.Chat.Completions.ChatCompletionChunk[]) {
  for (const chunk of chunks)
    yield {
      ...chunk,
      choices: [{ ...chunk.choices[0]!, delta: { ...chunk.choices[0]!.delta } }],
    };
}

/** The reader's cost per chunk, in isolation, over a reply without tags and one with them. */
async function readerTable(ctx: BenchContext): Promise<Table> {
  ctx.progress("reasoning: the reader in isolation");
  const plain = Array.from({ length: 10_000 }, (_, i) => `tok${i % 10} `);
  // The same length: 2,000 pieces of thinking between tags cut at every character, then text.
  const tagged = [..."<think>", ...plain.slice(0, 2_000), ..."</think>", ...plain.slice(2_015)];
  const sources = { plain: chunksOf(plain), tagged: chunksOf(tagged) };
  const drain = async (stream: AsyncIterable<unknown>) => {
    for await (const _ of stream);
  };
  const cases = [
    { name: "plain, directly", run: () => drain(from(sources.plain)), units: plain.length },
    {
      name: "plain, through the reader",
      run: () => drain(readStreamReasoning(from(sources.plain), "leading")),
      units: plain.length,
    },
    { name: "tagged, directly", run: () => drain(from(sources.tagged)), units: tagged.length },
    {
      name: "tagged, through the reader",
      run: () => drain(readStreamReasoning(from(sources.tagged), "leading")),
      units: tagged.length,
    },
  ];
  const micros = await microTimings(cases, scaled(10, 3), scaled(7, 3));
  const per = (name: string) => micros.get(name)!;
  const added = (kind: "plain" | "tagged") =>
    per(`${kind}, through the reader`) - per(`${kind}, directly`);
  return {
    title: "The reasoning reader, per chunk, in isolation",
    how:
      `${int(plain.length)} chat.completion.chunk objects from an async generator (fresh deltas each ` +
      "run, as the reader rewrites them in place), drained directly and through " +
      "`readStreamReasoning` (src/apis/chat/reasoning/read_reasoning.ts, which every stream of ours " +
      "passes through); the tagged reply cuts its tags at every character; median over rounds.",
    goal: "a few µs per chunk at most — nothing next to a model's time per token.",
    headers: ["stream", "per chunk", "added per chunk"],
    rows: (["plain", "tagged"] as const).flatMap((kind) => [
      [`${kind}, directly`, `${per(`${kind}, directly`).toFixed(3)} µs`, "–"],
      [
        `${kind}, through the reader`,
        `${per(`${kind}, through the reader`).toFixed(3)} µs`,
        `${added(kind).toFixed(3)} µs`,
      ],
    ]),
    summary: [
      `Reasoning reader: +${added("plain").toFixed(2)} µs per chunk without tags, +${added("tagged").toFixed(2)} µs with them, in isolation.`,
    ],
  };
}

/**
 * A reply that opens with whitespace, one character per chunk, against one of letters: the reader
 * holds whitespace that may still precede a `<think>` tag, and its cost must stay per chunk
 * (issue 33: 15,000 chunks of spaces took 6.5× as long as letters when each rescanned it all).
 */
export async function leadingSpaceTable(ctx: Pick<BenchContext, "progress">): Promise<Table> {
  ctx.progress("reasoning: leading whitespace vs letters, through the reader");
  const count = 15_000;
  const sources = {
    spaces: chunksOf(Array.from({ length: count }, () => " ")),
    letters: chunksOf(Array.from({ length: count }, () => "a")),
  };
  const drain = async (kind: keyof typeof sources) => {
    for await (const _ of readStreamReasoning(from(sources[kind]), "leading"));
  };
  const micros = await microTimings(
    [
      { name: "letters", run: () => drain("letters"), units: count },
      { name: "spaces", run: () => drain("spaces"), units: count },
    ],
    scaled(5, 2),
    scaled(7, 3),
  );
  const letters = micros.get("letters")!;
  const spaces = micros.get("spaces")!;
  return {
    title: "The reasoning reader over leading whitespace, in isolation",
    how:
      `${int(count)} chunks of one space, and ${int(count)} of one letter, drained through ` +
      "`readStreamReasoning` in `leading` mode (whitespace may precede a `<think>` tag, so the " +
      "reader must look at it); median over rounds.",
    goal: "spaces ÷ letters near 1×: the cost per chunk does not grow with the whitespace before it.",
    headers: ["reply", "per chunk", "× letters"],
    rows: [
      ["letters", `${letters.toFixed(3)} µs`, "1.00×"],
      ["spaces", `${spaces.toFixed(3)} µs`, ratio(spaces, letters)],
    ],
    summary: [
      `Reasoning reader over ${int(count)} chunks of leading spaces: ${ratio(spaces, letters)} the time of letters.`,
    ],
  };
}

export async function reasoning(ctx: BenchContext): Promise<Section> {
  return {
    name: "reasoning",
    heading: "9. Reasoning",
    tables: [await firstTokenTable(ctx), await readerTable(ctx), await leadingSpaceTable(ctx)],
  };
}
