/**
 * Every public method, given what a JavaScript caller may pass instead of what it takes, throws a
 * `ConfigurationError` that names the argument (or the call option) and says what to pass —
 * never a `TypeError` from deep inside a request, never a request sent, never a silent wrong
 * answer. One row per argument: how to call with a value, the `option` the error must name, and
 * what the argument takes (the values fast-check generates outside it are the wrong ones).
 */
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { createEmulator } from "../../src/emulator/index.js";
import {
  ChatInferenceService,
  ConfigurationError,
  DedicatedEndpointLLM,
  diagnose,
  InferenceServiceEmbeddings,
  InferenceServiceRerank,
  RateLimiter,
  UsageTracker,
  withUsage,
} from "../../src/index.js";
import { openCassette } from "../../src/testing/index.js";

const emulator = createEmulator();
const connection = { apiKey: emulator.apiKey, baseURL: emulator.baseURL, fetch: emulator.fetch };
const chat = new ChatInferenceService("emulator-chat", { ...connection, maxRetries: 0 });
const llm = new DedicatedEndpointLLM({
  ...connection,
  serviceName: "tenant-demo.demo-endpoint",
  maxRetries: 0,
});
const embeddings = new InferenceServiceEmbeddings("emulator-embedding", connection);
const reranker = new InferenceServiceRerank("emulator-rerank", connection);
const limiter = new RateLimiter({ requestsPerMinute: 60 });
const tracker = new UsageTracker();
const estimate = { model: "emulator-chat", inputTokens: 1, maxOutputTokens: 1, choices: 1 };
const request = { model: "emulator-chat", messages: [{ role: "user" as const, content: "hi" }] };

afterAll(() => {
  // Nothing any row did reached the service.
  expect(emulator.state.requests()).toEqual([]);
});

// What the arguments take, as predicates over any value.
const isString = (v: unknown) => typeof v === "string";
const isText = (v: unknown) => typeof v === "string" && v !== "";
const isObject = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);
const isOptional = (take: (v: unknown) => boolean) => (v: unknown) => v === undefined || take(v);
const isNullish = (take: (v: unknown) => boolean) => (v: unknown) => v == null || take(v);
const isSignal = (v: unknown) => v instanceof AbortSignal;
const isCallbacks = (v: unknown) =>
  v == null || (Array.isArray(v) && v.every((h) => typeof h === "object" && h !== null));
const isRetries = (v: unknown) => v === undefined || (Number.isInteger(v) && (v as number) >= 0);
const isNonNegative = (v: unknown) => typeof v === "number" && Number.isFinite(v) && v >= 0;

interface Row {
  /** What is called, with `v` where the wrong value goes. */
  call: string;
  run: (v: unknown) => unknown;
  /** The `option` the error names. */
  option: string;
  takes: (v: unknown) => boolean;
}

// biome-ignore lint/suspicious/noExplicitAny: a JavaScript caller's view, whatever the types say
type Loose = any;
const loose = (value: unknown): Loose => value;

