/**
 * @module `MemoryStore`: the default {@link UsageStore}, in this process's memory — exact for
 * every caller in the process, shared with no other process.
 */
import { newPacingState, type PacingState, penalize, releaseSlot, takeSlot } from "./pacing.js";
import {
  type BudgetReservation,
  type BudgetState,
  fitsBudget,
  type RateGrant,
  type RatePenalty,
  type RateRelease,
  type RateTake,
  type ReserveOutcome,
  type UsageStore,
} from "./usage_store.js";

interface Budget extends BudgetState {
  /** Reservation ID → amount, for calls in flight. */
  holds: Map<string, number>;
}

/**
 * Budgets and rate limits in memory. JavaScript runs one callback at a time, so every operation
 * is atomic without locks. Share one instance between trackers and limiters that should share a
 * budget or a limit; to share them across processes, use a `RedisStore`
 * (`langchain-inference-service/redis`).
 *
 * @example
 * ```ts
 * const store = new MemoryStore();
 * const tracker = new UsageTracker({ prices, budget: 5, store });
 * const limiter = new RateLimiter({ requestsPerMinute: 600, store });
 * ```
 */
export class MemoryStore implements UsageStore {
  readonly #budgets = new Map<string, Budget>();
  readonly #rates = new Map<string, PacingState>();

  async reserve(key: string, reservation: BudgetReservation): Promise<ReserveOutcome> {
    const budget = this.#budget(key);
    if (!fitsBudget(budget, reservation.amount, reservation.budget)) {
      return { ok: false, spent: budget.spent, reserved: budget.reserved };
    }
    budget.holds.set(reservation.id, reservation.amount);
    budget.reserved += reservation.amount;
    return { ok: true, spent: budget.spent, reserved: budget.reserved };
  }

  async settle(key: string, id: string, cost: number): Promise<void> {
    const budget = this.#budget(key);
    const held = budget.holds.get(id);
    if (held !== undefined) {
      budget.holds.delete(id);
      // Summing and subtracting floats leaves dust such as 1e-17; zero means zero.
      budget.reserved = budget.holds.size === 0 ? 0 : budget.reserved - held;
    }
    budget.spent += cost;
  }

  async charge(key: string, cost: number): Promise<void> {
    this.#budget(key).spent += cost;
  }

  async budgetState(key: string): Promise<BudgetState> {
    const { spent, reserved } = this.#budget(key);
    return { spent, reserved };
  }

  async resetBudget(key: string): Promise<void> {
    this.#budget(key).spent = 0;
  }

  async takeRate(key: string, take: RateTake): Promise<RateGrant> {
    const state = this.#rate(key);
    return { ...takeSlot(state, take), epoch: state.epoch };
  }

  async releaseRate(key: string, release: RateRelease): Promise<void> {
    releaseSlot(this.#rate(key), release);
  }

  async penalizeRate(key: string, penalty: RatePenalty): Promise<number> {
    const state = this.#rate(key);
    penalize(state, penalty);
    return state.epoch;
  }

  /** Reservations held by calls in flight, over every budget (0 once every call has settled). */
  get reservations(): number {
    let count = 0;
    for (const budget of this.#budgets.values()) count += budget.holds.size;
    return count;
  }

  #budget(key: string): Budget {
    let budget = this.#budgets.get(key);
    if (budget === undefined) {
      budget = { spent: 0, reserved: 0, holds: new Map() };
      this.#budgets.set(key, budget);
    }
    return budget;
  }

  #rate(key: string): PacingState {
    let state = this.#rates.get(key);
    if (state === undefined) {
      state = newPacingState();
      this.#rates.set(key, state);
    }
    return state;
  }
}
