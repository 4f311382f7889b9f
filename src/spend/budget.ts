/**
 * @module A tracker's budget as its store holds it: reservations of the calls in flight, settled
 * to their real cost, and the spend of calls nobody reserved for — shared by every tracker (and
 * process) that uses the same store and budget key.
 */
import { BudgetExceededError } from "../errors/errors.js";
import type { BudgetState, UsageStore } from "../stores/usage_store.js";

/** A tracker's budget as its store holds it (shared by every process using the same store and key). */
export interface BudgetStatus extends BudgetState {
  budget?: number;
  /** `budget − spent − reserved`, never below 0; absent without a budget. */
  remaining?: number;
}

/** One budget in one store; every write that follows a call that already happened never throws. */
export class Budget {
  constructor(
    readonly store: UsageStore,
    readonly key: string,
    /** The limit, in the unit of the prices; undefined: spend is counted, never refused. */
    readonly limit: number | undefined,
    readonly currency: string | undefined,
  ) {}

  async status(): Promise<BudgetStatus> {
    const state = await this.store.budgetState(this.key);
    if (this.limit === undefined) return state;
    const remaining = Math.max(0, this.limit - state.spent - state.reserved);
    return { ...state, budget: this.limit, remaining };
  }

  /** Forgets the settled spend (in a shared store, for every process). */
  async reset(): Promise<void> {
    if (this.limit !== undefined) await this.store.resetBudget(this.key);
  }

  /** Refuses a call of `model` when nothing of the budget is left (a model that cannot reserve). */
  async refuseWhenSpent(model: string): Promise<void> {
    if (this.limit === undefined) return;
    const { spent, reserved } = await this.store.budgetState(this.key);
    if (spent + reserved >= this.limit) {
      throw new BudgetExceededError({
        budget: this.limit,
        spent,
        reserved,
        currency: this.currency,
        model,
      });
    }
  }

  /**
   * Holds `amount` under `id` until it is settled; throws `BudgetExceededError` (and holds
   * nothing) when the budget cannot hold it.
   */
  async hold(id: string, amount: number, model: string): Promise<void> {
    if (this.limit === undefined) return;
    const outcome = await this.store.reserve(this.key, { id, amount, budget: this.limit });
    if (!outcome.ok) {
      throw new BudgetExceededError({
        budget: this.limit,
        spent: outcome.spent,
        reserved: outcome.reserved,
        requested: amount,
        currency: this.currency,
        model,
      });
    }
  }

  /** Replaces the hold `id` by the call's real cost. */
  settle(id: string, cost: number): Promise<void> {
    return this.#quietly("settle", () => this.store.settle(this.key, id, cost));
  }

  /** Adds the cost of a call nobody reserved for. */
  charge(cost: number): Promise<void> {
    if (this.limit === undefined) return Promise.resolve();
    return this.#quietly("charge", () => this.store.charge(this.key, cost));
  }

  /**
   * Runs a store write whose failure must not fail a call that already happened. Nothing is
   * lost for good: an unsettled reservation stays held (a shared store charges it in full when
   * its lease ends), so the budget errs on the safe side.
   */
  async #quietly(operation: string, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      console.warn(`UsageTracker could not ${operation} with its store: ${String(error)}`);
    }
  }
}
