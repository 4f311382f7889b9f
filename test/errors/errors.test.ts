import { readFileSync } from "node:fs";
import { getRetryable, LangChainError } from "@langchain/core/errors";
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ChatInferenceService } from "../../src/apis/chat/chat_models.js";
import { DedicatedEndpointLLM } from "../../src/apis/completions/llms.js";
import * as errorsModule from "../../src/errors/errors.js";
import {
  AuthenticationError,
  BadRequestError,
  BaseURLError,
  BudgetExceededError,
  ConfigurationError,
  ContentFilterError,
  ContextLengthExceededError,
  EndpointNotReadyError,
  formatDetails,
  InferenceServiceError,
  InsufficientCreditError,
  InvalidURLError,
  MalformedResponseError,
  ModelNotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServiceConnectionError,
  ServiceNameError,
  ServiceUnavailableError,
  UsageStoreError,
} from "../../src/errors/errors.js";
import * as pkg from "../../src/index.js";
import { bodies, HTML_PAGE, RID, withRequestId } from "../helpers/fixtures.js";
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
const MAX_RETRIES = 2;
/** A short per-attempt timeout and near-instant backoff, so a timed-out call ends quickly. */
const timing = {
  apiKey: KEY,
  baseURL: BASE,
  timeout: 20,
  maxRetries: MAX_RETRIES,
  retry: { initialDelayMs: 1, maxDelayMs: 2 },
};

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

interface Row {
  name: string;
  reply?: Reply;
  network?: boolean;
  cls: Cls;
  status?: number;
  code?: string;
  requestId?: string;
  retryable: boolean;
}

/** Every row of the table that can happen before a stream starts (docs/service-contract.md#errors, docs/service-contract.md#limits-and-retries). */
const hostedRows: Row[] = [
  {
    name: "401 invalid key",
    reply: [401, bodies.unauthorized, withRequestId()],
    cls: AuthenticationError,
    status: 401,
    code: "",
    requestId: RID,
    retryable: false,
  },
  {
    name: "403 insufficient_user_quota",
    reply: [403, bodies.noCredit, withRequestId()],
    cls: InsufficientCreditError,
    status: 403,
    code: "insufficient_user_quota",
    requestId: RID,
    retryable: false,
  },
  {
    name: "403 with another code",
    reply: [403, bodies.forbiddenOther, withRequestId()],
    cls: PermissionDeniedError,
    status: 403,
    code: "access_denied",
    requestId: RID,
    retryable: false,
  },
  {
    name: "404 invalid URL",
    reply: [404, bodies.invalidUrl, withRequestId()],
    cls: InvalidURLError,
    status: 404,
    code: "",
    requestId: RID,
    retryable: false,
  },
  {
    name: "503 model_not_found",
    reply: [503, bodies.modelNotFound, withRequestId()],
    cls: ModelNotFoundError,
    status: 503,
    code: "model_not_found",
    requestId: RID,
    retryable: false,
  },
  {
    name: "200 HTML page",
    reply: [200, HTML_PAGE, { "Content-Type": "text/html", "X-Gateway-Request-Id": RID }],
    cls: BaseURLError,
    status: 200,
    requestId: RID,
    retryable: false,
  },
  {
    name: "200 plain text",
    reply: [200, "OK", { "Content-Type": "text/plain" }],
    cls: BaseURLError,
    status: 200,
    retryable: false,
  },
  {
    name: "429 with Retry-After",
    reply: [429, bodies.rateLimited, withRequestId({ "Retry-After": "0" })],
    cls: RateLimitError,
    status: 429,
    code: "rate_limit_exceeded",
    requestId: RID,
    retryable: true,
  },
  { name: "408", reply: [408, "", {}], cls: ServiceUnavailableError, status: 408, retryable: true },
  {
    name: "409",
    reply: [409, bodies.upstream, withRequestId()],
    cls: ServiceUnavailableError,
    code: "",
    status: 409,
    requestId: RID,
    retryable: true,
  },
  {
    name: "500",
    reply: [500, bodies.upstream, withRequestId()],
    cls: ServiceUnavailableError,
    code: "",
    status: 500,
    requestId: RID,
    retryable: true,
  },
  {
    name: "502 with an HTML body",
    reply: [502, "<html>Bad Gateway</html>", { "Content-Type": "text/html" }],
    cls: ServiceUnavailableError,
    status: 502,
    retryable: true,
  },
  {
    name: "503 without a code",
    reply: [503, bodies.upstream, withRequestId()],
    cls: ServiceUnavailableError,
    code: "",
    status: 503,
    requestId: RID,
    retryable: true,
  },
  {
    name: "503 with a truncated body",
    reply: [503, '{"error":{"code":"model_not', { "Content-Type": "application/json" }],
    cls: ServiceUnavailableError,
    status: 503,
    retryable: true,
  },
  {
    name: "400",
    reply: [400, bodies.badRequest, {}],
    cls: BadRequestError,
    status: 400,
    code: "invalid_request",
    retryable: false,
  },
  {
    name: "413 with an empty body",
    reply: [413, "", {}],
    cls: BadRequestError,
    status: 413,
    retryable: false,
  },
  {
    name: "422",
    reply: [422, bodies.badRequest, {}],
    cls: BadRequestError,
    code: "invalid_request",
    status: 422,
    retryable: false,
  },
  { name: "network failure", network: true, cls: ServiceConnectionError, retryable: true },
];

