import { APIConnectionError, APIError, APIUserAbortError } from "openai";
import { describe, expect, it, vi } from "vitest";
import {
  AuthenticationError,
  BadRequestError,
  ContentFilterError,
  ContextLengthExceededError,
  EndpointNotReadyError,
  InferenceServiceError,
  InvalidURLError,
  MalformedResponseError,
  ModelNotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServiceConnectionError,
  ServiceNameError,
  ServiceTimeoutError,
  ServiceUnavailableError,
} from "../../src/errors/errors.js";
import {
  asServiceError,
  errorObjectFailure,
  findRequestIds,
  headerRequestId,
  parseErrorBody,
  parseRetryAfter,
  toServiceError,
  UntypedFailure,
} from "../../src/errors/mapper.js";
import { APIS } from "../../src/transport/apis.js";

describe("parseErrorBody", () => {
  it.each([
    [
      '{"error":{"code":"x","message":"m","type":"t","param":"p"}}',
      { code: "x", message: "m", type: "t", param: "p" },
    ],
    ['{"error":"plain text"}', { message: "plain text" }],
    ['{"code":"x","message":"m"}', { code: "x", message: "m" }],
    ["", {}],
    ["<html>", {}],
    ['{"error":{"code":1}}', {}],
    ["null", {}],
  ])("reads %j leniently", (body, expected) => {
    const parsed = parseErrorBody(body);
    for (const [k, v] of Object.entries(expected)) expect(parsed[k as keyof typeof parsed]).toBe(v);
    if (Object.keys(expected).length === 0) expect(parsed.code).toBeUndefined();
  });
});

describe("findRequestIds", () => {
  it("puts the header first and keeps every suffix once, in order", () => {
    const headers = new Headers({ "x-gateway-request-id": "h1", "x-request-id": "client" });
    expect(
      findRequestIds(headers, "a (request id: s1) b (request id: s2) (request id: h1)"),
    ).toEqual(["h1", "s1", "s2"]);
    expect(findRequestIds(new Headers({ "x-request-id": "client" }), "no id")).toEqual([]);
  });
});

