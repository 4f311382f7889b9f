/**
 * @module `langchain-inference-service/stores`: what a `UsageStore` is made of, for writing your
 * own (a database, a service). The budget and rate-limit operations each store runs atomically,
 * and the default in-process store. Runs in any JS runtime.
 */
export { MemoryStore } from "./memory_store.js";
export type {
  BudgetReservation,
  BudgetState,
  RateGrant,
  RatePenalty,
  RateRelease,
  RateSpan,
  RateTake,
  ReserveOutcome,
  UsageStore,
} from "./usage_store.js";