function model() {
  return new ChatInferenceService("nope", {
    apiKey: KEY,
    baseURL: BASE,
    maxRetries: MAX_RETRIES,
    retry: { initialDelayMs: 1, maxDelayMs: 2 },
  });
}

function endpoint() {
  return new DedicatedEndpointLLM({
    serviceName: "tenant-1.job",
    apiKey: KEY,
    baseURL: BASE,
    maxRetries: MAX_RETRIES,
    retry: { initialDelayMs: 1, maxDelayMs: 2 },
  });
}

/** The dedicated surface differs from the hosted one in three rows (docs/service-contract.md#dedicated-endpoints, docs/service-contract.md#errors, rule 7). */
const dedicatedRows: Row[] = [
  ...hostedRows.map((row): Row => {
    if (row.status === 404)
      return { ...row, name: "404 unknown Service-Name", cls: ServiceNameError };
    if (row.network) return { ...row, name: "refused connection", cls: EndpointNotReadyError };
    return row;
  }),
  {
    name: "empty 200",
    reply: [200, "", {}],
    cls: EndpointNotReadyError,
    status: 200,
    retryable: true,
  },
];

function arrange(path: string, row: Row): { count: () => number } {
  if (row.network) {
    let n = 0;
    const scope = nock(BASE)
      .post(path)
      .times(10)
      .replyWithError({ code: "ECONNREFUSED", message: "connect ECONNREFUSED" });
    scope.on("request", () => n++);
    return { count: () => n };
  }
  const seen = intercept(path, row.reply!);
  return { count: () => seen.length };
}

async function drain(stream: AsyncIterable<unknown>) {
  for await (const _ of stream) {
    // drain
  }
}

const cases = [
  ["hosted", "invoke", CHAT, hostedRows, () => model().invoke("hi")],
  ["hosted", "stream", CHAT, hostedRows, async () => drain(await model().stream("hi"))],
  ["dedicated", "invoke", COMPLETIONS, dedicatedRows, () => endpoint().invoke("hi")],
  [
    "dedicated",
    "stream",
    COMPLETIONS,
    dedicatedRows,
    async () => drain(await endpoint().stream("hi")),
  ],
] as const;

describe.each(cases)("%s surface, %s", (surface, _mode, path, rows, run) => {
  it.each(rows.map((row) => [row.name, row] as const))(
    "maps %s to its typed error with the right request count",
    async (_name, row) => {
      const { count } = arrange(path, row);
      const error = await run().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(row.cls.isInstance(error), String(error)).toBe(true);
      expect(InferenceServiceError.isInstance(error)).toBe(true);
      expect(LangChainError.isInstance(error)).toBe(true);
      const e = error as InferenceServiceError;
      expect(e.name).toBe(row.cls.name);
      expect(e.surface).toBe(surface);
      expect(e.status).toBe(row.status);
      expect(e.code).toBe(row.code);
      expect(e.requestId).toBe(row.requestId);
      expect(e.retryable).toBe(row.retryable);
      expect(getRetryable(e)).toBe(row.retryable);
      expect(e.hint.length).toBeGreaterThan(10);
      expect(e.message).toContain(e.hint);
      if (row.status !== undefined) expect(e.message).toMatch(/\(status \d{3}[^)]*\)$/);
      expect(e.message).not.toContain(KEY);
      expect(count()).toBe(row.retryable ? 1 + MAX_RETRIES : 1);
    },
  );
});

