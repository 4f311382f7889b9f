/**
 * @module How a failure and an ending read on a span: the error's type and code, the status
 * message (the package's hint, the whole message only with content capture), and a span ended
 * whatever the app's SDK throws.
 */
import { BudgetExceededError, InferenceServiceError } from "../errors/errors.js";
import { telemetryFailed } from "./failures.js";
import { bounded } from "./limits.js";
import { ATTR } from "./names.js";
import { type Attributes, type Span, type SpanStatus, SpanStatusCode } from "./otel.js";

/**
 * A string property of what a call failed with, bounded; undefined when it has none. Whatever a
 * callback threw can end a call, so reading it may throw too.
 */
function errorString(error: unknown, key: "name" | "code"): string | undefined {
  try {
    const value = (error as Record<string, unknown> | null | undefined)?.[key];
    return typeof value === "string" && value !== "" ? bounded(value) : undefined;
  } catch {
    return undefined;
  }
}

/** The class name of what a call failed with, as `error.type` records it. */
export function errorType(error: unknown): string {
  return errorString(error, "name") ?? "_OTHER";
}

/** A failure's `code`, when it is a string (the gateway's, or the package's). */
function errorCode(error: unknown): string | undefined {
  return errorString(error, "code");
}

/**
 * A failure's span status message: the package's own hint (what to change, written by this
 * package); the whole message, which may quote the service's answer, only with content capture.
 */
export function statusMessage(error: unknown, captureContent: boolean): string | undefined {
  try {
    if (!InferenceServiceError.isInstance(error) && !BudgetExceededError.isInstance(error)) {
      return undefined;
    }
    const message = captureContent ? error.message : error.hint;
    return typeof message === "string" ? bounded(message) : undefined;
  } catch {
    // Whatever a callback threw can end a call, and reading it may throw too.
    return undefined;
  }
}

/** The span status of a call or attempt that failed with `error`. */
export function errorStatus(error: unknown, captureContent: boolean): SpanStatus {
  const message = statusMessage(error, captureContent);
  return { code: SpanStatusCode.ERROR, ...(message !== undefined ? { message } : {}) };
}

/** Adds the attributes of `error` (its type, and its code when it has one). */
export function addError(into: Attributes, error: unknown): string {
  const type = errorType(error);
  into[ATTR.errorType] = type;
  const code = errorCode(error);
  if (code !== undefined) into[ATTR.errorCode] = code;
  return type;
}

export const statusOf = (error: unknown): number | undefined =>
  InferenceServiceError.isInstance(error) ? error.status : undefined;

/** Ends a span; a span that will not end is the telemetry's failure, not the call's. */
export function endSpan(span: Span): void {
  try {
    span.end();
  } catch (error) {
    telemetryFailed("end a span", error);
  }
}