describe("parseRetryAfter", () => {
  it("reads seconds and HTTP dates", () => {
    expect(parseRetryAfter("2")).toBe(2000);
    expect(parseRetryAfter("0.5")).toBe(500);
    expect(parseRetryAfter(new Date(Date.now() + 60_000).toUTCString())).toBeGreaterThan(50_000);
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});

describe("toServiceError", () => {
  it("uses the dedicated-surface hint for a 401 (docs/service-contract.md#authentication, rule 3, docs/service-contract.md#errors, rule 7)", () => {
    const e = toServiceError(
      { kind: "http", status: 401, body: "" },
      { surface: "dedicated", serviceName: "t.a" },
    );
    expect(AuthenticationError.isInstance(e)).toBe(true);
    expect(e.hint).toMatch(/Inference Service permission/);
  });

  it("maps a dedicated 404 to ServiceNameError showing the expected form", () => {
    const e = toServiceError(
      { kind: "http", status: 404, body: "" },
      { surface: "dedicated", serviceName: "bad" },
    );
    expect(ServiceNameError.isInstance(e)).toBe(true);
    expect(e.hint).toMatch(/<TENANT_ID>\.<JOB_ALIAS_NAME>/);
  });

  it("maps a dedicated network failure without a code to EndpointNotReadyError, and DNS failures to ServiceConnectionError", () => {
    const pending = toServiceError(
      { kind: "network", cause: new TypeError("fetch failed") },
      { surface: "dedicated" },
    );
    const dns = toServiceError(
      { kind: "network", cause: Object.assign(new Error("getaddrinfo"), { code: "ENOTFOUND" }) },
      { surface: "dedicated" },
    );
    expect(EndpointNotReadyError.isInstance(pending)).toBe(true);
    expect(ServiceConnectionError.isInstance(dns)).toBe(true);
  });

  it("branches on code, never on message text (docs/service-contract.md#errors, rule 1)", () => {
    const e = toServiceError(
      { kind: "http", status: 503, body: '{"error":{"code":"","message":"model_not_found"}}' },
      { surface: "hosted" },
    );
    expect(ModelNotFoundError.isInstance(e)).toBe(false);
  });

  it("gives every status from 100 to 599 a typed error", () => {
    for (let status = 100; status < 600; status++) {
      expect(
        toServiceError({ kind: "http", status, body: "" }, { surface: "hosted" }),
      ).toBeInstanceOf(InferenceServiceError);
    }
  });
});

describe("toServiceError: what its messages say", () => {
  const hosted = { surface: "hosted" as const, model: "m" };
  const url = "http://127.0.0.1:8788/inference/v1/chat/completions";
  const network = (code: string | undefined, message = "connect failed") =>
    toServiceError(
      {
        kind: "network",
        cause: new TypeError("fetch failed", {
          cause: Object.assign(new Error(message), { code }),
        }),
      },
      { ...hosted, url },
    );

  it("names the URL, the cause in words with its code, and a fix for that cause", () => {
    const refused = network("ECONNREFUSED");
    expect(refused.summary).toBe(
      `Could not reach the inference service at ${url}: nothing accepted the connection on that host and port (ECONNREFUSED).`,
    );
    expect(refused.hint).toBe(
      "Check the host and port of `baseURL` and that the service is up there; connection failures are retried automatically.",
    );
    expect(network("ENOTFOUND").summary).toContain(
      ": no DNS record has that host name (ENOTFOUND).",
    );
    expect(network("ENOTFOUND").hint).toContain("Check the host name in `baseURL` for a typo");
    expect(network("UNABLE_TO_VERIFY_LEAF_SIGNATURE").hint).toContain("NODE_EXTRA_CA_CERTS");
    expect(network("ERR_SSL_WRONG_VERSION_NUMBER").summary).toContain(
      "the TLS handshake failed, as when an https URL names a server that speaks plain http (ERR_SSL_WRONG_VERSION_NUMBER).",
    );
    expect(network(undefined, "bad port").summary).toContain(
      "fetch refuses to connect to that port",
    );
    expect(network(undefined, "socket hang up.").summary).toBe(
      `Could not reach the inference service at ${url}: socket hang up.`,
    );
  });

  it("says once that a dedicated endpoint is Pending: in the summary, not again in the hint", () => {
    const error = toServiceError(
      { kind: "network", cause: Object.assign(new Error("x"), { code: "ECONNREFUSED" }) },
      { surface: "dedicated", serviceName: "t.j", url: "http://h/inference/v1/completions" },
    );
    expect(error.summary).toBe(
      'The dedicated endpoint "t.j" at http://h/inference/v1/completions is not serving yet (still Pending): nothing accepted the connection on that host and port (ECONNREFUSED).',
    );
    expect(error.message.match(/Pending/g)).toHaveLength(1);
  });

  it("never names a status the service did not send: an error object in a 200, an error event mid-stream", () => {
    const inBody = toServiceError(
      {
        kind: "http",
        status: 200,
        body: JSON.stringify({ error: { code: "upstream_error", message: "The model failed." } }),
      },
      hosted,
    );
    expect(inBody).toBeInstanceOf(ServiceUnavailableError);
    expect(inBody.message).toBe(
      "The service failed to answer (an error object in an HTTP 200 answer): The model failed. This is usually temporary; it is retried automatically up to `maxRetries` times. (status 200, code upstream_error)",
    );
    const midStream = toServiceError(
      { kind: "stream-error", payload: { error: { code: "upstream_error", message: "boom" } } },
      hosted,
    );
    expect(midStream.summary).toBe(
      "The service failed to answer (an error event in the middle of its stream): boom.",
    );
    expect(midStream.message).not.toMatch(/HTTP 500|status 500/);
  });

  it("ends a quoted service message with one full stop, not two", () => {
    const http = (status: number, message: string, code = "") =>
      toServiceError(
        { kind: "http", status, body: JSON.stringify({ error: { code, message } }) },
        hosted,
      );
    for (const error of [
      http(400, "Bad field messages. (request id: 1)"),
      http(404, "Invalid URL. "),
      http(503, "Upstream failed。"),
      http(
        400,
        "This model's maximum context length is 8192 tokens. Please reduce the length of the messages. (request id: 2)",
        "context_length_exceeded",
      ),
      http(500, "field messages is required.", "invalid_request"),
    ]) {
      expect(error.message).not.toMatch(/[.。]\s*\./);
      expect(error.summary).toMatch(/[^.]\.$/);
    }
  });

  it("names the URL that answered with HTML, without claiming it misses /inference/v1", () => {
    const error = toServiceError(
      {
        kind: "non-json",
        status: 200,
        body: "<!doctype html><p>console",
        contentType: "text/html",
      },
      { ...hosted, url: "http://h/proxy/inference/v1/chat/completions" },
    );
    expect(error.summary).toBe(
      'http://h/proxy/inference/v1/chat/completions answered HTTP 200 with an HTML page instead of the API\'s JSON ("<!doctype html><p>console").',
    );
    expect(error.hint).not.toContain("misses");
  });
});

describe("asServiceError", () => {
  it("finds our error inside an SDK connection error's cause", () => {
    const ours = toServiceError({ kind: "http", status: 401, body: "" }, { surface: "hosted" });
    const wrapped = Object.assign(new Error("Connection error."), {
      name: "APIConnectionError",
      cause: ours,
    });
    expect(asServiceError(wrapped, { surface: "hosted" })).toBe(ours);
  });

  it("leaves aborts and unrelated errors alone", () => {
    const abort = Object.assign(new Error("aborted"), { name: "AbortError" });
    const bug = new RangeError("bug");
    expect(asServiceError(abort, { surface: "hosted" })).toBe(abort);
    expect(asServiceError(bug, { surface: "hosted" })).toBe(bug);
  });

  it.each([
    ["undici", "terminated"],
    ["Deno", "error reading a body from connection"],
  ])(
    "maps %s's error for a body cut mid-stream to a mid-stream ServiceConnectionError on both surfaces",
    (_runtime, message) => {
      for (const surface of ["hosted", "dedicated"] as const) {
        const cut = new TypeError(message, {
          cause: Object.assign(new Error("x"), { code: "UND_ERR_SOCKET" }),
        });
        const e = asServiceError(cut, { surface, midStream: true, partialOutput: "Hel" });
        expect(ServiceConnectionError.isInstance(e), `${surface}: ${String(e)}`).toBe(true);
        expect(e).toMatchObject({ midStream: true, partialOutput: "Hel", retryable: true });
      }
    },
  );

  it("maps an SDK timeout to a retryable ServiceConnectionError", () => {
    const timeout = Object.assign(new Error("Request timed out."), { name: "TimeoutError" });
    const e = asServiceError(timeout, { surface: "hosted" }) as ServiceConnectionError;
    expect(ServiceConnectionError.isInstance(e)).toBe(true);
    expect(e.retryable).toBe(true);
  });
});

describe("a too-long input's summary quotes the service's message", () => {
  const http = (message: string) =>
    ({
      kind: "http",
      status: 400,
      body: JSON.stringify({ error: { code: "context_length_exceeded", message } }),
    }) as const;

  it("says a rerank document is too long, with the message and one full stop at its end", () => {
    const ctx = {
      surface: "hosted",
      model: "r",
      api: "rerank",
      inputWording: APIS.rerank.inputWording,
    } as const;
    const error = toServiceError(http("Model v1.2 takes 512 tokens. ."), ctx);
    expect(ContextLengthExceededError.isInstance(error)).toBe(true);
    expect(error.summary).toBe(
      "A document, read with the query, is longer than the rerank model takes: Model v1.2 takes 512 tokens.",
    );
    expect(error.hint).toMatch(/^Split the documents into smaller pieces/);
    expect(toServiceError(http(""), ctx).summary).toBe(
      "A document, read with the query, is longer than the rerank model takes.",
    );
  });

  it("ends an embedding input's summary with one full stop, whatever the message ends with", () => {
    const ctx = {
      surface: "hosted",
      model: "e",
      api: "embeddings",
      inputWording: APIS.embeddings.inputWording,
      inputs: { first: 0, count: 1 },
    } as const;
    expect(toServiceError(http("Model v1.2 takes 512 tokens. ."), ctx).summary).toBe(
      "The input at position 0 is longer than the embedding model takes: Model v1.2 takes 512 tokens.",
    );
  });
});

describe("embeddings in the one mapper", () => {
  const ctx = {
    surface: "hosted",
    model: "e",
    api: "embeddings",
    inputWording: APIS.embeddings.inputWording,
  } as const;
  const http = (status: number, error: Record<string, unknown>) =>
    ({ kind: "http", status, body: JSON.stringify({ error }) }) as const;

  it("says a 404 means the service offers no embeddings at this URL", () => {
    const error = toServiceError(
      http(404, { code: "", message: "Invalid URL (POST /v1/embeddings)" }),
      ctx,
    );
    expect(InvalidURLError.isInstance(error)).toBe(true);
    expect(error.summary).toBe(
      "The service offers no embeddings at this URL: Invalid URL (POST /v1/embeddings).",
    );
    expect(error.hint).toMatch(/does not serve \/embeddings/);
  });

  it("names the position of the one input a length or content refusal is about", () => {
    const one = { ...ctx, inputs: { first: 7, count: 1 } };
    const long = toServiceError(
      http(400, { code: "context_length_exceeded", message: "too long." }),
      one,
    );
    expect(ContextLengthExceededError.isInstance(long)).toBe(true);
    expect(long).toMatchObject({
      inputIndex: 7,
      summary: "The input at position 7 is longer than the embedding model takes: too long.",
    });
    const blocked = toServiceError(http(500, { code: "sensitive_words_detected" }), one);
    expect(ContentFilterError.isInstance(blocked)).toBe(true);
    expect(blocked.inputIndex).toBe(7);
    expect(blocked.summary).toMatch(/\(the input at position 7\)\.$/);
  });

  it("names the range of a request of several inputs, without an inputIndex", () => {
    const error = toServiceError(http(400, { code: "context_length_exceeded" }), {
      ...ctx,
      inputs: { first: 512, count: 512 },
    });
    expect(error.inputIndex).toBeUndefined();
    expect(error.summary).toMatch(/^The inputs at positions 512–1023 include one longer/);
    expect(error.hint).toMatch(/lower `batchSize`/);
  });

  it("leaves a refusal of the request's parameters, and the chat surface, as they are", () => {
    const params = toServiceError(http(400, { code: "", message: "bad dimensions" }), {
      ...ctx,
      inputs: { first: 0, count: 1 },
    });
    expect(BadRequestError.isInstance(params)).toBe(true);
    expect(params.inputIndex).toBeUndefined();
    expect(params.summary).not.toContain("position");
    const chat = toServiceError(http(400, { code: "context_length_exceeded" }), {
      surface: "hosted",
      model: "m",
      inputs: { first: 0, count: 1 },
    });
    expect(chat.hint).toMatch(/^Shorten the messages/);
  });

  it("types a failure seen below once, where the request's inputs are known", () => {
    const below = new UntypedFailure(http(400, { code: "context_length_exceeded" }), ctx);
    const typed = asServiceError(below, { ...ctx, inputs: { first: 2, count: 1 } });
    expect(typed).toMatchObject({ inputIndex: 2 });
    expect(asServiceError(typed, { ...ctx, inputs: { first: 9, count: 1 } })).toBe(typed);
  });
});

describe("toServiceError: the fields a program and the retry layer read", () => {
  const hosted = { surface: "hosted" as const, model: "m" };
  const http = (status: number, error: unknown, headers?: Record<string, string>) =>
    ({
      kind: "http",
      status,
      body: JSON.stringify({ error }),
      ...(headers ? { headers: new Headers(headers) } : {}),
    }) as const;

  it("gives a 429's Retry-After to retryAfterMs, from the failure's headers or the answer's", () => {
    const limited = toServiceError(http(429, { code: "" }, { "retry-after": "3" }), hosted);
    expect(RateLimitError.isInstance(limited)).toBe(true);
    expect(limited.retryAfterMs).toBe(3000);
    const fromAnswer = toServiceError(http(429, { code: "" }), {
      ...hosted,
      responseHeaders: new Headers({ "retry-after": "0.25" }),
    });
    expect(fromAnswer.retryAfterMs).toBe(250);
    expect(toServiceError(http(429, { code: "" }), hosted).retryAfterMs).toBeUndefined();
  });

  it("keeps retryAfterMs for rate limits only: a 503's Retry-After is not the limiter's pause", () => {
    const unavailable = toServiceError(http(503, { code: "" }, { "retry-after": "3" }), hosted);
    expect(ServiceUnavailableError.isInstance(unavailable)).toBe(true);
    expect(unavailable.retryAfterMs).toBeUndefined();
  });

  it("maps a 200 carrying an error object with rate_limit_exceeded to a RateLimitError of status 200", () => {
    const body = { error: { code: "rate_limit_exceeded", message: "Too many requests" } };
    const failure = errorObjectFailure(body, 200, new Headers({ "retry-after": "2" }));
    const error = toServiceError(failure!, hosted);
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 200, code: "rate_limit_exceeded", retryAfterMs: 2000 });
    expect(error.summary).toBe(
      "The service is rate-limiting requests (an error object in an HTTP 200 answer): Too many requests.",
    );
  });

  it("reads a 200's error object by the status it names, else by its type, else as a passing 500", () => {
    const inA200 = (error: unknown) => toServiceError(http(200, error), hosted);
    expect(PermissionDeniedError.isInstance(inA200({ message: "no", status: 403 }))).toBe(true);
    expect(
      BadRequestError.isInstance(inA200({ message: "bad", type: "invalid_request_error" })),
    ).toBe(true);
    const passing = inA200({ message: "odd", status: 299 });
    expect(ServiceUnavailableError.isInstance(passing)).toBe(true);
    expect(passing.retryable).toBe(true);
  });

  it("reads nothing from a 2xx answer that holds no error object", () => {
    const headers = new Headers();
    expect(errorObjectFailure({ choices: [] }, 200, headers)).toBeUndefined();
    expect(errorObjectFailure({ error: null }, 200, headers)).toBeUndefined();
    expect(errorObjectFailure({ error: 5 }, 200, headers)).toBeUndefined();
    expect(errorObjectFailure(null, 200, headers)).toBeUndefined();
    expect(errorObjectFailure({ error: "down" }, 201, headers)).toEqual({
      kind: "http",
      status: 201,
      body: '{"error":"down"}',
      headers,
    });
  });

  it("tells a 413 to send a smaller request", () => {
    const error = toServiceError(
      http(413, { code: "", message: "Request Entity Too Large" }),
      hosted,
    );
    expect(BadRequestError.isInstance(error)).toBe(true);
    expect(error.hint).toBe("Send a smaller request (shorter prompt or fewer messages).");
    expect(error.summary).toBe(
      "The service rejected the request as invalid (HTTP 413): Request Entity Too Large.",
    );
  });

  it("keeps what timed out as the cause of a timeout, and of a network failure", () => {
    const timer = new Error("The operation was aborted due to timeout");
    const timeout = toServiceError({ kind: "timeout", phase: "response", cause: timer }, hosted);
    expect(ServiceTimeoutError.isInstance(timeout)).toBe(true);
    expect(timeout.cause).toBe(timer);
    const reset = Object.assign(new Error("reset"), { code: "ECONNRESET" });
    expect(toServiceError({ kind: "network", cause: reset }, hosted).cause).toBe(reset);
    expect(toServiceError(http(500, {}), hosted).cause).toBeUndefined();
  });

  it("keeps the last error as the cause of a wait for an endpoint that stayed pending", () => {
    const last = toServiceError(
      {
        kind: "http",
        status: 503,
        body: "",
        headers: new Headers({ "x-gateway-request-id": "r1" }),
      },
      { surface: "dedicated", serviceName: "t.j" },
    );
    const error = toServiceError(
      { kind: "still-pending", waitedMs: 1000, limitMs: 1000, last },
      { surface: "dedicated", serviceName: "t.j" },
    );
    expect(error.cause).toBe(last);
    expect(error.status).toBe(503);
    expect(error.requestIds).toEqual(["r1"]);
  });

  it("marks an error event of a stream mid-stream, with the output streamed before it", () => {
    const error = toServiceError(
      {
        kind: "stream-error",
        payload: { error: { message: "boom", status: 502 } },
        partialOutput: "Hel",
      },
      { ...hosted, partialOutput: "ignored" },
    );
    expect(error).toMatchObject({ midStream: true, partialOutput: "Hel", status: 502 });
    expect(error.message).toMatch(/mid-stream\)$/);
    const fromCtx = toServiceError(
      { kind: "stream-error", payload: { error: { message: "boom" } } },
      { ...hosted, partialOutput: "Hello" },
    );
    expect(fromCtx).toMatchObject({ midStream: true, partialOutput: "Hello", status: undefined });
  });

  it("keeps partialOutput only for failures mid-stream", () => {
    const before = toServiceError(http(500, {}), { ...hosted, partialOutput: "Hel" });
    expect(before).toMatchObject({ midStream: false, partialOutput: undefined });
    const cut = toServiceError(
      { kind: "network", cause: new TypeError("terminated"), afterResponse: true },
      { ...hosted, midStream: true, partialOutput: "Hel" },
    );
    expect(cut).toMatchObject({ midStream: true, partialOutput: "Hel" });
  });
});

