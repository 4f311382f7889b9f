/**
 * @module Benchmark 12, telemetry overhead: the same `ChatInferenceService` calls with the
 * package's OpenTelemetry instrumentation on and off (`telemetry: false`), in the same process,
 * first with nothing registered (what every app without OpenTelemetry runs), then with the SDK
 * registered (a tracer provider exporting to memory, a meter provider, the async-hooks context
 * manager); and the instrumentation's own cost per call, without network.
 */

import { context, metrics, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { ChatInferenceService } from "../src/index.js";
import { Telemetry } from "../src/telemetry/telemetry.js";
import { scaled } from "./lib/config.js";
import { ours, PROMPT, type Target } from "./lib/contenders.js";
import { type BenchContext, emulatorTarget, fixedTarget } from "./lib/context.js";
import { COMPLETION, sseRoute } from "./lib/fixed_server.js";
import { microTimings } from "./lib/micro.js";
import type { Section, Table } from "./lib/report.js";
import { type Contender, timeRounds } from "./lib/rounds.js";
import { int, ms, pairedRatio, summarize } from "./lib/stats.js";

const ON = "instrumented (telemetry on)";
const OFF = "telemetry: false";
const STREAM_CHUNKS = 200;

/** A metric reader that is never read: the SDK still aggregates every measurement. */
class IdleReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

/** The SDK registered as an app registers it; `close` takes it down again. */
function registerSdk() {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const meterProvider = new MeterProvider({ readers: [new IdleReader()] });
  const manager = new AsyncLocalStorageContextManager().enable();
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  context.setGlobalContextManager(manager);
  return {
    exporter,
    close: async () => {
      trace.disable();
      metrics.disable();
      context.disable();
      manager.disable();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream) {
    // read to the end
  }
}

/** The two contenders on `target`: invoke (or a whole stream) with telemetry on and off. */
function contenders(target: Target, stream: boolean, after?: () => void): Contender[] {
  const on = ours(target, { maxRetries: 0 });
  const off = ours(target, { maxRetries: 0, telemetry: false });
  const call = stream
    ? (model: typeof on) => async () => drain(await model.stream(PROMPT))
    : (model: typeof on) => () => model.invoke(PROMPT);
  const measured = (name: string, run: () => Promise<unknown>): Contender => ({
    name,
    run: async () => {
      await run();
      after?.();
    },
  });
  return [measured(ON, call(on)), measured(OFF, call(off))];
}

interface Case {
  label: string;
  target: Target;
  stream: boolean;
}

/** On ÷ off, paired by round, for each case. */
async function overheadTable(
  ctx: BenchContext,
  title: string,
  cases: Case[],
  goal: string,
  after?: () => void,
): Promise<Table & { ratios: Map<string, number> }> {
  const rows: string[][] = [];
  const ratios = new Map<string, number>();
  for (const { label, target, stream } of cases) {
    const options = stream
      ? { warmup: scaled(30, 5), rounds: scaled(40, 6), perRound: scaled(5, 2) }
      : { warmup: scaled(300, 30), rounds: scaled(100, 10), perRound: scaled(20, 10) };
    ctx.progress(`telemetry: ${title}, ${label}, ${options.rounds}×${options.perRound} calls each`);
    const rounds = await timeRounds(contenders(target, stream, after), options);
    const on = rounds.get(ON)!;
    const off = rounds.get(OFF)!;
    const paired = pairedRatio(on, off);
    const [a, b] = [summarize(on.flat()), summarize(off.flat())];
    ratios.set(label, paired.median);
    rows.push([
      label,
      ms(a.median),
      ms(b.median),
      `${paired.median.toFixed(3)}×`,
      `${paired.q1.toFixed(2)}–${paired.q3.toFixed(2)}`,
      `${a.median >= b.median ? "+" : "−"}${int(Math.abs(a.median - b.median) * 1000)} µs`,
    ]);
  }
  return {
    title,
    how:
      "the same model class, one instance instrumented and one with `telemetry: false`, taking " +
      "turns in rounds (order rotating) in the same process against the same server; the ratio " +
      "is paired: the median over rounds of (this round's median ÷ the other's median in the same " +
      "round), with its interquartile range.",
    goal,
    headers: ["call", ON, OFF, "× telemetry: false (paired)", "IQR of the ratio", "difference"],
    rows,
    ratios,
  };
}

/** The instrumentation alone, no network: the check every call makes, and a whole traced request. */
async function microTable(ctx: BenchContext): Promise<Table> {
  ctx.progress("telemetry: the instrumentation in isolation");
  const telemetry = new Telemetry({
    operation: "chat",
    url: "http://127.0.0.1/inference/v1/chat/completions",
  });
  const body = { model: "m", messages: [{ role: "user", content: PROMPT }], max_tokens: 64 };
  const answer = {
    id: "chatcmpl-1",
    model: "m",
    choices: [
      { index: 0, finish_reason: "stop", message: { role: "assistant", content: "Paris." } },
    ],
    usage: { prompt_tokens: 15, completion_tokens: 8, total_tokens: 23 },
  };
  const request = () => {
    const traced = telemetry.trace();
    if (traced === undefined) return Promise.resolve();
    traced.begin(body, { model: "m" }, false);
    const attempt = traced.attempt();
    attempt?.succeeded(200, "20250101000000000123456700000001");
    traced.answered(answer);
    traced.end();
    return Promise.resolve();
  };
  // A whole invoke, answered at once by a stub fetch: the client's own work per call.
  const headers = { "content-type": "application/json", "x-gateway-request-id": "1" };
  const fetch = async () => new Response(COMPLETION, { headers });
  const fields = { apiKey: "sk-bench", baseURL: "http://127.0.0.1/inference/v1", fetch };
  const on = new ChatInferenceService("bench-model", fields);
  const off = new ChatInferenceService("bench-model", { ...fields, telemetry: false });
  const batch = scaled(20_000, 2_000);
  const calls = scaled(2_000, 500);
  const rounds = scaled(7, 3);
  const time = async () => {
    const one = await microTimings([{ name: "request", run: request }], batch, rounds);
    const invokes = await microTimings(
      [
        { name: "on", run: () => on.invoke(PROMPT) },
        { name: "off", run: () => off.invoke(PROMPT) },
      ],
      calls,
      rounds,
    );
    return new Map([...one, ...invokes]);
  };
  const idle = await time();
  const sdk = registerSdk();
  // Keep the exporter's memory flat.
  const flush = setInterval(() => sdk.exporter.reset(), 50);
  const registered = await time();
  clearInterval(flush);
  await sdk.close();
  const us = (value: number) => `${value.toFixed(2)} µs`;
  const row = (name: string, micros: Map<string, number>) => {
    const added = micros.get("on")! - micros.get("off")!;
    return [
      name,
      us(micros.get("request")!),
      us(micros.get("on")!),
      us(micros.get("off")!),
      `${added >= 0 ? "+" : "−"}${us(Math.abs(added))}`,
    ];
  };
  return {
    title: "The instrumentation in isolation: no network",
    how:
      `median over rounds of ${int(batch)} back-to-back requests' telemetry as \`ServiceChannel\` ` +
      "runs it (the registry check; when something is registered, the call's span with its request " +
      "attributes, one attempt span, the answer's attributes, the metrics), and of " +
      `${int(calls)} whole \`invoke\` calls answered by a stub fetch, instrumented and not.`,
    goal: "nothing registered: a property read; registered: tens of µs, small against a call.",
    headers: [
      "registered",
      "one request's telemetry",
      "invoke, instrumented",
      "invoke, telemetry: false",
      "added per call",
    ],
    rows: [row("nothing", idle), row("the SDK", registered)],
  };
}

export async function telemetryOverhead(ctx: BenchContext): Promise<Section> {
  const json = fixedTarget(ctx.servers, "json");
  const sse = fixedTarget(ctx.servers, sseRoute(STREAM_CHUNKS, 8));
  const emulator = emulatorTarget(ctx.servers);
  const cases: Case[] = [
    { label: "invoke, fixed server", target: json, stream: false },
    { label: "invoke, emulator", target: emulator, stream: false },
    { label: `stream of ${STREAM_CHUNKS} chunks, fixed server`, target: sse, stream: true },
  ];
  const idle = await overheadTable(
    ctx,
    "Nothing registered: instrumented vs telemetry: false",
    cases,
    "unchanged within noise (the ratio's IQR holds 1.00).",
  );
  const sdk = registerSdk();
  const registered = await overheadTable(
    ctx,
    "SDK registered (in-memory span exporter, meter provider, context manager): instrumented vs telemetry: false",
    cases,
    "≤ 1.05× (median).",
    () => sdk.exporter.reset(),
  );
  await sdk.close();
  const line = (table: { ratios: Map<string, number> }) =>
    [...table.ratios].map(([label, r]) => `${label} **${r.toFixed(3)}×**`).join(", ");
  idle.summary = [
    `Telemetry, nothing registered, instrumented ÷ off: ${line(idle)} — goal: within noise.`,
  ];
  registered.summary = [
    `Telemetry, SDK registered, instrumented ÷ off: ${line(registered)} — goal ≤ 1.05×.`,
  ];
  return {
    name: "telemetry",
    heading: "12. Telemetry overhead",
    tables: [idle, registered, await microTable(ctx)],
  };
}
