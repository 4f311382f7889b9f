/**
 * A telemetry backend that throws never changes a call: for every method of the API the package
 * calls — learnt by running the calls once through watching proxies — a tracer provider, meter
 * provider and context manager that throw from that method leave every surface's result, the
 * usage tracker's records and cost, the budget's settlement and the requests on the wire exactly
 * as they are with no telemetry at all; streams still close and leave no timer; each kind of
 * failure is reported once, not once per call.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  createEmulator,
  DEFAULT_EMBEDDING_MODEL,
  DEFAULT_MODEL,
  DEFAULT_RERANK_MODEL,
  DEFAULT_SERVICE_NAME,
  FAULT_HEADER,
} from "../../src/emulator/index.js";
import {
  ChatInferenceService,
  DedicatedEndpointLLM,
  InferenceServiceEmbeddings,
  InferenceServiceRerank,
  MemoryStore,
  UsageTracker,
} from "../../src/index.js";
import { AttributeSets, CallTrace, type TraceTarget } from "../../src/telemetry/call_trace.js";
import { resetTelemetryWarnings, telemetryFailed } from "../../src/telemetry/failures.js";
import { type OtelRegistry, ROOT_CONTEXT } from "../../src/telemetry/otel.js";
import { Telemetry } from "../../src/telemetry/telemetry.js";
import type { Fetch } from "../../src/transport/fetch.js";
import { installThrowingOtel, type ThrowingOtel } from "../helpers/throwing_otel.js";

const emulator = createEmulator({ faults: { retryAfterSeconds: 0 } });
const PRICE = { input: 0.5, output: 1.5 };
const PRICES = {
  [DEFAULT_MODEL]: PRICE,
  [DEFAULT_SERVICE_NAME]: PRICE,
  [DEFAULT_EMBEDDING_MODEL]: PRICE,
  [DEFAULT_RERANK_MODEL]: PRICE,
};

/** A fetch that sends the first request with `fault`, the others as they are. */
function faultOnce(fault: string): Fetch {
  let sent = 0;
  return (input, init) => {
    if (sent++ > 0) return emulator.fetch(input, init);
    const headers = new Headers(init?.headers);
    headers.set(FAULT_HEADER, fault);
    return emulator.fetch(input, { ...init, headers });
  };
}

const connection = (fetch: Fetch = emulator.fetch) => ({
  apiKey: emulator.apiKey,
  baseURL: emulator.baseURL,
  fetch,
  maxRetries: 2,
  retry: { initialDelayMs: 1, maxDelayMs: 2 },
});
const chat = (fetch?: Fetch) =>
  new ChatInferenceService(DEFAULT_MODEL, { ...connection(fetch), maxTokens: 32 });

/** What a scenario's call gave: its result, or its error's class and code. */
type Outcome = unknown;

async function read(stream: AsyncIterable<unknown>, upTo = Number.POSITIVE_INFINITY) {
  const items: unknown[] = [];
  for await (const item of stream) {
    items.push(item);
    if (items.length >= upTo) break;
  }
  return items;
}

/** Content and usage of chat chunks or messages, without their IDs (new on every run). */
const chatOutput = (items: unknown[]) =>
  items.map((item) => {
    const { content, usage_metadata } = item as { content: unknown; usage_metadata?: unknown };
    return { content, usage_metadata };
  });

