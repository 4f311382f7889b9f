import { describe, expect, it } from "vitest";
import {
  AuthenticationError,
  BadRequestError,
  ContentFilterError,
  ContextLengthExceededError,
  EndpointNotReadyError,
  InferenceServiceError,
  InvalidURLError,
  ModelNotFoundError,
  ServiceConnectionError,
  ServiceNameError,
  ServiceUnavailableError,
} from "../../src/errors/errors.js";
import {
  asServiceError,
  findRequestIds,
  parseErrorBody,
  parseRetryAfter,
  toServiceError,
} from "../../src/errors/mapper.js";

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

describe("embeddings in the one mapper", () => {
  const ctx = { surface: "hosted", model: "e", api: "embeddings" } as const;
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

  it("types an error again when it reaches the request's inputs, once", () => {
    const first = toServiceError(http(400, { code: "context_length_exceeded" }), ctx);
    expect(first.inputIndex).toBeUndefined();
    const again = asServiceError(first, { ...ctx, inputs: { first: 2, count: 1 } });
    expect(again).toMatchObject({ inputIndex: 2 });
    expect(asServiceError(again, { ...ctx, inputs: { first: 9, count: 1 } })).toBe(again);
  });
});
