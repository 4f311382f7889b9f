/**
 * Every way a call can end settles it, once: its tracker run ends (one record), its reservation
 * is settled, its limiter slot is given back, and the budget's spend is never below what the
 * service debited. Every surface × every way of ending × the memory and the Redis store, against
 * the in-process emulator.
 */
import { type BaseCache, InMemoryCache } from "@langchain/core/caches";
import type { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import {
  ChatInferenceService,
  DedicatedEndpointLLM,
  InferenceServiceEmbeddings,
  InferenceServiceRerank,
  MemoryStore,
  type RateLimiter,
  ServiceTimeoutError,
  ServiceUnavailableError,
  type UsageStore,
  UsageTracker,
} from "langchain-inference-service";
import {
  createEmulator,
  FAULT_HEADER,
  type InProcessEmulator,
} from "langchain-inference-service/emulator";
import { RedisStore } from "langchain-inference-service/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { busyLimiter, Throwing } from "./helpers/endings.js";
import { REDIS_SERVER, type RedisServer, startRedis, warnIfNoRedis } from "./helpers/redis.js";

/** The emulator's own prices (src/emulator/state/defaults.ts), so that spend and debit compare. */
const PRICES = {
  "emulator-chat": { input: 0.5, output: 1.5 },
  "tenant-demo.demo-endpoint": { input: 0.5, output: 1.5 },
  "emulator-embedding": { input: 0.02, output: 0 },
  "emulator-rerank": { input: 0.02, output: 0 },
};
const SERVICE_NAME = "tenant-demo.demo-endpoint";
/** Slow enough that a call can be stopped in the middle of its stream. */
const CHUNK_DELAY_MS = 5;

let emulator: InProcessEmulator;
let redis: RedisServer | undefined;

beforeAll(async () => {
  emulator = createEmulator({ streamChunkDelayMs: CHUNK_DELAY_MS });
  warnIfNoRedis("cancellation");
  if (REDIS_SERVER !== undefined) redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

/** The budget stores the matrix runs on: memory always, Redis when its server is installed. */
const STORES: Array<[string, () => UsageStore & { close?: () => Promise<void> }]> = [
  ["memory", () => new MemoryStore()],
  ...(REDIS_SERVER === undefined
    ? []
    : ([
        [
          "redis",
          () =>
            new RedisStore({
              url: redis!.url,
              prefix: `cancel:${globalThis.crypto.randomUUID()}:`,
              timeoutMs: 5000,
            }),
        ],
      ] as Array<[string, () => UsageStore & { close?: () => Promise<void> }]>)),
];

/** A fetch that sends `fault` with every request, as `X-Emulator-Fault`. */
function faulty(fault: string | undefined): typeof globalThis.fetch {
  if (fault === undefined) return emulator.fetch;
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set(FAULT_HEADER, fault);
    return emulator.fetch(input, { ...init, headers });
  };
}

interface Build {
  fault?: string;
  maxRetries?: number;
  rateLimiter?: RateLimiter;
  idleTimeout?: number;
  retry?: { initialDelayMs: number; maxDelayMs: number };
  onFailedAttempt?: (error: unknown) => void;
  /** A LangChain cache: core then starts the run before the model's own uncached path. */
  cache?: BaseCache;
}

/** The two model surfaces, built the same way. */
const SURFACES = {
  chat: (b: Build) =>
    new ChatInferenceService("emulator-chat", {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch: faulty(b.fault),
      maxTokens: 64,
      maxRetries: b.maxRetries ?? 0,
      retry: b.retry ?? { initialDelayMs: 1, maxDelayMs: 2 },
      rateLimiter: b.rateLimiter,
      idleTimeout: b.idleTimeout,
      onFailedAttempt: b.onFailedAttempt,
      cache: b.cache,
    }),
  dedicated: (b: Build) =>
    new DedicatedEndpointLLM({
      serviceName: SERVICE_NAME,
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch: faulty(b.fault),
      maxTokens: 64,
      maxRetries: b.maxRetries ?? 0,
      retry: b.retry ?? { initialDelayMs: 1, maxDelayMs: 2 },
      rateLimiter: b.rateLimiter,
      idleTimeout: b.idleTimeout,
      onFailedAttempt: b.onFailedAttempt,
      cache: b.cache,
    }),
};
type Surface = keyof typeof SURFACES;
type Model = ReturnType<(typeof SURFACES)[Surface]>;

/** Drains a stream. */
async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream) {
    // read to the end
  }
}

/** What one way of ending does, with the tracker given; resolves to the call's error, if any. */
type Ending = (surface: Surface, usage: UsageTracker) => Promise<unknown>;

