/**
 * The gateway's full error surface, at the wire (nock): every row × {invoke, stream} × both
 * surfaces asserts the class, `retryable`, `code`, `status`, `requestId` and the number of
 * requests (1, or 1 + maxRetries). The bodies are shaped as the new-api gateway sends them
 * (middleware/auth.go, distributor.go, model-rate-limit.go, rate-limit.go, performance.go,
 * controller/relay.go, service/billing, relay-openai.go).
 */
import { ContextOverflowError, getRetryable, LangChainError } from "@langchain/core/errors";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createEmulator,
  DEFAULT_MODEL,
  DEFAULT_SERVICE_NAME,
  FAULT_HEADER,
  type RunningEmulator,
  startEmulator,
} from "../../src/emulator/index.js";
import { errorRow, fill, GATEWAY_CODES, gatewayCode } from "../../src/errors/gateway_codes.js";
import {
  BadRequestError,
  BaseURLError,
  ChatInferenceService,
  ContentFilterError,
  ContextLengthExceededError,
  DedicatedEndpointLLM,
  EndpointNotReadyError,
  InferenceServiceEmbeddings,
  type InferenceServiceError,
  InferenceServiceRerank,
  InsufficientCreditError,
  InvalidURLError,
  KeyQuotaExceededError,
  MalformedResponseError,
  PermissionDeniedError,
  RateLimitError,
  ResponseFormatError,
  ServiceConnectionError,
  ServiceTimeoutError,
  ServiceUnavailableError,
} from "../../src/index.js";
import type { Fetch } from "../../src/transport/fetch.js";
import { RID, sampleText } from "../helpers/fixtures.js";
import {
  BASE,
  type Cls,
  chatCompletion,
  intercept,
  KEY,
  type Reply,
  SSE_HEADERS,
  sse,
} from "../helpers/wire.js";

const CHAT = "/inference/v1/chat/completions";
const COMPLETIONS = "/inference/v1/completions";
const EMBEDDINGS = "/inference/v1/embeddings";
const RERANK = "/inference/v1/rerank";
const MAX_RETRIES = 2;
const FAST = { initialDelayMs: 1, maxDelayMs: 2 };

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

/** One way a call can fail, and what both surfaces must make of it. */
interface Row {
  name: string;
  reply: Reply;
  cls: Cls;
  code?: string;
  status?: number;
  requestId?: string;
  retryable: boolean;
  /** The dedicated surface's class, when it differs (docs/service-contract.md#endpoint-states: an empty answer is a Pending endpoint). */
  dedicated?: Cls;
  /** Only streamed calls meet it (a stream-shaped body). */
  streamOnly?: boolean;
  /** Only non-streamed calls meet it. */
  invokeOnly?: boolean;
  check?: (error: InferenceServiceError) => void;
}

const json = (extra: Record<string, string> = {}) => ({
  "Content-Type": "application/json",
  "X-Gateway-Request-Id": RID,
  ...extra,
});
const suffix = ` (request id: ${RID})`;
/** `{"error": …}` in the key order of the gateway's abortWithOpenAiMessage. */
const gateway = (code: string, message: string, type = "new_api_error", param?: string) => ({
  error: { message, type, ...(param === undefined ? {} : { param }), code },
});

/** A blocked prompt: its own class, still a BadRequestError, and a hint that says to rephrase. */
function contentFiltered(e: InferenceServiceError): void {
  expect(BadRequestError.isInstance(e)).toBe(true);
  expect(ContextLengthExceededError.isInstance(e)).toBe(false);
  expect(e.hint).toMatch(/^Rephrase the prompt/);
}

