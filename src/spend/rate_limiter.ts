/**
 * @module `RateLimiter`: a client-side limit on requests and tokens per minute, per model or per
 * API key, that queues calls instead of failing them and adapts to the service's 429s.
 */

import { z } from "zod";
import { abortSignal, delayMs, optionsSchema, parseOptions } from "../config/options.js";
import { hasBrand, RATE_LIMITER_BRAND } from "../constants.js";
import { MemoryStore } from "../stores/memory_store.js";
import type { RateGrant, UsageStore } from "../stores/usage_store.js";
import { usageStoreSchema } from "../stores/usage_store.js";
import { sleep } from "../utils/sleep.js";
import {
  defaultReplyTokensSchema,
  type RequestEstimate,
  requestEstimateSchema,
  worstCaseOutputTokens,
} from "./estimate.js";

const perMinute = z.number().positive().describe("a number > 0");

/** Options of {@link RateLimiter}; each is checked when the limiter is built. */
export const rateLimiterOptions = optionsSchema({
  /** Requests per minute, spread evenly (one every `60000 / requestsPerMinute` ms). @default none (not limited) */
  requestsPerMinute: perMinute.optional(),
  /**
   * Tokens per minute: each request counts its estimated prompt tokens plus `max_tokens` (or
   * `defaultReplyTokens`) per choice, as services that limit tokens count them.
   * @default none (not limited)
   */
  tokensPerMinute: perMinute.optional(),
  /** One limit per model ID / Service-Name (`"model"`), or one for all models of an API key (`"key"`). @default "model" */
  per: z.enum(["model", "key"]).describe('"model" or "key"').default("model"),
  /** Requests that may go at once after an idle spell; later ones are spaced. @default 1 */
  burst: z.number().int().positive().describe("a whole number ≥ 1").default(1),
  /**
   * Adapt to 429s: pause for `Retry-After`, cut the rate, then climb back (AIMD). Without
   * `requestsPerMinute`, the first 429 sets a rate learned from the traffic the service took.
   * @default true
   */
  adaptive: z.boolean().describe("true or false").default(true),
  /**
   * On a 429, the rate becomes this times the lower of the current rate and the rate the service
   * accepted over the last second (once per round of requests sent at the old rate). @default 0.7
   */
  decrease: z
    .number()
    .gt(0)
    .lt(1)
    .describe("a number between 0 and 1 (both excluded), e.g. 0.5")
    .default(0.7),
  /**
   * After a cut, the rate grows back by its cut value every this many milliseconds. Any length:
   * it sets a slope, never a timer. @default 10000
   */
  recoveryMs: z.number().positive().describe("a number of milliseconds > 0").default(10_000),
  /** Pause after a 429 without `Retry-After`, in milliseconds; at most 2147483647 (about 24.8 days). @default 1000 */
  pauseMs: delayMs.default(1000),
  /**
   * Longest `Retry-After` honoured as a pause of the whole limit, in milliseconds; at most
   * 2147483647 (about 24.8 days). @default 30000
   */
  maxPauseMs: delayMs.default(30_000),
  /** Reply tokens counted for a request that sets no `max_tokens`. @default 1024 */
  defaultReplyTokens: defaultReplyTokensSchema,
  /** Where the limit's state lives; a `RedisStore` shares it between processes. @default a new `MemoryStore` */
  store: usageStoreSchema.default(() => new MemoryStore()),
  /** Names the limit in the store: limiters with one name and one store share one limit. @default "default" */
  name: z.string().min(1).describe("a non-empty string").default("default"),
  /** Milliseconds since the epoch; processes sharing a store need clocks in step (NTP). For tests. @default `Date.now` */
  clock: z
    .custom<() => number>((v) => typeof v === "function")
    .describe("a function returning milliseconds since the epoch")
    .default(() => Date.now),
}).strict();

/** Options of {@link RateLimiter}; each is checked when the limiter is built. */
export type RateLimiterOptions = z.input<typeof rateLimiterOptions>;