const ROWS: Row[] = [
  // InferenceServiceRerank
  {
    call: "rerank(v, q)",
    run: (v) => reranker.rerank(loose(v), "q"),
    option: "documents",
    takes: Array.isArray,
  },
  {
    call: "rerank([…], v)",
    run: (v) => reranker.rerank(["a"], loose(v)),
    option: "query",
    takes: isText,
  },
  {
    call: "rerank([…], q, v)",
    run: (v) => reranker.rerank(["a"], "q", loose(v)),
    option: "options",
    takes: isOptional(isObject),
  },
  {
    call: "rerank([…], q, { signal: v })",
    run: (v) => reranker.rerank(["a"], "q", { signal: loose(v) }),
    option: "options.signal",
    takes: isNullish(isSignal),
  },
  {
    call: "rerank([…], q, { callbacks: v })",
    run: (v) => reranker.rerank(["a"], "q", { callbacks: loose(v) }),
    option: "options.callbacks",
    takes: isCallbacks,
  },
  {
    call: "compressDocuments(v, q)",
    run: (v) => reranker.compressDocuments(loose(v), "q"),
    option: "documents",
    takes: Array.isArray,
  },
  {
    call: "compressDocuments([…], v)",
    run: (v) => reranker.compressDocuments([], loose(v)),
    option: "query",
    takes: isText,
  },
  {
    call: "compressDocuments([…], q, v)",
    run: (v) => reranker.compressDocuments([], "q", loose(v)),
    option: "callbacks",
    takes: isCallbacks,
  },
  // InferenceServiceEmbeddings
  {
    call: "embedDocuments(v)",
    run: (v) => embeddings.embedDocuments(loose(v)),
    option: "texts",
    takes: (v) => Array.isArray(v) && v.every(isString),
  },
  {
    call: "embedQuery(v)",
    run: (v) => embeddings.embedQuery(loose(v)),
    option: "text",
    takes: isString,
  },
  // ChatInferenceService: the call options it reads, invoked and streamed
  {
    call: "chat.invoke(hi, { signal: v })",
    run: (v) => chat.invoke("hi", { signal: loose(v) }),
    option: "signal",
    takes: isNullish(isSignal),
  },
  {
    call: "chat.invoke(hi, { maxRetries: v })",
    run: (v) => chat.invoke("hi", { maxRetries: loose(v) }),
    option: "maxRetries",
    takes: isRetries,
  },
  {
    call: "chat.invoke(hi, { modelKwargs: v })",
    run: (v) => chat.invoke("hi", { modelKwargs: loose(v) }),
    option: "modelKwargs",
    takes: isOptional(isObject),
  },
  {
    call: "chat.invoke(hi, { options: v })",
    run: (v) => chat.invoke("hi", { options: loose(v) }),
    option: "options",
    takes: isOptional(isObject),
  },
  {
    call: "chat.invoke(hi, { callbacks: v })",
    run: (v) => chat.invoke("hi", { callbacks: loose(v) }),
    option: "callbacks",
    takes: isCallbacks,
  },
  {
    call: "chat.stream(hi, { signal: v })",
    run: async (v) => {
      for await (const _ of await chat.stream("hi", { signal: loose(v) }));
    },
    option: "signal",
    takes: isNullish(isSignal),
  },
  {
    call: "chat.stream(hi, { maxRetries: v })",
    run: async (v) => {
      for await (const _ of await chat.stream("hi", { maxRetries: loose(v) }));
    },
    option: "maxRetries",
    takes: isRetries,
  },
  {
    call: "chat.completionWithRetry(v)",
    run: (v) => chat.completionWithRetry(loose(v)),
    option: "request",
    takes: isObject,
  },
  {
    call: "chat.completionWithRetry(req, { signal: v })",
    run: (v) => chat.completionWithRetry(request, { signal: loose(v) }),
    option: "requestOptions.signal",
    takes: isNullish(isSignal),
  },
  {
    call: "chat.completionWithRetry(req, { maxRetries: v })",
    run: (v) => chat.completionWithRetry(request, loose({ maxRetries: v })),
    option: "requestOptions.maxRetries",
    takes: isRetries,
  },
  {
    call: "chat.getNumTokens(v)",
    run: (v) => chat.getNumTokens(loose(v)),
    option: "content",
    takes: (v) => isString(v) || Array.isArray(v),
  },
  {
    call: "new ChatInferenceService(v)",
    run: (v) => new ChatInferenceService(loose(v)),
    option: "model",
    takes: (v) => isOptional(isObject)(v) || isString(v),
  },
  {
    call: "new ChatInferenceService(model, v)",
    run: (v) => new ChatInferenceService("emulator-chat", loose(v)),
    option: "fields",
    takes: isOptional(isObject),
  },
  {
    call: "new ChatInferenceService({ callbacks: v })",
    run: (v) => new ChatInferenceService("emulator-chat", { ...connection, callbacks: loose(v) }),
    option: "callbacks",
    takes: isCallbacks,
  },
  // DedicatedEndpointLLM
  {
    call: "llm.invoke(hi, { signal: v })",
    run: (v) => llm.invoke("hi", { signal: loose(v) }),
    option: "signal",
    takes: isNullish(isSignal),
  },
  {
    call: "llm.invoke(hi, { maxRetries: v })",
    run: (v) => llm.invoke("hi", { maxRetries: loose(v) }),
    option: "maxRetries",
    takes: isRetries,
  },
  {
    call: "llm.invoke(hi, { callbacks: v })",
    run: (v) => llm.invoke("hi", { callbacks: loose(v) }),
    option: "callbacks",
    takes: isCallbacks,
  },
  {
    call: "llm.stream(hi, { signal: v })",
    run: async (v) => {
      for await (const _ of await llm.stream("hi", { signal: loose(v) }));
    },
    option: "signal",
    takes: isNullish(isSignal),
  },
  // RateLimiter and UsageTracker
  {
    call: "limiter.acquire(v)",
    run: (v) => limiter.acquire(loose(v)),
    option: "estimate",
    takes: isObject,
  },
  {
    call: "limiter.acquire({ model: v, … })",
    run: (v) => limiter.acquire({ ...estimate, model: loose(v) }),
    option: "estimate.model",
    takes: isString,
  },
  {
    call: "limiter.acquire({ inputTokens: v, … })",
    run: (v) => limiter.acquire({ ...estimate, inputTokens: loose(v) }),
    option: "estimate.inputTokens",
    takes: isNonNegative,
  },
  {
    call: "limiter.acquire(estimate, v)",
    run: (v) => limiter.acquire(estimate, loose(v)),
    option: "options",
    takes: isOptional(isObject),
  },
  {
    call: "limiter.acquire(estimate, { signal: v })",
    run: (v) => limiter.acquire(estimate, { signal: loose(v) }),
    option: "options.signal",
    takes: isNullish(isSignal),
  },
  {
    call: "limiter.acquire(estimate, { keyId: v })",
    run: (v) => limiter.acquire(estimate, { keyId: loose(v) }),
    option: "options.keyId",
    takes: isOptional(isString),
  },
  {
    call: "tracker.reserve(v, estimate)",
    run: (v) => tracker.reserve(loose(v), estimate),
    option: "runId",
    takes: isString,
  },
  {
    call: "tracker.reserve(run, v)",
    run: (v) => tracker.reserve("run", loose(v)),
    option: "estimate",
    takes: isObject,
  },
  {
    call: "tracker.endRun(run, v)",
    run: (v) => tracker.endRun("run", loose(v)),
    option: "how",
    takes: isObject,
  },
  // Functions
  {
    call: "withUsage(v)",
    run: (v) => withUsage(loose(v)),
    option: "fn",
    takes: (v) => typeof v === "function",
  },
  {
    call: "diagnose({ fetch: v })",
    run: (v) => diagnose({ ...connection, fetch: loose(v) }),
    option: "fetch",
    takes: isOptional((v) => typeof v === "function"),
  },
  { call: "openCassette(v)", run: (v) => openCassette(loose(v)), option: "file", takes: isText },
];

