/**
 * @module Benchmark 13, telemetry overhead: the same `ChatInferenceService` calls with the
 * package's OpenTelemetry instrumentation on and off (`telemetry: false`), in the same process,
 * with nothing registered (what every app without OpenTelemetry runs), then with the SDK
 * registered (a tracer provider exporting to memory, a meter provider, the async-hooks context
 * manager) — there beside a third contender, the same spans and points made directly with the API
 * around an uninstrumented call: the SDK's own cost, the floor under any instrumentation; and the
 * CPU each call costs the client, without network, split between the package's own work and the
 * SDK's.
 */

import {
  type Attributes,
  context,
  type Meter,
  metrics,
  type Span,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { FAULT_HEADER } from "../src/emulator/index.js";
import { ChatInferenceService } from "../src/index.js";
import type { Fetch } from "../src/transport/fetch.js";
import { scaled } from "./lib/config.js";
import { ours, PROMPT, type Target } from "./lib/contenders.js";
import { type BenchContext, emulatorTarget, fixedTarget } from "./lib/context.js";
import { COMPLETION, sseRoute } from "./lib/fixed_server.js";
import type { Section, Table } from "./lib/report.js";
import { type Contender, timeRounds } from "./lib/rounds.js";
import { int, ms, pairedRatio, summarize } from "./lib/stats.js";

const ON = "instrumented";
const OFF = "telemetry: false";
const DIRECT = "the SDK alone";
const STREAM_CHUNKS = 200;
/** A hosted model's time to answer, small next to a real one's: the emulator waits this long. */
const MODEL_TIME_MS = 20;

/** The global fetch, asking the emulator to take `ms` before it answers. */
function withModelTime(ms: number): Fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set(FAULT_HEADER, `latency=${ms}`);
    return fetch(input, { ...init, headers });
  };
}

/** A metric reader that is never read: the SDK still aggregates every measurement. */
class IdleReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

/** What is registered while a table is measured; `close` takes it down again. */
interface Registered {
  label: string;
  /** Called after each call: keeps the in-memory exporter's memory flat. */
  after?: () => void;
  /**
   * With the SDK registered: the spans finished since the last time it was asked, flushed out of
   * the span processor (a batch processor holds up to 512 until then).
   */
  finished?: () => Promise<ReadableSpan[]>;
  close: () => Promise<void>;
}

/**
 * The SDK registered as an app registers it, exporting to memory through a batch processor (as
 * `NodeSDK` does) or a simple one (each span exported as it ends, for debugging).
 */
function registerSdk(processor: "batch" | "simple"): Registered {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [
      processor === "batch" ? new BatchSpanProcessor(exporter) : new SimpleSpanProcessor(exporter),
    ],
  });
  const meterProvider = new MeterProvider({ readers: [new IdleReader()] });
  const manager = new AsyncLocalStorageContextManager().enable();
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  context.setGlobalContextManager(manager);
  return {
    label: `the SDK, ${processor} span processor`,
    after: () => exporter.reset(),
    finished: async () => {
      await tracerProvider.forceFlush();
      const spans = exporter.getFinishedSpans();
      exporter.reset();
      return spans;
    },
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

/**
 * Providers that record nothing, registered with the API: what is left of a call's cost is the
 * package's own work (reading the request and the answer, building attributes).
 */
function registerNoop(): Registered {
  const span = {
    setAttribute() {},
    setAttributes() {},
    addEvent() {},
    setStatus() {},
    isRecording: () => true,
    end() {},
  } as unknown as Span;
  const tracer = { startSpan: () => span } as unknown as Tracer;
  const instrument = { record() {}, add() {} };
  const meter = {
    createHistogram: () => instrument,
    createCounter: () => instrument,
    createObservableCounter: () => ({ addCallback() {} }),
  } as unknown as Meter;
  trace.setGlobalTracerProvider({ getTracer: () => tracer });
  metrics.setGlobalMeterProvider({ getMeter: () => meter });
  return {
    label: "providers that record nothing (the package's own work)",
    close: async () => {
      trace.disable();
      metrics.disable();
    },
  };
}

const NOTHING: Registered = { label: "nothing", close: async () => {} };

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream) {
    // read to the end
  }
}

/** One call of a model, as a case makes it: `invoke`, or a whole stream read to its end. */
type Call = (model: ChatInferenceService) => () => Promise<unknown>;

const callOf = (stream: boolean): Call =>
  stream
    ? (model) => async () => drain(await model.stream(PROMPT))
    : (model) => () => model.invoke(PROMPT);

