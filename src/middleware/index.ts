/**
 * @module `langchain-inference-service/middleware`: agent middleware for `createAgent` from
 * `langchain` (an optional peer: only this subpath imports it) — a budget and a per-invocation
 * cost cap that end the agent before a call that no longer fits, and fallbacks on the failures
 * another model may not have. Runs in any JS runtime.
 */
export { type BudgetMiddlewareOptions, budgetMiddleware } from "./budget.js";
export type { BudgetLimit, BudgetReached } from "./budget_reached.js";
export { type FallbackMiddlewareOptions, fallbackMiddleware } from "./fallback.js";
export { type FallbackCandidates, shouldFallBack } from "./fallback_rules.js";
