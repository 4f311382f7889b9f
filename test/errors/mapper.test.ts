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