const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e,
  );

/** Every way a call of a model surface can end. */
const ENDINGS: Record<string, Ending> = {
  "resolved (invoke)": (surface, usage) =>
    caught(SURFACES[surface]({}).invoke("hi", { callbacks: [usage] })),
  "resolved (stream)": (surface, usage) =>
    caught(
      SURFACES[surface]({})
        .stream("hi", { callbacks: [usage] })
        .then(drain),
    ),
  "failed (503, not retried)": (surface, usage) =>
    caught(SURFACES[surface]({ fault: "503" }).invoke("hi", { callbacks: [usage] })),
  "timed out (a stalled stream)": (surface, usage) =>
    caught(
      SURFACES[surface]({ fault: "stall-mid", idleTimeout: 50 })
        .stream("hi", { callbacks: [usage] })
        .then(drain),
    ),
  "aborted before sending": async (surface, usage) => {
    const controller = new AbortController();
    controller.abort();
    return caught(
      SURFACES[surface]({}).invoke("hi", { callbacks: [usage], signal: controller.signal }),
    );
  },
  "aborted while waiting for the rate limiter": async (surface, usage) => {
    const controller = new AbortController();
    const model = SURFACES[surface]({ rateLimiter: busyLimiter(() => controller.abort()) });
    await model.invoke("first", { callbacks: [usage] });
    return caught(model.invoke("hi", { callbacks: [usage], signal: controller.signal }));
  },
  "aborted in a retry's backoff": async (surface, usage) => {
    const controller = new AbortController();
    const model = SURFACES[surface]({
      fault: "503",
      maxRetries: 3,
      retry: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
      onFailedAttempt: () => controller.abort(),
    });
    return caught(model.invoke("hi", { callbacks: [usage], signal: controller.signal }));
  },
  "aborted while invoked (a streaming model)": async (surface, usage) => {
    const controller = new AbortController();
    const model = SURFACES[surface]({}) as Model & { streaming: boolean };
    model.streaming = true;
    const tokens = {
      handleLLMNewToken: () => controller.abort(),
    };
    return caught(model.invoke("hi", { callbacks: [usage, tokens], signal: controller.signal }));
  },
  "aborted in the middle of a stream, the reader waiting": async (surface, usage) => {
    const controller = new AbortController();
    const stream = await SURFACES[surface]({}).stream("hi", {
      callbacks: [usage],
      signal: controller.signal,
    });
    const reader = stream[Symbol.asyncIterator]();
    await reader.next();
    const waiting = reader.next();
    controller.abort();
    return caught(waiting);
  },
  "aborted between two reads, nothing read after": async (surface, usage) => {
    const controller = new AbortController();
    const stream = await SURFACES[surface]({}).stream("hi", {
      callbacks: [usage],
      signal: controller.signal,
    });
    const reader = stream[Symbol.asyncIterator]();
    await reader.next();
    controller.abort();
    return undefined; // the reader is dropped: nothing calls next or return again
  },
  "left with break (stream)": async (surface, usage) => {
    for await (const _ of await SURFACES[surface]({}).stream("hi", { callbacks: [usage] })) break;
    return undefined;
  },
  "left with break (streamEvents v2)": async (surface, usage) => {
    // Both surfaces stream events alike; their overloads differ only in their call options.
    const model = SURFACES[surface]({}) as ChatInferenceService;
    const events = model.streamEvents("hi", { version: "v2", callbacks: [usage] });
    for await (const event of events) {
      if (event.event === "on_chat_model_stream" || event.event === "on_llm_stream") break;
    }
    return undefined;
  },
  "a callback that throws in a token": (surface, usage) =>
    caught(
      SURFACES[surface]({})
        .stream("hi", { callbacks: [usage, new Throwing("token")] })
        .then(drain),
    ),
  "a callback that throws at the run's start": (surface, usage) =>
    caught(SURFACES[surface]({}).invoke("hi", { callbacks: [usage, new Throwing("start")] })),
  "a callback that throws at the run's start (a model with a cache)": (surface, usage) =>
    caught(
      SURFACES[surface]({ cache: new InMemoryCache() }).invoke("hi", {
        callbacks: [usage, new Throwing("start")],
      }),
    ),
  "a callback that throws at a stream's start": (surface, usage) =>
    caught(
      SURFACES[surface]({})
        .stream("hi", { callbacks: [usage, new Throwing("start")] })
        .then(drain),
    ),
};

