/**
 * @module The one test of a cancelled call and of a timed-out attempt, which are told apart on
 * purpose: a cancellation is the caller's decision and passes through every layer untouched; a
 * timeout is a failure of the attempt, typed by the error mapper (a retryable
 * `ServiceConnectionError`).
 */
import { APIConnectionTimeoutError, APIUserAbortError } from "openai";

const ABORTS: readonly unknown[] = ["AbortError", "APIUserAbortError", "ModelAbortError"];
const TIMEOUTS: readonly unknown[] = ["TimeoutError", "APIConnectionTimeoutError"];

/**
 * Whether `error` is named one of `names`, by its `name` or, for the openai SDK's errors (whose
 * `name` stays "Error") from another copy of the SDK, by its class name.
 */
function named(error: unknown, names: readonly unknown[]): boolean {
  if (typeof error !== "object" || error === null) return false;
  const e = error as { name?: unknown; constructor?: { name?: unknown } };
  return names.includes(e.name) || names.includes(e.constructor?.name);
}

/**
 * The caller cancelled the call: a fetch `AbortError`, the openai SDK's `APIUserAbortError`,
 * LangChain's `ModelAbortError`. Never typed, never retried. A `TimeoutError` is not one.
 */
export function isAbortError(error: unknown): boolean {
  return error instanceof APIUserAbortError || named(error, ABORTS);
}

/**
 * An attempt ran out of time: the openai SDK's `APIConnectionTimeoutError` (the models'
 * `timeout`), or the `TimeoutError` of an `AbortSignal.timeout()` (diagnose's requests, a fetch
 * with its own deadline).
 */
export function isTimeoutError(error: unknown): boolean {
  return error instanceof APIConnectionTimeoutError || named(error, TIMEOUTS);
}
