/**
 * Every request of every surface as the OpenTelemetry SDK records it, against the in-process
 * emulator: one CLIENT span per call under the app's active span, a child span per HTTP attempt
 * (a 429 then a 200 is two), the typed error's class on failures, the meter's reservations,
 * refusals and rate-limiter waits as events, the GenAI metrics — and every way a call can end
 * ends its span exactly once.
 */
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { beforeEach, describe, expect, it } from "vitest";
import {
  createEmulator,
  DEFAULT_EMBEDDING_MODEL,
  DEFAULT_MODEL,
  DEFAULT_RERANK_MODEL,
  DEFAULT_SERVICE_NAME,
  FAULT_HEADER,
} from "../../src/emulator/index.js";
import {
  BudgetExceededError,
  ChatInferenceService,
  DedicatedEndpointLLM,
  InferenceServiceEmbeddings,
  InferenceServiceRerank,
  MemoryStore,
  RateLimiter,
  UsageTracker,
} from "../../src/index.js";
import type { Fetch } from "../../src/transport/fetch.js";
import { busyLimiter, Throwing } from "../helpers/endings.js";
import { parentOf, useOtel } from "../helpers/otel.js";

const emulator = createEmulator({ faults: { retryAfterSeconds: 0 }, streamChunkDelayMs: 2 });
const PRICES = {
  [DEFAULT_MODEL]: { input: 0.5, output: 1.5 },
  [DEFAULT_SERVICE_NAME]: { input: 0.5, output: 1.5 },
};
const FAST_RETRY = { initialDelayMs: 1, maxDelayMs: 2 };

const otel = useOtel();
beforeEach(() => {
  emulator.state.reset();
});

/** A fetch that sends the n-th request with the n-th fault (none when it is undefined). */
function faults(...sequence: Array<string | undefined>): Fetch {
  let n = 0;
  return (input, init) => {
    const fault = sequence[n++];
    if (fault === undefined) return emulator.fetch(input, init);
    const headers = new Headers(init?.headers);
    headers.set(FAULT_HEADER, fault);
    return emulator.fetch(input, { ...init, headers });
  };
}

interface Build {
  fetch?: Fetch;
  maxRetries?: number;
  rateLimiter?: RateLimiter;
  idleTimeout?: number;
  retry?: { initialDelayMs: number; maxDelayMs: number };
  onFailedAttempt?: (error: unknown) => void;
}

const connection = (b: Build) => ({
  apiKey: emulator.apiKey,
  baseURL: emulator.baseURL,
  fetch: b.fetch ?? emulator.fetch,
  maxRetries: b.maxRetries ?? 0,
  retry: b.retry ?? FAST_RETRY,
  rateLimiter: b.rateLimiter,
  idleTimeout: b.idleTimeout,
  onFailedAttempt: b.onFailedAttempt,
});

const SURFACES = {
  chat: (b: Build = {}) =>
    new ChatInferenceService(DEFAULT_MODEL, { ...connection(b), maxTokens: 64, temperature: 0 }),
  dedicated: (b: Build = {}) =>
    new DedicatedEndpointLLM({
      serviceName: DEFAULT_SERVICE_NAME,
      ...connection(b),
      maxTokens: 64,
      temperature: 0,
    }),
};
type Surface = keyof typeof SURFACES;
const OPERATION: Record<Surface, string> = { chat: "chat", dedicated: "text_completion" };
const REQUESTED: Record<Surface, string> = { chat: DEFAULT_MODEL, dedicated: DEFAULT_SERVICE_NAME };

/** The calls' spans (CLIENT spans of the GenAI conventions), in the order they ended. */
const callSpans = () => otel.spans().filter((span) => "gen_ai.operation.name" in span.attributes);
/** The attempt spans under a call's span. */
const attemptsOf = (call: ReadableSpan) =>
  otel.spans().filter((span) => parentOf(span) === call.spanContext().spanId);
const only = <T>(items: T[]): T => {
  expect(items).toHaveLength(1);
  return items[0]!;
};

const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream) {
    // read to the end
  }
}