/** What each ending must leave in its record, and the error it must end with. */
const EXPECTED: Record<string, { record: Record<string, unknown>; error?: (e: unknown) => void }> =
  {
    "resolved (invoke)": { record: {} },
    "resolved (stream)": { record: {} },
    "failed (503, not retried)": {
      record: { error: expect.objectContaining({ name: "ServiceUnavailableError" }) },
      error: (e) => expect(ServiceUnavailableError.isInstance(e)).toBe(true),
    },
    "timed out (a stalled stream)": {
      record: { error: expect.objectContaining({ name: "ServiceTimeoutError" }) },
      error: (e) => expect(ServiceTimeoutError.isInstance(e)).toBe(true),
    },
    "aborted before sending": { record: { aborted: true }, error: isAbort },
    "aborted while waiting for the rate limiter": { record: { aborted: true }, error: isAbort },
    "aborted in a retry's backoff": { record: { aborted: true }, error: isAbort },
    "aborted while invoked (a streaming model)": {
      record: { aborted: true, abandoned: true },
      error: isAbort,
    },
    "aborted in the middle of a stream, the reader waiting": {
      record: { aborted: true, abandoned: true, requestId: expect.any(String) },
      error: isAbort,
    },
    "aborted between two reads, nothing read after": {
      record: { aborted: true, abandoned: true, requestId: expect.any(String) },
    },
    "left with break (stream)": { record: { abandoned: true, requestId: expect.any(String) } },
    // LangChain stops the stream by aborting a signal of its own.
    "left with break (streamEvents v2)": { record: { abandoned: true, aborted: true } },
    "a callback that throws in a token": {
      record: { error: expect.objectContaining({ message: "boom in a token" }) },
      error: (e) => expect((e as Error).message).toBe("boom in a token"),
    },
    "a callback that throws at the run's start": {
      record: { error: expect.objectContaining({ message: "boom at start" }) },
      error: (e) => expect((e as Error).message).toBe("boom at start"),
    },
    "a callback that throws at the run's start (a model with a cache)": {
      record: { error: expect.objectContaining({ message: "boom at start" }) },
      error: (e) => expect((e as Error).message).toBe("boom at start"),
    },
    "a callback that throws at a stream's start": {
      record: { error: expect.objectContaining({ message: "boom at start" }) },
      error: (e) => expect((e as Error).message).toBe("boom at start"),
    },
  };

function isAbort(error: unknown): void {
  expect((error as Error | undefined)?.name).toBe("AbortError");
}

/**
 * Waits until the tracker has no run in flight and its budget no reservation: a call stopped
 * while nobody reads it settles in the background. Bounded by turns of the event loop, not time.
 */
