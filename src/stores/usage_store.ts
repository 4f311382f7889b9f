/**
 * @module `UsageStore`: where budgets and rate limits keep the state several callers share —
 * this process's memory by default ({@link MemoryStore}), or Redis for a fleet of processes
 * (`RedisStore` from `langchain-inference-service/redis`).
 */
import { z } from "zod";

/** One reservation asked of a budget: a call's worst-case cost, held until the call settles. */
export interface BudgetReservation {
  /** Unique per reservation; `settle` names it. */
  id: string;
  /** Worst-case cost, in the unit of the tracker's prices; ≥ 0. */
  amount: number;
  /** The budget the reservation must fit in. */
  budget: number;
}

/** What a budget holds: settled spend, and the reservations of calls still in flight. */
export interface BudgetState {
  spent: number;
  reserved: number;
}

/** The answer to a reservation; `spent` and `reserved` are after it (granted) or as found (refused). */
export interface ReserveOutcome extends BudgetState {
  ok: boolean;
}

/**
 * One request asking a rate limit for its slot. Rates are per millisecond; an absent rate is
 * not limited. The store answers with how long to wait: slots are handed out in order, so
 * callers queue instead of failing.
 */
export interface RateTake {
  /** The caller's clock, in milliseconds. */
  now: number;
  /** Configured requests per millisecond. */
  requestRate?: number;
  /** Requests that may go at once after an idle spell (≥ 1). */
  burst: number;
  /** Configured tokens per millisecond. */
  tokenRate?: number;
  /** Estimated tokens of this request. */
  tokens: number;
  /** After a cut, the rate grows by its cut value every this many milliseconds. */
  recoveryMs: number;
  /** With no `requestRate`, learn one from 429s (true) or never limit requests (false). */
  learn: boolean;
  /** Requests the service answered (not with a 429) since this caller's last take: what it accepts. */
  accepted: number;
}

/** What one slot did to a bucket: its end before and after the slot was taken (callers' clock). */
export type RateSpan = [number, number];

/**
 * A slot: wait `waitMs`, then send. `epoch` says which rate it was computed at; the spans say
 * which time it holds in the request and token buckets, so it can be given back
 * ({@link UsageStore.releaseRate}).
 */
export interface RateGrant {
  waitMs: number;
  epoch: number;
  requestSpan?: RateSpan;
  tokenSpan?: RateSpan;
}

/** A slot given back before its turn: the call waiting for it was cancelled and sends nothing. */
export interface RateRelease {
  /** The grant's epoch; a cut since then has forgotten the slot already. */
  epoch: number;
  /** The grant's spans. */
  requestSpan?: RateSpan;
  tokenSpan?: RateSpan;
}

/** A 429 reported to a rate limit. */
export interface RatePenalty {
  now: number;
  /** Pause every caller of this limit this long (the service's `Retry-After`, capped). */
  pauseMs: number;
  /** The epoch of the slot the rejected request was sent in; a stale one does not cut again. */
  epoch: number;
  /** Multiplier of the rate on a cut, in (0, 1). */
  decrease: number;
  /** Configured requests per millisecond, if any (the cut is relative to it). */
  requestRate?: number;
  /** As in {@link RateTake}: needed to know the rate in force when the 429 came. */
  recoveryMs: number;
  /** As in {@link RateTake}: answers not reported yet, counted before the cut is made. */
  accepted: number;
}

/**
 * Shared state of budgets and rate limits. Every operation is atomic: N callers (or N processes
 * on one Redis) reserving at once never together exceed a budget. Keys are the names given to
 * trackers (`budgetKey`) and limiters (`name` plus model or key); the store namespaces them.
 *
 * Implement it to keep the state elsewhere; {@link MemoryStore} is the reference.
 */
export interface UsageStore {
  /**
   * Grants the reservation when `spent + reserved < budget` and `spent + reserved + amount ≤
   * budget`; refuses it otherwise, changing nothing.
   */
  reserve(key: string, reservation: BudgetReservation): Promise<ReserveOutcome>;
  /** Replaces a reservation by the call's real cost (0 releases it). Unknown IDs are charged in full. */
  settle(key: string, id: string, cost: number): Promise<void>;
  /** Adds spend without a reservation (runs of models that do not reserve). */
  charge(key: string, cost: number): Promise<void>;
  budgetState(key: string): Promise<BudgetState>;
  /** Forgets settled spend; reservations in flight stay and settle into the fresh budget. */
  resetBudget(key: string): Promise<void>;
  /** Hands out the next slot of a rate limit. */
  takeRate(key: string, take: RateTake): Promise<RateGrant>;
  /** Pauses a rate limit and, once per epoch, cuts its rate; returns the epoch now in force. */
  penalizeRate(key: string, penalty: RatePenalty): Promise<number>;
  /**
   * Gives back a slot whose call was cancelled before its turn, so later callers need not wait
   * for it: the last slot handed out comes back at once, an earlier one as soon as every slot
   * after it has come back too (until then later slots keep their times: one is never handed out
   * twice). Optional: a store without it keeps cancelled slots taken.
   */
  releaseRate?(key: string, release: RateRelease): Promise<void>;
}

/** Float noise allowed when a reservation exactly fills a budget (e.g. 3 × 0.1 against 0.3). */
const EPSILON = 1e-9;

/** Whether a reservation of `amount` fits a budget in the state given (both stores use this rule). */
export function fitsBudget(state: BudgetState, amount: number, budget: number): boolean {
  const committed = state.spent + state.reserved;
  const slack = EPSILON * Math.max(1, budget);
  return committed < budget - slack / 2 && committed + amount <= budget + slack;
}

/** What a `UsageStore` must have: its methods, checked by name (users may write their own). */
export function isUsageStore(value: unknown): value is UsageStore {
  const store = value as Record<string, unknown> | null;
  return (
    typeof store === "object" &&
    store !== null &&
    ["reserve", "settle", "charge", "budgetState", "resetBudget", "takeRate", "penalizeRate"].every(
      (method) => typeof store[method] === "function",
    )
  );
}

/** The `store` option of trackers and limiters: any object with a `UsageStore`'s methods. */
export const usageStoreSchema = z
  .custom<UsageStore>(isUsageStore)
  .describe(
    "a UsageStore (a MemoryStore, a RedisStore or your own with reserve, settle, charge, budgetState, resetBudget, takeRate and penalizeRate)",
  );