/** Waits until no span is open: a stream stopped while nobody reads it ends in the background. */
async function settled(): Promise<void> {
  for (let turn = 0; turn < 2000 && otel.open().length > 0; turn++) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

describe("a call's span", () => {
  it.each(Object.keys(SURFACES) as Surface[])(
    "%s invoke: one CLIENT span named after the operation and model, under the app's active span",
    async (surface) => {
      const model = SURFACES[surface]();
      const app = trace.getTracer("app");
      await app.startActiveSpan("handle request", async (parent) => {
        await model.invoke("Hello there");
        parent.end();
      });
      const parent = otel.spans().find((span) => span.name === "handle request")!;
      const call = only(callSpans());
      expect(call.name).toBe(`${OPERATION[surface]} ${REQUESTED[surface]}`);
      expect(call.kind).toBe(SpanKind.CLIENT);
      expect(parentOf(call)).toBe(parent.spanContext().spanId);
      expect(call.spanContext().traceId).toBe(parent.spanContext().traceId);
      expect(call.status.code).toBe(SpanStatusCode.UNSET);
      expect(call.instrumentationScope.name).toBe("langchain-inference-service");
      const requestId = emulator.state.lastRequest()?.requestId;
      expect(call.attributes).toMatchObject({
        "gen_ai.operation.name": OPERATION[surface],
        "gen_ai.provider.name": "inference-service",
        "gen_ai.request.model": REQUESTED[surface],
        "gen_ai.request.max_tokens": 64,
        "gen_ai.request.temperature": 0,
        "gen_ai.response.model": REQUESTED[surface],
        "gen_ai.response.id": expect.stringContaining(requestId!),
        "gen_ai.response.finish_reasons": ["stop"],
        "gen_ai.usage.input_tokens": expect.any(Number),
        "gen_ai.usage.output_tokens": expect.any(Number),
        "server.address": "emulator.invalid",
        "server.port": 80,
        "inference_service.request_id": requestId,
        "inference_service.attempts": 1,
      });
      if (surface === "dedicated") {
        expect(call.attributes["inference_service.service_name"]).toBe(DEFAULT_SERVICE_NAME);
      }
      expect(call.attributes).not.toHaveProperty("gen_ai.request.stream");
      expect(call.attributes).not.toHaveProperty("error.type");
    },
  );

  it("dedicated: a call's own Service-Name names the span and is recorded", async () => {
    const other = "tenant-demo.other-endpoint";
    emulator.state.addEndpoint({ tenantId: "tenant-demo", jobAlias: "other-endpoint" });
    await SURFACES.dedicated().invoke("Hello", { serviceName: other });
    const call = only(callSpans());
    expect(call.name).toBe(`text_completion ${other}`);
    expect(call.attributes["inference_service.service_name"]).toBe(other);
  });

  it("chat batch: one span per item, each under the active span", async () => {
    await trace.getTracer("app").startActiveSpan("batch", async (parent) => {
      await SURFACES.chat().batch(["one", "two", "three"]);
      parent.end();
    });
    const parent = otel.spans().find((span) => span.name === "batch")!;
    const calls = callSpans();
    expect(calls).toHaveLength(3);
    for (const call of calls) expect(parentOf(call)).toBe(parent.spanContext().spanId);
    expect(new Set(calls.map((c) => c.attributes["gen_ai.response.id"])).size).toBe(3);
  });

  it("embeddings: one span per request, with the encoding and dimensions asked for", async () => {
    const { idleTimeout: _, ...shared } = connection({});
    const embeddings = new InferenceServiceEmbeddings(DEFAULT_EMBEDDING_MODEL, {
      ...shared,
      batchSize: 2,
      dimensions: 64,
    });
    await embeddings.embedDocuments(["a", "b", "c"]);
    const calls = callSpans();
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(call.name).toBe(`embeddings ${DEFAULT_EMBEDDING_MODEL}`);
      expect(call.attributes).toMatchObject({
        "gen_ai.operation.name": "embeddings",
        "gen_ai.request.encoding_formats": ["base64"],
        "gen_ai.embeddings.dimension.count": 64,
        "gen_ai.usage.input_tokens": expect.any(Number),
        "gen_ai.response.model": DEFAULT_EMBEDDING_MODEL,
      });
      expect(attemptsOf(call)).toHaveLength(1);
    }
  });

  it("rerank: one span per call, sent without the SDK, with an attempt span for each try", async () => {
    const { idleTimeout: _, ...shared } = connection({ fetch: faults("429"), maxRetries: 1 });
    const reranker = new InferenceServiceRerank(DEFAULT_RERANK_MODEL, { ...shared, topN: 1 });
    await reranker.rerank(["a cat sat", "the dog ran"], "which dog?");
    const call = only(callSpans());
    expect(call.name).toBe(`rerank ${DEFAULT_RERANK_MODEL}`);
    expect(call.kind).toBe(SpanKind.CLIENT);
    expect(call.attributes).toMatchObject({
      "gen_ai.operation.name": "rerank",
      "gen_ai.request.model": DEFAULT_RERANK_MODEL,
      "gen_ai.usage.input_tokens": expect.any(Number),
    });
    const attempts = attemptsOf(call);
    expect(attempts.map((a) => a.attributes["http.response.status_code"])).toEqual([429, 200]);
    expect(attempts.map((a) => a.name)).toEqual([
      "POST /inference/v1/rerank",
      "POST /inference/v1/rerank",
    ]);
  });

  it("records the request parameters that were set, and only those", async () => {
    const model = new ChatInferenceService(DEFAULT_MODEL, {
      ...connection({}),
      topP: 0.5,
      frequencyPenalty: 0.1,
      presencePenalty: 0.2,
      stop: ["END"],
      modelKwargs: { seed: 7, n: 2 },
    });
    await model.invoke("Hello");
    const call = only(callSpans());
    expect(call.attributes).toMatchObject({
      "gen_ai.request.top_p": 0.5,
      "gen_ai.request.frequency_penalty": 0.1,
      "gen_ai.request.presence_penalty": 0.2,
      "gen_ai.request.stop_sequences": ["END"],
      "gen_ai.request.seed": 7,
      "gen_ai.request.choice.count": 2,
    });
    expect(call.attributes).not.toHaveProperty("gen_ai.request.max_tokens");
    expect(call.attributes).not.toHaveProperty("gen_ai.request.temperature");
  });
});

