import { describe, expect, it } from "vitest";
import { isNotReady, networkCause } from "../../src/errors/network_cause.js";

/** An error with `code`, whose cause is `cause`. */
const failure = (message: string, code?: string, cause?: unknown) =>
  Object.assign(
    new Error(message, cause === undefined ? {} : { cause }),
    code === undefined ? {} : { code },
  );

/** `inner` wrapped in `depth` errors without a code or message of their own. */
const wrapped = (inner: unknown, depth: number): unknown =>
  depth === 0 ? inner : { cause: wrapped(inner, depth - 1) };

describe("networkCause", () => {
  it("finds the code of a failure up to five errors deep, and no deeper", () => {
    const refused = failure("x", "ECONNREFUSED");
    expect(networkCause(wrapped(refused, 4)).code).toBe("ECONNREFUSED");
    expect(networkCause(wrapped(refused, 5)).code).toBeUndefined();
  });

  it("skips an empty code for the one its cause gives", () => {
    const cause = failure("outer", "", failure("inner", "ENOTFOUND"));
    expect(networkCause(cause)).toEqual({
      code: "ENOTFOUND",
      words: "no DNS record has that host name (ENOTFOUND)",
      fix: "Check the host name in `baseURL` for a typo",
    });
  });

  it("says a blocked port is blocked, and what to change", () => {
    expect(networkCause(new TypeError("fetch failed", { cause: new Error("bad port") }))).toEqual({
      code: undefined,
      words: "fetch refuses to connect to that port, one it blocks for safety (such as 9 or 6000)",
      fix: "Use another port in `baseURL`",
    });
  });

  it("quotes the innermost message of an unknown failure, with a code it does not already name", () => {
    const fix =
      "Check the host and port of `baseURL`, that the service is up there, and the network between";
    expect(
      networkCause(failure("fetch failed", undefined, failure(" socket closed. ", "EODD"))),
    ).toEqual({
      code: "EODD",
      words: "socket closed (EODD)",
      fix,
    });
    expect(networkCause(failure("connect EODD 10.0.0.1", "EODD")).words).toBe(
      "connect EODD 10.0.0.1",
    );
    // A blank message deeper down does not hide the one above it.
    expect(networkCause(failure("outer words", undefined, failure("   "))).words).toBe(
      "outer words",
    );
    expect(networkCause(wrapped(failure("deep words"), 4)).words).toBe("deep words");
    expect(networkCause(wrapped(failure("too deep"), 5)).words).toBe("the connection failed");
  });

  it("reads undici's bare `fetch failed` as saying nothing, but not a message that only starts or ends so", () => {
    expect(networkCause(new TypeError("Fetch Failed")).words).toBe("the connection failed");
    expect(networkCause(failure("fetch failed", "EODD")).words).toBe(
      "the connection failed (EODD)",
    );
    expect(networkCause(new TypeError("fetch failed twice")).words).toBe("fetch failed twice");
    expect(networkCause(new TypeError("then fetch failed")).words).toBe("then fetch failed");
  });

  it("says only that the connection failed for a cause that is not an object", () => {
    expect(networkCause("boom")).toEqual({
      code: undefined,
      words: "the connection failed",
      fix: "Check the host and port of `baseURL`, that the service is up there, and the network between",
    });
    expect(networkCause(undefined).words).toBe("the connection failed");
  });
});

describe("networkCause on odd causes", () => {
  it("stops at a cause that is null, and reads a blocked port's message with space around it", () => {
    expect(networkCause(new TypeError("fetch failed", { cause: null })).words).toBe(
      "the connection failed",
    );
    expect(networkCause(new TypeError("fetch failed", { cause: new Error(" bad port ") }))).toEqual(
      {
        code: undefined,
        words:
          "fetch refuses to connect to that port, one it blocks for safety (such as 9 or 6000)",
        fix: "Use another port in `baseURL`",
      },
    );
  });
});

describe("isNotReady", () => {
  it("takes a refused or reset connection, or one without a code, for an endpoint still Pending", () => {
    for (const code of [
      "ECONNREFUSED",
      "ECONNRESET",
      "EPIPE",
      "UND_ERR_SOCKET",
      "UND_ERR_CLOSED",
    ]) {
      expect(isNotReady(networkCause(failure("x", code))), code).toBe(true);
    }
    expect(isNotReady(networkCause(new Error("x")))).toBe(true);
    expect(isNotReady(networkCause(failure("x", "ENOTFOUND")))).toBe(false);
    expect(isNotReady(networkCause(failure("x", "EODD")))).toBe(false);
  });
});
