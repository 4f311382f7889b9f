/**
 * @module `CallMeter`: what every model does around each request it sends — reserve its
 * worst-case cost with the run's usage trackers, wait for its turn at the rate limiter, then
 * settle the reservations to what the request really used, whichever way the call ends.
 */
import type { Callbacks } from "@langchain/core/callbacks/manager";
import type { TokenUsage } from "@langchain/core/language_models/base";
import type { UsageMetadata } from "@langchain/core/messages";
import { RateLimitError } from "../errors/errors.js";
import type { RequestEstimate, StreamReading } from "./estimate.js";
import type { RateLimiter, RatePermit } from "./rate_limiter.js";
import {
  holdersOf,
  type RunEnd,
  type SpendGuard,
  type SpendReservation,
  spendGuardsOf,
  type TokenCount,
} from "./spend_guard.js";
import {
  type PromptCacheCounts,
  type PromptTokenDetails,
  promptCacheFromWire,
  tokenUsageFromWire,
} from "./usage.js";
import type { Settlement } from "./usage_records.js";

/** The run a call belongs to, as LangChain's run manager shows it. */
export interface MeteredRun {
  runId: string;
  handlers: readonly unknown[];
}

/** What a model knows when it starts a call. */
export interface MeterSetup {
  run?: MeteredRun;
  limiter?: RateLimiter;
  /** With a `per: "key"` limiter: the ID of the model's API key. */
  keyId?: string;
}

/** How a metered stream ended. */
export type StreamEnd = "ended" | "failed" | "left" | "aborted";

/**
 * Who hears what the meter does for one request (the call's telemetry): each attempt's
 * reservation, refusal and rate-limiter wait, and how each attempt settled, with its cost.
 */
export interface MeterObserver {
  /** A tracker held `amount` (the attempt's worst case) against its budget. */
  reserved(amount: number, currency: string | undefined): void;
  /** A tracker refused the attempt (a `BudgetExceededError`), or its store failed. */
  refused(error: unknown): void;
  /** The attempt waited `ms` milliseconds for the rate limiter. */
  waited(ms: number): void;
  /**
   * An attempt with reservations settled, as `how` says (the same words as a usage record's
   * `settlement`: `none` for an attempt refused or failed before any output); `cost` is what
   * the first tracker that prices the model settled it to, in the unit of its prices.
   */
  settled(how: Settlement, cost: number | undefined, currency: string | undefined): void;
}

/**
 * The meter of one model call (one run): hands out a {@link MeteredAttempt} for each request
 * attempt, and is the one place a call's end reaches its trackers when LangChain will not end
 * its run — a stream left early, a call stopped by its signal, a run whose start failed.
 * A model builds one only when the call has a tracker or a limiter ({@link createCallMeter}).
 */
export class CallMeter {
  readonly #guards: SpendGuard[];
  /** For each guard, whether it holds the reservations of a budget it shares (see `holdersOf`). */
  readonly #holds: boolean[];
  readonly #runId?: string;
  readonly #limiter?: RateLimiter;
  readonly #keyId?: string;

  constructor(setup: MeterSetup, guards: SpendGuard[] = spendGuardsOf(setup.run?.handlers)) {
    this.#guards = guards;
    this.#holds = holdersOf(guards);
    this.#runId = setup.run?.runId;
    this.#limiter = setup.limiter;
    this.#keyId = setup.keyId;
  }

