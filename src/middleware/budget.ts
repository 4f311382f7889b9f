/**
 * @module `budgetMiddleware`: a `UsageTracker`'s budget, and a cap on what one agent invocation
 * spends (`maxCost`), as the way an agent ends — before a model call that no longer fits, never in
 * the middle of its loop.
 *
 * Each model call of the agent carries two trackers in its callbacks: the user's (its shared
 * budget, its records) and one of the call's own with the same prices, holding `maxCost` with
 * what the invocation spent so far already charged. This package's models reserve the call's
 * worst case with both before sending (their own estimate of the request as sent), so a call that
 * does not fit is refused unsent; other LangChain models are refused at their start once a
 * tracker's records reach its limit. The middleware turns that refusal into the ending chosen.
 * What the invocation spent rides in the agent's state (a private field), so a second invocation
 * starts from nothing.
 */
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { Callbacks } from "@langchain/core/callbacks/manager";
import type { Serialized } from "@langchain/core/load/serializable";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { z } from "zod";
import { optionsSchema, parseOptions } from "../config/options.js";
import { hasBrand, SPEND_GUARD_BRAND } from "../constants.js";
import { BudgetExceededError, ConfigurationError } from "../errors/errors.js";
import type { UsageTracker } from "../spend/usage_tracker.js";
import { MemoryStore } from "../stores/memory_store.js";
import { fitsBudget } from "../stores/usage_store.js";
import { type BudgetLimit, budgetReached, budgetReachedMessage } from "./budget_reached.js";
import { typedCause } from "./middleware_error.js";

/** A tracker of this package (any copy of it) recent enough to give each call a cap of its own. */
function isUsageTracker(value: unknown): value is UsageTracker {
  return (
    hasBrand(value, SPEND_GUARD_BRAND) &&
    typeof (value as { withBudget?: unknown }).withBudget === "function"
  );
}

export const budgetMiddlewareOptions = optionsSchema({
  /**
   * Counts every model call of the agent and holds its `budget`: shared by every call on the
   * tracker (in this process, or through its `store` across processes). It may also be in the
   * invocation's callbacks (so that calls middleware make on their own, such as a summary, are
   * counted too): nothing is counted twice.
   * @default none: required
   */
  tracker: z
    .custom<UsageTracker>(isUsageTracker)
    .describe("a UsageTracker of langchain-inference-service"),
  /**
   * The most one agent invocation may spend on its model calls, in the unit of the tracker's
   * prices: each invocation (`invoke`, `stream`) gets the whole of it. Needs the tracker's `prices`.
   * @default none (only the tracker's `budget` applies)
   */
  maxCost: z
    .number()
    .nonnegative()
    .describe("a number ≥ 0, in the unit of the tracker's prices")
    .optional(),
  /**
   * What a call that does not fit does: `"end"` stops the agent without calling the model, and
   * the agent returns normally, its last message an `AIMessage` that says which limit was reached
   * and what was spent (the figures in its `response_metadata.budgetExceeded`); `"throw"` rejects
   * the invocation with `BudgetExceededError`.
   * @default "end"
   */
  onExhausted: z.enum(["end", "throw"]).describe('"end" or "throw"').default("end"),
}).strict();

/** Options of {@link budgetMiddleware}. */
export type BudgetMiddlewareOptions = z.input<typeof budgetMiddlewareOptions>;

const SPEC = { owner: "budgetMiddleware", schema: budgetMiddlewareOptions };

/** Private state fields (LangChain keeps `_` fields out of the agent's input and output). */
const SPENT = "_inferenceServiceRunSpent";
const REFUSAL = "_inferenceServiceBudgetRefusal";

/** A refusal as the state carries it to `afterModel`, which throws it: `BudgetExceededError`'s fields. */
const refusalSchema = z.object({
  budget: z.number(),
  spent: z.number(),
  reserved: z.number(),
  requested: z.number().optional(),
  currency: z.string().optional(),
  model: z.string().optional(),
});

const stateSchema = z.object({
  /** What this invocation's model calls cost so far. */
  [SPENT]: z.number().optional(),
  /** A refusal to throw (`onExhausted: "throw"`), once the model step is over. */
  [REFUSAL]: refusalSchema.nullable().optional(),
});

/** The model call's callbacks with `added` after whatever `modelSettings.callbacks` held. */
function withHandlers(callbacks: unknown, added: BaseCallbackHandler[]): Callbacks {
  if (callbacks === undefined) return added;
  if (Array.isArray(callbacks)) return [...callbacks, ...added];
  return (callbacks as { copy(handlers: BaseCallbackHandler[]): Callbacks }).copy(added);
}

/**
 * Notes the model runs one step starts. A run of another provider's model that a tracker refuses
 * at its start gets no end from LangChain, though the other trackers of the call saw it begin:
 * the middleware ends it with them, as refused.
 */
class StartedRuns extends BaseCallbackHandler {
  name = "budget_middleware_started_runs";
  readonly ids: string[] = [];