/**
 * The contenders on `target`: invoke (or a whole stream) with telemetry on and off, and, with the
 * SDK registered, the SDK alone — the spans and points of one instrumented call (read off a real
 * one first), made directly around an uninstrumented call.
 */
async function contenders(
  target: Target,
  stream: boolean,
  registered: Registered,
): Promise<Contender[]> {
  const on = ours(target, { maxRetries: 0 });
  const off = ours(target, { maxRetries: 0, telemetry: false });
  const call = callOf(stream);
  const measured = (name: string, run: () => Promise<unknown>): Contender => ({
    name,
    run: async () => {
      await run();
      registered.after?.();
    },
  });
  const all = [measured(ON, call(on)), measured(OFF, call(off))];
  if (registered.finished !== undefined) {
    // Spans of the cases before, still in a batch processor, are not this call's.
    await registered.finished();
    await call(on)();
    const [attempt, traced] = await registered.finished();
    const around = directly(traced!, attempt!);
    const plain = call(off);
    all.push(measured(DIRECT, () => around(plain)));
  }
  return all;
}

/** Names of a call span's attributes known before its answer: given at its start. */
const AT_START =
  /^(gen_ai\.(operation|provider|request)\.|server\.|inference_service\.service_name)/;
/** Names of an attempt span's attributes known before its answer. */
const ATTEMPT_AT_START = /^(http\.request\.|url\.|server\.)/;
/** What every metric point of a call carries. */
const METRIC_KEYS = [
  "gen_ai.operation.name",
  "gen_ai.provider.name",
  "gen_ai.request.model",
  "gen_ai.response.model",
  "server.address",
  "server.port",
];

/** `span`'s attributes split in two: those `atStart` names, and the others. */
function split(span: ReadableSpan, atStart: RegExp): [Attributes, Attributes] {
  const start: Attributes = {};
  const end: Attributes = {};
  for (const [key, value] of Object.entries(span.attributes)) {
    (atStart.test(key) ? start : end)[key] = value;
  }
  return [start, end];
}

/**
 * The spans and measurements of one instrumented call — its call span `call` and attempt span
 * `attempt`, with their attributes, a duration, two token counts and an attempt count — made
 * directly with the API around `run`, with the attempt's span active while it runs, as a plain
 * instrumentation would: the floor under any instrumentation of the call, what the SDK costs.
 */
function directly(
  call: ReadableSpan,
  attempt: ReadableSpan,
): (run: () => Promise<unknown>) => Promise<void> {
  const tracer = trace.getTracer("bench");
  const meter = metrics.getMeter("bench");
  const duration = meter.createHistogram("duration");
  const tokens = meter.createHistogram("tokens");
  const attempts = meter.createCounter("attempts");
  const [callStart, callEnd] = split(call, AT_START);
  const [attemptStart, attemptEnd] = split(attempt, ATTEMPT_AT_START);
  const shared = Object.fromEntries(METRIC_KEYS.map((key) => [key, call.attributes[key]]));
  const input = { ...shared, "gen_ai.token.type": "input" };
  const output = { ...shared, "gen_ai.token.type": "output" };
  const attempted = { ...shared, "http.response.status_code": 200 };
  const counts = [
    Number(call.attributes["gen_ai.usage.input_tokens"] ?? 0),
    Number(call.attributes["gen_ai.usage.output_tokens"] ?? 0),
  ] as const;
  return async (run) => {
    const started = performance.now();
    const parent = context.active();
    const span = tracer.startSpan(call.name, { kind: call.kind, attributes: callStart }, parent);
    const inCall = trace.setSpan(parent, span);
    const child = tracer.startSpan(
      attempt.name,
      { kind: attempt.kind, attributes: attemptStart },
      inCall,
    );
    await context.with(trace.setSpan(inCall, child), run);
    child.setAttributes(attemptEnd);
    child.end();
    attempts.add(1, attempted);
    span.setAttributes(callEnd);
    span.end();
    duration.record((performance.now() - started) / 1000, shared);
    tokens.record(counts[0], input);
    tokens.record(counts[1], output);
  };
}

interface Case {
  label: string;
  target: Target;
  stream: boolean;
  /** Fewer, longer calls: rounds and calls per round. */
  slow?: boolean;
}

/** `a` ÷ `b`, paired by round: the median and its interquartile range. */
function paired(a: number[][], b: number[][]): { ratio: string; iqr: string } {
  const { median, q1, q3 } = pairedRatio(a, b);
  return { ratio: `${median.toFixed(3)}×`, iqr: `${q1.toFixed(2)}–${q3.toFixed(2)}` };
}