describe("timeouts", () => {
  /** A fetch that never answers: only the SDK's own per-attempt `timeout` ends each attempt. */
  function silent() {
    let attempts = 0;
    const fetch = (_input: unknown, init?: RequestInit) => {
      attempts++;
      return new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
      });
    };
    return { fetch, attempts: () => attempts };
  }

  it.each([
    ["hosted", (fetch: never) => new ChatInferenceService("m", { ...timing, fetch }).invoke("hi")],
    [
      "dedicated",
      (fetch: never) =>
        new DedicatedEndpointLLM({ ...timing, serviceName: "tenant-1.job", fetch }).invoke("hi"),
    ],
  ] as const)(
    "types the %s surface's `timeout` as a retryable ServiceConnectionError and retries it",
    async (surface, run) => {
      const { fetch, attempts } = silent();
      const error = await run(fetch as never).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(ServiceConnectionError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({ surface, retryable: true, status: undefined });
      expect((error as Error).message).toContain("did not answer before the timeout");
      expect(attempts()).toBe(1 + MAX_RETRIES);
    },
  );
});

describe("mid-stream errors", () => {
  const chunk = (content: string) => ({
    id: "c",
    object: "chat.completion.chunk",
    created: 1,
    model: "m",
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
  });

  it.each([
    ["model_not_found", ModelNotFoundError, false],
    ["insufficient_user_quota", InsufficientCreditError, false],
    ["upstream_error", ServiceUnavailableError, true],
  ] as const)(
    "maps an %s event inside a 200 stream, keeping the partial output",
    async (code, cls, retryable) => {
      const seen = intercept(CHAT, [
        200,
        sse(
          [
            chunk("Hel"),
            chunk("lo"),
            { error: { code, message: `boom (request id: ${RID})`, type: "new_api_error" } },
          ],
          false,
        ),
        SSE_HEADERS,
      ]);
      const received: string[] = [];
      const error = await (async () => {
        for await (const c of await model().stream("hi")) received.push(c.text);
      })().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(cls.isInstance(error)).toBe(true);
      const e = error as InferenceServiceError;
      expect(e).toMatchObject({
        midStream: true,
        partialOutput: "Hello",
        code,
        requestId: RID,
        retryable,
      });
      expect(received.join("")).toBe("Hello");
      expect(e.message).toMatch(/mid-stream\)$/);
      expect(seen).toHaveLength(1);
    },
  );
});

describe("request ids", () => {
  it("prefers X-Gateway-Request-Id and exposes every chained suffix, never the client's own id", async () => {
    const message = "Invalid token (request id: first-gw) (request id: second-gw)";
    const seen = intercept(CHAT, [
      401,
      { error: { code: "", message, type: "new_api_error" } },
      { "Content-Type": "application/json", "X-Request-Id": "client-echo" },
    ]);
    const e = (await model()
      .invoke("hi", { options: { headers: { "X-Client-Request-Id": "mine" } } })
      .catch((x: unknown) => x)) as InferenceServiceError;
    expect(seen[0]?.headers["x-client-request-id"]).toBe("mine");
    expect(e.requestId).toBe("first-gw");
    expect(e.requestIds).toEqual(["first-gw", "second-gw"]);
  });

  it("has no request id for a 404 whose body carries none and no header (docs/service-contract.md#errors, rule 5)", async () => {
    intercept(CHAT, [404, bodies.invalidUrl, { "Content-Type": "application/json" }]);
    const e = (await model()
      .invoke("hi")
      .catch((x: unknown) => x)) as InvalidURLError;
    expect(e.requestId).toBeUndefined();
    expect(e.message).toContain("Invalid URL (POST /v1/chat/completion)");
  });
});

