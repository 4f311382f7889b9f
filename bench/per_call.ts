/**
 * @module Benchmark 1, per-call overhead: one non-streamed chat call at a time through
 * `ChatInferenceService.invoke`, a hand-configured `ChatOpenAI`, the raw openai SDK and raw fetch;
 * then the cost of each layer ours adds, measured in isolation (no network).
 */

import { AsyncCaller } from "@langchain/core/utils/async_caller";
import { createServiceFetch } from "../src/transport/fetch.js";
import { ServiceCaller } from "../src/transport/retry.js";
import { scaled } from "./lib/config.js";
import {
  chatOpenAI,
  chatOpenAICompletions,
  fetchCall,
  ours,
  PROMPT,
  sdk,
  sdkCall,
  type Target,
} from "./lib/contenders.js";
import { type BenchContext, emulatorTarget, fixedTarget } from "./lib/context.js";
import { COMPLETION, FIXED_MODEL } from "./lib/fixed_server.js";
import { microTimings } from "./lib/micro.js";
import type { Section, Table } from "./lib/report.js";
import { type Contender, timeRounds } from "./lib/rounds.js";
import { int, ms, pairedRatio, ratio, summarize } from "./lib/stats.js";

const OURS = "ChatInferenceService.invoke";
/** The class ours extends: the baseline of the goal. */
const BASELINE = "ChatOpenAICompletions.invoke";
const WRAPPER = "ChatOpenAI.invoke";
const FETCH = "raw fetch + JSON.parse";

function contenders(target: Target): Contender[] {
  const model = ours(target);
  const baseline = chatOpenAICompletions(target);
  const wrapper = chatOpenAI(target);
  const client = sdk(target);
  return [
    { name: OURS, run: () => model.invoke(PROMPT) },
    { name: BASELINE, run: () => baseline.invoke(PROMPT) },
    { name: WRAPPER, run: () => wrapper.invoke(PROMPT) },
    { name: "openai SDK chat.completions.create", run: () => sdkCall(client, target) },
    { name: FETCH, run: () => fetchCall(target) },
  ];
}

async function serverTable(ctx: BenchContext, target: Target): Promise<Table> {
  // V8 is still optimising both clients' code until some 3,500 calls each: rounds timed before
  // that measure the compiler competing with the server for the cores, not the clients.
  const options = { warmup: scaled(3000, 30), rounds: scaled(100, 10), perRound: scaled(20, 10) };
  ctx.progress(`per-call: ${target.label}, ${options.rounds}×${options.perRound} calls each`);
  const rounds = await timeRounds(contenders(target), options);
  const base = rounds.get(BASELINE)!;
  const stats = new Map(
    [...rounds].map(([name, r]) => [
      name,
      { wall: summarize(r.flat()), paired: pairedRatio(r, base) },
    ]),
  );
  const raw = stats.get(FETCH)!;
  const o = stats.get(OURS)!;
  const b = stats.get(BASELINE)!;
  const diffUs = (o.wall.median - b.wall.median) * 1000;
  return {
    title: `Non-streamed chat call, one at a time — ${target.label}`,
    how:
      `${options.rounds} rounds × ${options.perRound} sequential calls per contender after ` +
      `${options.warmup} warm-up calls each, the contenders taking turns within each round (order ` +
      "rotating); same prompt and `…/inference/v1` URL; the server in a child process on " +
      "127.0.0.1, keep-alive. × ChatOpenAICompletions (the class ours extends) is paired: the " +
      "median over rounds of (this round's median ÷ ChatOpenAICompletions' median in the same " +
      "round), with its interquartile range — the spread other load on the machine causes.",
    goal: "ChatInferenceService ≤ 1.05× ChatOpenAICompletions (median).",
    headers: [
      "contender",
      "median",
      "p95",
      "× ChatOpenAICompletions (paired)",
      "IQR of the ratio",
      "over raw fetch",
    ],
    rows: [...stats].map(([name, s]) => [
      name,
      ms(s.wall.median),
      ms(s.wall.p95),
      `${s.paired.median.toFixed(3)}×`,
      name === BASELINE ? "–" : `${s.paired.q1.toFixed(2)}–${s.paired.q3.toFixed(2)}`,
      name === FETCH ? "–" : `+${int((s.wall.median - raw.wall.median) * 1000)} µs`,
    ]),
    summary: [
      `Per-call, ${target.label}: ours **${o.paired.median.toFixed(3)}×** ChatOpenAICompletions (paired; IQR ` +
        `${o.paired.q1.toFixed(2)}–${o.paired.q3.toFixed(2)}; pooled medians ` +
        `${ratio(o.wall.median, b.wall.median)}, ${diffUs >= 0 ? "+" : "−"}${int(Math.abs(diffUs))} µs) — goal ≤ 1.05×.`,
    ],
    notes: [
      `ours ${diffUs >= 0 ? "+" : "−"}${int(Math.abs(diffUs))} µs per call vs ChatOpenAICompletions on the ` +
        `pooled medians (${ratio(o.wall.median, b.wall.median)}; p95 ${ratio(o.wall.p95, b.wall.p95)}); ` +
        `${o.wall.n} calls per contender; ChatOpenAI, which wraps ChatOpenAICompletions, ` +
        `${stats.get(WRAPPER)!.paired.median.toFixed(3)}× it.`,
    ],
  };
}

