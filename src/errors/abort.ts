/**
 * @module The one test of a cancelled call and of a timed-out attempt, which are told apart on
 * purpose: a cancellation is the caller's decision and passes through every layer untouched; a
 * timeout is a failure of the attempt, typed by the error mapper (a retryable
 * `ServiceTimeoutError`).
 *
 * The openai SDK's errors are known by class only: in openai 7.x their `name` is "Error", so a
 * name says nothing. A DOMException is known by its `name`, which is its type.
 */
import { ModelAbortError } from "@langchain/core/errors";
import { APIConnectionTimeoutError, APIUserAbortError } from "openai";

function domName(error: unknown): unknown {
  return typeof error === "object" && error !== null
    ? (error as { name?: unknown }).name
    : undefined;
}

/**
 * The caller cancelled the call: a fetch `AbortError` (a DOMException, or an Error so named by a
 * runtime), the openai SDK's `APIUserAbortError`, LangChain's `ModelAbortError`. Never typed, never
 * retried. A `TimeoutError` is not one.
 */
export function isAbortError(error: unknown): boolean {
  return (
    error instanceof APIUserAbortError ||
    ModelAbortError.isInstance(error) ||
    domName(error) === "AbortError"
  );
}

/**
 * An attempt ran out of time: the openai SDK's `APIConnectionTimeoutError` (the models'
 * `timeout`), or the `TimeoutError` DOMException of an `AbortSignal.timeout()` (diagnose's
 * requests, a fetch with its own deadline).
 */
export function isTimeoutError(error: unknown): boolean {
  return error instanceof APIConnectionTimeoutError || domName(error) === "TimeoutError";
}