const ROWS: Row[] = [
  {
    name: "429 with the rate limiter's Chinese message and an empty code",
    reply: [429, gateway("", `您已达到请求数限制：1分钟内最多请求60次${suffix}`), json()],
    cls: RateLimitError,
    code: "",
    status: 429,
    requestId: RID,
    retryable: true,
  },
  {
    name: "429 with an empty body (the global rate limiter)",
    reply: [429, "", { "X-Gateway-Request-Id": RID }],
    cls: RateLimitError,
    status: 429,
    requestId: RID,
    retryable: true,
  },
  {
    name: "403 access_denied (IP not in the key's allow-list)",
    reply: [403, gateway("access_denied", `您的 IP 不在令牌允许访问的列表中${suffix}`), json()],
    cls: PermissionDeniedError,
    code: "access_denied",
    status: 403,
    requestId: RID,
    retryable: false,
    check: (e) => expect(e.hint).toMatch(/IP allow-list/),
  },
  {
    name: "403 with an empty code (the key may not use this model)",
    reply: [403, gateway("", `This token has no access to model m${suffix}`), json()],
    cls: PermissionDeniedError,
    code: "",
    status: 403,
    requestId: RID,
    retryable: false,
    check: (e) => expect(e.hint).toMatch(/may not use this model/),
  },
  {
    name: "403 pre_consume_token_quota_failed (the key's own quota)",
    reply: [
      403,
      gateway(
        "pre_consume_token_quota_failed",
        `token quota is not enough, token remain quota: $0.000000, need quota: $0.002000${suffix}`,
      ),
      json(),
    ],
    cls: KeyQuotaExceededError,
    code: "pre_consume_token_quota_failed",
    status: 403,
    requestId: RID,
    retryable: false,
    check: (e) => {
      expect(InsufficientCreditError.isInstance(e)).toBe(false);
      expect(e.hint).toMatch(/key's quota/);
    },
  },
  {
    name: "403 insufficient_user_quota with the pre-charge message",
    reply: [
      403,
      gateway(
        "insufficient_user_quota",
        `预扣费额度失败, 用户剩余额度: ¥0.100000, 需要预扣费额度: ¥0.500000${suffix}`,
      ),
      json(),
    ],
    cls: InsufficientCreditError,
    code: "insufficient_user_quota",
    status: 403,
    requestId: RID,
    retryable: false,
  },
  {
    name: "500 invalid_request (the gateway could not read the request)",
    reply: [500, gateway("invalid_request", `field messages is required${suffix}`), json()],
    cls: BadRequestError,
    code: "invalid_request",
    status: 500,
    requestId: RID,
    retryable: false,
    check: (e) => expect(e.summary).toContain("field messages is required."),
  },
  {
    name: "500 sensitive_words_detected",
    reply: [500, gateway("sensitive_words_detected", `sensitive_words_detected${suffix}`), json()],
    cls: ContentFilterError,
    code: "sensitive_words_detected",
    status: 500,
    requestId: RID,
    retryable: false,
    check: contentFiltered,
  },
  {
    name: "400 prompt_blocked (the Gemini channel's refusal, no request ID in the message)",
    reply: [
      400,
      gateway("prompt_blocked", "request blocked by Gemini API: SAFETY", "prompt_blocked", ""),
      json(),
    ],
    cls: ContentFilterError,
    code: "prompt_blocked",
    status: 400,
    requestId: RID,
    retryable: false,
    check: (e) => {
      contentFiltered(e);
      expect(e.type).toBe("prompt_blocked");
    },
  },
  {
    name: "500 violation_fee.grok.csam (a model server's refusal, renamed by the gateway)",
    reply: [
      500,
      gateway(
        "violation_fee.grok.csam",
        "Failed check: SAFETY_CHECK_TYPE_CSAM",
        "violation_fee.grok.csam",
        "",
      ),
      json(),
    ],
    cls: ContentFilterError,
    code: "violation_fee.grok.csam",
    status: 500,
    requestId: RID,
    retryable: false,
    check: contentFiltered,
  },
  {
    name: "400 model_price_error",
    reply: [
      400,
      gateway(
        "model_price_error",
        `model m ratio or price not set, please set or start self-use mode${suffix}`,
      ),
      json(),
    ],
    cls: BadRequestError,
    code: "model_price_error",
    status: 400,
    requestId: RID,
    retryable: false,
    check: (e) => expect(e.hint).toMatch(/another model ID/),
  },
  {
    name: "413 read_request_body_failed",
    reply: [413, gateway("read_request_body_failed", `request body too large${suffix}`), json()],
    cls: BadRequestError,
    code: "read_request_body_failed",
    status: 413,
    requestId: RID,
    retryable: false,
  },
  {
    name: "501 api_not_implemented (no request ID in the message)",
    reply: [501, gateway("api_not_implemented", "API not implemented"), json()],
    cls: InvalidURLError,
    code: "api_not_implemented",
    status: 501,
    requestId: RID,
    retryable: false,
  },
  ...(["cpu", "memory", "disk"] as const).map(
    (what): Row => ({
      name: `503 system_${what}_overloaded`,
      reply: [503, gateway(`system_${what}_overloaded`, "系统负载过高，请稍后重试"), json()],
      cls: ServiceUnavailableError,
      code: `system_${what}_overloaded`,
      status: 503,
      requestId: RID,
      retryable: true,
    }),
  ),
  {
    name: "500 do_request_failed",
    reply: [
      500,
      gateway(
        "do_request_failed",
        `upstream error: do request failed${suffix}`,
        "do_request_failed",
      ),
      json(),
    ],
    cls: ServiceUnavailableError,
    code: "do_request_failed",
    status: 500,
    requestId: RID,
    retryable: true,
  },
  {
    name: "400 context_length_exceeded passed through from the model server",
    reply: [
      400,
      gateway(
        "context_length_exceeded",
        `This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens.${suffix}`,
        "invalid_request_error",
        "messages",
      ),
      json(),
    ],
    cls: ContextLengthExceededError,
    code: "context_length_exceeded",
    status: 400,
    requestId: RID,
    retryable: false,
    check: (e) => {
      expect(BadRequestError.isInstance(e)).toBe(true);
      expect(ContextOverflowError.isInstance(e)).toBe(true);
      expect(e.lc_error_code).toBe("CONTEXT_OVERFLOW");
      expect(e.param).toBe("messages");
    },
  },
  {
    name: "a model server's invalid_request_error about something else than the format",
    reply: [
      400,
      gateway(
        "invalid_request_error",
        `Invalid max_tokens value, the valid range of max_tokens is [1, 8192]${suffix}`,
        "invalid_request_error",
      ),
      json(),
    ],
    cls: BadRequestError,
    code: "invalid_request_error",
    status: 400,
    requestId: RID,
    retryable: false,
    check: (e) => expect(ResponseFormatError.isInstance(e)).toBe(false),
  },
  {
    name: "a 5xx with a code the gateway does not document",
    reply: [
      502,
      gateway("bad_response_status_code", `bad response status code 502${suffix}`),
      json(),
    ],
    cls: ServiceUnavailableError,
    code: "bad_response_status_code",
    status: 502,
    requestId: RID,
    retryable: true,
  },
  {
    name: "200 whose JSON is an error object",
    reply: [
      200,
      gateway("upstream_error", `The upstream model failed${suffix}`, "upstream_error"),
      json(),
    ],
    cls: ServiceUnavailableError,
    code: "upstream_error",
    status: 200,
    requestId: RID,
    retryable: true,
  },
  {
    name: "200 whose JSON is a context_length_exceeded error object",
    reply: [
      200,
      gateway("context_length_exceeded", `too long${suffix}`, "invalid_request_error"),
      json(),
    ],
    cls: ContextLengthExceededError,
    code: "context_length_exceeded",
    status: 200,
    requestId: RID,
    retryable: false,
  },
  {
    name: "503 JSON error sent with Content-Type text/event-stream",
    reply: [
      503,
      gateway("", `当前分组上游负载已饱和，请稍后再试${suffix}`),
      { ...SSE_HEADERS, "X-Gateway-Request-Id": RID },
    ],
    cls: ServiceUnavailableError,
    code: "",
    status: 503,
    requestId: RID,
    retryable: true,
  },
  {
    name: "200 JSON error sent as text/event-stream without SSE framing",
    reply: [
      200,
      JSON.stringify(gateway("model_price_error", `no price${suffix}`)),
      { ...SSE_HEADERS, "X-Gateway-Request-Id": RID },
    ],
    cls: BadRequestError,
    code: "model_price_error",
    status: 200,
    requestId: RID,
    retryable: false,
    streamOnly: true,
  },
  {
    name: "200 HTML page labelled application/json",
    reply: [200, "<!doctype html><html><body>console</body></html>", json()],
    cls: BaseURLError,
    status: 200,
    requestId: RID,
    retryable: false,
  },
  {
    name: "200 JSON cut before its end",
    reply: [200, '{"id":"chatcmpl-1","choices":[{"index":0,"message":{"role":"assis', json()],
    cls: ServiceConnectionError,
    requestId: RID,
    retryable: true,
    invokeOnly: true,
  },
  {
    name: "200 stream with no event at all",
    reply: [200, "", { ...SSE_HEADERS, "X-Gateway-Request-Id": RID }],
    cls: MalformedResponseError,
    dedicated: EndpointNotReadyError,
    status: 200,
    requestId: RID,
    retryable: false,
    streamOnly: true,
  },
  {
    name: "200 stream of [DONE] alone",
    reply: [200, sse([]), { ...SSE_HEADERS, "X-Gateway-Request-Id": RID }],
    cls: MalformedResponseError,
    dedicated: EndpointNotReadyError,
    status: 200,
    requestId: RID,
    retryable: false,
    streamOnly: true,
  },
  {
    name: "200 stream whose events carry no choice",
    reply: [
      200,
      sse([{ id: "c", object: "chat.completion.chunk", choices: [], usage: { total_tokens: 1 } }]),
      { ...SSE_HEADERS, "X-Gateway-Request-Id": RID },
    ],
    cls: MalformedResponseError,
    status: 200,
    requestId: RID,
    retryable: false,
    streamOnly: true,
  },
  {
    name: "200 JSON with an empty choices array",
    reply: [200, { ...chatCompletion({ content: "x" }), choices: [] }, json()],
    cls: MalformedResponseError,
    status: 200,
    requestId: RID,
    retryable: false,
    invokeOnly: true,
  },
];

/** The dedicated surface's class of a row, when its retryability follows it. */
function dedicatedRow(row: Row): Row {
  if (!row.dedicated) return row;
  return { ...row, cls: row.dedicated, retryable: EndpointNotReadyError.retryable };
}

function chat(fields = {}) {
  return new ChatInferenceService("m", {
    apiKey: KEY,
    baseURL: BASE,
    maxRetries: MAX_RETRIES,
    retry: FAST,
    ...fields,
  });
}

function endpoint(fields = {}) {
  return new DedicatedEndpointLLM({
    serviceName: "tenant-1.job",
    apiKey: KEY,
    baseURL: BASE,
    maxRetries: MAX_RETRIES,
    retry: FAST,
    ...fields,
  });
}

function embedder(fields = {}) {
  return new InferenceServiceEmbeddings("m", {
    apiKey: KEY,
    baseURL: BASE,
    maxRetries: MAX_RETRIES,
    retry: FAST,
    ...fields,
  });
}

function reranker(fields = {}) {
  return new InferenceServiceRerank("m", {
    apiKey: KEY,
    baseURL: BASE,
    maxRetries: MAX_RETRIES,
    retry: FAST,
    ...fields,
  });
}

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream) {
    // drain
  }
}