  /**
   * Called once the request has left the concurrency queue, before it is sent (each retry
   * again): reserves with every tracker — all or none — then waits for the limiter's turn.
   * Throws `BudgetExceededError` when a tracker's budget cannot hold the request. `observer`
   * hears of the reservation, the refusal, the wait and, later, the settled cost.
   */
  async begin(
    estimate: RequestEstimate,
    signal?: AbortSignal,
    observer?: MeterObserver,
  ): Promise<MeteredAttempt> {
    const reservations: SpendReservation[] = [];
    const runId = this.#runId;
    if (runId !== undefined) {
      try {
        for (const [i, guard] of this.#guards.entries()) {
          const reservation = await guard.reserve(runId, estimate, { hold: this.#holds[i] });
          reservations.push(reservation);
          if (reservation.amount !== undefined) {
            observer?.reserved(reservation.amount, reservation.currency);
          }
        }
      } catch (error) {
        observer?.refused(error);
        await releaseAll(reservations);
        throw error;
      }
    }
    let permit: RatePermit | undefined;
    const limiter = this.#limiter;
    if (limiter !== undefined) {
      const started = observer ? performance.now() : 0;
      try {
        permit = await limiter.acquire(estimate, { keyId: this.#keyId, signal });
      } catch (error) {
        await releaseAll(reservations);
        throw error;
      } finally {
        observer?.waited(performance.now() - started);
      }
    }
    // How an attempt settles is the trackers' to say: one that holds no reservation (a rate
    // limiter alone) tells the observer nothing of it.
    const hears = reservations.length > 0 ? observer : undefined;
    return new MeteredAttempt(estimate, reservations, permit, hears);
  }

  /**
   * Settles the attempt that answered a stream once the stream has ended as `how` says: to its
   * usage chunk if it came; else, for a stream read to its end or failed, to the prompt estimate
   * plus the output read; for a stream left early (`break`, `return`) or stopped by its signal,
   * to the worst case it reserved — the service bills what it relayed before it noticed the
   * client gone, which may be the whole answer (docs/usage.md: what each ending costs). A stream
   * left or stopped also ends its run with the trackers. The channel's stream calls it once.
   */
  async endStream(
    reading: StreamReading,
    how: StreamEnd,
    attempt: MeteredAttempt | undefined,
  ): Promise<void> {
    const stopped = how === "left" || how === "aborted";
    if (stopped && reading.usage === undefined) await attempt?.cancelled();
    else await attempt?.settle(reading.usage, reading.outputTokens);
    if (stopped) {
      await this.endRun({
        abandoned: true,
        ...(how === "aborted" ? { aborted: true } : {}),
        ...(attempt?.requestId !== undefined ? { requestId: attempt.requestId } : {}),
      });
    }
  }

  /** The run will get no end callback from LangChain (or not before this): each tracker ends it now. */
  async endRun(how: RunEnd): Promise<void> {
    const runId = this.#runId;
    if (runId === undefined) return;
    await Promise.all(this.#guards.map((guard) => guard.endRun(runId, how)));
  }
}

/** One request attempt's reservations and rate-limit permit, settled exactly once. */
export class MeteredAttempt {
  readonly #estimate: RequestEstimate;
  readonly #reservations: SpendReservation[];
  readonly #permit?: RatePermit;
  readonly #observer?: MeterObserver;
  /** The request ID of the answer, once one has begun. */
  requestId?: string;

  constructor(
    estimate: RequestEstimate,
    reservations: SpendReservation[],
    permit: RatePermit | undefined,
    observer?: MeterObserver,
  ) {
    this.#estimate = estimate;
    this.#reservations = reservations;
    this.#permit = permit;
    this.#observer = observer;
  }

  /** The service answered with a 2xx: the rate limiter learns what the service accepts. */
  answered(requestId?: string): void {
    this.requestId = requestId;
    this.#permit?.answered();
  }

  /**
   * The request was answered: settles to the service's `usage`, or (none reported, or a stream
   * cut short) to the prompt estimate plus `outputTokens`, the estimate of the output read.
   */
  async settle(usage: TokenCount | undefined, outputTokens: number): Promise<void> {
    if (this.#reservations.length === 0) return;
    const counted = usage ?? { inputTokens: this.#estimate.inputTokens, outputTokens };
    this.#report(
      usage === undefined ? "estimated" : "reported",
      await Promise.all(this.#reservations.map((r) => r.settle(counted, usage === undefined))),
    );
  }

  /**
   * The attempt failed before any output: the service refused it, so it costs nothing; a 429
   * also pauses and slows the rate limiter.
   */
  async fail(error: unknown): Promise<void> {
    if (RateLimitError.isInstance(error)) await this.#permit?.rateLimited(error.retryAfterMs);
    await releaseAll(this.#reservations);
    this.#observer?.settled("none", undefined, undefined);
  }

  /**
   * The call was cancelled while the request was on its way or being answered, or its stream
   * was left or stopped before its usage chunk: the service may have answered and billed it in
   * full, so each hold is charged as it stands (the worst case).
   */
  async cancelled(): Promise<void> {
    this.#report("upper-bound", await Promise.all(this.#reservations.map((r) => r.settleAsHeld())));
  }

  /** Tells the observer how the attempt settled, and the cost of the first reservation that priced it. */
  #report(how: Settlement, costs: ReadonlyArray<number | undefined>): void {
    if (this.#observer === undefined) return;
    const at = costs.findIndex((cost) => typeof cost === "number");
    if (at < 0) this.#observer.settled(how, undefined, undefined);
    else this.#observer.settled(how, costs[at] as number, this.#reservations[at]!.currency);
  }
}

async function releaseAll(reservations: readonly SpendReservation[]): Promise<void> {
  await Promise.all(reservations.map((r) => r.settle({ inputTokens: 0, outputTokens: 0 }, false)));
}

/** A meter for a call with trackers or a limiter; undefined (nothing to do) otherwise. */
export function createCallMeter(setup: MeterSetup): CallMeter | undefined {
  const guards = spendGuardsOf(setup.run?.handlers);
  if (setup.limiter === undefined && guards.length === 0) return undefined;
  return new CallMeter(setup, guards);
}

/**
 * The run of a chat-model call that LangChain may send down its chat-model stream-events path:
 * when a handler prefers those events (e.g. LangGraph's v3 messages protocol), core calls the
 * model's stream without the run manager, so the model must carry the run to its meter itself.
 * The run ID is fixed here (core would otherwise make one up later), so the trackers see the
 * same ID at the run's start and at its reservation. Undefined when no handler prefers them.
 */
export function streamEventsRun(
  callbacks: Callbacks | undefined,
  local: Callbacks | undefined,
  runId: string | undefined,
): MeteredRun | undefined {
  const given = handlersOf(callbacks);
  const own = handlersOf(local);
  // Runs on every chat call: nothing is allocated unless a handler prefers the events.
  if (!given.some(prefersStreamEvents) && !own.some(prefersStreamEvents)) return undefined;
  return { runId: runId ?? globalThis.crypto.randomUUID(), handlers: [...given, ...own] };
}

/** Whether a handler asks core for chat-model stream events (LangGraph's messages mode). */
export function prefersStreamEvents(handler: unknown): boolean {
  return (
    (handler as { lc_prefer_chat_model_stream_events?: unknown } | undefined)
      ?.lc_prefer_chat_model_stream_events === true
  );
}

function handlersOf(callbacks: Callbacks | undefined): readonly unknown[] {
  if (callbacks === undefined) return [];
  return Array.isArray(callbacks) ? callbacks : callbacks.handlers;
}

/**
 * The `usage` of a response body or stream chunk as the counts a reservation settles to, the
 * prompt's cache reads and writes included; undefined when it has no count.
 */
export function tokenCountFromWire(usage: unknown): TokenCount | undefined {
  const count = tokenCountOf(tokenUsageFromWire(usage));
  if (count === undefined) return undefined;
  return { ...count, ...tokenCountOfCache(promptCacheFromWire(usage)) };
}

/** A prompt's cache reads and writes as the fields of a {@link TokenCount}, those it has. */
export function tokenCountOfCache({
  read,
  written,
  writtenForAnHour,
}: PromptCacheCounts): Partial<TokenCount> {
  return {
    ...(read ? { cachedInputTokens: read } : {}),
    ...(written ? { cacheWriteTokens: written } : {}),
    ...(written && writtenForAnHour ? { cacheWrite1hTokens: writtenForAnHour } : {}),
  };
}

/**
 * A message's `usage_metadata` as the counts a reservation settles to, the prompt's cache reads
 * and writes (and the writes that live an hour) included: what a stream's last chunk reports.
 */
export function countUsageMetadata(usage: UsageMetadata): TokenCount {
  const details = usage.input_token_details as PromptTokenDetails | undefined;
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    ...tokenCountOfCache({
      read: details?.cache_read,
      written: details?.cache_creation,
      writtenForAnHour: details?.ephemeral_1h_input_tokens,
    }),
  };
}

/** LangChain's `TokenUsage` as the counts a reservation settles to; undefined when it has neither. */
export function tokenCountOf(usage: TokenUsage | undefined): TokenCount | undefined {
  if (usage?.promptTokens === undefined && usage?.completionTokens === undefined) return undefined;
  return { inputTokens: usage.promptTokens ?? 0, outputTokens: usage.completionTokens ?? 0 };
}
