/**
 * @module Benchmark 2, streaming: time to first token and tokens per second through
 * `ChatInferenceService.stream` vs `ChatOpenAI.stream` (and the raw SDK as the floor), and peak
 * memory while consuming a 5 MB and a 50 MB stream.
 */

import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { BaseMessageLike } from "@langchain/core/messages";
import type { OpenAI } from "openai";
import { tagStream } from "../src/transport/stream.js";
import { QUICK, scaled } from "./lib/config.js";
import { chatOpenAI, ours, PROMPT, sdk, type Target } from "./lib/contenders.js";
import { type BenchContext, emulatorTarget, fixedTarget } from "./lib/context.js";
import { FIXED_MODEL, sseEventBytes, sseRoute } from "./lib/fixed_server.js";
import { forceGC, type MemoryPeaks, sampleMemory } from "./lib/memory.js";
import { microTimings } from "./lib/micro.js";
import type { Section, Table } from "./lib/report.js";
import { collectInterleaved, type Measured } from "./lib/rounds.js";
import { bytes, int, ms, pairedRatio, ratio, summarize } from "./lib/stats.js";

const OURS = "ChatInferenceService.stream";
const BASELINE = "ChatOpenAI.stream";
const SDK = "openai SDK (stream: true)";

/** One consumed stream. */
interface StreamRun {
  /** From the call to the first chunk with text. */
  ttftMs: number;
  totalMs: number;
  /** Chunks with text (one token each on both servers). */
  tokens: number;
  chars: number;
}

/** What the contenders stream: a prompt, and the same thing as SDK messages. */
interface StreamInput {
  langchain: BaseMessageLike[];
  sdk: OpenAI.Chat.ChatCompletionMessageParam[];
}

// The fixed server streams whatever is asked; 2,000 one-token events.
const FIXED_TOKENS = 2_000;
// The emulator answers from a `Context:` passage with its best-matching sentence, a token per
// chunk: one long sentence makes a long reply (about 2,400 chunks).
const LONG_SENTENCE = `${Array.from({ length: 600 }, (_, i) => `word${i % 50} capital France`).join(" ")}.`;
const EMULATOR_INPUT: StreamInput = {
  langchain: [
    ["system", `Context: ${LONG_SENTENCE}`],
    ["user", "Question: What is the capital of France?"],
  ],
  sdk: [
    { role: "system", content: `Context: ${LONG_SENTENCE}` },
    { role: "user", content: "Question: What is the capital of France?" },
  ],
};
const FIXED_INPUT: StreamInput = {
  langchain: [["user", PROMPT]],
  sdk: [{ role: "user", content: PROMPT }],
};

/** Consumes an async iterable of chunks, timing the first one with text and the end. */
async function consume<C>(
  started: number,
  stream: AsyncIterable<C>,
  textOf: (chunk: C) => string,
  onText?: (chars: number) => void,
): Promise<StreamRun> {
  let ttftMs = Number.NaN;
  let tokens = 0;
  let chars = 0;
  for await (const chunk of stream) {
    const text = textOf(chunk);
    if (text.length === 0) continue;
    if (tokens === 0) ttftMs = performance.now() - started;
    tokens++;
    chars += text.length;
    onText?.(chars);
  }
  return { ttftMs, totalMs: performance.now() - started, tokens, chars };
}

const messageText = (chunk: { content: unknown }) =>
  typeof chunk.content === "string" ? chunk.content : "";
const sdkText = (chunk: OpenAI.Chat.Completions.ChatCompletionChunk) =>
  chunk.choices[0]?.delta?.content ?? "";

/** The three streaming contenders for one target; each call consumes one whole stream. */
function streamers(
  target: Target,
  input: StreamInput,
  onText?: (chars: number) => void,
): Measured<StreamRun>[] {
  const model = ours(target);
  const baseline = chatOpenAI(target);
  const client = sdk(target);
  return [
    {
      name: OURS,
      run: async () => {
        const started = performance.now();
        return consume(started, await model.stream(input.langchain), messageText, onText);
      },
    },
    {
      name: BASELINE,
      run: async () => {
        const started = performance.now();
        return consume(started, await baseline.stream(input.langchain), messageText, onText);
      },
    },
    {
      name: SDK,
      run: async () => {
        const started = performance.now();
        const stream = await client.chat.completions.create({
          model: target.model,
          messages: input.sdk,
          stream: true,
          stream_options: { include_usage: true },
        });
        return consume(started, stream, sdkText, onText);
      },
    },
  ];
}