describe("messages", () => {
  it("says credit exhaustion in English and keeps the Chinese text as serviceMessage", async () => {
    intercept(CHAT, [403, bodies.noCredit, withRequestId()]);
    const e = (await model()
      .invoke("hi")
      .catch((x: unknown) => x)) as InsufficientCreditError;
    expect(e.message).toMatch(/^The account has no credit left/);
    expect(e.message).toMatch(/not a rate limit/);
    expect(e.serviceMessage).toBe(bodies.noCredit.error.message);
    expect(e.param).toBe("");
  });

  it("carries LangChain error codes where LangChain has one", async () => {
    intercept(CHAT, [503, bodies.modelNotFound, withRequestId()]);
    const e = (await model()
      .invoke("hi")
      .catch((x: unknown) => x)) as ModelNotFoundError;
    expect(e.lc_error_code).toBe("MODEL_NOT_FOUND");
    expect(
      new AuthenticationError({ summary: "s", hint: "h", surface: "hosted" }).lc_error_code,
    ).toBe("MODEL_AUTHENTICATION");
    expect(new RateLimitError({ summary: "s", hint: "h", surface: "hosted" }).lc_error_code).toBe(
      "MODEL_RATE_LIMIT",
    );
  });

  it("serialises to a plain object without the cause", () => {
    const e = new ServiceConnectionError({
      summary: "Could not reach it.",
      hint: "Check it.",
      surface: "hosted",
      cause: { headers: { authorization: `Bearer ${KEY}` } },
    });
    const json = JSON.stringify(e);
    expect(json).not.toContain(KEY);
    expect(JSON.parse(json)).toMatchObject({
      name: "ServiceConnectionError",
      retryable: true,
      surface: "hosted",
    });
  });

  it("makes ContentFilterError a non-retryable BadRequestError of its own brand and name", () => {
    const e = new ContentFilterError({ summary: "s", hint: "h", surface: "hosted" });
    expect(e.name).toBe("ContentFilterError");
    expect(e.retryable).toBe(false);
    expect(getRetryable(e)).toBe(false);
    expect(BadRequestError.isInstance(e)).toBe(true);
    expect(e).toBeInstanceOf(BadRequestError);
    expect(InferenceServiceError.isInstance(e)).toBe(true);
    expect(ContextLengthExceededError.isInstance(e)).toBe(false);
    const plain = new BadRequestError({ summary: "s", hint: "h", surface: "hosted" });
    expect(ContentFilterError.isInstance(plain)).toBe(false);
    const foreign = Object.create(null) as Record<symbol, boolean>;
    foreign[Symbol.for("langchain.error.inference-service.content-filter")] = true;
    expect(ContentFilterError.isInstance(foreign)).toBe(true);
  });

  it("lists every error class the package exports in docs/errors.md's list of classes", () => {
    const doc = readFileSync("docs/errors.md", "utf8");
    const list = doc.slice(doc.indexOf("## Classes"), doc.indexOf("## Fields"));
    const classes = Object.entries(pkg)
      .filter(([name, value]) => typeof value === "function" && /^[A-Z]\w*Error$/.test(name))
      .map(([name]) => name);
    expect(classes).toContain("ContentFilterError");
    expect(classes.filter((name) => !list.includes(`- \`${name}\`:`))).toEqual([]);
  });

  it("recognises instances from another copy of the package by brand, not by prototype", () => {
    const foreign = Object.create(null) as Record<symbol, boolean>;
    foreign[Symbol.for("langchain.error.inference-service.model-not-found")] = true;
    expect(ModelNotFoundError.isInstance(foreign)).toBe(true);
    expect(AuthenticationError.isInstance(foreign)).toBe(false);
  });

  it("marks ConfigurationError as a non-retryable LangChainError naming the option", () => {
    const e = new ConfigurationError("baseURL", "bad", "INFERENCE_SERVICE_BASE_URL");
    expect(LangChainError.isInstance(e)).toBe(true);
    expect(getRetryable(e)).toBe(false);
    expect(e).toMatchObject({ option: "baseURL", envVar: "INFERENCE_SERVICE_BASE_URL" });
  });
});