/** Every surface, and each way a call ends that runs a different part of the telemetry. */
const SCENARIOS: Record<string, (usage: UsageTracker) => Promise<Outcome>> = {
  "chat invoke": async (usage) =>
    chatOutput([await chat().invoke("Hello", { callbacks: [usage] })]),
  "chat invoke, retried after a 429": async (usage) =>
    chatOutput([await chat(faultOnce("429")).invoke("Hello", { callbacks: [usage] })]),
  "chat invoke, refused by the service (401)": (usage) =>
    new ChatInferenceService(DEFAULT_MODEL, { ...connection(), apiKey: "sk-wrong" }).invoke(
      "Hello",
      { callbacks: [usage] },
    ),
  "chat invoke, refused by the budget": () =>
    chat().invoke("Hello", {
      callbacks: [new UsageTracker({ prices: PRICES, budget: 1e-9, store: new MemoryStore() })],
    }),
  "chat stream, read to its end": async (usage) =>
    chatOutput(await read(await chat().stream("Hello there", { callbacks: [usage] }))),
  "chat stream, left after its first chunk (break)": async (usage) =>
    chatOutput(await read(await chat().stream("Hello there", { callbacks: [usage] }), 1)),
  "chat stream, stopped by its signal": async (usage) => {
    const controller = new AbortController();
    const stream = await chat().stream("Hello there", {
      callbacks: [usage],
      signal: controller.signal,
    });
    const items: unknown[] = [];
    for await (const item of stream) {
      items.push(item);
      controller.abort();
    }
    return chatOutput(items);
  },
  "dedicated invoke": (usage) =>
    new DedicatedEndpointLLM({
      serviceName: DEFAULT_SERVICE_NAME,
      ...connection(),
      maxTokens: 32,
    }).invoke("Hello", { callbacks: [usage] }),
  "dedicated stream": async (usage) =>
    read(
      await new DedicatedEndpointLLM({
        serviceName: DEFAULT_SERVICE_NAME,
        ...connection(),
        maxTokens: 32,
      }).stream("Hello", { callbacks: [usage] }),
    ),
  embeddings: (usage) =>
    new InferenceServiceEmbeddings(DEFAULT_EMBEDDING_MODEL, {
      ...connection(),
      batchSize: 2,
      callbacks: [usage],
    }).embedDocuments(["a", "b", "c"]),
  rerank: (usage) =>
    new InferenceServiceRerank(DEFAULT_RERANK_MODEL, { ...connection(), callbacks: [usage] })
      .rerank(["a cat sat", "the dog ran"], "which dog?")
      .then((results) => results.map(({ index, relevanceScore }) => ({ index, relevanceScore }))),
};

/**
 * What keeps the process alive, as Node counts it (timers, sockets, …), once the timers already
 * due have run: a stream left open keeps its idle timer.
 */
async function openHandles(): Promise<string[]> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  return process.getActiveResourcesInfo().sort();
}

/** Everything a call can change, from one run of every scenario. */
interface Observed {
  outcomes: Record<string, unknown>;
  records: unknown[];
  totals: unknown;
  budget: unknown;
  requests: unknown[];
  /** What the emulated service billed. */
  credit: number;
  /** What is still open after every scenario that was not before the first. */
  handlesLeft: string[];
}

async function runScenarios(): Promise<Observed> {
  emulator.state.reset();
  const usage = new UsageTracker({ prices: PRICES, budget: 10, currency: "credit" });
  const outcomes: Record<string, unknown> = {};
  const before = await openHandles();
  for (const [name, scenario] of Object.entries(SCENARIOS)) {
    outcomes[name] = await scenario(usage).then(
      (result) => ({ result }),
      (error: { name?: unknown; code?: unknown }) => ({ error: [error?.name, error?.code] }),
    );
  }
  const handlesLeft = await openHandles();
  for (const handle of before) handlesLeft.splice(handlesLeft.indexOf(handle), 1);
  return {
    outcomes,
    // Run IDs and durations differ from run to run; request IDs are compared by their presence.
    records: usage.records.map(({ runId: _, durationMs: __, requestId, error, ...record }) => ({
      ...record,
      requestId: requestId !== undefined,
      ...(error
        ? { error: { ...error, message: error.message.replace(/request id \w+/, "request id") } }
        : {}),
    })),
    totals: usage.totals,
    budget: await usage.budgetStatus(),
    requests: emulator.state.requests().map(({ requestId: _, time: __, ...entry }) => entry),
    credit: emulator.state.credit,
    handlesLeft,
  };
}

/** The methods of the API that the scenarios call, learnt by running them through the proxies. */
let methods: string[] = [];
let untraced: Observed;

beforeAll(async () => {
  untraced = await runScenarios();
  const watching = installThrowingOtel();
  try {
    // What registering called is the app's doing, not the package's.
    watching.called.clear();
    await runScenarios();
    await watching.collect();
    methods = [...watching.called].sort();
  } finally {
    await watching.uninstall();
  }
});

let otel: ThrowingOtel | undefined;
afterEach(async () => {
  await otel?.uninstall();
  otel = undefined;
  resetTelemetryWarnings();
  vi.restoreAllMocks();
});