describe("what the wire says, bounded", () => {
  /** The emulator's answers with a huge `id`, `model`, finish reason and request-ID header. */
  const huge =
    (n: number): Fetch =>
    async (input, init) => {
      const answer = await emulator.fetch(input, init);
      const body = (await answer.json()) as {
        id: string;
        model: string;
        choices: { finish_reason: string }[];
      };
      body.id = "i".repeat(n);
      body.model = "m".repeat(n);
      for (const choice of body.choices) choice.finish_reason = "f".repeat(n);
      const headers = new Headers(answer.headers);
      headers.set("X-Gateway-Request-Id", "r".repeat(n));
      headers.delete("content-length");
      return new Response(JSON.stringify(body), { status: answer.status, headers });
    };

  it("cuts each string from the answer to 256 characters, its end marked with an ellipsis", async () => {
    const reply = await SURFACES.chat({ fetch: huge(300_000) }).invoke("Hello");
    // The reply itself is the service's, whole.
    expect(reply.response_metadata.requestId).toHaveLength(300_000);
    const call = only(callSpans());
    const cut = (c: string) => `${c.repeat(255)}…`;
    expect(call.attributes).toMatchObject({
      "gen_ai.response.id": cut("i"),
      "gen_ai.response.model": cut("m"),
      "gen_ai.response.finish_reasons": [cut("f")],
      "inference_service.request_id": cut("r"),
    });
    const attempt = only(attemptsOf(call));
    expect(attempt.attributes["http.response.header.x-gateway-request-id"]).toEqual([cut("r")]);
    const duration = (await otel.metrics()).get("gen_ai.client.operation.duration")!;
    const points = duration.points.filter(
      (point) => point.attributes["gen_ai.response.model"] === cut("m"),
    );
    expect(points).toHaveLength(1);
  });

  it("keeps a string of 256 characters whole", async () => {
    await SURFACES.chat({ fetch: huge(256) }).invoke("Hello");
    expect(only(callSpans()).attributes["gen_ai.response.model"]).toBe("m".repeat(256));
  });

  it("cuts a Service-Name given that long too, and the span name and model with it", async () => {
    const long = `tenant-demo.${"e".repeat(400)}`;
    emulator.state.addEndpoint({ tenantId: "tenant-demo", jobAlias: "e".repeat(400) });
    await SURFACES.dedicated().invoke("Hello", { serviceName: long });
    const call = only(callSpans());
    expect(call.attributes["inference_service.service_name"]).toHaveLength(256);
    expect(call.attributes["gen_ai.request.model"]).toBe(`${long.slice(0, 255)}…`);
    expect(call.name).toBe(`text_completion ${long.slice(0, 255)}…`);
  });
});