async function settled(usage: UsageTracker): Promise<void> {
  for (let turn = 0; turn < 2000; turn++) {
    if (usage.inFlight === 0 && (await usage.budgetStatus()).reserved === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Credit the emulator debited since `before`. */
const debitedSince = (before: number) => before - emulator.state.snapshot().credit;

describe.each(STORES)("every way a call ends settles it (%s store)", (_name, makeStore) => {
  describe.each(Object.keys(SURFACES) as Surface[])("%s", (surface) => {
    it.each(Object.keys(ENDINGS))("%s", async (ending) => {
      const store = makeStore();
      const usage = new UsageTracker({ prices: PRICES, budget: 1_000, store });
      const credit = emulator.state.snapshot().credit;
      const error = await ENDINGS[ending]!(surface, usage);
      await settled(usage);
      const expected = EXPECTED[ending]!;
      if (expected.error) expected.error(error);
      else expect(error).toBeUndefined();
      expect(usage.inFlight).toBe(0);
      const status = await usage.budgetStatus();
      expect(status.reserved).toBe(0);
      // One record for the call (the rate limiter case makes a first call of its own).
      const records = usage.records;
      const last = records.at(-1)!;
      expect(records).toHaveLength(ending.includes("rate limiter") ? 2 : 1);
      expect(last).toMatchObject(expected.record);
      if (!("error" in expected.record)) expect(last.error).toBeUndefined();
      if (!("aborted" in expected.record)) expect(last.aborted).toBeUndefined();
      if (!("abandoned" in expected.record)) expect(last.abandoned).toBeUndefined();
      // The budget never holds less than the service billed.
      expect(status.spent).toBeGreaterThanOrEqual(debitedSince(credit) - 1e-12);
      await store.close?.();
    });
  });

  it("charges a call once when two trackers share the store and the budget key", async () => {
    const store = makeStore();
    const one = new UsageTracker({ prices: PRICES, budget: 1_000, store });
    const two = new UsageTracker({ prices: PRICES, budget: 1_000, store });
    const reservedDuringTheCall: number[] = [];
    const watch = {
      handleLLMNewToken: async () => {
        reservedDuringTheCall.push((await one.budgetStatus()).reserved);
      },
    };
    await drain(await SURFACES.chat({}).stream("hi", { callbacks: [one, two, watch] }));
    expect(one.records).toHaveLength(1);
    expect(two.records).toHaveLength(1);
    expect(one.records[0]?.cost).toBe(two.records[0]?.cost);
    const status = await one.budgetStatus();
    expect(status.spent).toBeCloseTo(one.records[0]!.cost!, 12);
    expect(status.reserved).toBe(0);
    // While the call ran, one reservation was held, not two.
    const held = Math.max(...reservedDuringTheCall);
    expect(held).toBeGreaterThan(0);
    expect(Math.min(...reservedDuringTheCall)).toBeCloseTo(held, 12);
    await store.close?.();
  });
});

describe("embeddings: every way a call ends settles it", () => {
  it.each([
    ["resolved", undefined, undefined],
    ["failed (503, not retried)", "503", "ServiceUnavailableError"],
  ])("%s", async (_ending, fault, errorName) => {
    const usage = new UsageTracker({ prices: PRICES, budget: 1_000 });
    const error = await caught(
      new InferenceServiceEmbeddings("emulator-embedding", {
        apiKey: emulator.apiKey,
        baseURL: emulator.baseURL,
        fetch: faulty(fault),
        maxRetries: 0,
        callbacks: [usage],
      }).embedDocuments(["a", "b"]),
    );
    expect((error as Error | undefined)?.name).toBe(errorName);
    expect(usage.inFlight).toBe(0);
    expect((await usage.budgetStatus()).reserved).toBe(0);
    expect(usage.records).toHaveLength(1);
  });

  it("a callback that throws at the run's start leaves no run in flight", async () => {
    const usage = new UsageTracker({ prices: PRICES, budget: 1_000 });
    const error = await caught(
      new InferenceServiceEmbeddings("emulator-embedding", {
        apiKey: emulator.apiKey,
        baseURL: emulator.baseURL,
        fetch: emulator.fetch,
        callbacks: [usage, new Throwing("start")],
      }).embedQuery("a"),
    );
    expect((error as Error).message).toBe("boom at start");
    expect(usage.inFlight).toBe(0);
    expect(usage.records).toEqual([
      expect.objectContaining({ error: expect.objectContaining({ message: "boom at start" }) }),
    ]);
  });
});

describe("rerank: every way a call ends settles it", () => {
  const reranker = (fields: { fault?: string; callbacks: BaseCallbackHandler[] }) =>
    new InferenceServiceRerank("emulator-rerank", {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch: faulty(fields.fault),
      maxRetries: 0,
      callbacks: fields.callbacks,
    });

  it.each([
    ["resolved", undefined, undefined],
    ["failed (503, not retried)", "503", "ServiceUnavailableError"],
  ])("%s", async (_ending, fault, errorName) => {
    const usage = new UsageTracker({ prices: PRICES, budget: 1_000 });
    const error = await caught(reranker({ fault, callbacks: [usage] }).rerank(["a", "b"], "q"));
    expect((error as Error | undefined)?.name).toBe(errorName);
    expect(usage.inFlight).toBe(0);
    expect((await usage.budgetStatus()).reserved).toBe(0);
    expect(usage.records).toHaveLength(1);
  });

  it("a callback that throws at the run's start leaves no run in flight", async () => {
    const usage = new UsageTracker({ prices: PRICES, budget: 1_000 });
    const error = await caught(
      reranker({ callbacks: [usage, new Throwing("start")] }).rerank(["a"], "q"),
    );
    expect((error as Error).message).toBe("boom at start");
    expect(usage.inFlight).toBe(0);
    expect(usage.records).toEqual([
      expect.objectContaining({ error: expect.objectContaining({ message: "boom at start" }) }),
    ]);
  });
});

describe("LangGraph's messages streaming", () => {
  it("left with break: the model's run is counted as abandoned, nothing held", async () => {
    const usage = new UsageTracker({ prices: PRICES, budget: 1_000 });
    const model = SURFACES.chat({});
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("model", async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addEdge("__start__", "model")
      .compile();
    const stream = await graph.stream(
      { messages: [{ role: "user", content: "hi" }] },
      { streamMode: "messages", callbacks: [usage] },
    );
    for await (const _ of stream) break;
    await settled(usage);
    expect(usage.inFlight).toBe(0);
    expect((await usage.budgetStatus()).reserved).toBe(0);
    expect(usage.records).toEqual([expect.objectContaining({ abandoned: true })]);
  });
});