/** A slot handed out by {@link RateLimiter.acquire}; report how the service answered so the limiter adapts. */
export interface RatePermit {
  /** The service answered (not with a 429): it accepts this much traffic. */
  answered(): void;
  /** The service answered 429 (after `retryAfterMs`, if it said): pause and slow down. */
  rateLimited(retryAfterMs?: number): Promise<void>;
}

const MINUTE_MS = 60_000;
const NO_PERMIT: RatePermit = { answered: () => {}, rateLimited: async () => {} };

/**
 * A client-side rate limit. Give one to a model (`rateLimiter`), or the same one to several
 * models to share it. Calls over the limit wait for their turn — in order, holding their
 * `maxConcurrency` slot — instead of failing; each attempt of a retried call takes a new turn,
 * and a call cancelled while it waits gives its turn back.
 *
 * On a 429 the whole limit pauses for the service's `Retry-After` (capped at `maxPauseMs`), its
 * rate is cut by `decrease`, then grows back linearly (`recoveryMs`): a batch that outruns the
 * service settles just under what it allows instead of retrying into a wall of 429s.
 *
 * With a `RedisStore`, every process using the same `name` shares one limit.
 *
 * @example
 * ```ts
 * const limiter = new RateLimiter({ requestsPerMinute: 600, tokensPerMinute: 200_000 });
 * const model = new ChatInferenceService("emulator-chat", { rateLimiter: limiter, maxTokens: 256 });
 * await model.batch(prompts, { maxConcurrency: 64 }); // at most 10 requests a second
 * ```
 */
export class RateLimiter {
  readonly requestsPerMinute?: number;
  readonly tokensPerMinute?: number;
  readonly per: "model" | "key";
  readonly name: string;
  readonly store: UsageStore;
  readonly #burst: number;
  readonly #adaptive: boolean;
  readonly #decrease: number;
  readonly #recoveryMs: number;
  readonly #pauseMs: number;
  readonly #maxPauseMs: number;
  readonly #defaultReplyTokens: number;
  readonly #clock: () => number;
  /** The latest epoch this process knows of, per limit: a slot of an older one is taken again. */
  readonly #epochs = new Map<string, number>();
  /** Answers not yet reported to the store, per limit; they ride on the next take or penalty. */
  readonly #accepted = new Map<string, number>();

  constructor(options: RateLimiterOptions = {}) {
    const valid = validateRateLimiterOptions(options);
    this.requestsPerMinute = valid.requestsPerMinute;
    this.tokensPerMinute = valid.tokensPerMinute;
    this.per = valid.per;
    this.name = valid.name;
    this.store = valid.store;
    this.#burst = valid.burst;
    this.#adaptive = valid.adaptive;
    this.#decrease = valid.decrease;
    this.#recoveryMs = valid.recoveryMs;
    this.#pauseMs = valid.pauseMs;
    this.#maxPauseMs = valid.maxPauseMs;
    this.#defaultReplyTokens = valid.defaultReplyTokens;
    this.#clock = valid.clock;
    Object.defineProperty(this, RATE_LIMITER_BRAND, { value: true });
  }

  /** True for a `RateLimiter`, from this copy of the package or another. */
  static isInstance(value: unknown): value is RateLimiter {
    return hasBrand(value, RATE_LIMITER_BRAND);
  }