/** What a JavaScript caller passes by mistake, besides what fast-check makes up. */
const MISTAKES: unknown[] = [
  "text",
  "",
  5,
  0,
  -1,
  1.5,
  Number.NaN,
  true,
  null,
  {},
  [],
  [null],
  new Set(["a"]),
  Symbol("s"),
  10n,
];

/** The error `run(value)` ends with, thrown at once or rejected. */
async function outcome(run: () => unknown): Promise<unknown> {
  try {
    await run();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe("every public argument, given the wrong type", () => {
  it.each(ROWS.map((row) => [row.call, row] as const))(
    "%s throws a ConfigurationError naming it",
    async (_call, { run, option, takes }) => {
      const wrong = fc.oneof(fc.constantFrom(...MISTAKES), fc.anything()).filter((v) => !takes(v));
      await fc.assert(
        fc.asyncProperty(wrong, async (value) => {
          const error = await outcome(() => run(value));
          expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
          const { option: named, message } = error as ConfigurationError;
          // An object may hold a wrong field of its own (`options.signal`): named by its path.
          expect(named === option || named.startsWith(`${option}.`), named).toBe(true);
          expect(message).toContain(`\`${named}\``);
          expect(message).toMatch(/must be /);
        }),
        { numRuns: 25 },
      );
    },
  );

  it('rerank("text", q) says what documents must be, as the docs promise', async () => {
    const error = await outcome(() => reranker.rerank(loose("text"), "q"));
    expect(error).toMatchObject({
      name: "ConfigurationError",
      option: "documents",
      message:
        '`documents` must be an array of strings, LangChain Documents or `{ text }` objects (the documents to rank); got "text".',
    });
  });

  it('embedDocuments("text") is refused, not sent as one string and read as a mismatch', async () => {
    const error = await outcome(() => embeddings.embedDocuments(loose("text")));
    expect(error).toMatchObject({ name: "ConfigurationError", option: "texts" });
  });
});
