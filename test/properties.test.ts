/**
 * Property-based tests (issue 8) of the three places where outside input enters: base-URL
 * normalisation, Service-Name validation and the error mapper. Every input gives a valid result
 * or the package's typed error, never another exception.
 */
import { getRetryable } from "@langchain/core/errors";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizeBaseURL } from "../src/config/base_url.js";
import { buildServiceName, validateServiceName } from "../src/config/service_name.js";
import * as errorClasses from "../src/errors/errors.js";
import { ConfigurationError, InferenceServiceError } from "../src/errors/errors.js";
import { GATEWAY_CODES } from "../src/errors/gateway_codes.js";
import {
  asServiceError,
  type Failure,
  type FailureContext,
  parseErrorBody,
  toServiceError,
} from "../src/errors/mapper.js";
import { MIN_SECRET_LENGTH, REDACTED } from "../src/utils/secrets.js";

const RUNS = 1000;

/**
 * What `fn` returns, or undefined once it has thrown a ConfigurationError naming one of `options`;
 * any other exception fails the property.
 */
function accepted<T>(fn: () => T, ...options: string[]): T | undefined {
  try {
    return fn();
  } catch (thrown) {
    expect(ConfigurationError.isInstance(thrown), String(thrown)).toBe(true);
    expect(options).toContain((thrown as ConfigurationError).option);
    return undefined;
  }
}

const anyString = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.string({ unit: "binary", maxLength: 60 }),
  fc.string({ unit: "grapheme", maxLength: 30 }),
);