describe("a call's attempts", () => {
  it.each(Object.keys(SURFACES) as Surface[])(
    "%s, a 429 then a 200: two attempt spans, the retry's delay and cause, one call span",
    async (surface) => {
      const model = SURFACES[surface]({ fetch: faults("429"), maxRetries: 2 });
      await model.invoke("Hello there");
      const call = only(callSpans());
      const [first, second] = attemptsOf(call);
      expect(attemptsOf(call)).toHaveLength(2);
      const path =
        surface === "chat" ? "/inference/v1/chat/completions" : "/inference/v1/completions";
      for (const attempt of [first!, second!]) {
        expect(attempt.kind).toBe(SpanKind.CLIENT);
        expect(attempt.name).toBe(`POST ${path}`);
        expect(attempt.attributes).toMatchObject({
          "http.request.method": "POST",
          "url.full": `http://emulator.invalid${path}`,
          "server.address": "emulator.invalid",
          "server.port": 80,
        });
      }
      expect(first!.attributes).toMatchObject({
        "http.response.status_code": 429,
        "error.type": "RateLimitError",
        "http.response.header.x-gateway-request-id": [expect.any(String)],
      });
      expect(first!.attributes).not.toHaveProperty("http.request.resend_count");
      expect(first!.status.code).toBe(SpanStatusCode.ERROR);
      expect(first!.status.message).toEqual(expect.any(String));
      expect(second!.attributes).toMatchObject({
        "http.response.status_code": 200,
        "http.request.resend_count": 1,
      });
      expect(second!.status.code).toBe(SpanStatusCode.UNSET);
      expect(call.status.code).toBe(SpanStatusCode.UNSET);
      expect(call.attributes["inference_service.attempts"]).toBe(2);
      expect(call.attributes["inference_service.request_id"]).toBe(
        second!.attributes["http.response.header.x-gateway-request-id"]?.toString(),
      );
      const retry = only(call.events.filter((e) => e.name === "inference_service.retry"));
      expect(retry.attributes).toMatchObject({
        "inference_service.retry.delay_ms": expect.any(Number),
        "inference_service.retry.retry_after_ms": 0,
        "error.type": "RateLimitError",
        "http.response.status_code": 429,
        "http.request.resend_count": 1,
      });
    },
  );

  it.each([
    [
      "chat",
      "503 model_not_found",
      () => new ChatInferenceService("no-such-model", connection({ maxRetries: 2 })),
      "ModelNotFoundError",
      503,
    ],
    [
      "dedicated",
      "401 invalid key",
      () =>
        new DedicatedEndpointLLM({
          serviceName: DEFAULT_SERVICE_NAME,
          ...connection({ maxRetries: 2 }),
          apiKey: "sk-wrong",
        }),
      "AuthenticationError",
      401,
    ],
    [
      "chat",
      "403 insufficient credit",
      () => {
        emulator.state.setCredit(0);
        return SURFACES.chat({ maxRetries: 2 });
      },
      "InsufficientCreditError",
      403,
    ],
  ] as const)(
    "%s, %s (not retried): an ERROR span with the typed error's class, one attempt",
    async (_surface, _row, build, errorName, status) => {
      const error = await caught(build().invoke("Hello"));
      expect((error as Error).name).toBe(errorName);
      const call = only(callSpans());
      expect(call.status.code).toBe(SpanStatusCode.ERROR);
      // The package's hint, never the service's own words (they may quote the prompt).
      expect(call.status.message).toBe((error as { hint: string }).hint);
      expect(call.attributes["error.type"]).toBe(errorName);
      expect(call.attributes["inference_service.attempts"]).toBe(1);
      if ((error as { code?: string }).code) {
        expect(call.attributes["inference_service.error.code"]).toBe(
          (error as { code: string }).code,
        );
      }
      const attempt = only(attemptsOf(call));
      expect(attempt.attributes).toMatchObject({
        "http.response.status_code": status,
        "error.type": errorName,
      });
      expect(attempt.status.code).toBe(SpanStatusCode.ERROR);
      expect(call.events.filter((e) => e.name === "inference_service.retry")).toEqual([]);
    },
  );

  it("a connection reset keeps no status: the attempt names the typed error only", async () => {
    await caught(SURFACES.chat({ fetch: faults("reset") }).invoke("Hello"));
    const attempt = only(attemptsOf(only(callSpans())));
    expect(attempt.attributes["error.type"]).toBe("ServiceConnectionError");
    expect(attempt.attributes).not.toHaveProperty("http.response.status_code");
  });

  it("nests the app's own spans made while an attempt is sent under that attempt", async () => {
    let inner: string | undefined;
    const fetch: Fetch = (input, init) => {
      const span = trace.getTracer("app-http").startSpan("fetch");
      inner = span.spanContext().spanId;
      span.end();
      return emulator.fetch(input, init);
    };
    await SURFACES.chat({ fetch }).invoke("Hello");
    const attempt = only(attemptsOf(only(callSpans())));
    const fetchSpan = otel.spans().find((span) => span.spanContext().spanId === inner)!;
    expect(parentOf(fetchSpan)).toBe(attempt.spanContext().spanId);
  });

  it("nests the unknown model's lookup of the listed models under the failed attempt, as an HTTP instrumentation sees it", async () => {
    // What @opentelemetry/instrumentation-undici does: a span for every fetch of the process.
    const fetch: Fetch = async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const span = trace
        .getTracer("app-http")
        .startSpan(`${init?.method ?? "GET"} ${url.pathname}`);
      try {
        return await emulator.fetch(input, init);
      } finally {
        span.end();
      }
    };
    const model = new ChatInferenceService("no-such-model", connection({ fetch }));
    expect((await caught(model.invoke("Hello"))) as Error).toMatchObject({
      name: "ModelNotFoundError",
    });
    const attempt = only(attemptsOf(only(callSpans())));
    const http = otel.spans().filter((span) => span.instrumentationScope.name === "app-http");
    expect(http.map((span) => span.name).sort()).toEqual([
      "GET /inference/v1/models",
      "POST /inference/v1/chat/completions",
    ]);
    for (const span of http) expect(parentOf(span)).toBe(attempt.spanContext().spanId);
  });
});

