/** @module The one retry layer: the models' caller retries exactly what an error marks `retryable`. */
import { getRetryable } from "@langchain/core/errors";
import {
  AsyncCaller,
  type AsyncCallerCallOptions,
  type AsyncCallerParams,
} from "@langchain/core/utils/async_caller";
import type { z } from "zod";
import { delayMs, optionsSchema } from "../config/options.js";
import { abortError, sleep } from "../utils/sleep.js";

/** The service's documented client default (docs/service-contract.md#limits-and-retries): two retries. */
export const DEFAULT_MAX_RETRIES = 2;

const retryShape = optionsSchema({
  /** First backoff delay in milliseconds; it doubles on each retry, with jitter. @default 500 */
  initialDelayMs: delayMs.default(500),
  /** Largest backoff delay in milliseconds. @default 8000 */
  maxDelayMs: delayMs.default(8000),
  /**
   * Longest `Retry-After` that is waited out, in milliseconds; a 429 asking for longer fails at
   * once so a program is never stuck for minutes. @default 30000
   */
  maxRetryAfterMs: delayMs.default(30_000),
})
  .strict()
  .describe("an object with initialDelayMs, maxDelayMs and maxRetryAfterMs (milliseconds ≥ 0)");

/** How retryable failures back off; each delay is at most 2147483647 ms (about 24.8 days). */
export interface RetryOptions extends z.input<typeof retryShape> {}

/** How retryable failures back off, every delay given. */
export interface RetryBackoff extends z.output<typeof retryShape> {}

/**
 * The `retry` option of both models. Typed by the two interfaces above, so that the models'
 * declarations name them and an editor shows the delays' documentation there too.
 */
export const retryOptionsSchema: z.ZodType<RetryBackoff, RetryOptions> = retryShape;

/** Keep retrying one kind of error until a deadline, whatever `maxRetries` says. */
export interface RetryDeadline {
  ms: number;
  when: (error: unknown) => boolean;
  /** The error to throw when the deadline passes, given the last error and the time waited. */
  onDeadline: (error: unknown, waitedMs: number) => unknown;
}

/** Parameters of {@link ServiceCaller}. */
export interface ServiceCallerParams extends AsyncCallerParams, RetryOptions {
  /** Turns whatever an attempt threw into the error the caller judges and rethrows. */
  normalize?: (error: unknown) => unknown;
  deadline?: RetryDeadline;
}

/** Call options of {@link ServiceCaller.callWithOptions}: LangChain's, and who hears of each retry. */
export interface ServiceCallOptions extends AsyncCallerCallOptions {
  /** Called before each retry's backoff with the error retried and the delay it waits. */
  onRetry?: (error: unknown, delayMs: number) => void;
}

const rethrow = (error: unknown): never => {
  throw error;
};

/**
 * An `AsyncCaller` (so `maxConcurrency` and LangChain's call plumbing keep working) whose retries
 * follow the `retryable` mark of each error: non-retryable errors fail on the first response,
 * retryable ones back off exponentially with jitter and honour `Retry-After` up to a cap.
 * The openai SDK's own retries are off, so this is the only layer that retries.
 */
export class ServiceCaller extends AsyncCaller {
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxRetryAfterMs: number;
  private readonly userOnFailedAttempt?: (error: unknown) => unknown;
  private readonly normalize: (error: unknown) => unknown;
  private readonly deadline?: RetryDeadline;
  readonly #slots: Slots;

  constructor(params: ServiceCallerParams = {}) {
    const {
      initialDelayMs,
      maxDelayMs,
      maxRetryAfterMs,
      normalize = (error) => error,
      deadline,
      onFailedAttempt,
      ...rest
    } = params;
    // The defaults are the schema's: given values come checked by the models' options.
    const backoff = retryOptionsSchema.parse({ initialDelayMs, maxDelayMs, maxRetryAfterMs });
    // The base class only queues; its own retry loop is given nothing to retry.
    super({
      ...rest,
      maxRetries: rest.maxRetries ?? DEFAULT_MAX_RETRIES,
      onFailedAttempt: rethrow,
    });
    this.initialDelayMs = backoff.initialDelayMs;
    this.maxDelayMs = backoff.maxDelayMs;
    this.maxRetryAfterMs = backoff.maxRetryAfterMs;
    this.userOnFailedAttempt = onFailedAttempt;
    this.normalize = normalize;
    this.deadline = deadline && deadline.ms > 0 ? deadline : undefined;
    this.#slots = new Slots(this.maxConcurrency ?? Number.POSITIVE_INFINITY);
  }