async function speedTable(ctx: BenchContext, target: Target, input: StreamInput): Promise<Table> {
  // Rounds of few streams each, paired: a 2,000-chunk stream takes 50–100 ms, and the machine's
  // other load moves whole rounds, which a ratio within each round cancels.
  const options = { warmup: scaled(5, 2), rounds: scaled(30, 5), perRound: scaled(3, 1) };
  ctx.progress(`streaming: ${target.label}, ${options.rounds}×${options.perRound} streams each`);
  const runs = await collectInterleaved(streamers(target, input), options);
  const rate = (run: StreamRun) => (run.tokens - 1) / ((run.totalMs - run.ttftMs) / 1000);
  const stats = new Map(
    [...runs].map(([name, list]) => [
      name,
      {
        ttft: summarize(list.map((r) => r.ttftMs)),
        rate: summarize(list.map(rate)),
        total: summarize(list.map((r) => r.totalMs)),
        tokens: list[0]?.tokens ?? 0,
      },
    ]),
  );
  const base = stats.get(BASELINE)!;
  // The runs come round by round, `perRound` to a round: each round's median rate over ChatOpenAI's.
  const byRound = (name: string) => {
    const list = runs.get(name)!.map(rate);
    return Array.from({ length: options.rounds }, (_, r) =>
      list.slice(r * options.perRound, (r + 1) * options.perRound),
    );
  };
  const paired = (name: string) => pairedRatio(byRound(name), byRound(BASELINE));
  const oursRate = paired(OURS);
  return {
    title: `Streamed chat call, ${target.label} (${int(base.tokens)} chunks of one token)`,
    how:
      `${options.rounds} interleaved rounds × ${options.perRound} whole streams per contender after ` +
      `${options.warmup} warm-up streams; TTFT from the call to the first chunk with text; ` +
      "tokens/s = (chunks − 1) / (end − first chunk); its ratio to ChatOpenAI is paired: the " +
      "median over rounds of (this round's median ÷ ChatOpenAI's in the same round), with its " +
      "interquartile range.",
    goal: "ChatInferenceService equal to ChatOpenAI within noise (TTFT and tokens/s).",
    headers: [
      "contender",
      "TTFT median",
      "TTFT p95",
      "TTFT × ChatOpenAI",
      "tokens/s median",
      "tokens/s × ChatOpenAI (paired)",
      "IQR of the ratio",
      "whole stream median",
    ],
    summary: [
      `Streaming, ${target.label}: TTFT **${ratio(stats.get(OURS)!.ttft.median, base.ttft.median)}**, ` +
        `tokens/s **${oursRate.median.toFixed(3)}×** ChatOpenAI (paired; IQR ` +
        `${oursRate.q1.toFixed(2)}–${oursRate.q3.toFixed(2)}) — goal: equal within noise.`,
    ],
    rows: [...stats].map(([name, s]) => [
      name,
      ms(s.ttft.median),
      ms(s.ttft.p95),
      ratio(s.ttft.median, base.ttft.median),
      int(s.rate.median),
      name === BASELINE ? "1.000×" : `${paired(name).median.toFixed(3)}×`,
      name === BASELINE ? "–" : `${paired(name).q1.toFixed(2)}–${paired(name).q3.toFixed(2)}`,
      ms(s.total.median),
    ]),
  };
}

/** One memory case, measured in a fresh child process so RSS high-water marks do not carry over. */
interface MemoryCase extends MemoryPeaks {
  /** Largest heap over the baseline right after a full GC, at checkpoints along the stream. */
  liveHeapDelta: number;
  totalMs: number;
  chars: number;
}

