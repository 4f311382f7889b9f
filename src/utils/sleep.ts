/** @module Waiting that a cancellation cuts short: `sleep`, and the error a cancelled call ends with. */

/**
 * The error a cancelled call ends with: the signal's reason when it is an Error (by default a
 * DOMException "AbortError"), as LangChain's own callers reject with it.
 */
export function abortError(signal: AbortSignal): unknown {
  const { reason } = signal;
  if (reason instanceof Error) return reason;
  return new Error(typeof reason === "string" ? reason : "Aborted");
}

/** Waits `ms`, or rejects with the signal's abort error as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal ? abortError(signal) : undefined);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
