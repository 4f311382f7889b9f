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

/**
 * The longest delay one timer holds (2^31 − 1 ms, about 24.8 days): a longer one overflows and
 * fires at once, so longer waits are made of several timers.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * Waits `ms`, or rejects with the signal's abort error as soon as it aborts. A wait longer than
 * {@link MAX_TIMER_MS} is waited out in full, never cut to nothing by a timer's overflow.
 *
 * @param aborted Runs when the signal cuts the wait short (or had already aborted), in the abort
 *   event itself, before the rejection: what must happen in the abort's own tick rides on the
 *   wait's one listener, so each waiting call adds one listener to
 *   a signal that many calls may share (Node warns past ten).
 */
export function sleep(ms: number, signal?: AbortSignal, aborted?: () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      aborted?.();
      return reject(abortError(signal));
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      clearTimeout(timer);
      aborted?.();
      reject(signal ? abortError(signal) : undefined);
    };
    const wait = (left: number) => {
      const step = Math.min(left, MAX_TIMER_MS);
      timer = setTimeout(() => {
        if (left > step) return wait(left - step);
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, step);
    };
    // The listener first: should it throw, no timer is left behind to fire later.
    signal?.addEventListener("abort", onAbort, { once: true });
    wait(ms);
  });
}