const MEMORY_CONTENDERS = [OURS, BASELINE, SDK] as const;
const EVENT_CHARS = 1_000;
const CHECKPOINTS = 20;

function memoryCase(contender: string, fixedURL: string, route: string): Promise<MemoryCase> {
  const child = fork(
    fileURLToPath(import.meta.url),
    ["--memory-case", contender, fixedURL, route],
    {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    },
  );
  return new Promise((resolve, reject) => {
    child.once("message", (message) => resolve(message as MemoryCase));
    // After a result this is a no-op; before one, the case failed.
    child.once("exit", (code) =>
      reject(new Error(`memory case ${contender} ${route} exited with ${code} and no result`)),
    );
  });
}

async function memoryTable(ctx: BenchContext): Promise<Table> {
  const sizes = QUICK ? [0.5e6, 5e6] : [5e6, 50e6];
  const eventBytes = sseEventBytes(EVENT_CHARS);
  const results = new Map<string, MemoryCase[]>();
  for (const contender of MEMORY_CONTENDERS) {
    const perSize: MemoryCase[] = [];
    for (const size of sizes) {
      ctx.progress(`streaming memory: ${contender}, ${bytes(size)}`);
      const route = sseRoute(Math.round(size / eventBytes), EVENT_CHARS);
      perSize.push(await memoryCase(contender, ctx.servers.fixedURL, route));
    }
    results.set(contender, perSize);
  }
  const [small, large] = sizes.map(bytes);
  return {
    title: `Memory while consuming a ${small} and a ${large} stream (fixed server)`,
    how:
      "each case in a fresh child process, after a short warm-up stream: (1) forced GC, then " +
      "`process.memoryUsage()` sampled every 5 ms while the stream is consumed and its chunks " +
      "dropped — peak heap and peak RSS over that baseline (garbage included, so GC timing shows); " +
      `(2) the same stream again with a full GC at ${CHECKPOINTS} checkpoints — live heap, the ` +
      "largest heap over the baseline right after a GC: what the stream keeps alive. SSE events of " +
      `${EVENT_CHARS} characters (${eventBytes} bytes each), generated by the server with back-pressure.`,
    goal: `flat: the ${large} stream keeps no more alive than the ${small} one (live growth ≈ 1×).`,
    headers: [
      "contender",
      `${small} peak heap Δ`,
      `${small} live heap Δ`,
      `${small} peak RSS Δ`,
      `${large} peak heap Δ`,
      `${large} live heap Δ`,
      `${large} peak RSS Δ`,
      "live growth",
    ],
    summary: [
      `Stream memory, live heap for ${small} → ${large}: ${[...results]
        .map(
          ([name, [s, l]]) =>
            `${name.split(".")[0]} ${bytes(s!.liveHeapDelta)} → ${bytes(l!.liveHeapDelta)}`,
        )
        .join("; ")} — goal: flat (only the raw SDK is).`,
    ],
    rows: [...results].map(([name, [s, l]]) => [
      name,
      bytes(s!.heapDelta),
      bytes(s!.liveHeapDelta),
      bytes(s!.rssDelta),
      bytes(l!.heapDelta),
      bytes(l!.liveHeapDelta),
      bytes(l!.rssDelta),
      ratio(l!.liveHeapDelta, s!.liveHeapDelta),
    ]),
    notes: [
      "LangChain's `BaseChatModel._streamIterator` concatenates every chunk into one " +
        "`generationChunk` (for the end-of-run callbacks), so `.stream()` on any LangChain chat " +
        "model keeps the whole reply alive until the stream ends; the raw SDK row is the transport alone.",
    ],
  };
}