describe("the meter's work as events of the call's span", () => {
  it("a reservation and the call's cost, with the tracker's currency", async () => {
    const usage = new UsageTracker({ prices: PRICES, budget: 10, currency: "credit" });
    await SURFACES.chat().invoke("Hello", { callbacks: [usage] });
    const call = only(callSpans());
    const reserved = only(
      call.events.filter((e) => e.name === "inference_service.budget.reserved"),
    );
    expect(reserved.attributes).toMatchObject({
      "inference_service.budget.amount": expect.any(Number),
      "inference_service.currency": "credit",
    });
    expect(call.attributes["inference_service.cost"]).toBeCloseTo(usage.records[0]!.cost!, 12);
    expect(call.attributes["inference_service.currency"]).toBe("credit");
  });

  it("how the call was settled, in the words of its usage record's settlement", async () => {
    const usage = new UsageTracker({ prices: PRICES });
    const callbacks = [usage];
    await SURFACES.chat({ fetch: faults("429"), maxRetries: 1 }).invoke("Hello", { callbacks });
    // A stream without a usage chunk, read to its end: its tokens are estimated.
    const noUsage = { callbacks, stream_options: { include_usage: false } };
    for await (const _ of await SURFACES.chat().stream("Hello there", noUsage)) {
      // read to the end
    }
    const controller = new AbortController();
    const stopping: Fetch = (input, init) => {
      controller.abort();
      return emulator.fetch(input, init);
    };
    await caught(
      SURFACES.chat({ fetch: stopping }).invoke("Hello", { callbacks, signal: controller.signal }),
    );
    await caught(SURFACES.chat({ fetch: faults("401") }).invoke("Hello", { callbacks }));
    const tight = new UsageTracker({ prices: PRICES, budget: 1e-9 });
    await caught(SURFACES.chat().invoke("Hello", { callbacks: [tight] }));
    await settled();
    const spans = callSpans().map((span) => span.attributes["inference_service.settlement"]);
    expect(spans).toEqual(["reported", "estimated", "upper-bound", "none", "refused"]);
    expect(usage.records.map((record) => record.settlement)).toEqual(spans.slice(0, 4));
    // Without a tracker nothing is settled, and the span says nothing of it.
    await SURFACES.chat().invoke("Hello");
    expect(callSpans().at(-1)?.attributes).not.toHaveProperty("inference_service.settlement");
  });

  it("a refused reservation: the call fails with BudgetExceededError, unsent, its amounts on an event", async () => {
    const usage = new UsageTracker({ prices: PRICES, budget: 1e-9 });
    const error = await caught(SURFACES.dedicated().invoke("Hello", { callbacks: [usage] }));
    expect(BudgetExceededError.isInstance(error)).toBe(true);
    const call = only(callSpans());
    expect(call.attributes).toMatchObject({
      "error.type": "BudgetExceededError",
      "inference_service.error.code": "budget_exceeded",
      "inference_service.attempts": 0,
    });
    expect(call.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: (error as BudgetExceededError).hint,
    });
    const refused = only(call.events.filter((e) => e.name === "inference_service.budget.refused"));
    expect(refused.attributes).toMatchObject({
      "inference_service.budget.amount": (error as BudgetExceededError).requested,
      "inference_service.budget.limit": 1e-9,
      "inference_service.budget.spent": 0,
      "inference_service.budget.held": 0,
    });
    expect(attemptsOf(call)).toEqual([]);
    expect(emulator.state.requests()).toHaveLength(0);
  });

  it("a rate limiter's wait, per attempt", async () => {
    const rateLimiter = new RateLimiter({ requestsPerMinute: 60_000, store: new MemoryStore() });
    await SURFACES.chat({ rateLimiter, fetch: faults("503"), maxRetries: 1 }).invoke("Hello");
    const call = only(callSpans());
    const waits = call.events.filter((e) => e.name === "inference_service.rate_limiter.wait");
    expect(waits).toHaveLength(2);
    for (const wait of waits) {
      expect(wait.attributes?.["inference_service.wait_ms"]).toBeGreaterThanOrEqual(0);
    }
  });
});

