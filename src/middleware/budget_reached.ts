/**
 * @module The agent's last message when a budget stops it (`onExhausted: "end"`): which limit was
 * reached, what was spent, and the call that was not sent — in words for the reader and, in
 * `response_metadata.budgetExceeded`, as figures a program reads.
 */
import { AIMessage } from "@langchain/core/messages";
import type { BudgetExceededError } from "../errors/errors.js";

/** Which limit stopped the agent: the invocation's own `maxCost`, or the tracker's `budget`. */
export type BudgetLimit = "maxCost" | "budget";

/** What `response_metadata.budgetExceeded` of the agent's last message holds. */
export interface BudgetReached {
  limit: BudgetLimit;
  /** The limit's amount, in the unit of the tracker's prices. */
  budget: number;
  /** Settled against that limit: this invocation's spend (`maxCost`), or the budget's (every caller's). */
  spent: number;
  /** Held by calls in flight when the call was refused. */
  reserved: number;
  /** The refused call's worst case, when its model reserves (this package's models). */
  requested?: number;
  /** What this invocation's model calls cost, failed attempts included. */
  runSpent: number;
  currency?: string;
  /** The model ID of the refused call. */
  model?: string;
}

/** A cost as messages print it: six significant digits, and the unit. */
function amount(value: number, currency: string | undefined): string {
  return `${Number(value.toPrecision(6))}${currency ? ` ${currency}` : ""}`;
}

/** The figures of a refusal, with the limit it came from and what the invocation spent. */
export function budgetReached(
  refusal: BudgetExceededError,
  limit: BudgetLimit,
  runSpent: number,
): BudgetReached {
  return {
    limit,
    budget: refusal.budget,
    spent: refusal.spent,
    reserved: refusal.reserved,
    ...(refusal.requested !== undefined ? { requested: refusal.requested } : {}),
    runSpent,
    ...(refusal.currency !== undefined ? { currency: refusal.currency } : {}),
    ...(refusal.model !== undefined ? { model: refusal.model } : {}),
  };
}

/** The message an agent ends with when `reached` stopped it: says the limit, the spend and the call not sent. */
export function budgetReachedMessage(reached: BudgetReached): AIMessage {
  const $ = (value: number) => amount(value, reached.currency);
  const call = `${reached.model ? ` to "${reached.model}"` : ""}${
    reached.requested !== undefined ? ` (up to ${$(reached.requested)})` : ""
  }`;
  const held = reached.reserved > 0 ? `, ${$(reached.reserved)} held by calls in flight` : "";
  const content =
    reached.limit === "maxCost"
      ? `Budget reached: this run may spend ${$(reached.budget)} (maxCost) and has spent ${$(reached.runSpent)}; its next model call${call} was not sent.`
      : `Budget reached: the usage budget of ${$(reached.budget)} has ${$(reached.spent)} spent${held}; the next model call${call} was not sent. This run spent ${$(reached.runSpent)}.`;
  return new AIMessage({ content, response_metadata: { budgetExceeded: reached } });
}