const caught = (run: () => Promise<unknown>) =>
  run().then(
    () => undefined,
    (error: unknown) => error,
  );

const SURFACES = [
  ["hosted", CHAT, (row: Row) => row, () => chat(), () => chat()],
  ["dedicated", COMPLETIONS, dedicatedRow, () => endpoint(), () => endpoint()],
] as const;

/** One call of `mode` ("invoke", or "stream" drained to its end) on a model built afresh. */
function callOf(
  mode: "invoke" | "stream",
  invoker: () => { invoke(input: string): Promise<unknown> },
  streamer: () => { stream(input: string): Promise<AsyncIterable<unknown>> },
): () => Promise<unknown> {
  return mode === "invoke"
    ? () => invoker().invoke("hi")
    : async () => drain(await streamer().stream("hi"));
}

const cases = [
  ...SURFACES.flatMap(([surface, path, adapt, invoker, streamer]) =>
    (["invoke", "stream"] as const).flatMap((mode) =>
      ROWS.filter((row) => (mode === "invoke" ? !row.streamOnly : !row.invokeOnly)).map(
        (row) =>
          [surface, mode, row.name, path, adapt(row), callOf(mode, invoker, streamer)] as const,
      ),
    ),
  ),
  // Embeddings: the hosted surface, one JSON answer (no stream), through the same mapper.
  ...ROWS.filter((row) => !row.streamOnly).map(
    (row) =>
      [
        "hosted",
        "embedQuery",
        row.name,
        EMBEDDINGS,
        row,
        () => embedder().embedQuery("hi"),
      ] as const,
  ),
  // Rerank: the hosted surface, one JSON answer, through the same mapper.
  ...ROWS.filter((row) => !row.streamOnly).map(
    (row) =>
      ["hosted", "rerank", row.name, RERANK, row, () => reranker().rerank(["a"], "hi")] as const,
  ),
];