describe("a stream's span", () => {
  it.each(Object.keys(SURFACES) as Surface[])(
    "%s, read to its end: ends with the stream, with its time to first chunk and its usage",
    async (surface) => {
      const stream = await SURFACES[surface]().stream("Hello there");
      await drain(stream);
      const call = only(callSpans());
      expect(call.attributes).toMatchObject({
        "gen_ai.request.stream": true,
        "inference_service.stream.end": "ended",
        "gen_ai.response.time_to_first_chunk": expect.any(Number),
        "gen_ai.response.finish_reasons": ["stop"],
        "gen_ai.usage.input_tokens": expect.any(Number),
        "gen_ai.usage.output_tokens": expect.any(Number),
        "gen_ai.response.model": REQUESTED[surface],
      });
      expect(call.attributes["gen_ai.response.time_to_first_chunk"]).toBeLessThan(
        call.duration[0] + call.duration[1] / 1e9 + 1e-9,
      );
      expect(call.status.code).toBe(SpanStatusCode.UNSET);
      expect(only(attemptsOf(call)).attributes["http.response.status_code"]).toBe(200);
    },
  );

  it("chat's streamEvents and completionWithRetry streams end their spans too", async () => {
    const model = SURFACES.chat();
    await drain(model.streamEvents("Hello", { version: "v2" }));
    const raw = await model.completionWithRetry({
      model: DEFAULT_MODEL,
      messages: [{ role: "user", content: "Hello" }],
      stream: true,
    });
    await drain(raw);
    expect(callSpans().map((s) => s.attributes["inference_service.stream.end"])).toEqual([
      "ended",
      "ended",
    ]);
  });
});

// ---- every way a call ends (the endings of test/cancellation.test.ts) -----------------------

/** What the last call's span must show: its end, its error class, its attempts. */
interface Outcome {
  /** What differs on the dedicated surface. */
  dedicated?: Omit<Outcome, "dedicated">;
  /** Spans of calls (a rate limiter case makes a first call of its own); 0 when nothing was sent. */
  calls: number;
  end?: "ended" | "failed" | "left" | "aborted";
  error?: string;
  attempts?: number;
}

type Ending = (surface: Surface) => Promise<unknown>;