describe("toServiceError: the summary of each kind of failure", () => {
  const hosted = { surface: "hosted" as const, model: "m" };
  const url = "http://h/inference/v1/chat/completions";

  it("names how long a timeout waited, rounded, or nothing when it does not know", () => {
    const timeout = (ms?: number, began = false) =>
      toServiceError(
        { kind: "timeout", ...(ms === undefined ? {} : { ms }) },
        began ? { ...hosted, responseHeaders: new Headers() } : hosted,
      );
    expect(timeout(1500.4).summary).toBe(
      "The service did not answer before the timeout after 1500 ms.",
    );
    expect(timeout().summary).toBe("The service did not answer before the timeout.");
    expect(timeout(0).summary).toBe("The service did not answer before the timeout after 0 ms.");
    expect(timeout(99.6, true).summary).toBe(
      "The response began but did not finish before the timeout after 100 ms.",
    );
    expect(timeout(10).code).toBe("timeout");
  });

  it("says a stalled response waited idleMs, before or in the middle of a stream", () => {
    const idle = toServiceError({ kind: "timeout", phase: "idle", ms: 250.2 }, hosted);
    expect(idle).toMatchObject({
      code: "idle_timeout",
      summary: "The response stalled: no complete event arrived for 250 ms.",
      midStream: false,
    });
    const unknown = toServiceError({ kind: "timeout", phase: "idle" }, hosted);
    expect(unknown.summary).toBe("The response stalled: no complete event arrived for 0 ms.");
    const mid = toServiceError(
      { kind: "timeout", phase: "idle", ms: 30 },
      { ...hosted, midStream: true, partialOutput: "Hel" },
    );
    expect(mid).toMatchObject({
      summary:
        "The response stalled: no complete event arrived for 30 ms in the middle of the stream.",
      midStream: true,
      partialOutput: "Hel",
    });
  });

  it("names a redirect loop's hops and where it last went, without the query", () => {
    const loop = (location?: string, at: string | null = url) =>
      toServiceError(
        {
          kind: "redirect",
          status: 302,
          hops: 5,
          ...(location === undefined ? {} : { headers: new Headers({ location }) }),
        },
        { ...hosted, ...(at === null ? {} : { url: at }) },
      );
    expect(loop("/elsewhere?token=secret").summary).toBe(
      "The service redirected the call 5 times without answering (a redirect loop, last to http://h/elsewhere).",
    );
    expect(loop().summary).toBe(
      "The service redirected the call 5 times without answering (a redirect loop).",
    );
    expect(loop("/relative", null).summary).toBe(
      "The service redirected the call 5 times without answering (a redirect loop).",
    );
    expect(loop().status).toBe(302);
    expect(loop().code).toBe("too_many_redirects");
  });

  it("names the origin a redirect leads to", () => {
    const error = toServiceError(
      { kind: "redirect", status: 307, hops: 1, crossOrigin: "https://other.example" },
      hosted,
    );
    expect(error).toMatchObject({
      code: "cross_origin_redirect",
      summary:
        "The service redirected the call to another origin (https://other.example); the key is never sent there.",
    });
  });

  it("says how long a dedicated endpoint was waited for", () => {
    const error = toServiceError(
      { kind: "still-pending", waitedMs: 1234.5, limitMs: 1000 },
      { surface: "dedicated", serviceName: "t.j" },
    );
    expect(error.summary).toBe(
      'The dedicated endpoint "t.j" was still not ready after waiting 1235 ms (`waitForReady`: 1000 ms).',
    );
    expect(error.status).toBeUndefined();
    expect(error.cause).toBeUndefined();
    const unnamed = toServiceError(
      { kind: "still-pending", waitedMs: 1, limitMs: 1 },
      { surface: "dedicated" },
    );
    expect(unnamed.summary).toMatch(/^The dedicated endpoint "\?" was still/);
  });

  it("says what came instead of JSON: an HTML page, its content type, or a body that is not JSON", () => {
    const nonJson = (body: string, contentType: string, at?: string) =>
      toServiceError(
        { kind: "non-json", status: 502, body, contentType },
        { ...hosted, ...(at ? { url: at } : {}) },
      ).summary;
    expect(nonJson("  <p>hi", "text/plain")).toBe(
      'The service answered HTTP 502 with an HTML page instead of the API\'s JSON ("<p>hi").',
    );
    expect(nonJson("oops", "TEXT/HTML; charset=utf-8")).toMatch(/with an HTML page instead/);
    expect(nonJson("x<y", "text/plain")).toMatch(/with text\/plain instead/);
    expect(nonJson("oops", "", url)).toBe(
      `${url} answered HTTP 502 with a body that is not JSON instead of the API's JSON ("oops").`,
    );
  });

  it("shows the first 120 characters of a body, its white space flattened", () => {
    const body = `a \n\t b${"c".repeat(200)}`;
    const summary = toServiceError(
      { kind: "non-json", status: 500, body, contentType: "text/plain" },
      hosted,
    ).summary;
    const shown = `a b${"c".repeat(117)}`;
    expect(summary).toBe(
      `The service answered HTTP 500 with text/plain instead of the API's JSON ("${shown}…").`,
    );
    const exact = "d".repeat(120);
    expect(
      toServiceError({ kind: "non-json", status: 500, body: exact, contentType: "x" }, hosted)
        .summary,
    ).toContain(`("${exact}")`);
  });

  it("redacts secrets from a body it shows, but no value shorter than a secret can be", () => {
    const key = "sk-secret-value-123456";
    const body = `key=${key} short=abc`;
    const summary = toServiceError(
      { kind: "non-json", status: 500, body, contentType: "text/plain" },
      { ...hosted, secrets: [key, "abc"] },
    ).summary;
    expect(summary).toContain("key=[redacted] short=abc");
  });

  it("says why an answer is not usable, with the start of its body when it has one", () => {
    const malformed = (body?: unknown) =>
      toServiceError(
        {
          kind: "malformed",
          detail: "no choices",
          ...(body === undefined ? {} : { body }),
          status: 200,
        },
        hosted,
      );
    expect(malformed().summary).toBe("The service's answer is not usable: no choices.");
    expect(malformed({ a: 1 }).summary).toBe(
      'The service\'s answer is not usable: no choices (body starts: {"a":1}).',
    );
    expect(malformed("plain").summary).toBe(
      "The service's answer is not usable: no choices (body starts: plain).",
    );
    const big = { n: 1n };
    expect(malformed(big).summary).toBe(
      "The service's answer is not usable: no choices (body starts: [unserialisable]).",
    );
    expect(malformed(() => 1).summary).toContain("(body starts: () => 1)");
    expect(malformed().status).toBe(200);
  });

  it("names the subject of an unknown model, or a ? when it has no name", () => {
    const unknown = (ctx: object) =>
      toServiceError(
        {
          kind: "http",
          status: 503,
          body: JSON.stringify({ error: { code: "model_not_found", message: "no" } }),
        },
        { surface: "hosted", ...ctx },
      );
    expect(unknown({ model: "gpt-x" }).message).toContain('model "gpt-x"');
    expect(unknown({}).message).toContain('model "?"');
  });

  it("names the Service-Name of a dedicated 404, or a ?", () => {
    const notFound = (serviceName?: string) =>
      toServiceError(
        { kind: "http", status: 404, body: "" },
        { surface: "dedicated", ...(serviceName ? { serviceName } : {}) },
      ).summary;
    expect(notFound("t.j")).toBe('No deployment answers to Service-Name "t.j".');
    expect(notFound()).toBe('No deployment answers to Service-Name "?".');
  });

  it("names the URL a hosted 404 was sent to, when it knows it", () => {
    const notFound = (at?: string) =>
      toServiceError(
        { kind: "http", status: 404, body: "" },
        { ...hosted, ...(at ? { url: at } : {}) },
      ).summary;
    expect(notFound(url)).toBe(`The service does not serve the path it was sent (${url}).`);
    expect(notFound()).toBe("The service does not serve the path it was sent.");
  });

  it("names the host it could not reach, and says nothing of one it does not know", () => {
    const cause = Object.assign(new Error("x"), { code: "ECONNREFUSED" });
    expect(toServiceError({ kind: "network", cause }, { ...hosted, url }).summary).toBe(
      `Could not reach the inference service at ${url}: nothing accepted the connection on that host and port (ECONNREFUSED).`,
    );
    expect(toServiceError({ kind: "network", cause }, hosted).summary).toBe(
      "Could not reach the inference service: nothing accepted the connection on that host and port (ECONNREFUSED).",
    );
  });

  it("names the service's code for a status it reads, and gives an error event mid-stream its own status", () => {
    const undocumented = toServiceError(
      { kind: "http", status: 403, body: JSON.stringify({ error: { code: "weird_code" } }) },
      hosted,
    );
    expect(undocumented.summary).toBe(
      'The service refused the call (HTTP 403) with code "weird_code", which it does not document.',
    );
    const event = toServiceError(
      {
        kind: "stream-error",
        payload: { error: { code: "rate_limit_exceeded", message: "slow" } },
      },
      hosted,
    );
    expect(RateLimitError.isInstance(event)).toBe(true);
    expect(event.summary).toBe(
      "The service is rate-limiting requests (an error event in the middle of its stream): slow.",
    );
    const typed = toServiceError(
      {
        kind: "stream-error",
        payload: { error: { type: "invalid_request_error", message: "bad" } },
      },
      hosted,
    );
    expect(BadRequestError.isInstance(typed)).toBe(true);
  });

  it("finds the request ID in the failure's headers, else the answer's, else the message", () => {
    const body = JSON.stringify({ error: { message: "boom (request id: m1)" } });
    const fromHeaders = toServiceError(
      { kind: "http", status: 500, body, headers: new Headers({ "x-gateway-request-id": " h1 " }) },
      { ...hosted, responseHeaders: new Headers({ "x-gateway-request-id": "a1" }) },
    );
    expect(fromHeaders.requestIds).toEqual(["h1", "m1"]);
    expect(fromHeaders.requestId).toBe("h1");
    const fromAnswer = toServiceError(
      { kind: "http", status: 500, body },
      { ...hosted, responseHeaders: new Headers({ "x-gateway-request-id": "a1" }) },
    );
    expect(fromAnswer.requestIds).toEqual(["a1", "m1"]);
    expect(toServiceError({ kind: "http", status: 500, body }, hosted).requestIds).toEqual(["m1"]);
  });

  it("redacts a secret as short as a secret may be (4 characters), and none shorter", () => {
    const error = toServiceError(
      { kind: "http", status: 400, body: JSON.stringify({ error: { message: "k=abcd p=xyz" } }) },
      { ...hosted, secrets: ["abcd", "xyz"] },
    );
    expect(error.serviceMessage).toBe("k=[redacted] p=xyz");
  });

  it("redacts secrets from every field it copies from the service", () => {
    const key = "sk-secret-value-123456";
    const error = toServiceError(
      {
        kind: "http",
        status: 400,
        body: JSON.stringify({
          error: {
            code: `c-${key}`,
            message: `m ${key} (request id: ${key})`,
            type: `t-${key}`,
            param: `p-${key}`,
          },
        }),
      },
      { ...hosted, secrets: [key] },
    );
    expect(JSON.stringify({ ...error.toJSON(), requestIds: error.requestIds })).not.toContain(key);
    expect(error).toMatchObject({
      code: "c-[redacted]",
      type: "t-[redacted]",
      param: "p-[redacted]",
      requestId: "[redacted]",
      serviceMessage: "m [redacted] (request id: [redacted])",
    });
  });
});