describe("normalizeBaseURL", () => {
  /** Path segments users paste, and some that only look like them. */
  const segment = fc.oneof(
    fc.constantFrom(
      "inference",
      "v1",
      "chat",
      "completions",
      "completion",
      "",
      ".",
      "..",
      "%2F",
      "v1x",
      "INFERENCE",
      "api",
      "%",
      "a b",
      "é",
    ),
    fc.webSegment(),
    anyString,
  );
  const urlish = fc
    .tuple(
      fc.constantFrom("", " ", "\t", "\n"),
      fc.constantFrom("http://", "https://", "HTTPS://", "ftp://", "file://", "", "http:", "//"),
      fc.constantFrom("", "", "", "user@", "user:pass@", ":@", "@", "sk-key@"),
      fc.oneof(
        fc.domain(),
        fc.constantFrom(
          "127.0.0.1",
          "[::1]",
          "localhost",
          "bücher.example",
          "",
          "h:8080",
          "h:99999",
        ),
      ),
      fc.array(segment, { maxLength: 6 }).map((s) => (s.length > 0 ? `/${s.join("/")}` : "")),
      fc.constantFrom("", "/", "//", "\\"),
      fc.constantFrom("", "", "?", "?a=1", "#", "#frag", "?#"),
      fc.constantFrom("", " ", "\n"),
    )
    .map((parts) => parts.join(""));
  const webUrl = fc.webUrl({
    withQueryParameters: true,
    withFragments: true,
    authoritySettings: { withIPv4: true, withIPv6: true, withPort: true, withUserInfo: true },
  });

  /** Valid: ends in /inference/v1, parses, is canonical, keeps the origin, carries nothing else, is a fixed point. */
  function check(input: string): void {
    const out = accepted(() => normalizeBaseURL(input), "baseURL");
    if (out === undefined) return;
    const url = new URL(out);
    expect(out.endsWith("/inference/v1")).toBe(true);
    expect(url.href).toBe(out);
    expect(["http:", "https:"]).toContain(url.protocol);
    expect({ search: url.search, hash: url.hash, user: url.username, pass: url.password }).toEqual({
      search: "",
      hash: "",
      user: "",
      pass: "",
    });
    expect(url.origin).toBe(new URL(input.trim()).origin);
    expect(normalizeBaseURL(out)).toBe(out);
  }

  it("returns a clean, idempotent …/inference/v1 URL or throws ConfigurationError for any string", () => {
    fc.assert(fc.property(anyString, check), { numRuns: RUNS });
  });

  it("does so for generated URL-ish strings (schemes, credentials, hosts, API paths, queries, whitespace)", () => {
    fc.assert(fc.property(fc.oneof(urlish, webUrl), check), { numRuns: 2 * RUNS });
  });

  it("accepts every http(s) URL without credentials, query, fragment, empty segment or other API version", () => {
    const clean = fc
      .webUrl({ authoritySettings: { withIPv4: true, withPort: true } })
      .filter((url) => {
        const path = new URL(url).pathname.replace(/\/+$/, "");
        return !path.includes("//") && !/\/(inference|v\d+)(\/|$)/i.test(path);
      });
    fc.assert(
      fc.property(clean, (input) => {
        expect(normalizeBaseURL(input).endsWith("/inference/v1")).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});

describe("validateServiceName", () => {
  const printable = fc.string({
    unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
    minLength: 1,
    maxLength: 20,
  });
  const part = fc.oneof(
    printable,
    anyString,
    fc.constantFrom("tenant-demo", "a b", "a\r\nX-Evil: 1", "\t", "é", "\u00a0", "\u0000", ""),
  );
  const nameish = fc.oneof(
    fc.tuple(part, part).map(([a, b]) => `${a}.${b}`),
    fc.tuple(part, part, part).map((parts) => parts.join(".")),
    part,
  );
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  const anyValue = fc.oneof(
    nameish,
    fc.anything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
    }),
    fc.constantFrom(circular, Symbol("s"), () => "a.b", 10n),
  );

  /** Valid: unchanged, one dot, two non-empty printable-ASCII parts, and safe as a header value. */
  function check(value: unknown): void {
    const name = accepted(() => validateServiceName(value), "serviceName");
    if (name === undefined) return;
    expect(name).toBe(value);
    const parts = name.split(".");
    expect(parts).toHaveLength(2);
    for (const p of parts) expect(p).toMatch(/^[\x21-\x7e]+$/);
    expect(new Headers({ "Service-Name": name }).get("service-name")).toBe(name);
  }

  it("returns a header-safe <tenant>.<alias> or throws ConfigurationError, for any value", () => {
    fc.assert(fc.property(anyValue, check), { numRuns: 2 * RUNS });
  });

  it("accepts every name made of two printable-ASCII parts without dots", () => {
    const noDot = printable.filter((p) => !p.includes("."));
    fc.assert(
      fc.property(noDot, noDot, (tenant, alias) => {
        expect(validateServiceName(`${tenant}.${alias}`)).toBe(`${tenant}.${alias}`);
        expect(buildServiceName(tenant, alias)).toBe(`${tenant}.${alias}`);
      }),
      { numRuns: RUNS },
    );
  });

  it("builds a valid name from any two parts or throws ConfigurationError naming the part", () => {
    fc.assert(
      fc.property(part, part, (tenant, alias) => {
        const options = ["tenantId", "jobAlias", "tenantId/jobAlias"];
        const name = accepted(() => buildServiceName(tenant, alias), ...options);
        if (name === undefined) return;
        expect(name).toBe(`${tenant}.${alias}`);
        check(name);
      }),
      { numRuns: RUNS },
    );
  });
});

describe("the error mapper", () => {
  /**
   * Whether each class is retried, as the classes declare it (docs/service-contract.md#limits-and-retries:
   * connection errors, 408, 409, 429 and 5xx; never model_not_found): every class the mapper can
   * build, read from errors.ts, so a new class is covered as soon as it exists.
   */
  const RETRYABLE: Record<string, boolean> = Object.fromEntries(
    Object.values(errorClasses)
      .filter(
        (value): value is typeof InferenceServiceError =>
          typeof value === "function" &&
          Object.prototype.isPrototypeOf.call(InferenceServiceError.prototype, value.prototype),
      )
      .map((cls) => [cls.name, cls.retryable]),
  );

  /**
   * The class a gateway code (new-api) means whatever the status, read with its message where a
   * row asks for one: the table the mapper reads.
   */
  function classOfCode(code: string, message: string | undefined): string | undefined {
    const row = GATEWAY_CODES.find(
      (r) => r.code === code && (r.message === undefined || r.message.pattern.test(message ?? "")),
    );
    return row?.cls.name;
  }

  /**
   * The docs/service-contract.md#errors table and docs/service-contract.md#limits-and-retries
   * rules, written out independently of the mapper (the codes' classes are those of the table it
   * reads too): a 401 is the key; a known code decides; a 2xx with an error object is judged as
   * the status it implies (its own `status` from 300 up, 429 for a rate limit, 400 for an invalid
   * request, else 500); then the status.
   */
  function classForStatus(
    status: number,
    body: { code?: string; message?: string; type?: string; status?: number },
    surface: string,
  ): string {
    const { code } = body;
    if (status === 401) return "AuthenticationError";
    const byCode = code === undefined ? undefined : classOfCode(code, body.message);
    if (byCode !== undefined) return byCode;
    if (status >= 200 && status < 300) {
      const implied =
        body.status !== undefined && body.status >= 300
          ? body.status
          : code === "rate_limit_exceeded"
            ? 429
            : body.type === "invalid_request_error"
              ? 400
              : 500;
      return classForStatus(implied, body, surface);
    }
    if (status === 403) return "PermissionDeniedError";
    if (status === 404) return surface === "dedicated" ? "ServiceNameError" : "InvalidURLError";
    if (status === 429) return "RateLimitError";
    if (status === 408 || status === 409 || status >= 500) return "ServiceUnavailableError";
    if (status >= 400) return "BadRequestError";
    return "MalformedResponseError";
  }

  const status = fc.oneof(
    fc.integer({ min: 0, max: 999 }),
    fc.constantFrom(401, 403, 404, 408, 409, 429, 500, 502, 503),
  );
  const code = fc.oneof(
    fc.constantFrom("", "rate_limit_exceeded", ...GATEWAY_CODES.map((row) => row.code)),
    anyString,
  );
  const message = fc.oneof(
    anyString,
    anyString.map((s) => `${s} (request id: 2026112208000012345678)`),
    fc.constantFrom(
      "Invalid token (request id: a) (request id: b)",
      "用户额度不足, 剩余额度: ¥0.000000",
      "This response_format type is unavailable now (request id: a)",
    ),
  );
  const errorObject = fc.record(
    {
      code: fc.oneof(code, fc.jsonValue()),
      message: fc.oneof(message, fc.jsonValue()),
      type: fc.oneof(anyString, fc.jsonValue()),
      param: anyString,
      status: fc.oneof(status, fc.jsonValue()),
    },
    { requiredKeys: [] },
  );
  const body = fc.oneof(
    anyString,
    fc.jsonValue().map((v) => JSON.stringify(v)),
    errorObject.map((error) => JSON.stringify({ error })),
    errorObject.map((error) => JSON.stringify(error)),
    anyString.map((error) => JSON.stringify({ error })),
    fc.constantFrom("<!doctype html><html></html>", '{"error":{"code":"model_not', ""),
  );
  const headerValue = fc.oneof(
    fc.string({ unit: "grapheme-ascii", maxLength: 40 }),
    fc.constantFrom("0", "1", "-5", "0.002", "1e400", "NaN", "Wed, 21 Oct 2015 07:28:00 GMT"),
  );
  const headers = fc.option(
    fc
      .dictionary(
        fc.oneof(
          fc.constantFrom("x-gateway-request-id", "retry-after", "content-type", "x-request-id"),
          fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/),
        ),
        headerValue,
        { maxKeys: 4 },
      )
      .map((entries) => new Headers(entries)),
    { nil: undefined },
  );
  const cause = fc.oneof(
    fc.anything(),
    fc.record({
      code: fc.oneof(
        fc.constantFrom("ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "UND_ERR_SOCKET", "EPIPE", ""),
        fc.anything(),
      ),
    }),
    anyString.map((m) => new TypeError("fetch failed", { cause: new Error(m) })),
  );
  const failure: fc.Arbitrary<Failure> = fc.oneof(
    fc.record({ kind: fc.constant("http" as const), status, body, headers }),
    fc.record({ kind: fc.constant("network" as const), cause }),
    fc.record({
      kind: fc.constant("timeout" as const),
      cause: fc.option(cause, { nil: undefined }),
    }),
    fc.record({ kind: fc.constant("empty" as const), status, headers }),
    fc.record({
      kind: fc.constant("non-json" as const),
      status,
      body: anyString,
      contentType: anyString,
      headers,
    }),
    fc.record({ kind: fc.constant("malformed" as const), detail: anyString, headers }),
    fc.record({
      kind: fc.constant("stream-error" as const),
      payload: fc.oneof(
        fc.jsonValue(),
        errorObject.map((error) => ({ error })),
      ),
      headers,
      partialOutput: fc.option(anyString, { nil: undefined }),
    }),
  );
  const ctx: fc.Arbitrary<FailureContext> = fc.record(
    {
      surface: fc.constantFrom("hosted" as const, "dedicated" as const),
      model: anyString,
      serviceName: anyString,
      secrets: fc.array(anyString, { maxLength: 3 }),
      midStream: fc.boolean(),
      partialOutput: anyString,
    },
    { requiredKeys: ["surface"] },
  );

  /** A typed error whose `retryable` is its class's row, whose message carries its hint. */
  function checkTyped(error: InferenceServiceError, surface: string): void {
    expect(InferenceServiceError.isInstance(error)).toBe(true);
    expect(Object.keys(RETRYABLE)).toContain(error.name);
    expect(error.retryable).toBe(RETRYABLE[error.name]);
    expect(getRetryable(error)).toBe(error.retryable);
    expect(error.hint).not.toBe("");
    expect(error.message).toContain(error.hint);
    expect(error.surface).toBe(surface);
    expect(typeof JSON.stringify(error)).toBe("string");
  }

  it("maps any failure on either surface to one typed error, and never throws", () => {
    fc.assert(
      fc.property(failure, ctx, (f, c) => {
        const error = toServiceError(f, c);
        checkTyped(error, c.surface);
        if (f.kind === "http") {
          expect(error.status).toBe(f.status);
          expect(error.name).toBe(classForStatus(f.status, parseErrorBody(f.body), c.surface));
        }
      }),
      { numRuns: 2 * RUNS },
    );
  });

  it("keeps every secret of four or more characters out of the error, wherever the body echoes it", () => {
    const secret = fc.stringMatching(/^sk-[A-Za-z0-9]{8,32}$/);
    fc.assert(
      fc.property(status, secret, anyString, anyString, (s, key, before, after) => {
        const echoed = `${before}Bearer ${key}${after}`;
        const f: Failure = {
          kind: "http",
          status: s,
          body: JSON.stringify({ error: { code: "", message: echoed } }),
        };
        const error = toServiceError(f, { surface: "hosted", secrets: [key] });
        for (const text of [error.message, error.serviceMessage, JSON.stringify(error)]) {
          expect(text).not.toContain(key);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("reads any body leniently: parseErrorBody never throws and returns only strings and a number", () => {
    fc.assert(
      fc.property(fc.oneof(body, fc.anything(), errorObject), (value) => {
        const parsed = parseErrorBody(value);
        for (const key of ["code", "message", "type", "param"] as const) {
          expect(["string", "undefined"]).toContain(typeof parsed[key]);
        }
        expect(["number", "undefined"]).toContain(typeof parsed.status);
      }),
      { numRuns: RUNS },
    );
  });

  /** Values a call may throw: primitives, errors, and objects shaped like the openai SDK's. */
  const sdkShaped = fc.record(
    {
      name: fc.oneof(
        fc.constantFrom(
          "APIError",
          "APIConnectionError",
          "APIConnectionTimeoutError",
          "TimeoutError",
          "AbortError",
          "APIUserAbortError",
          "TypeError",
        ),
        fc.anything(),
      ),
      status: fc.oneof(status, fc.anything()),
      error: fc.jsonValue(),
      headers: fc.oneof(headers, fc.anything()),
      message: fc.oneof(
        fc.constantFrom("fetch failed", "terminated", "socket hang up"),
        fc.anything(),
      ),
      cause: fc.oneof(cause, fc.anything()),
    },
    { requiredKeys: [] },
  );
  const errorInstance = fc
    .tuple(
      fc.constantFrom(TypeError, SyntaxError, Error, RangeError),
      fc.oneof(fc.constantFrom("fetch failed", "terminated", "network error"), anyString),
      fc.anything(),
    )
    .map(([Ctor, msg, c]) => new Ctor(msg, { cause: c }));
  /** Getters that answer differently on each read, from a generated list of values. */
  const fickle = fc
    .array(fc.oneof(status, fc.anything(), fc.constantFrom("APIError", "TimeoutError")), {
      minLength: 1,
      maxLength: 5,
    })
    .map((values) => {
      let read = 0;
      const next = () => values[read++ % values.length];
      return Object.defineProperties(
        {},
        Object.fromEntries(
          ["name", "status", "headers", "message", "cause", "code"].map((key) => [
            key,
            { get: next, enumerable: true },
          ]),
        ),
      );
    });
  const selfCaused = anyString.map((m) => {
    const error = new Error(m) as Error & { cause?: unknown };
    error.cause = error;
    return error;
  });
  const thrownValue = fc.oneof(
    fc.anything({ withBigInt: true, withBoxedValues: true, withNullPrototype: true }),
    fc.constantFrom(null, undefined, "", "boom", 0, Number.NaN),
    sdkShaped,
    errorInstance,
    fickle,
    selfCaused,
  );

  it("passes any thrown value through, redacted of the secrets it quotes, or maps it to a typed error, and never throws", () => {
    fc.assert(
      fc.property(thrownValue, ctx, (thrown, c) => {
        const result = asServiceError(thrown, c);
        if (Object.is(result, thrown)) return;
        if (InferenceServiceError.isInstance(result)) return checkTyped(result, c.surface);
        // Otherwise an untyped error that quoted a secret (a short generated one may occur in
        // any stack: "rope" in "Property"): a copy of its class without it.
        expect(Object.getPrototypeOf(result)).toBe(Object.getPrototypeOf(thrown));
        const { message, stack } = result as Error;
        // The ones redaction promises: long enough, and not what "[redacted]" itself may spell.
        const promised = (c.secrets ?? []).filter(
          (x) => x.length >= MIN_SECRET_LENGTH && !/[[\]]/.test(x) && !REDACTED.includes(x),
        );
        for (const secret of promised) {
          expect(message).not.toContain(secret);
          expect(stack ?? "").not.toContain(secret);
        }
      }),
      {
        numRuns: 2 * RUNS,
        // Found by a run: a short secret that the stack spells ("Property" holds "rope").
        examples: [[new Error(""), { surface: "hosted", secrets: ["rope"] }]],
      },
    );
  });

  // A thrown value that cannot be inspected is handed on unchanged, never replaced by the getter's
  // own error. (A plain table: fast-check itself cannot carry a revoked proxy as a value.)
  it("never throws for thrown objects whose getters throw, or revoked proxies", () => {
    const hostile = ["name", "status", "headers", "message", "cause", "error"].map((key) =>
      Object.defineProperty(new Error("x"), key, {
        get() {
          throw new Error(`getter ${key}`);
        },
      }),
    );
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    for (const thrown of [...hostile, proxy]) {
      for (const surface of ["hosted", "dedicated"] as const) {
        expect(() => asServiceError(thrown, { surface })).not.toThrow();
      }
    }
  });

  // An SDK-shaped error (numeric `status`) whose `error` field JSON cannot encode — a BigInt or a
  // cycle — still maps to a typed error.
  it("never throws for an error with a status whose `error` field is not JSON", () => {
    const unencodable = fc.oneof(
      fc.bigInt().map((n) => ({ n })),
      fc.constant(null).map(() => {
        const cycle: Record<string, unknown> = {};
        cycle.self = cycle;
        return cycle;
      }),
    );
    fc.assert(
      fc.property(status, unencodable, ctx, (s, error, c) => {
        expect(() => asServiceError({ status: s, error }, c)).not.toThrow();
      }),
      { numRuns: 100 },
    );
  });
});
