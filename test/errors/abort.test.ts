import { ModelAbortError } from "@langchain/core/errors";
import { APIConnectionTimeoutError, APIUserAbortError } from "openai";
import { describe, expect, it } from "vitest";
import { isAbortError, isTimeoutError } from "../../src/errors/abort.js";

const timeoutSignalError = new DOMException("The operation timed out.", "TimeoutError");
const fetchAbort = new DOMException("This operation was aborted", "AbortError");

describe("isAbortError", () => {
  it("knows a cancellation by the caller from fetch, the openai SDK and LangChain", () => {
    expect(isAbortError(fetchAbort)).toBe(true);
    expect(isAbortError(new APIUserAbortError())).toBe(true);
    expect(isAbortError(new ModelAbortError("stopped", undefined))).toBe(true);
  });

  it("does not count a timeout, another error or a non-object as a cancellation", () => {
    expect(isAbortError(timeoutSignalError)).toBe(false);
    expect(isAbortError(new APIConnectionTimeoutError())).toBe(false);
    expect(isAbortError(new TypeError("fetch failed"))).toBe(false);
    expect(isAbortError("AbortError")).toBe(false);
    expect(isAbortError(null)).toBe(false);
  });
});

describe("isTimeoutError", () => {
  it("knows AbortSignal.timeout()'s TimeoutError and the SDK's connection timeout", () => {
    expect(isTimeoutError(timeoutSignalError)).toBe(true);
    expect(isTimeoutError(new APIConnectionTimeoutError())).toBe(true);
  });

  it('knows the SDK\'s errors by class, since their `name` is "Error" in openai 7.x', () => {
    expect(new APIConnectionTimeoutError().name).toBe("Error");
    expect(new APIUserAbortError().name).toBe("Error");
    expect(isTimeoutError(new APIConnectionTimeoutError())).toBe(true);
    expect(isAbortError(new APIUserAbortError())).toBe(true);
  });

  it("judges no error by a class name it merely shares with the SDK's", () => {
    class APIConnectionTimeoutError extends Error {}
    class APIUserAbortError extends Error {}
    expect(isTimeoutError(new APIConnectionTimeoutError())).toBe(false);
    expect(isAbortError(new APIUserAbortError())).toBe(false);
    expect(isAbortError(Object.assign(new Error("x"), { name: "APIUserAbortError" }))).toBe(false);
  });

  it("does not count a cancellation as a timeout", () => {
    expect(isTimeoutError(fetchAbort)).toBe(false);
    expect(isTimeoutError(new APIUserAbortError())).toBe(false);
    expect(isTimeoutError(undefined)).toBe(false);
  });
});
