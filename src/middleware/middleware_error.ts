/**
 * @module What a model call really failed with, seen from a middleware: LangChain wraps whatever a
 * `wrapModelCall` hook throws in a `MiddlewareError` (the error as its `cause`), so a middleware
 * outside another one sees the typed error one or more layers down.
 */
import { MiddlewareError } from "langchain";

/**
 * Whether `error` is LangChain's wrapper. `instanceof` too: in some `langchain` releases
 * `MiddlewareError.isInstance` misses the errors of its own copy.
 */
function isMiddlewareError(error: unknown): error is MiddlewareError {
  return error instanceof MiddlewareError || MiddlewareError.isInstance(error);
}

/** `error` without the `MiddlewareError` layers LangChain wrapped it in on its way out. */
export function typedCause(error: unknown): unknown {
  let cause = error;
  while (isMiddlewareError(cause) && cause.cause !== undefined) cause = cause.cause;
  return cause;
}