/** The per-chunk cost of ours' stream wrapper (`tagStream`: request ID, partial output, typed errors). */
async function streamLayerTable(ctx: BenchContext): Promise<Table> {
  ctx.progress("streaming: our stream layer in isolation");
  const chunks = Array.from({ length: 10_000 }, (_, i) => ({
    id: "chatcmpl-bench",
    object: "chat.completion.chunk",
    created: 1_735_689_600,
    model: FIXED_MODEL,
    choices: [{ index: 0, delta: { content: `tok${i % 10} ` }, finish_reason: null }],
  }));
  async function* source() {
    yield* chunks;
  }
  const drain = async (stream: AsyncIterable<unknown>) => {
    for await (const _ of stream);
  };
  const headers = new Headers({ "x-gateway-request-id": "20250101000000000123456700000001" });
  const failure = { surface: "hosted" as const, model: FIXED_MODEL, secrets: [] };
  const micros = await microTimings(
    [
      { name: "plain", run: () => drain(source()), units: chunks.length },
      {
        name: "tagStream",
        run: () => drain(tagStream(source(), headers, failure)),
        units: chunks.length,
      },
    ],
    scaled(20, 5),
    scaled(7, 3),
  );
  const [plain, tagged] = [micros.get("plain")!, micros.get("tagStream")!];
  return {
    title: "Where ours differs: the stream wrapper, per chunk, in isolation",
    summary: [
      `Stream wrapper (tagStream): +${(tagged - plain).toFixed(2)} µs per chunk in isolation.`,
    ],
    how:
      `${int(chunks.length)} chat.completion.chunk objects from an async generator, consumed ` +
      "directly and through `tagStream` (src/transport/stream.ts, which ours' `completionWithRetry` " +
      "wraps every stream in); no network; median over rounds.",
    goal: "a few µs per chunk at most — nothing next to a real model's time per token.",
    headers: ["path", "per chunk", "added per chunk"],
    rows: [
      ["async generator, consumed directly", `${plain.toFixed(3)} µs`, "–"],
      [
        "the same through tagStream",
        `${tagged.toFixed(3)} µs`,
        `${(tagged - plain).toFixed(3)} µs`,
      ],
    ],
  };
}

export async function streaming(ctx: BenchContext): Promise<Section> {
  return {
    name: "streaming",
    heading: "2. Streaming",
    tables: [
      await speedTable(ctx, emulatorTarget(ctx.servers), EMULATOR_INPUT),
      await speedTable(ctx, fixedTarget(ctx.servers, sseRoute(FIXED_TOKENS, 4)), FIXED_INPUT),
      await streamLayerTable(ctx),
      await memoryTable(ctx),
    ],
  };
}

async function runMemoryCase(contender: string, fixedURL: string, route: string): Promise<void> {
  const streamerFor = (path: string, onText?: (chars: number) => void) => {
    const target: Target = {
      label: "fixed server",
      baseURL: `${fixedURL}/${path}/inference/v1`,
      apiKey: "sk-bench-fixed",
      model: FIXED_MODEL,
    };
    const streamer = streamers(target, FIXED_INPUT, onText).find((s) => s.name === contender);
    if (!streamer) throw new Error(`unknown contender ${contender}`);
    return streamer;
  };
  // A short stream first, so lazily loaded code and first-call caches are not counted.
  await streamerFor(sseRoute(20, EVENT_CHARS)).run();
  // 1. Undisturbed: peaks sampled while the stream runs.
  const sampler = sampleMemory();
  const run = await streamerFor(route).run();
  const peaks = sampler.stop();
  // 2. Again, with a full GC at 20 checkpoints: what the stream keeps alive, garbage excluded.
  const events = Number(route.split("-")[1]);
  const every = Math.max(1, Math.floor((events * EVENT_CHARS) / CHECKPOINTS));
  forceGC();
  const base = process.memoryUsage().heapUsed;
  let next = every;
  let liveHeapDelta = 0;
  await streamerFor(route, (chars) => {
    if (chars < next) return;
    next += every;
    forceGC();
    liveHeapDelta = Math.max(liveHeapDelta, process.memoryUsage().heapUsed - base);
  }).run();
  process.send?.({
    ...peaks,
    liveHeapDelta,
    totalMs: run.totalMs,
    chars: run.chars,
  } satisfies MemoryCase);
}

if (process.argv.includes("--memory-case")) {
  const [contender = "", fixedURL = "", route = ""] = process.argv.slice(
    process.argv.indexOf("--memory-case") + 1,
  );
  await runMemoryCase(contender, fixedURL, route);
  process.disconnect?.();
}