describe("parseErrorBody and parseRetryAfter at their edges", () => {
  it("reads an object as it is, and a status only when it is a number", () => {
    expect(parseErrorBody({ error: { code: "c", status: 429 } })).toEqual({
      code: "c",
      message: undefined,
      type: undefined,
      param: undefined,
      status: 429,
    });
    expect(parseErrorBody({ error: { status: "429" } }).status).toBeUndefined();
    expect(parseErrorBody({ code: "bare", status: 500 })).toMatchObject({
      code: "bare",
      status: 500,
    });
    expect(parseErrorBody(42)).toEqual({});
    expect(parseErrorBody("{")).toEqual({});
  });

  it("reads Retry-After as seconds, zero included, or a date, never a negative wait", () => {
    vi.useFakeTimers({ now: Date.parse("2026-01-01T00:00:00Z") });
    try {
      expect(parseRetryAfter(" 3 ")).toBe(3000);
      expect(parseRetryAfter("0")).toBe(0);
      expect(parseRetryAfter("")).toBeUndefined();
      expect(parseRetryAfter("-1")).toBe(0); // not seconds; as a date, long past
      expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:05 GMT")).toBe(5000);
      expect(parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT")).toBe(0);
      expect(parseRetryAfter("Infinity")).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });

  it("takes no request ID from an empty or blank header", () => {
    expect(headerRequestId(new Headers({ "x-gateway-request-id": "  " }))).toBeUndefined();
    expect(headerRequestId(new Headers({ "x-gateway-request-id": " r " }))).toBe("r");
    expect(headerRequestId(undefined)).toBeUndefined();
  });
});

describe("asServiceError: what it types and what it leaves alone", () => {
  const hosted = { surface: "hosted" as const, model: "m" };

  it("passes on an error of ours found up to five causes deep, and not deeper", () => {
    const ours = toServiceError({ kind: "http", status: 401, body: "" }, hosted);
    const wrap = (depth: number): unknown =>
      depth === 0 ? ours : Object.assign(new RangeError(`w${depth}`), { cause: wrap(depth - 1) });
    expect(asServiceError(wrap(4), hosted)).toBe(ours);
    const deep = wrap(5);
    expect(asServiceError(deep, hosted)).toBe(deep);
  });

  it("leaves strings, null and aborts as they are", () => {
    expect(asServiceError("text", hosted)).toBe("text");
    expect(asServiceError(null, hosted)).toBe(null);
    expect(asServiceError(undefined, hosted)).toBe(undefined);
    const abort = new DOMException("stop", "AbortError");
    expect(asServiceError(abort, hosted)).toBe(abort);
  });

  it("types an SDK status error by its status, error body and headers", () => {
    const sdk = Object.assign(new Error("429"), {
      status: 429,
      error: { code: "", message: "slow" },
      headers: new Headers({ "retry-after": "2", "x-gateway-request-id": "r9" }),
    });
    const error = asServiceError(sdk, hosted) as InferenceServiceError;
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 2000, requestId: "r9" });
    expect(error.summary).toBe("The service is rate-limiting requests (HTTP 429): slow.");
    const bare = asServiceError(Object.assign(new Error("500"), { status: 500 }), hosted);
    expect(ServiceUnavailableError.isInstance(bare)).toBe(true);
    const plainHeaders = asServiceError(
      Object.assign(new Error("500"), { status: 500, headers: { "x-gateway-request-id": "r" } }),
      hosted,
    ) as InferenceServiceError;
    expect(plainHeaders.requestId).toBeUndefined();
  });

  it("types an error event the SDK raises without a status as an error mid-stream", () => {
    const event = Object.assign(new Error("boom"), {
      error: { code: "upstream_error", message: "boom" },
    });
    const error = asServiceError(event, hosted) as InferenceServiceError;
    expect(ServiceUnavailableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ midStream: true, code: "upstream_error", status: undefined });
  });

  it("types an SDK error with neither status nor body as an error event of nothing", () => {
    const error = asServiceError(new APIError(undefined, undefined, "x", undefined), hosted);
    expect(ServiceUnavailableError.isInstance(error)).toBe(true);
    expect((error as InferenceServiceError).midStream).toBe(true);
  });

  it("types an SDK connection error by its cause, as a connection failure (it is an APIError without a status too)", () => {
    const cause = Object.assign(new Error("x"), { code: "ENOTFOUND" });
    const error = asServiceError(new APIConnectionError({ cause }), hosted);
    expect(ServiceConnectionError.isInstance(error)).toBe(true);
    expect((error as InferenceServiceError).cause).toBe(cause);
    expect((error as InferenceServiceError).summary).toContain("(ENOTFOUND)");
  });

  it("types a JSON syntax error as a malformed answer", () => {
    const error = asServiceError(new SyntaxError("Unexpected token"), hosted);
    expect(MalformedResponseError.isInstance(error)).toBe(true);
    expect((error as InferenceServiceError).summary).toBe(
      "The service's answer is not usable: the body is not valid JSON.",
    );
  });

  it("types a fetch TypeError about the network, and leaves any other TypeError alone", () => {
    const failed = asServiceError(new TypeError("fetch failed"), hosted) as InferenceServiceError;
    expect(ServiceConnectionError.isInstance(failed)).toBe(true);
    expect(failed.midStream).toBe(false);
    const bug = new TypeError("x is not a function");
    expect(asServiceError(bug, hosted)).toBe(bug);
    const socket = new Error("socket hang up");
    expect(asServiceError(socket, hosted)).toBe(socket);
  });

  it("hands on an error it cannot read, as it is", () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error("no");
        },
      },
    );
    expect(asServiceError(hostile, hosted)).toBe(hostile);
  });

  it("copies an untyped error without the call's secrets, keeping its class", () => {
    const key = "sk-secret-value-123456";
    const refused = new RangeError(`Headers.append: "${key}" is an invalid header value`);
    const copy = asServiceError(refused, { ...hosted, secrets: [key] }) as RangeError;
    expect(copy).toBeInstanceOf(RangeError);
    expect(copy).not.toBe(refused);
    expect(copy.message).toBe('Headers.append: "[redacted]" is an invalid header value');
    expect(copy.stack).not.toContain(key);
    // Nothing to hide, or nothing to hide it from: the same object.
    const plain = new RangeError("plain");
    expect(asServiceError(plain, { ...hosted, secrets: [key] })).toBe(plain);
    expect(asServiceError(refused, hosted)).toBe(refused);
    expect(asServiceError(refused, { ...hosted, secrets: [] })).toBe(refused);
    const thrown = { message: key };
    expect(asServiceError(thrown, { ...hosted, secrets: [key] })).toBe(thrown);
  });

  it("copies an error whose stack alone shows a secret", () => {
    const key = "sk-secret-value-123456";
    const error = new RangeError("plain");
    error.stack = `RangeError: ${key}`;
    const copy = asServiceError(error, { ...hosted, secrets: [key] }) as RangeError;
    expect(copy).not.toBe(error);
    expect(copy.message).toBe("plain");
    expect(copy.stack).toBe("RangeError: [redacted]");
  });

  it("copies an error whose message alone shows a secret", () => {
    const key = "sk-secret-value-123456";
    const error = new RangeError(`bad ${key}`);
    error.stack = "RangeError: (stack elided)";
    const copy = asServiceError(error, { ...hosted, secrets: [key] }) as RangeError;
    expect(copy).not.toBe(error);
    expect(copy.message).toBe("bad [redacted]");
    expect(copy.stack).toBe("RangeError: (stack elided)");
  });

  it("types a failure seen below once, in a stream's context, keeping its output", () => {
    const below = new UntypedFailure({ kind: "timeout", phase: "idle", ms: 5 }, hosted);
    const typed = asServiceError(below, { ...hosted, midStream: true, partialOutput: "Hi" });
    expect(typed).toMatchObject({ midStream: true, partialOutput: "Hi" });
    expect(asServiceError(typed, { ...hosted, midStream: true, partialOutput: "x" })).toBe(typed);
    expect(asServiceError(below, hosted)).toMatchObject({ midStream: false });
  });

  it("types an unknown model's failure seen below with the listed models its caller knows", () => {
    const body = JSON.stringify({ error: { code: "model_not_found", message: "no" } });
    const below = new UntypedFailure(
      { kind: "http", status: 503, body },
      { ...hosted, model: "emulator-caht" },
    );
    const ctx = { ...hosted, model: "emulator-caht", availableModels: ["emulator-chat"] };
    const typed = asServiceError(below, ctx) as InferenceServiceError;
    expect(ModelNotFoundError.isInstance(typed)).toBe(true);
    expect(typed.hint).toContain('Did you mean "emulator-chat"?');
    expect(asServiceError(typed, ctx)).toBe(typed);
    const other = toServiceError({ kind: "http", status: 500, body: "" }, hosted);
    expect(asServiceError(other, ctx)).toBe(other);
  });

  it("leaves an error of ours that the mapper did not build as it is", () => {
    const own = new ServiceUnavailableError({ summary: "s", hint: "h", surface: "hosted" });
    expect(asServiceError(own, { ...hosted, midStream: true })).toBe(own);
  });
});