/** On ÷ off (and, with the SDK, the SDK alone ÷ off), paired by round, with `registered` in place. */
async function overheadTable(
  ctx: BenchContext,
  registered: Registered,
  cases: Case[],
  goal: string,
): Promise<Table> {
  const rows: string[][] = [];
  const ratios: string[] = [];
  const withSdk = registered.finished !== undefined;
  try {
    for (const { label, target, stream, slow } of cases) {
      const options =
        stream || slow
          ? { warmup: scaled(30, 5), rounds: scaled(40, 6), perRound: scaled(5, 2) }
          : { warmup: scaled(300, 30), rounds: scaled(100, 10), perRound: scaled(20, 10) };
      ctx.progress(
        `telemetry: ${registered.label}, ${label}, ${options.rounds}×${options.perRound} calls each`,
      );
      const rounds = await timeRounds(await contenders(target, stream, registered), options);
      const on = rounds.get(ON)!;
      const off = rounds.get(OFF)!;
      const onOff = paired(on, off);
      const [a, b] = [summarize(on.flat()), summarize(off.flat())];
      const row = [
        label,
        ms(a.median),
        ms(b.median),
        onOff.ratio,
        onOff.iqr,
        `${a.median >= b.median ? "+" : "−"}${int(Math.abs(a.median - b.median) * 1000)} µs`,
      ];
      if (withSdk) {
        const direct = rounds.get(DIRECT)!;
        const floor = paired(direct, off);
        const over = paired(on, direct);
        row.push(`${floor.ratio} (${floor.iqr})`, `${over.ratio} (${over.iqr})`);
        ratios.push(`${label} **${onOff.ratio}** (the SDK alone ${floor.ratio})`);
      } else {
        ratios.push(`${label} **${onOff.ratio}**`);
      }
      rows.push(row);
    }
  } finally {
    await registered.close();
  }
  const headers = [
    "call",
    ON,
    OFF,
    "× telemetry: false (paired)",
    "IQR of the ratio",
    "difference",
  ];
  if (withSdk) headers.push(`${DIRECT} × telemetry: false (IQR)`, `${ON} × ${DIRECT} (IQR)`);
  return {
    title: `Registered: ${registered.label} — instrumented vs telemetry: false`,
    how:
      "the same model class, one instance instrumented and one with `telemetry: false`, taking " +
      "turns in rounds (order rotating) in the same process against the same server (the bench " +
      "servers on 127.0.0.1); the ratio is paired: the median over rounds of (this round's median " +
      "÷ the other's median in the same round), with its interquartile range." +
      (withSdk
        ? " A third contender, *the SDK alone*, makes the spans and points of one instrumented " +
          "call (read off a real one) directly with the API around the `telemetry: false` " +
          "instance's call, the attempt's span active while it runs: what the SDK itself costs, " +
          "the floor under any instrumentation of these calls."
        : ""),
    goal,
    ...(withSdk
      ? {
          notes: [
            "Where *the SDK alone* is above the goal — calls answered in under a millisecond by " +
              "a server on the same machine — no instrumentation that makes these spans and " +
              "points can meet it; the last column is what the package adds over the SDK's own " +
              "cost. With any model time (the 20 ms row) both are within noise of 1.00×.",
          ],
        }
      : {}),
    headers,
    rows,
    summary: [
      `Telemetry, ${registered.label} registered, instrumented ÷ off: ${ratios.join(", ")} — goal: ${goal}`,
    ],
  };
}

/**
 * CPU per `invoke`, answered at once by a stub fetch: the client's whole work per call, in
 * alternating blocks (instrumented, off) so drift hits both alike; median over blocks.
 */
