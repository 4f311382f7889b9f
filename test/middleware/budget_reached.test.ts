/** The budget's last message: its words for each limit, with or without a reserving model, and its figures. */
import { AIMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { BudgetExceededError } from "../../src/errors/errors.js";
import { budgetReached, budgetReachedMessage } from "../../src/middleware/budget_reached.js";

describe("budgetReachedMessage", () => {
  it("says what this run may spend and spent when maxCost stopped it, and the call not sent", () => {
    const refusal = new BudgetExceededError({
      budget: 0.01,
      spent: 0.0091234567,
      requested: 0.0012,
      currency: "credit",
      model: "emulator-chat",
    });
    const message = budgetReachedMessage(budgetReached(refusal, "maxCost", 0.0091234567));
    expect(AIMessage.isInstance(message)).toBe(true);
    expect(message.text).toBe(
      'Budget reached: this run may spend 0.01 credit (maxCost) and has spent 0.00912346 credit; its next model call to "emulator-chat" (up to 0.0012 credit) was not sent.',
    );
    expect(message.response_metadata.budgetExceeded).toEqual({
      limit: "maxCost",
      budget: 0.01,
      spent: 0.0091234567,
      reserved: 0,
      requested: 0.0012,
      runSpent: 0.0091234567,
      currency: "credit",
      model: "emulator-chat",
    });
  });

  it("says what the shared budget holds when it stopped the run, without a unit, a model or a worst case it was not given", () => {
    const refusal = new BudgetExceededError({ budget: 5, spent: 4.5, reserved: 0.5 });
    const message = budgetReachedMessage(budgetReached(refusal, "budget", 0.25));
    expect(message.text).toBe(
      "Budget reached: the usage budget of 5 has 4.5 spent, 0.5 held by calls in flight; the next model call was not sent. This run spent 0.25.",
    );
    expect(message.response_metadata.budgetExceeded).toEqual({
      limit: "budget",
      budget: 5,
      spent: 4.5,
      reserved: 0.5,
      runSpent: 0.25,
    });
  });
});