/**
 * The same calls answered at once by a stub fetch (no network, no server): the client's own work
 * alone. Set against the tables above, it tells the client's CPU from what the network path adds
 * (work on the path between the response's bytes and the caller counts in full there).
 */
async function stubTable(ctx: BenchContext): Promise<Table> {
  const options = { warmup: scaled(3000, 50), rounds: scaled(200, 20), perRound: scaled(20, 10) };
  ctx.progress(`per-call: stub fetch, ${options.rounds}×${options.perRound} calls each`);
  const headers = { "content-type": "application/json", "x-oneapi-request-id": "1" };
  const target: Target = {
    label: "stub fetch",
    baseURL: "http://127.0.0.1:9/json/inference/v1",
    apiKey: "sk-bench-stub",
    model: FIXED_MODEL,
    fetch: async () => new Response(COMPLETION, { headers }),
  };
  const [model, baseline, wrapper] = [
    ours(target),
    chatOpenAICompletions(target),
    chatOpenAI(target),
  ];
  const rounds = await timeRounds(
    [
      { name: OURS, run: () => model.invoke(PROMPT) },
      { name: BASELINE, run: () => baseline.invoke(PROMPT) },
      { name: WRAPPER, run: () => wrapper.invoke(PROMPT) },
    ],
    options,
  );
  const base = rounds.get(BASELINE)!;
  const rows = [...rounds].map(([name, r]) => {
    const paired = pairedRatio(r, base);
    return [
      name,
      ms(summarize(r.flat()).median),
      `${paired.median.toFixed(3)}×`,
      name === BASELINE ? "–" : `${paired.q1.toFixed(2)}–${paired.q3.toFixed(2)}`,
    ];
  });
  const o = pairedRatio(rounds.get(OURS)!, base);
  return {
    title: "Non-streamed chat call, one at a time — stub fetch (no network)",
    how:
      `${options.rounds} rounds × ${options.perRound} sequential calls per contender after ` +
      `${options.warmup} warm-up calls each, taking turns within each round; every contender's ` +
      "`fetch` answers at once with the fixed server's completion. Paired as above.",
    goal: "the client's own work: ChatInferenceService ≤ 1.00× ChatOpenAICompletions.",
    headers: ["contender", "median", "× ChatOpenAICompletions (paired)", "IQR of the ratio"],
    rows,
    summary: [
      `Per-call, stub fetch (the client's work alone): ours **${o.median.toFixed(3)}×** ` +
        `ChatOpenAICompletions (paired; IQR ${o.q1.toFixed(2)}–${o.q3.toFixed(2)}).`,
    ],
  };
}