  /**
   * Waits for the turn of one request and returns its permit. The models call it for every
   * attempt, after the concurrency queue and before sending; call it yourself only to limit
   * other work with the same limit.
   *
   * @param estimate What the request may use (its model, prompt tokens, `max_tokens`, choices).
   * @param keyId With `per: "key"`, an ID of the API key (never the key itself).
   */
  async acquire(
    estimate: RequestEstimate,
    options: { keyId?: string; signal?: AbortSignal } = {},
  ): Promise<RatePermit> {
    parseOptions(ACQUIRE, { estimate, options });
    const { keyId, signal } = options;
    if (this.requestsPerMinute === undefined && this.tokensPerMinute === undefined) {
      if (!this.#adaptive) return NO_PERMIT;
    }
    const key = `${this.name}:${this.per === "key" ? `key:${keyId ?? "default"}` : `model:${estimate.model}`}`;
    const tokens = estimate.inputTokens + worstCaseOutputTokens(estimate, this.#defaultReplyTokens);
    for (;;) {
      const grant = await this.store.takeRate(key, {
        now: this.#clock(),
        requestRate: perMs(this.requestsPerMinute),
        burst: this.#burst,
        tokenRate: perMs(this.tokensPerMinute),
        tokens,
        recoveryMs: this.#recoveryMs,
        learn: this.#adaptive,
        accepted: this.#takeAccepted(key),
      });
      if (grant.waitMs > 0) await this.#wait(key, grant, signal);
      // A 429 while this call waited cut the rate and forgot the old slots: take a new one.
      if (grant.epoch >= (this.#epochs.get(key) ?? 0)) return this.#permit(key, grant.epoch);
    }
  }

  /**
   * Waits for a slot; a call cancelled meanwhile gives it back in the abort's own tick (the
   * memory store at once, Redis's command sent then), so an `acquire` made just after the abort
   * is not held up by requests that will never be sent.
   */
  async #wait(key: string, grant: RateGrant, signal: AbortSignal | undefined): Promise<void> {
    const { epoch, requestSpan, tokenSpan } = grant;
    // Best effort: a store that fails to take it back keeps the slot, as before; the caller
    // hears of its cancellation, not of the store.
    const giveBack = () =>
      void this.store.releaseRate?.(key, { epoch, requestSpan, tokenSpan }).catch(() => undefined);
    // One listener per waiting call: an app may share one signal among many calls.
    await sleep(grant.waitMs, signal, giveBack);
  }

  #takeAccepted(key: string): number {
    const accepted = this.#accepted.get(key) ?? 0;
    if (accepted > 0) this.#accepted.delete(key);
    return accepted;
  }

  #permit(key: string, epoch: number): RatePermit {
    if (!this.#adaptive) return NO_PERMIT;
    return {
      answered: () => {
        this.#accepted.set(key, (this.#accepted.get(key) ?? 0) + 1);
      },
      rateLimited: async (retryAfterMs) => {
        const pauseMs = Math.min(retryAfterMs ?? this.#pauseMs, this.#maxPauseMs);
        const now = await this.store.penalizeRate(key, {
          now: this.#clock(),
          pauseMs,
          epoch,
          decrease: this.#decrease,
          requestRate: perMs(this.requestsPerMinute),
          recoveryMs: this.#recoveryMs,
          accepted: this.#takeAccepted(key),
        });
        this.#epochs.set(key, Math.max(now, this.#epochs.get(key) ?? 0));
      },
    };
  }
}

function perMs(perMinute: number | undefined): number | undefined {
  return perMinute === undefined ? undefined : perMinute / MINUTE_MS;
}

/**
 * A short, stable ID of an API key for `per: "key"` limits (a 53-bit cyrb53 hash): the same key
 * gives the same ID in every process, and a random key cannot be recovered from it, so store
 * keys never hold the key itself.
 */
export function apiKeyId(apiKey: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < apiKey.length; i++) {
    const ch = apiKey.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

// ---- options ------------------------------------------------------------------------------

const SPEC = { owner: "RateLimiter", schema: rateLimiterOptions };

/** `acquire(estimate, options)`'s arguments, as a caller of another language than TypeScript may give them. */
const ACQUIRE = {
  owner: "RateLimiter.acquire",
  schema: z.object({
    estimate: requestEstimateSchema,
    options: z
      .looseObject({
        keyId: z.string().describe("a string: an ID of the API key (never the key)").optional(),
        signal: abortSignal.nullish(),
      })
      .optional(),
  }),
};

/** Checks a `RateLimiter`'s options where they enter and returns them with their defaults; the error names the option. */
export function validateRateLimiterOptions(options: unknown): z.output<typeof rateLimiterOptions> {
  return parseOptions(SPEC, options);
}
