import { describe, expect, it } from "vitest";
import {
  AuthenticationError,
  BadRequestError,
  type InferenceServiceError,
  InsufficientCreditError,
  InvalidURLError,
  MalformedResponseError,
  PermissionDeniedError,
  RateLimitError,
  ServiceNameError,
  ServiceUnavailableError,
} from "../../src/errors/errors.js";
import { toServiceError } from "../../src/errors/mapper.js";
import {
  fillParts,
  matchesStatus,
  type STATUS_ROWS,
  statusRow,
} from "../../src/errors/status_rows.js";

const hosted = { surface: "hosted", model: "m" } as const;
const dedicated = { surface: "dedicated", serviceName: "t.j" } as const;
const http = (status: number, code?: string) =>
  ({
    kind: "http",
    status,
    body: code === undefined ? "" : JSON.stringify({ error: { code, message: "m" } }),
  }) as const;
const classOf = (error: InferenceServiceError) => error.name;

describe("the status rows", () => {
  it.each([
    [100, "MalformedResponseError"],
    [302, "MalformedResponseError"],
    [399, "MalformedResponseError"],
    [400, "BadRequestError"],
    [408, "ServiceUnavailableError"],
    [409, "ServiceUnavailableError"],
    [413, "BadRequestError"],
    [418, "BadRequestError"],
    [422, "BadRequestError"],
    [429, "RateLimitError"],
    [499, "BadRequestError"],
    [500, "ServiceUnavailableError"],
    [599, "ServiceUnavailableError"],
    [600, "ServiceUnavailableError"],
  ])("types a hosted %i without a code as %s", (status, name) => {
    expect(classOf(toServiceError(http(status), hosted))).toBe(name);
  });

  it("keeps a row for its surface and its API: a 404 is a URL on the hosted surface, a Service-Name on the dedicated one", () => {
    expect(InvalidURLError.isInstance(toServiceError(http(404), hosted))).toBe(true);
    expect(ServiceNameError.isInstance(toServiceError(http(404), dedicated))).toBe(true);
    const embeddings = { ...hosted, api: "embeddings" } as const;
    expect(toServiceError(http(404), embeddings).summary).toMatch(/offers no embeddings/);
    expect(toServiceError(http(404), hosted).summary).not.toMatch(/embeddings/);
    // Rows that name no API are every API's.
    expect(ServiceUnavailableError.isInstance(toServiceError(http(503), embeddings))).toBe(true);
    expect(BadRequestError.isInstance(toServiceError(http(400), embeddings))).toBe(true);
  });

  it("gives each surface its own 401 hint", () => {
    expect(toServiceError(http(401), hosted).hint).toBe(
      "Set a valid, unexpired key with `apiKey` or INFERENCE_SERVICE_API_KEY.",
    );
    expect(toServiceError(http(401), dedicated).hint).toMatch(/Inference Service permission/);
  });

  it("reads a 401 as the key before any code, and a 403 by its code first", () => {
    const keyFirst = toServiceError(http(401, "insufficient_user_quota"), hosted);
    expect(AuthenticationError.isInstance(keyFirst)).toBe(true);
    const byCode = toServiceError(http(403, "insufficient_user_quota"), hosted);
    expect(InsufficientCreditError.isInstance(byCode)).toBe(true);
  });

  it("tells a 403 with an unknown code from one with none", () => {
    const named = toServiceError(http(403, "weird"), hosted);
    const empty = toServiceError(http(403, ""), hosted);
    expect(PermissionDeniedError.isInstance(named) && PermissionDeniedError.isInstance(empty)).toBe(
      true,
    );
    expect(named.summary).toMatch(/with code "weird", which it does not document/);
    expect(empty.summary).toBe("The service refused the call for this key (HTTP 403): m.");
  });

  it("matches a range at both of its ends, and a list by its members", () => {
    const range = {
      match: { status: { from: 400, to: 499 } },
    } as unknown as (typeof STATUS_ROWS)[number];
    const facts = (status: number) => ({ status, surface: "hosted", hasCode: false }) as const;
    expect([399, 400, 499, 500].map((s) => matchesStatus(range, facts(s)))).toEqual([
      false,
      true,
      true,
      false,
    ]);
    const list = { match: { status: [408, 409] } } as unknown as (typeof STATUS_ROWS)[number];
    expect([407, 408, 409, 410].map((s) => matchesStatus(list, facts(s)))).toEqual([
      false,
      true,
      true,
      false,
    ]);
  });

  it("finds before the codes only the rows marked so, and after them only the others", () => {
    const facts = { status: 401, surface: "hosted", hasCode: false } as const;
    expect(statusRow(facts, true)?.cls).toBe(AuthenticationError);
    expect(statusRow({ ...facts, status: 429 }, true)).toBeUndefined();
    expect(statusRow({ ...facts, status: 429 }, false)?.cls).toBe(RateLimitError);
    // No row after the codes is a 401's: the catch-all is a 4xx.
    expect(statusRow(facts, false)?.cls).toBe(BadRequestError);
    expect(statusRow({ ...facts, status: 301 }, false)?.cls).toBe(MalformedResponseError);
  });

  it("fills a template's parts, and reads a part without a value as nothing", () => {
    expect(fillParts("HTTP {status}{message}.", { status: "503", message: undefined })).toBe(
      "HTTP 503.",
    );
    expect(fillParts("{a}-{b}-{a}", { a: "x", b: "y" })).toBe("x-y-x");
  });
});
