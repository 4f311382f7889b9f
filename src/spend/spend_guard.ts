/**
 * @module The contract between the models' call path and the callback handlers that guard spend
 * (`UsageTracker`): the model finds the guards among a run's handlers, asks each for a
 * reservation before every request it sends, and tells them how a run ended when LangChain will
 * not (a stream left early, a call stopped by its signal, a run whose start failed).
 */
import { hasBrand, SPEND_GUARD_BRAND } from "../constants.js";
import type { RequestEstimate } from "./estimate.js";

/** Tokens one request really used (the service's usage), or an estimate of them. */
export interface TokenCount {
  inputTokens: number;
  outputTokens: number;
  /** Of `inputTokens`, those read from the model server's prompt cache (priced at `cachedInput`). */
  cachedInputTokens?: number;
  /** Of `inputTokens`, those written to the prompt cache, both lifetimes (priced at `cacheWrite`). */
  cacheWriteTokens?: number;
  /** Of `cacheWriteTokens`, those written to live an hour (priced at `cacheWrite1h`). */
  cacheWrite1hTokens?: number;
}

/** A request's hold on a budget, from before it is sent until it settles. */
export interface SpendReservation {
  /** The worst-case cost held against a budget; absent when nothing is held. */
  readonly amount?: number;
  /** The unit of the guard's prices and budget, when it names one. */
  readonly currency?: string;
  /**
   * Replaces the hold by the real cost of `usage` (`estimated` when the service reported none,
   * e.g. a stream cut short). Only the first settle counts; a refused request settles at zero.
   * Resolves to the cost settled to, when the guard prices the model (a guard of an older copy
   * of the package resolves to nothing).
   */
  settle(usage: TokenCount, estimated: boolean): Promise<number | undefined>;
  /**
   * The request was sent but its answer will never be read (its call was cancelled): the
   * service may have answered and billed it, so the hold is charged as it stands — the
   * request's worst case. Only the first settle counts. Resolves to the cost charged, as `settle`.
   */
  settleAsHeld(): Promise<number | undefined>;
}

/** How a run ended that LangChain will not end (or not in time): the first end of a run counts. */
export interface RunEnd {
  /** The caller's signal stopped it. */
  aborted?: boolean;
  /** Its stream was not read to its end (`break`, `return`, a consumer that stopped reading). */
  abandoned?: boolean;
  /** Its start failed (another handler threw): no request was made. */
  failedToStart?: { name: string; message: string };
  /** The request ID of the answer it was reading, if one had begun. */
  requestId?: string;
}

/** The budget a guard reserves from: guards that name the same store and key share it. */
export interface SharedBudget {
  store: object;
  key: string;
}

/** A handler that guards spend: a `UsageTracker`, found by its brand across package copies. */
export interface SpendGuard {
  /** The budget this guard holds reservations in, when it has one. */
  readonly sharedBudget?: SharedBudget;
  /**
   * Holds the worst-case cost of one request of run `runId`; throws `BudgetExceededError` (and
   * holds nothing) when it does not fit. With `hold: false` another guard of the call holds the
   * same budget: this one only counts what the request used.
   */
  reserve(
    runId: string,
    estimate: RequestEstimate,
    options?: { hold?: boolean },
  ): Promise<SpendReservation>;
  /** Run `runId` will get no end callback: count it as it stands, as `how` says. */
  endRun(runId: string, how: RunEnd): Promise<void>;
}

/** The distinct spend guards among a run's callback handlers. */
export function spendGuardsOf(handlers: readonly unknown[] | undefined): SpendGuard[] {
  const guards: SpendGuard[] = [];
  for (const handler of handlers ?? []) {
    if (hasBrand(handler, SPEND_GUARD_BRAND) && !guards.includes(handler as SpendGuard))
      guards.push(handler as SpendGuard);
  }
  return guards;
}

/**
 * For each guard, whether it holds its reservations in its budget: the first of the guards
 * that share one (same store, same key) does, so that one call is never charged twice.
 */
export function holdersOf(guards: readonly SpendGuard[]): boolean[] {
  const seen = new Map<object, Set<string>>();
  return guards.map(({ sharedBudget }) => {
    if (sharedBudget === undefined) return true;
    const keys = seen.get(sharedBudget.store) ?? new Set<string>();
    seen.set(sharedBudget.store, keys);
    if (keys.has(sharedBudget.key)) return false;
    keys.add(sharedBudget.key);
    return true;
  });
}