describe("toServiceError and asServiceError: the cases at the edge of each rule", () => {
  const hosted = { surface: "hosted" as const, model: "m" };
  const http = (status: number, error: unknown) =>
    ({ kind: "http", status, body: JSON.stringify({ error }) }) as const;

  it("reads an error object in a 300 by its status, not as a success's", () => {
    expect(
      MalformedResponseError.isInstance(toServiceError(http(300, { message: "x" }), hosted)),
    ).toBe(true);
    // In a 200, an object naming status 300 is read as that status.
    const named = toServiceError(http(200, { message: "x", status: 300 }), hosted);
    expect(MalformedResponseError.isInstance(named)).toBe(true);
  });

  it("says where a cut connection was going and the code it was cut with", () => {
    const cause = Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" });
    const url = "http://h/inference/v1/chat/completions";
    const cut = toServiceError(
      { kind: "network", cause, afterResponse: true },
      { ...hosted, url, midStream: true, partialOutput: "Hel" },
    );
    expect(cut.summary).toBe(
      `The connection to ${url} was cut before the response was complete (UND_ERR_SOCKET).`,
    );
    const bare = toServiceError(
      { kind: "network", cause: new Error("closed"), afterResponse: true },
      hosted,
    );
    expect(bare.summary).toBe("The connection was cut before the response was complete.");
  });

  it("words an embedding input too long without a message of the service, and one blocked", () => {
    const ctx = {
      ...hosted,
      api: "embeddings",
      inputWording: APIS.embeddings.inputWording,
      inputs: { first: 3, count: 1 },
    } as const;
    expect(toServiceError(http(400, { code: "context_length_exceeded" }), ctx).summary).toBe(
      "The input at position 3 is longer than the embedding model takes.",
    );
    expect(toServiceError(http(500, { code: "sensitive_words_detected" }), ctx).summary).toBe(
      "The service refused the prompt: it contains content the service blocks (the input at position 3).",
    );
  });

  it("keeps the cause of a wait that ended on something not ours, and lists no request ID for it", () => {
    const last = new Error("socket");
    const error = toServiceError(
      { kind: "still-pending", waitedMs: 5, limitMs: 5, last },
      { surface: "dedicated", serviceName: "t.j" },
    );
    expect(error.cause).toBe(last);
    expect(error.requestIds).toEqual([]);
    expect(error.status).toBeUndefined();
  });

  it("leaves the SDK's own abort as it is: a cancellation is never typed", () => {
    const abort = new APIUserAbortError();
    expect(asServiceError(abort, hosted)).toBe(abort);
  });

  it("leaves a thrown object whose status is not a number as it is", () => {
    const odd = { status: "500", error: { message: "x" } };
    expect(asServiceError(odd, hosted)).toBe(odd);
  });

  it("types an error of ours again only for what the new context adds", () => {
    const inputs = { ...hosted, api: "embeddings", inputs: { first: 1, count: 1 } } as const;
    const long = toServiceError(http(400, { code: "context_length_exceeded" }), hosted);
    expect(asServiceError(long, hosted)).toBe(long); // no inputs: nothing to add
    const params = toServiceError(http(400, { code: "", message: "bad" }), hosted);
    expect(asServiceError(params, inputs)).toBe(params); // not about the inputs
    const unknown = toServiceError(http(503, { code: "model_not_found" }), hosted);
    expect(asServiceError(unknown, hosted)).toBe(unknown); // no models listed
    const models = { ...hosted, availableModels: ["m2"] };
    expect(asServiceError(params, models)).toBe(params); // not an unknown model
  });

  it("hands on a copy whose message and stack can still be written, as an error's can", () => {
    const key = "sk-secret-value-123456";
    const copy = asServiceError(new RangeError(`bad ${key}`), {
      ...hosted,
      secrets: [key],
    }) as Error;
    copy.message += " (while sending)";
    copy.stack = "replaced";
    expect(copy.message).toBe("bad [redacted] (while sending)");
    expect(copy.stack).toBe("replaced");
    expect(Object.getOwnPropertyDescriptor(copy, "message")).toMatchObject({
      writable: true,
      configurable: true,
    });
  });

  it("reads a body that is not an object as holding nothing, without a single field", () => {
    expect(parseErrorBody(42)).toStrictEqual({});
    expect(parseErrorBody("7")).toStrictEqual({});
    expect(parseErrorBody("null")).toStrictEqual({});
  });
});