describe("malformed successes", () => {
  it.each([
    ["no choices", { id: "x", object: "chat.completion", model: "m" }],
    ["empty choices", { ...chatCompletion({ content: "x" }), choices: [] }],
    ["choices not an array", { ...chatCompletion({ content: "x" }), choices: "nope" }],
  ])(
    "raises MalformedResponseError for a 200 JSON body with %s (docs/service-contract.md#errors, rule 4)",
    async (_n, body) => {
      const seen = intercept(CHAT, [200, body, withRequestId()]);
      const e = (await model()
        .invoke("hi")
        .catch((x: unknown) => x)) as MalformedResponseError;
      expect(MalformedResponseError.isInstance(e)).toBe(true);
      expect(e.requestId).toBe(RID);
      expect(seen).toHaveLength(1);
    },
  );
});

describe("what every error class carries", () => {
  const init = { summary: "s", hint: "h", surface: "hosted" } as const;
  const serviceClasses = (
    Object.entries(errorsModule).filter(([, value]) => typeof value === "function") as Array<
      [string, new (i: typeof init) => InferenceServiceError]
    >
  ).filter(([, Cls]) => {
    for (let at: unknown = Cls; at; at = Object.getPrototypeOf(at)) {
      if (at === InferenceServiceError) return true;
    }
    return false;
  });

  it("names each error after its class", () => {
    expect(serviceClasses.length).toBeGreaterThan(15);
    for (const [name, Cls] of serviceClasses) expect(new Cls(init).name, name).toBe(name);
    expect(new ConfigurationError("o", "m").name).toBe("ConfigurationError");
    expect(new BudgetExceededError({ budget: 1, spent: 1 }).name).toBe("BudgetExceededError");
    expect(new UsageStoreError({ store: "s", operation: "o" }).name).toBe("UsageStoreError");
  });

  it("lists no request ID it was not given, and the one it was given", () => {
    expect(new InferenceServiceError(init).requestIds).toEqual([]);
    expect(new InferenceServiceError({ ...init, requestId: "r1" }).requestIds).toEqual(["r1"]);
  });

  it("is not mid-stream unless it says so, and keeps its cause out of JSON and its own keys", () => {
    const cause = new Error("inner");
    const error = new InferenceServiceError({ ...init, cause });
    expect(error.midStream).toBe(false);
    expect(error.cause).toBe(cause);
    expect(Object.keys(error)).not.toContain("cause");
    expect(JSON.stringify(error)).not.toContain("inner");
  });

  it("ends its message with the details a log reader needs, or none", () => {
    expect(formatDetails({})).toBe("");
    expect(formatDetails({ status: 0 })).toBe(" (status 0)");
    expect(formatDetails({ code: "", requestId: "", midStream: false })).toBe("");
    expect(formatDetails({ status: 503, code: "c", requestId: "r", midStream: true })).toBe(
      " (status 503, code c, request id r, mid-stream)",
    );
    expect(new InferenceServiceError({ ...init, code: "c" }).message).toBe("s h (code c)");
  });
});

describe("BudgetExceededError", () => {
  it("says what was spent, held and asked, in the budget's unit, and which call was not sent", () => {
    const fields = {
      budget: 5,
      spent: 4.1234567,
      reserved: 0.5,
      requested: 1,
      currency: "credit",
      model: "m",
    };
    const error = new BudgetExceededError(fields);
    expect(error.message).toBe(
      'Usage budget reached: spent 4.12346 credit of 5 credit, 0.5 credit held by calls in flight; the call to "m" (up to 1 credit) was not sent. Raise `budget`, lower `maxTokens` (a call holds its worst case until it settles), or start a new tracker; the service\'s Wallet stays authoritative.',
    );
    expect(error).toMatchObject({ code: "budget_exceeded", ...fields });
    expect(getRetryable(error)).toBe(false);
  });

  it("leaves out what it was not told: no unit, nothing held, no model, no request", () => {
    const error = new BudgetExceededError({ budget: 2, spent: 2 });
    expect(error.message).toMatch(/^Usage budget reached: spent 2 of 2; the call was not sent\. /);
    expect(error.reserved).toBe(0);
    expect(new BudgetExceededError({ budget: 2, spent: 2, reserved: 0 }).message).not.toContain(
      "held",
    );
    expect(new BudgetExceededError({ budget: 2, spent: 1, requested: 0 }).message).toContain(
      "the call (up to 0) was not sent",
    );
  });
});