const ENDINGS: Record<string, [Ending, Outcome]> = {
  "resolved (invoke)": [(s) => SURFACES[s]().invoke("hi"), { calls: 1, attempts: 1 }],
  "resolved (stream)": [
    async (s) => drain(await SURFACES[s]().stream("hi")),
    { calls: 1, end: "ended", attempts: 1 },
  ],
  "failed (503, not retried)": [
    (s) => caught(SURFACES[s]({ fetch: faults("503") }).invoke("hi")),
    { calls: 1, error: "ServiceUnavailableError", attempts: 1 },
  ],
  "timed out (a stalled stream)": [
    (s) =>
      caught(
        SURFACES[s]({ fetch: faults("stall-mid"), idleTimeout: 50 })
          .stream("hi")
          .then(drain),
      ),
    { calls: 1, end: "failed", error: "ServiceTimeoutError", attempts: 1 },
  ],
  "broken (an error event in the middle of the stream)": [
    (s) =>
      caught(
        SURFACES[s]({ fetch: faults("stream-error") })
          .stream("hi")
          .then(drain),
      ),
    { calls: 1, end: "failed", error: "ServiceUnavailableError", attempts: 1 },
  ],
  "aborted before sending": [
    (s) => {
      const controller = new AbortController();
      controller.abort();
      return caught(SURFACES[s]().invoke("hi", { signal: controller.signal }));
    },
    // The chat model stops before its request; the LLM's request is refused by the channel.
    { calls: 0, dedicated: { calls: 1, error: "AbortError", attempts: 0 } },
  ],
  "aborted while waiting for the rate limiter": [
    async (s) => {
      const controller = new AbortController();
      const model = SURFACES[s]({ rateLimiter: busyLimiter(() => controller.abort()) });
      await model.invoke("first");
      return caught(model.invoke("hi", { signal: controller.signal }));
    },
    { calls: 2, error: "AbortError", attempts: 0 },
  ],
  "aborted in a retry's backoff": [
    (s) => {
      const controller = new AbortController();
      const model = SURFACES[s]({
        fetch: faults("503", "503", "503"),
        maxRetries: 3,
        retry: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
        onFailedAttempt: () => controller.abort(),
      });
      return caught(model.invoke("hi", { signal: controller.signal }));
    },
    { calls: 1, error: "AbortError", attempts: 1 },
  ],
  "aborted while invoked (a streaming model)": [
    (s) => {
      const controller = new AbortController();
      // Both surfaces take `streaming` and invoke alike; their overloads differ only in their call options.
      const model = SURFACES[s]() as ChatInferenceService;
      model.streaming = true;
      const tokens = { handleLLMNewToken: () => controller.abort() };
      return caught(model.invoke("hi", { callbacks: [tokens], signal: controller.signal }));
    },
    { calls: 1, end: "aborted", error: "AbortError", attempts: 1 },
  ],
  "aborted in the middle of a stream, the reader waiting": [
    async (s) => {
      const controller = new AbortController();
      const stream = await SURFACES[s]().stream("hi", { signal: controller.signal });
      const reader = stream[Symbol.asyncIterator]();
      await reader.next();
      const waiting = reader.next();
      controller.abort();
      return caught(waiting);
    },
    { calls: 1, end: "aborted", error: "AbortError", attempts: 1 },
  ],
  "aborted between two reads, nothing read after": [
    async (s) => {
      const controller = new AbortController();
      const stream = await SURFACES[s]().stream("hi", { signal: controller.signal });
      await stream[Symbol.asyncIterator]().next();
      controller.abort();
    },
    { calls: 1, end: "aborted", error: "AbortError", attempts: 1 },
  ],
  "left with break (stream)": [
    async (s) => {
      for await (const _ of await SURFACES[s]().stream("hi")) break;
    },
    { calls: 1, end: "left", attempts: 1 },
  ],
  "left with break (streamEvents v2)": [
    async (s) => {
      const events = (SURFACES[s]() as ChatInferenceService).streamEvents("hi", { version: "v2" });
      for await (const event of events) {
        if (event.event === "on_chat_model_stream" || event.event === "on_llm_stream") break;
      }
    },
    // LangChain stops the stream by aborting a signal of its own.
    { calls: 1, end: "aborted", error: "AbortError", attempts: 1 },
  ],
  "a callback that throws in a token": [
    (s) =>
      caught(
        SURFACES[s]()
          .stream("hi", { callbacks: [new Throwing("token")] })
          .then(drain),
      ),
    { calls: 1, end: "failed", error: "Error", attempts: 1 },
  ],
  "a callback that throws at the run's start": [
    (s) => caught(SURFACES[s]().invoke("hi", { callbacks: [new Throwing("start")] })),
    { calls: 0 },
  ],
  "a callback that throws at a stream's start": [
    (s) =>
      caught(
        SURFACES[s]()
          .stream("hi", { callbacks: [new Throwing("start")] })
          .then(drain),
      ),
    { calls: 0 },
  ],
};

describe.each(Object.keys(SURFACES) as Surface[])("%s: every way a call ends", (surface) => {
  it.each(Object.keys(ENDINGS))("%s ends each span it started, once", async (name) => {
    const [ending, outcome] = ENDINGS[name]!;
    const expected = (surface === "dedicated" && outcome.dedicated) || outcome;
    await ending(surface);
    await settled();
    expect(otel.open()).toEqual([]);
    // The SDK warns of a span ended twice, or changed once ended.
    expect(otel.warnings).toEqual([]);
    const calls = callSpans();
    expect(calls).toHaveLength(expected.calls);
    if (expected.calls === 0) return;
    const call = calls.at(-1)!;
    expect(call.attributes["inference_service.stream.end"]).toBe(expected.end);
    expect(call.attributes["error.type"]).toBe(expected.error);
    expect(call.status.code).toBe(
      expected.error === undefined ? SpanStatusCode.UNSET : SpanStatusCode.ERROR,
    );
    expect(call.attributes["inference_service.attempts"]).toBe(expected.attempts);
    expect(attemptsOf(call)).toHaveLength(expected.attempts ?? 0);
  });
});