describe("the gateway's error surface, at the wire", () => {
  it.each(cases)(
    "%s %s: %s → its typed error, after the right number of requests",
    async (surface, _mode, _name, path, row, run) => {
      const seen = intercept(path, row.reply);
      const error = await caught(run);

      expect(row.cls.isInstance(error), String(error)).toBe(true);
      const e = error as InferenceServiceError;
      expect(LangChainError.isInstance(e)).toBe(true);
      expect(e.name).toBe(row.cls.name);
      expect(e).toMatchObject({ surface, retryable: row.retryable, requestId: row.requestId });
      expect(e.code).toBe(row.code);
      expect(e.status).toBe(row.status);
      expect(getRetryable(e)).toBe(row.retryable);
      expect(e.hint.length).toBeGreaterThan(10);
      expect(e.message.startsWith(`${e.summary} ${e.hint}`)).toBe(true);
      // New messages cite no section numbers of the service contract.
      expect(`${e.summary} ${e.hint}`).not.toMatch(/§/);
      expect(e.message).not.toContain(KEY);
      row.check?.(e);
      // A non-retryable row sends one request; a retryable one 1 + maxRetries.
      expect(seen).toHaveLength(row.retryable ? 1 + MAX_RETRIES : 1);
    },
  );
});

describe("the table of the gateway's codes", () => {
  it("has one row per code and message, and each row's sample carries that code and message", () => {
    const keys = GATEWAY_CODES.map((row) => `${row.code} ${row.message?.pattern ?? ""}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const row of GATEWAY_CODES) {
      expect(row.sample.error.code, row.code).toBe(row.code);
      // The row the mapper finds for its own sample is that row.
      expect(gatewayCode(row.code, row.sample.error.message)).toBe(row);
    }
  });

  it("reads a code that comes with many messages by the message a row names, else not at all", () => {
    const row = gatewayCode(
      "invalid_request_error",
      "This response_format type is unavailable now",
    );
    expect(row?.cls).toBe(ResponseFormatError);
    expect(gatewayCode("invalid_request_error", "Invalid max_tokens value")).toBeUndefined();
    expect(gatewayCode("invalid_request_error")).toBeUndefined();
  });

  it.each(GATEWAY_CODES.map((row) => [row.code, row] as const))(
    "%s: retryable is its class's default, unless the row says why not",
    (_code, row) => {
      if (row.retryableDiffers === undefined) {
        expect(
          row.retryable,
          `${row.code}: ${row.cls.name}.retryable is ${row.cls.retryable}; a row that departs from it says why in retryableDiffers`,
        ).toBe(row.cls.retryable);
      } else {
        expect(row.retryable).not.toBe(row.cls.retryable);
        expect(row.retryableDiffers.trim()).not.toBe("");
      }
    },
  );

  it("passes on a row's retryable only where it departs from its class's", () => {
    const row = GATEWAY_CODES.find((r) => r.code === "do_request_failed")!;
    const parts = { subject: 'model "m"' };
    expect(errorRow(row, parts)).not.toHaveProperty("retryable");
    expect(errorRow({ ...row, retryable: false, retryableDiffers: "a test" }, parts)).toMatchObject(
      { retryable: false },
    );
  });

  it("fills {message}, {subject} and {models} in one pass, never inside what it inserted", () => {
    const template = "a{message} b {subject}.{models}";
    expect(fill(template, { message: "x {subject}", subject: 'model "m"', models: "Try n." })).toBe(
      'a: x {subject} b model "m". Try n.',
    );
    expect(fill(template, { subject: "s" })).toBe("a b s.");
  });
});

/** Every row × {invoke, stream} × both surfaces, and embeddings, its sample sent with the status it comes with. */
const tableCases = [
  ...SURFACES.flatMap(([surface, path, , invoker, streamer]) =>
    (["invoke", "stream"] as const).flatMap((mode) =>
      GATEWAY_CODES.map(
        (row) =>
          [
            surface,
            mode,
            row.code,
            row.status[0],
            path,
            row,
            callOf(mode, invoker, streamer),
          ] as const,
      ),
    ),
  ),
  ...GATEWAY_CODES.map(
    (row) =>
      [
        "hosted",
        "embedQuery",
        row.code,
        row.status[0],
        EMBEDDINGS,
        row,
        () => embedder().embedQuery("hi"),
      ] as const,
  ),
  ...GATEWAY_CODES.map(
    (row) =>
      [
        "hosted",
        "rerank",
        row.code,
        row.status[0],
        RERANK,
        row,
        () => reranker().rerank(["a"], "hi"),
      ] as const,
  ),
];

/**
 * The hint a row gives on `path`: an input too long for an embedding model, or a document too
 * long for a rerank model, is told to be split.
 */
function hintOn(path: string, row: (typeof GATEWAY_CODES)[number]): string {
  if (path === EMBEDDINGS && row.cls === ContextLengthExceededError) {
    return "Split the text into smaller pieces (a smaller `chunkSize` in your text splitter); retrying the same input will not help.";
  }
  if (path === RERANK && row.cls === ContextLengthExceededError) {
    return "Split the documents into smaller pieces (a smaller `chunkSize` in your text splitter) or shorten the query; retrying the same documents will not help.";
  }
  return fill(row.hint, { subject: "" });
}

describe("every row of the table of gateway codes, at the wire", () => {
  it.each(tableCases)(
    "%s %s: %s sent as %i → its row's class, retryable and hint, after the right number of requests",
    async (surface, _mode, _code, status, path, row, run) => {
      const body = sampleText(row.sample, { requestId: RID, model: "m" });
      const seen = intercept(path, [status, body, json()]);
      const error = await caught(run);

      expect(row.cls.isInstance(error), String(error)).toBe(true);
      const e = error as InferenceServiceError;
      expect(e.name).toBe(row.cls.name);
      expect(e).toMatchObject({
        surface,
        status,
        code: row.code,
        type: row.sample.error.type,
        retryable: row.retryable,
        requestId: RID,
        serviceMessage: JSON.parse(body).error.message,
      });
      expect(getRetryable(e)).toBe(row.retryable);
      // No model list is looked up here (nock answers nothing else), so no {models} are added.
      expect(e.hint).toBe(hintOn(path, row));
      expect(seen).toHaveLength(row.retryable ? 1 + MAX_RETRIES : 1);
    },
  );
});

describe("redirects", () => {
  it.each(SURFACES.map(([surface, path]) => [surface, path] as const))(
    "%s: a redirect loop stops after 5 hops with a typed error, not retried",
    async (surface, path) => {
      let requests = 0;
      nock(BASE)
        .post(path)
        .times(50)
        .reply(() => {
          requests++;
          return [307, "", { Location: path, "X-Gateway-Request-Id": RID }];
        });
      const make = surface === "hosted" ? chat : endpoint;
      for (const run of [() => make().invoke("hi"), async () => drain(await make().stream("hi"))]) {
        requests = 0;
        const error = await caught(run);
        expect(BaseURLError.isInstance(error), String(error)).toBe(true);
        expect(error).toMatchObject({
          code: "too_many_redirects",
          status: 307,
          retryable: false,
          requestId: RID,
        });
        expect(requests).toBe(1 + 5);
      }
    },
  );

  it("follows a same-origin redirect, keeping the method, body and key", async () => {
    const seen: Array<{ path: string; auth: unknown; body: unknown }> = [];
    nock(BASE)
      .post("/old/inference/v1/chat/completions")
      .reply(308, "", { Location: CHAT })
      .post(CHAT)
      .reply(function (uri, body) {
        seen.push({ path: uri, auth: this.req.headers.authorization, body });
        return [200, chatCompletion({ content: "moved" }), json()];
      });
    const reply = await chat({ baseURL: `${BASE}/old` }).invoke("hi");
    expect(reply.content).toBe("moved");
    expect(seen).toEqual([
      { path: CHAT, auth: `Bearer ${KEY}`, body: expect.objectContaining({ model: "m" }) },
    ]);
  });

  it("never follows a redirect to another origin, so the key stays on the service", async () => {
    const elsewhere = nock("https://elsewhere.test").post(/.*/).reply(200, chatCompletion({}));
    const seen = intercept(CHAT, [302, "", { Location: "https://elsewhere.test/steal" }]);
    const error = await caught(() => chat().invoke("hi"));
    expect(error).toMatchObject({
      name: "BaseURLError",
      code: "cross_origin_redirect",
      retryable: false,
    });
    expect((error as Error).message).toContain("https://elsewhere.test");
    expect(seen).toHaveLength(1);
    expect(elsewhere.isDone()).toBe(false);
  });
});

describe("stalls and cuts after the headers, over real HTTP", () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    nock.enableNetConnect("127.0.0.1");
    emulator = await startEmulator();
  });
  afterAll(async () => {
    await emulator.close();
    nock.disableNetConnect();
  });

  /** A fetch that asks the emulator for `fault` and counts the attempts. */
  function faulty(fault: string) {
    const counter = { attempts: 0 };
    const fetch: Fetch = (input, init) => {
      counter.attempts++;
      const headers = new Headers(init?.headers);
      headers.set(FAULT_HEADER, fault);
      return globalThis.fetch(input, { ...init, headers });
    };
    return { fetch, counter };
  }

  const models = (fetch: Fetch) => {
    const common = {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch,
      // A stalled JSON answer takes the whole `timeout`; a stalled stream only `idleTimeout`.
      timeout: 500,
      idleTimeout: 100,
      maxRetries: MAX_RETRIES,
      retry: FAST,
    };
    return {
      hosted: () => new ChatInferenceService(DEFAULT_MODEL, common),
      dedicated: () => new DedicatedEndpointLLM({ ...common, serviceName: DEFAULT_SERVICE_NAME }),
    };
  };

  it.each([
    ["hosted", "invoke"],
    ["hosted", "stream"],
    ["dedicated", "invoke"],
    ["dedicated", "stream"],
  ] as const)(
    "%s %s: a response that stalls after its headers (timeout 500, idleTimeout 100) fails typed and is retried",
    async (surface, mode) => {
      const { fetch, counter } = faulty("stall");
      const model = models(fetch)[surface]();
      const error = await caught(async () =>
        mode === "invoke" ? model.invoke("hi") : drain(await model.stream("hi")),
      );
      expect(ServiceTimeoutError.isInstance(error), String(error)).toBe(true);
      expect(ServiceConnectionError.isInstance(error)).toBe(true);
      const e = error as ServiceTimeoutError;
      expect(e).toMatchObject({ surface, retryable: true, midStream: false });
      expect(e.code).toMatch(/^(idle_)?timeout$/);
      // The response had begun: its request ID is kept.
      expect(e.requestId).toMatch(/^\d{32}$/);
      expect(counter.attempts).toBe(1 + MAX_RETRIES);
    },
  );

  it.each([
    ["hosted", "stall-mid", ServiceTimeoutError, "idle_timeout"],
    ["dedicated", "stall-mid", ServiceTimeoutError, "idle_timeout"],
    ["hosted", "truncate", ServiceConnectionError, undefined],
    ["dedicated", "truncate", ServiceConnectionError, undefined],
  ] as const)(
    "%s stream, %s after the first events: keeps what arrived and the request ID, not retried",
    async (surface, fault, cls, code) => {
      const { fetch, counter } = faulty(fault);
      const received: string[] = [];
      const error = await caught(async () => {
        for await (const chunk of await models(fetch)[surface]().stream("Hello there, world")) {
          received.push(typeof chunk === "string" ? chunk : chunk.text);
        }
      });
      expect(cls.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({
        code,
        midStream: true,
        partialOutput: received.join(""),
        requestId: expect.stringMatching(/^\d{32}$/),
      });
      expect(received.join("")).not.toBe("");
      expect(counter.attempts).toBe(1);
    },
  );
});

describe("a cancelled call", () => {
  it.each([
    ["hosted", "invoke"],
    ["hosted", "stream"],
    ["dedicated", "invoke"],
    ["dedicated", "stream"],
  ] as const)(
    "%s %s: a pre-aborted signal gives the signal's own error and sends nothing",
    async (surface, mode) => {
      const seen = intercept(surface === "hosted" ? CHAT : COMPLETIONS, [200, chatCompletion({})]);
      const controller = new AbortController();
      controller.abort();
      const model = surface === "hosted" ? chat() : endpoint();
      const options = { signal: controller.signal };
      const error = await caught(async () =>
        mode === "invoke" ? model.invoke("hi", options) : drain(await model.stream("hi", options)),
      );
      expect(error).toBe(controller.signal.reason);
      expect((error as Error).name).toBe("AbortError");
      expect(seen).toHaveLength(0);
    },
  );

  it.each(["hosted", "dedicated"] as const)(
    "%s: a signal aborted during the call gives the same error, not retried",
    async (surface) => {
      const controller = new AbortController();
      let requests = 0;
      const fetch: Fetch = (_input, init) => {
        requests++;
        setTimeout(() => controller.abort(), 5);
        return new Promise((_resolve, reject) => {
          init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
        });
      };
      const model = surface === "hosted" ? chat({ fetch }) : endpoint({ fetch });
      const error = await caught(() => model.invoke("hi", { signal: controller.signal }));
      expect(error).toBe(controller.signal.reason);
      expect(requests).toBe(1);
    },
  );
});

describe("the emulator's gateway faults", () => {
  const emulator = createEmulator();
  /** Fault name → the row of the table above it reproduces. */
  const FAULTS: Record<string, string> = {
    "429-cn": "429 with the rate limiter's Chinese message and an empty code",
    "429-empty": "429 with an empty body (the global rate limiter)",
    access_denied: "403 access_denied (IP not in the key's allow-list)",
    "403-model": "403 with an empty code (the key may not use this model)",
    pre_consume_token_quota_failed: "403 pre_consume_token_quota_failed (the key's own quota)",
    insufficient_user_quota: "403 insufficient_user_quota with the pre-charge message",
    invalid_request: "500 invalid_request (the gateway could not read the request)",
    sensitive_words_detected: "500 sensitive_words_detected",
    prompt_blocked:
      "400 prompt_blocked (the Gemini channel's refusal, no request ID in the message)",
    model_price_error: "400 model_price_error",
    read_request_body_failed: "413 read_request_body_failed",
    api_not_implemented: "501 api_not_implemented (no request ID in the message)",
    system_cpu_overloaded: "503 system_cpu_overloaded",
    system_memory_overloaded: "503 system_memory_overloaded",
    system_disk_overloaded: "503 system_disk_overloaded",
    do_request_failed: "500 do_request_failed",
    context_length_exceeded: "400 context_length_exceeded passed through from the model server",
    "200-error": "200 whose JSON is an error object",
    "503-sse": "503 JSON error sent with Content-Type text/event-stream",
    "html-json": "200 HTML page labelled application/json",
  };

  it.each(Object.entries(FAULTS))(
    "X-Emulator-Fault: %s gives the error of the row it reproduces, on both surfaces",
    async (fault, rowName) => {
      const row = ROWS.find((r) => r.name === rowName)!;
      const fetch: Fetch = (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set(FAULT_HEADER, fault);
        return emulator.fetch(input, { ...init, headers });
      };
      const common = { apiKey: emulator.apiKey, baseURL: emulator.baseURL, fetch, maxRetries: 0 };
      for (const model of [
        new ChatInferenceService(DEFAULT_MODEL, common),
        new DedicatedEndpointLLM({ ...common, serviceName: DEFAULT_SERVICE_NAME }),
      ]) {
        for (const run of [() => model.invoke("hi"), async () => drain(await model.stream("hi"))]) {
          const error = await caught(run);
          expect(row.cls.isInstance(error), `${fault}: ${String(error)}`).toBe(true);
          expect(error).toMatchObject({
            code: row.code,
            status: row.status,
            retryable: row.retryable,
            requestId: expect.stringMatching(/^\d{32}$/),
          });
        }
      }
    },
  );
});