describe("UsageStoreError", () => {
  const secret = "redis-password-123456";

  it("says which store failed, doing what, and why, without the store's secrets", () => {
    const cause = Object.assign(new Error(`AUTH ${secret} failed`), {
      name: "ReplyError",
      code: `E-${secret}`,
      command: { args: [secret] },
    });
    cause.stack = `ReplyError: AUTH ${secret}`;
    const error = new UsageStoreError({
      store: "redis",
      operation: "reserve",
      cause,
      secrets: [secret],
    });
    expect(error.message).toBe(
      "The usage store (redis) failed during reserve: AUTH [redacted] failed; the call was not sent. Check that redis is up and reachable, or set `failOpen: true` on the store to send calls unguarded while it is down.",
    );
    expect(error).toMatchObject({
      code: "usage_store_unavailable",
      store: "redis",
      operation: "reserve",
    });
    const copy = error.cause as Error & { code?: unknown };
    expect(copy).not.toBe(cause);
    expect(copy).toMatchObject({
      name: "ReplyError",
      message: "AUTH [redacted] failed",
      code: "E-[redacted]",
    });
    expect(copy.stack).toBe("ReplyError: AUTH [redacted]");
    expect(JSON.stringify(copy)).not.toContain(secret);
    expect(Object.keys(error)).not.toContain("cause");
    expect(getRetryable(error)).toBe(false);
  });

  it("keeps a numeric code, a cause's causes four deep, and no stack it did not have", () => {
    const chain = (depth: number): Error =>
      Object.assign(new Error(`level ${depth}`), depth < 6 ? { cause: chain(depth + 1) } : {});
    const cause = Object.assign(chain(0), { code: 7 });
    cause.stack = undefined;
    const copy = new UsageStoreError({ store: "s", operation: "o", cause }).cause as Error & {
      code?: unknown;
    };
    expect(copy.code).toBe(7);
    expect(copy.stack).toBeUndefined();
    const messages: string[] = [];
    for (let at: unknown = copy; at instanceof Error; at = at.cause) messages.push(at.message);
    expect(messages).toEqual(["level 0", "level 1", "level 2", "level 3", "level 4"]);
  });

  it("copies a cause with secrets to hide whatever it lacks: no stack, a numeric code, no cause", () => {
    const cause = Object.assign(new Error(`AUTH ${secret} failed`), { code: 7 });
    cause.stack = undefined;
    const copy = new UsageStoreError({ store: "s", operation: "o", cause, secrets: [secret] })
      .cause as Error & { code?: unknown };
    expect(copy).toMatchObject({ message: "AUTH [redacted] failed", code: 7 });
    expect(copy.stack).toBeUndefined();
    expect("cause" in copy).toBe(false);
  });

  it("hides a secret as short as a secret may be (4 characters), and none shorter", () => {
    const error = new UsageStoreError({
      store: "s",
      operation: "o",
      cause: "pw=abcd pin=xyz",
      secrets: ["abcd", "xyz"],
    });
    expect(error.cause).toBe("pw=[redacted] pin=xyz");
  });

  it("reads a cause that is not an error as text, short secrets left alone", () => {
    const error = new UsageStoreError({
      store: "s",
      operation: "o",
      cause: `down ${secret} abc`,
      secrets: [secret, "abc"],
    });
    expect(error.cause).toBe("down [redacted] abc");
    expect(error.message).toContain("failed during o: down [redacted] abc;");
    const quiet = new UsageStoreError({ store: "s", operation: "o" });
    expect(quiet.message).toMatch(
      /^The usage store \(s\) failed during o; the call was not sent\./,
    );
    expect(quiet.cause).toBeUndefined();
    const empty = new UsageStoreError({ store: "s", operation: "o", cause: "" });
    expect(empty.message).toMatch(/failed during o; the call/);
    const code = new UsageStoreError({
      store: "s",
      operation: "o",
      cause: Object.assign(new Error("x"), { code: { nested: true } }),
    }).cause as { code?: unknown };
    expect(code.code).toBeUndefined();
  });
});