  /** The retry cap used when a call does not pass its own `maxRetries`. */
  get defaultMaxRetries(): number {
    return this.maxRetries ?? DEFAULT_MAX_RETRIES;
  }

  // biome-ignore lint/suspicious/noExplicitAny: mirrors AsyncCaller's own signature
  override call<A extends any[], T extends (...args: A) => Promise<any>>(
    callable: T,
    ...args: Parameters<T>
  ): Promise<Awaited<ReturnType<T>>> {
    return this.callWithOptions({}, callable, ...args);
  }

  /**
   * Runs `callable` with this layer's retries, at most `maxConcurrency` at once (never through
   * the base class's queue and retry wrapper, which would have nothing to retry). A cancelled
   * call leaves the queue at once; once started, it ends when its attempt has settled what it
   * held, since every wait inside an attempt honours the signal.
   */
  // biome-ignore lint/suspicious/noExplicitAny: mirrors AsyncCaller's own signature
  override callWithOptions<A extends any[], T extends (...args: A) => Promise<any>>(
    options: ServiceCallOptions,
    callable: T,
    ...args: Parameters<T>
  ): Promise<Awaited<ReturnType<T>>> {
    const retries = options.maxRetries ?? this.defaultMaxRetries;
    const { signal, onRetry } = options;
    return this.#slots.run(
      () => this.retrying(() => callable(...args), retries, signal, onRetry),
      signal,
    );
  }

  private async retrying<T>(
    attempt: () => Promise<T>,
    retries: number,
    signal: AbortSignal | undefined,
    onRetry: ServiceCallOptions["onRetry"],
  ) {
    const started = Date.now();
    for (let retry = 0; ; retry++) {
      // A cancelled call sends nothing more, and ends with what the signal says, whatever the
      // attempt threw because of it: the same error on both surfaces, invoked or streamed.
      if (signal?.aborted) throw abortError(signal);
      try {
        return await attempt();
      } catch (thrown) {
        if (signal?.aborted) throw abortError(signal);
        const error = this.normalize(thrown);
        await this.userOnFailedAttempt?.(error);
        const delay = this.retryDelay(error, retry, retries, started);
        if (delay === undefined) throw this.finalError(error, started);
        onRetry?.(error, delay);
        await sleep(delay, signal);
      }
    }
  }

  /** Milliseconds to wait before the next attempt, or undefined to give up now. */
  private retryDelay(error: unknown, retry: number, retries: number, started: number) {
    if (getRetryable(error) !== true) return undefined;
    const base = Math.min(this.maxDelayMs, this.initialDelayMs * 2 ** retry);
    let delay = base / 2 + Math.random() * (base / 2);
    const retryAfterMs = (error as { retryAfterMs?: unknown }).retryAfterMs;
    if (typeof retryAfterMs === "number") {
      if (retryAfterMs > this.maxRetryAfterMs) return undefined;
      delay = Math.max(delay, retryAfterMs);
    }
    if (this.deadline?.when(error)) {
      const remaining = this.deadline.ms - (Date.now() - started);
      return remaining > 0 ? Math.min(delay, remaining) : undefined;
    }
    return retry < retries ? delay : undefined;
  }

  private finalError(error: unknown, started: number): unknown {
    if (!this.deadline?.when(error)) return error;
    return this.deadline.onDeadline(error, Date.now() - started);
  }
}

/**
 * At most `limit` tasks at once; the others wait their turn in order. A waiter whose signal
 * aborts leaves the line at once (`AbortError`), taking no slot.
 */
class Slots {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(limit: number) {
    this.#free = limit;
  }

  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    // Unlimited: the task's own promise, without an async wrapper's extra hops on every call.
    if (this.#free === Number.POSITIVE_INFINITY) return task();
    return this.#queued(task, signal);
  }

  async #queued<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await this.#turn(signal);
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }

  /** Resolves when a finishing task hands its slot on; rejects when `signal` aborts first. */
  #turn(signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      const take = () => {
        signal?.removeEventListener("abort", leave);
        resolve();
      };
      const leave = () => {
        const at = this.#waiting.indexOf(take);
        if (at >= 0) this.#waiting.splice(at, 1);
        reject(abortError(signal!));
      };
      if (signal?.aborted) {
        reject(abortError(signal));
        return;
      }
      this.#waiting.push(take);
      signal?.addEventListener("abort", leave, { once: true });
    });
  }
}