/** Each layer ours adds over `ChatOpenAI`, in isolation: a stub fetch and a trivial callable. */
async function layersTable(ctx: BenchContext): Promise<Table> {
  ctx.progress("per-call: our layers in isolation");
  const body = JSON.stringify({ choices: [] });
  const stubHeaders = { "content-type": "application/json", "content-length": `${body.length}` };
  const stub = async () => new Response(body, { headers: stubHeaders });
  const serviceFetch = createServiceFetch({
    surface: "hosted",
    model: "m",
    secrets: ["sk-bench"],
    fetch: stub,
  });
  // What the SDK hands to fetch: a Headers object with its dozen headers, a body and a signal.
  const init: RequestInit = {
    method: "POST",
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: PROMPT }] }),
    signal: new AbortController().signal,
    headers: new Headers({
      accept: "application/json",
      authorization: "Bearer sk-bench",
      "content-type": "application/json",
      "user-agent": "langchainjs-openai/1.0.0",
      "x-stainless-arch": "x64",
      "x-stainless-lang": "js",
      "x-stainless-os": "Linux",
      "x-stainless-package-version": "7.57.0",
      "x-stainless-retry-count": "0",
      "x-stainless-runtime": "node",
      "x-stainless-runtime-version": process.version,
    }),
  };
  const url = "http://127.0.0.1/inference/v1/chat/completions";
  const langchainCaller = new AsyncCaller({});
  const ourCaller = new ServiceCaller({});
  const task = async () => 1;
  const batch = scaled(20_000, 2_000);
  const micros = await microTimings(
    [
      { name: "stub fetch", run: () => stub() },
      { name: "createServiceFetch(stub)", run: () => serviceFetch(url, init) },
      // The body read as the SDK reads it: the JSON guard's cost shows only then.
      { name: "stub fetch, body read", run: async () => JSON.parse(await (await stub()).text()) },
      {
        name: "createServiceFetch(stub), body read",
        run: async () => JSON.parse(await (await serviceFetch(url, init)).text()),
      },
      { name: "AsyncCaller", run: () => langchainCaller.callWithOptions({}, task) },
      { name: "ServiceCaller", run: () => ourCaller.callWithOptions({}, task) },
    ],
    batch,
    scaled(7, 3),
  );
  const row = (layer: string, theirs: string, mine: string) => {
    const [a, b] = [micros.get(theirs)!, micros.get(mine)!];
    return [layer, `${a.toFixed(2)} µs`, `${b.toFixed(2)} µs`, `${(b - a).toFixed(2)} µs`];
  };
  return {
    title: "Where ours differs: each added layer in isolation",
    how:
      `median over rounds of ${int(batch)} back-to-back calls, no network: the fetch layer around a ` +
      "stub fetch that returns a JSON `Response`, given the headers the SDK sends (and with the " +
      "body read as the SDK reads it: `text()`, then `JSON.parse`); the retry caller " +
      "around a trivial async function (LangChain's `AsyncCaller` is what ChatOpenAI uses).",
    goal: "each layer a few µs — small against the per-call medians above.",
    headers: ["layer", "without (ChatOpenAI's path)", "with (ours)", "added per call"],
    rows: [
      row("fetch: createServiceFetch", "stub fetch", "createServiceFetch(stub)"),
      row(
        "fetch: createServiceFetch, JSON body read",
        "stub fetch, body read",
        "createServiceFetch(stub), body read",
      ),
      row("retry: ServiceCaller vs AsyncCaller", "AsyncCaller", "ServiceCaller"),
    ],
  };
}

export async function perCall(ctx: BenchContext): Promise<Section> {
  return {
    name: "per-call",
    heading: "1. Per-call overhead",
    tables: [
      await serverTable(ctx, emulatorTarget(ctx.servers)),
      await serverTable(ctx, fixedTarget(ctx.servers, "json")),
      await stubTable(ctx),
      await layersTable(ctx),
    ],
  };
}