  override handleChatModelStart(_llm: Serialized, _messages: BaseMessage[][], runId: string): void {
    this.ids.push(runId);
  }

  override handleLLMStart(_llm: Serialized, _prompts: string[], runId: string): void {
    this.ids.push(runId);
  }
}

/**
 * Agent middleware (`createAgent` from `langchain`) that stops the agent before a model call whose
 * worst case no longer fits the tracker's `budget` (shared by every call on the tracker) or
 * `maxCost` (what this invocation may spend): with `onExhausted: "end"` the agent returns
 * normally, its last message saying so; with `"throw"` the invocation rejects with
 * `BudgetExceededError`. Either way the model is not called. A call refused by the model's own
 * reservation — another agent on the same shared budget got there first — ends the same way.
 *
 * This package's models hold each call's worst case exactly (their own estimate of the request,
 * plus `maxTokens`); other LangChain chat models are checked from the tracker's records at the
 * start of each call, so they stop once a limit is spent.
 *
 * @example
 * ```ts
 * import { createAgent } from "langchain";
 * import { ChatInferenceService, UsageTracker } from "langchain-inference-service";
 * import { budgetMiddleware } from "langchain-inference-service/middleware";
 *
 * const tracker = new UsageTracker({
 *   prices: { "emulator-chat": { input: 0.5, output: 1.5 } },
 *   budget: 5,
 *   currency: "credit",
 * });
 * const agent = createAgent({
 *   model: new ChatInferenceService("emulator-chat", { maxTokens: 512 }),
 *   tools: [],
 *   middleware: [budgetMiddleware({ tracker, maxCost: 0.01 })],
 * });
 * ```
 */
export function budgetMiddleware(options: BudgetMiddlewareOptions) {
  const { tracker, maxCost, onExhausted } = parseOptions(SPEC, options);
  if (maxCost !== undefined) needsPrices(tracker);

  /** A tracker for one model call: the user's prices, `maxCost` with `runSpent` already charged. */
  const callTracker = async (runSpent: number): Promise<UsageTracker> => {
    if (maxCost === undefined) return tracker.withBudget(undefined);
    const store = new MemoryStore();
    const call = tracker.withBudget(maxCost, store);
    await store.charge(call.budgetKey, runSpent);
    return call;
  };

  /** Which limit refused the call: `maxCost` when the call's own tracker cannot hold it. */
  const limitOf = async (
    call: UsageTracker,
    refusal: BudgetExceededError,
  ): Promise<BudgetLimit> => {
    if (maxCost === undefined) return "budget";
    const state = await call.budgetStatus();
    const reached =
      refusal.requested === undefined
        ? state.spent + state.reserved >= maxCost
        : !fitsBudget(state, refusal.requested, maxCost);
    return reached ? "maxCost" : "budget";
  };

  return createMiddleware({
    name: "budgetMiddleware",
    stateSchema,
    // Each invocation starts with nothing spent, even on a thread a checkpointer keeps.
    beforeAgent: () => ({ [SPENT]: 0, [REFUSAL]: null }),
    wrapModelCall: async (request, handler) => {
      const before = request.state[SPENT] ?? 0;
      const call = await callTracker(before);
      const started = new StartedRuns();
      const callbacks = withHandlers(request.modelSettings?.callbacks, [tracker, call, started]);
      let response: Awaited<ReturnType<typeof handler>>;
      try {
        response = await handler({
          ...request,
          modelSettings: { ...request.modelSettings, callbacks },
        });
      } catch (error) {
        const refusal = typedCause(error);
        if (!BudgetExceededError.isInstance(refusal)) throw error;
        // A run already ended (this package's models end a refused one themselves) is left as it is.
        for (const runId of started.ids) tracker.handleLLMError(refusal, runId);
        const runSpent = before + call.spent;
        if (onExhausted === "throw") {
          // Thrown by `afterModel`, where LangChain does not wrap it in a MiddlewareError.
          const { budget, spent, reserved, requested, currency, model } = refusal;
          const init = { budget, spent, reserved, requested, currency, model };
          return new Command({ update: { [SPENT]: runSpent, [REFUSAL]: init } });
        }
        const limit = await limitOf(call, refusal);
        return budgetReachedMessage(budgetReached(refusal, limit, runSpent));
      }
      // A reply carries the step's cost into the state; a structured response ends the run, so
      // nothing reads it after that step.
      if (!AIMessage.isInstance(response)) return response;
      return new Command({ update: { [SPENT]: before + call.spent } });
    },
    afterModel: (state) => {
      const refusal = state[REFUSAL];
      if (refusal) throw new BudgetExceededError(refusal);
      return undefined;
    },
  });
}

/** `maxCost` prices calls by the tracker's prices: refused, naming `maxCost`, when it has none. */
function needsPrices(tracker: UsageTracker): void {
  try {
    tracker.withBudget(0);
  } catch (error) {
    if (!ConfigurationError.isInstance(error)) throw error;
    throw new ConfigurationError(
      "maxCost",
      "`maxCost` needs the tracker's `prices`: without a price no call has a cost, so the cap is never reached.",
    );
  }
}