describe("metrics", () => {
  // Metrics add up for the life of a meter provider: each test reads a fresh one.
  beforeEach(() => otel.reinstall());

  it("token usage and duration histograms, attempts, retries and cost counters", async () => {
    const usage = new UsageTracker({ prices: PRICES, currency: "credit" });
    await SURFACES.chat({ fetch: faults("429"), maxRetries: 1 }).invoke("Hello", {
      callbacks: [usage],
    });
    await caught(SURFACES.dedicated({ fetch: faults("503") }).invoke("Hello"));
    const metrics = await otel.metrics();
    const chat = {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "inference-service",
      "gen_ai.request.model": DEFAULT_MODEL,
      "server.address": "emulator.invalid",
      "server.port": 80,
    };
    const tokens = metrics.get("gen_ai.client.token.usage")!;
    expect(tokens.unit).toBe("{token}");
    expect(tokens.points.map((p) => p.attributes)).toEqual(
      expect.arrayContaining([
        { ...chat, "gen_ai.response.model": DEFAULT_MODEL, "gen_ai.token.type": "input" },
        { ...chat, "gen_ai.response.model": DEFAULT_MODEL, "gen_ai.token.type": "output" },
      ]),
    );
    const input = tokens.points.find((p) => p.attributes["gen_ai.token.type"] === "input")!;
    expect(input.value).toMatchObject({ count: 1, sum: usage.records[0]!.inputTokens });
    const duration = metrics.get("gen_ai.client.operation.duration")!;
    expect(duration.unit).toBe("s");
    expect(duration.points.map((p) => p.attributes)).toEqual(
      expect.arrayContaining([
        { ...chat, "gen_ai.response.model": DEFAULT_MODEL },
        expect.objectContaining({
          "gen_ai.operation.name": "text_completion",
          "error.type": "ServiceUnavailableError",
        }),
      ]),
    );
    const attempts = metrics.get("inference_service.client.attempts")!;
    const count = (attributes: Record<string, unknown>) =>
      attempts.points.find((p) => expect.objectContaining(attributes).asymmetricMatch(p.attributes))
        ?.value;
    expect(
      count({ ...chat, "http.response.status_code": 429, "error.type": "RateLimitError" }),
    ).toBe(1);
    expect(count({ ...chat, "http.response.status_code": 200 })).toBe(1);
    const retries = metrics.get("inference_service.client.retries")!;
    expect(retries.points).toEqual([
      expect.objectContaining({
        attributes: { ...chat, "error.type": "RateLimitError" },
        value: 1,
      }),
    ]);
    const cost = metrics.get("inference_service.client.cost")!;
    expect(cost.points).toEqual([
      expect.objectContaining({
        attributes: {
          ...chat,
          "inference_service.currency": "credit",
          "inference_service.settlement": "reported",
        },
        value: expect.closeTo(usage.records[0]!.cost!, 12),
      }),
    ]);
  });

  it("counts attempts, retries and cost as monotonic sums that keep adding between collections", async () => {
    const usage = new UsageTracker({ prices: PRICES, currency: "credit" });
    // A 429, then its retry answered: each call.
    const call = () =>
      SURFACES.chat({ fetch: faults("429"), maxRetries: 1 }).invoke("Hello", {
        callbacks: [usage],
      });
    await call();
    const first = await otel.metrics();
    for (const name of ["attempts", "retries", "cost"]) {
      expect(first.get(`inference_service.client.${name}`)).toMatchObject({
        type: "SUM",
        monotonic: true,
      });
    }
    await call();
    const second = await otel.metrics();
    const values = (metrics: typeof first, name: string) =>
      metrics.get(`inference_service.client.${name}`)!.points.map((p) => p.value);
    expect(values(first, "retries")).toEqual([1]);
    expect(values(second, "retries")).toEqual([2]);
    expect(values(second, "attempts")).toEqual([2, 2]);
    const spent = usage.records.reduce((sum, record) => sum + record.cost!, 0);
    expect(values(second, "cost")).toEqual([expect.closeTo(spent, 12)]);
  });

  it("a stream's time to first chunk", async () => {
    await drain(await SURFACES.chat().stream("Hello"));
    const ttfc = (await otel.metrics()).get("gen_ai.client.operation.time_to_first_chunk")!;
    expect(ttfc.unit).toBe("s");
    expect(ttfc.points).toHaveLength(1);
  });
});
