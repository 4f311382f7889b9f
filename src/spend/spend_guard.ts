/**
 * @module The contract between the models' call path and the callback handlers that guard spend
 * (`UsageTracker`): the model finds the guards among a run's handlers and asks each for a
 * reservation before every request it sends.
 */
import { hasBrand, SPEND_GUARD_BRAND } from "../constants.js";
import type { RequestEstimate } from "./estimate.js";

/** Tokens one request really used (the service's usage), or an estimate of them. */
export interface TokenCount {
  inputTokens: number;
  outputTokens: number;
  /** Of `inputTokens`, those read from the model server's prompt cache (priced at `cachedInput`). */
  cachedInputTokens?: number;
}

/** A request's hold on a budget, from before it is sent until it settles. */
export interface SpendReservation {
  /**
   * Replaces the hold by the real cost of `usage` (`estimated` when the service reported none,
   * e.g. a stream cut short). Only the first call counts; a refused request settles at zero.
   */
  settle(usage: TokenCount, estimated: boolean): Promise<void>;
}

/** A handler that guards spend: a `UsageTracker`, found by its brand across package copies. */
export interface SpendGuard {
  /**
   * Holds the worst-case cost of one request of run `runId`; throws `BudgetExceededError` (and
   * holds nothing) when it does not fit.
   */
  reserve(runId: string, estimate: RequestEstimate): Promise<SpendReservation>;
  /** Run `runId` will get no end callback (a stream left with `break`): count it as it stands. */
  abandon(runId: string): Promise<void>;
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