async function cpuTable(ctx: BenchContext): Promise<Table> {
  const headers = { "content-type": "application/json", "x-gateway-request-id": "1" };
  const fetch = async () => new Response(COMPLETION, { headers });
  const fields = { apiKey: "sk-bench", baseURL: "http://127.0.0.1/inference/v1", fetch };
  const models: Record<string, ChatInferenceService> = {
    [ON]: new ChatInferenceService("bench-model", fields),
    [OFF]: new ChatInferenceService("bench-model", { ...fields, telemetry: false }),
  };
  const blocks = scaled(16, 6);
  const calls = scaled(1500, 300);
  const rows: string[][] = [];
  const setups: Array<() => Registered> = [
    () => NOTHING,
    registerNoop,
    () => registerSdk("batch"),
    () => registerSdk("simple"),
  ];
  for (const setup of setups) {
    const registered = setup();
    ctx.progress(`telemetry: CPU per call, ${registered.label}`);
    const cpu: Record<string, number[]> = { [ON]: [], [OFF]: [] };
    try {
      for (let block = 0; block < blocks + 2; block++) {
        for (const name of block % 2 === 0 ? [ON, OFF] : [OFF, ON]) {
          const model = models[name]!;
          const started = process.cpuUsage();
          for (let i = 0; i < calls; i++) {
            await model.invoke(PROMPT);
            registered.after?.();
          }
          const used = process.cpuUsage(started);
          // The first two blocks warm up.
          if (block >= 2) cpu[name]!.push((used.user + used.system) / calls);
        }
      }
    } finally {
      await registered.close();
    }
    const [on, off] = [summarize(cpu[ON]!).median, summarize(cpu[OFF]!).median];
    rows.push([
      registered.label,
      `${on.toFixed(1)} µs`,
      `${off.toFixed(1)} µs`,
      `${on >= off ? "+" : "−"}${Math.abs(on - off).toFixed(1)} µs`,
      `${(on / off).toFixed(3)}×`,
    ]);
  }
  const alone = await sdkAlone(models[ON]!, blocks, calls);
  rows.push([
    "the SDK, batch span processor: its own work alone (the same spans and points, made directly)",
    `${alone.toFixed(1)} µs`,
    "–",
    `+${alone.toFixed(1)} µs`,
    "–",
  ]);
  return {
    title: "CPU per call, no network: the package's own work and the SDK's",
    how:
      `process CPU time (user + system) of ${int(calls)} \`invoke\` calls answered at once by a stub ` +
      `fetch, in ${blocks} alternating blocks per contender after 2 warm-up blocks; median over ` +
      "blocks. With providers that record nothing, what is added is the package's own work; with " +
      "the SDK, the SDK's spans and metrics too.",
    goal: "nothing registered: none; the package's own work: a few µs per call.",
    notes: [
      "The last row is the floor under any instrumentation of a call: the SDK recording the " +
        "spans and measurements the conventions ask for (a call span, an attempt span, the " +
        "duration, two token counts, the attempt counter), with the attributes one instrumented " +
        "call records, and nothing of the package's.",
    ],
    headers: ["registered", ON, OFF, "added per call", "×"],
    rows,
  };
}

/**
 * CPU per call of the SDK alone: the spans and measurements one instrumented call makes (read
 * from a real call first), made directly with the API around a promise already resolved, under
 * the SDK with a batch processor.
 */
async function sdkAlone(
  model: ChatInferenceService,
  blocks: number,
  calls: number,
): Promise<number> {
  const registered = registerSdk("batch");
  try {
    await model.invoke(PROMPT);
    const [attempt, call] = await registered.finished!();
    const around = directly(call!, attempt!);
    const answered = () => Promise.resolve();
    const cpu: number[] = [];
    for (let block = 0; block < blocks + 2; block++) {
      const started = process.cpuUsage();
      for (let i = 0; i < calls; i++) {
        await around(answered);
        registered.after?.();
      }
      const used = process.cpuUsage(started);
      if (block >= 2) cpu.push((used.user + used.system) / calls);
    }
    return summarize(cpu).median;
  } finally {
    await registered.close();
  }
}

export async function telemetryOverhead(ctx: BenchContext): Promise<Section> {
  const cases: Case[] = [
    { label: "invoke, fixed server", target: fixedTarget(ctx.servers, "json"), stream: false },
    { label: "invoke, emulator", target: emulatorTarget(ctx.servers), stream: false },
    {
      label: `invoke, emulator with ${MODEL_TIME_MS} ms of model time`,
      target: { ...emulatorTarget(ctx.servers), fetch: withModelTime(MODEL_TIME_MS) },
      stream: false,
      slow: true,
    },
    {
      label: `stream of ${STREAM_CHUNKS} chunks, fixed server`,
      target: fixedTarget(ctx.servers, sseRoute(STREAM_CHUNKS, 8)),
      stream: true,
    },
  ];
  // One setup at a time: each table registers what it measures, and takes it down.
  const idle = await overheadTable(
    ctx,
    NOTHING,
    cases,
    "unchanged within noise (the IQR holds 1.00).",
  );
  const batch = await overheadTable(ctx, registerSdk("batch"), cases, "≤ 1.05× (median).");
  const simple = await overheadTable(ctx, registerSdk("simple"), cases, "≤ 1.05× (median).");
  return {
    name: "telemetry",
    heading: "13. Telemetry overhead",
    tables: [idle, batch, simple, await cpuTable(ctx)],
  };
}