describe("a telemetry backend that throws", () => {
  it("is reached through every method the package calls (what the next test makes throw)", () => {
    expect(untraced.requests.length).toBeGreaterThan(10);
    expect(untraced.handlesLeft).toEqual([]);
    expect(methods).toEqual(
      expect.arrayContaining([
        "tracerProvider.getTracer",
        "tracer.startSpan",
        "span.isRecording",
        "span.setAttributes",
        "span.addEvent",
        "span.setStatus",
        "span.end",
        "meterProvider.getMeter",
        "meter.createHistogram",
        "meter.createObservableCounter",
        "observable.addCallback",
        "observableResult.observe",
        "histogram.record",
        "contextManager.active",
        "contextManager.with",
        "context.setValue",
      ]),
    );
  });

  it("changes no result, record, cost, settlement or request, and leaves no timer, whichever method throws", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    // Soft: a failure names every method that changes something, not only the first.
    for (const method of methods) {
      otel = installThrowingOtel(method);
      const first = await runScenarios();
      const collectErrors = await otel.collect();
      expect.soft(otel.thrown(), method).toBeGreaterThan(0);
      expect.soft({ method, ...first }).toEqual({ method, ...untraced });
      // The app's metric reader gets no error from the package's callbacks either.
      expect.soft(collectErrors, method).toEqual([]);
      // Reported once per kind of failure, not once per call: a second run adds nothing.
      const reported = warn.mock.calls.length;
      expect.soft(reported, method).toBeGreaterThan(0);
      expect.soft({ method, ...(await runScenarios()) }).toEqual({ method, ...untraced });
      await otel.collect();
      expect.soft(warn.mock.calls.length, method).toBe(reported);
      await otel.uninstall();
      otel = undefined;
      resetTelemetryWarnings();
      warn.mockClear();
    }
  });
});

describe("a context manager that misbehaves", () => {
  const target: TraceTarget = {
    operation: "chat",
    url: "http://svc.test/inference/v1/chat/completions",
    template: "/inference/v1/chat/completions",
    address: "svc.test",
    port: 80,
    captureContent: false,
    sets: new AttributeSets(),
  };
  type Manager = NonNullable<OtelRegistry["context"]>;
  const manager = (run: (fn: () => unknown) => unknown): Manager => ({
    active: () => ROOT_CONTEXT,
    with: ((_context: unknown, fn: () => unknown) => run(fn)) as Manager["with"],
  });
  /** Sends through `runIn` under `manager`, counting the sends. */
  async function send(context: Manager, send: () => Promise<string> = async () => "answer") {
    let sends = 0;
    const trace = new CallTrace(target, { context });
    const result = await trace.runIn(ROOT_CONTEXT, () => {
      sends++;
      return send();
    });
    return { result, sends };
  }

  it.each([
    [
      "throws before it runs the send",
      manager(() => {
        throw new Error("no context");
      }),
    ],
    [
      "throws after it ran the send",
      manager((fn) => {
        fn();
        throw new Error("late");
      }),
    ],
    ["never runs the send", manager(() => undefined)],
    [
      "runs the send twice",
      manager((fn) => {
        fn();
        return fn();
      }),
    ],
  ])("one that %s: the attempt is sent once, and answered", async (_name, context) => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    expect(await send(context)).toEqual({ result: "answer", sends: 1 });
  });

  it("a send that throws at once is the attempt's failure, thrown as it is and not sent again", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const failure = new Error("refused");
    const context = manager((fn) => fn());
    const sent = send(context, () => {
      throw failure;
    });
    await expect(sent).rejects.toBe(failure);
    expect(warn).not.toHaveBeenCalled();
  });
});

describe("what a call failed with, read for its span", () => {
  it("may be anything a callback threw, even a value whose every property read throws", () => {
    otel = installThrowingOtel();
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const trace = new Telemetry({
      operation: "chat",
      url: "http://svc.test/inference/v1/chat/completions",
    }).trace();
    trace!.begin({ model: "m" }, {}, false);
    expect(() => trace!.end(proxy)).not.toThrow();
    const [span] = otel.exporter.getFinishedSpans();
    expect(span?.attributes["error.type"]).toBe("_OTHER");
    expect(warn).toHaveBeenCalledOnce();
    expect(warn.mock.calls[0]?.[0]).toContain("tried to read what the call failed with");
  });
});

describe("telemetryFailed", () => {
  it("warns once per kind of failure, naming what failed and why, and never throws", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    telemetryFailed("end a span", new TypeError("span is frozen"));
    telemetryFailed("end a span", new TypeError("span is frozen again"));
    telemetryFailed("record a metric", "a string thrown");
    expect(warn.mock.calls.map(([message]) => message)).toEqual([
      expect.stringMatching(
        /^langchain-inference-service: telemetry failed while the package tried to end a span \(TypeError: span is frozen\)\. The calls go on unchanged/,
      ),
      expect.stringContaining("tried to record a metric (a string thrown)"),
    ]);
    warn.mockImplementation(() => {
      throw new Error("console closed");
    });
    expect(() => telemetryFailed("start a span", new Error("x"))).not.toThrow();
  });
});
