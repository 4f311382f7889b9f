/**
 * @module `fallbackMiddleware`: an agent's model call that fails with what another model may not
 * have (an unknown model, a passing fault, a prompt too long for this window) goes to the next
 * model, in order; what no other model fixes (a refused key, an empty Wallet, a budget, a bad
 * request, a refused prompt, an abort) is thrown at once.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { createMiddleware, type ModelRequest } from "langchain";
import { z } from "zod";
import { optionsSchema, parseOptions } from "../config/options.js";
import { type FallbackCandidates, shouldFallBack } from "./fallback_rules.js";
import { typedCause } from "./middleware_error.js";

/** A chat model an agent can bind its tools to. */
function isToolChatModel(value: unknown): value is BaseChatModel {
  const model = value as { invoke?: unknown; bindTools?: unknown } | null;
  return typeof model?.invoke === "function" && typeof model.bindTools === "function";
}

export const fallbackMiddlewareOptions = optionsSchema({
  /**
   * The models to try, in order, after the agent's own model: each gets the same request (messages,
   * tools, system prompt) when the one before it failed with a failure the rules let through.
   * @default none: required
   */
  models: z
    .array(z.custom<BaseChatModel>(isToolChatModel))
    .min(1)
    .describe("a non-empty array of chat models that can bind tools (`bindTools`)"),
  /**
   * Whether a failed call goes to `next`: replaces the default choice, {@link shouldFallBack}
   * (which your function may call to add to it). Gets the failure as the model threw it (out of
   * LangChain's `MiddlewareError`), the model that failed and the candidate.
   * @default shouldFallBack
   */
  on: z
    .custom<(error: unknown, models: FallbackCandidates) => boolean>(
      (value) => typeof value === "function",
    )
    .describe("a function (error, { failed, next }) => boolean")
    .optional(),
}).strict();

/** Options of {@link fallbackMiddleware}. */
export type FallbackMiddlewareOptions = z.input<typeof fallbackMiddlewareOptions>;

const SPEC = { owner: "fallbackMiddleware", schema: fallbackMiddlewareOptions };

/**
 * Agent middleware (`createAgent` from `langchain`): when the model call fails with a failure
 * another model may not have, sends the same request to the next of `models`, in order —
 * `ModelNotFoundError`, `ServiceUnavailableError`, `RateLimitError` once the model's own retries
 * are spent, `ServiceTimeoutError`, `ServiceConnectionError`, and `ContextLengthExceededError`
 * (only to a model whose declared `maxInputTokens` is larger). Never on `AuthenticationError`,
 * `InsufficientCreditError`, `BudgetExceededError`, `BadRequestError`, `ContentFilterError` or an
 * abort: those are thrown at once. When every model fails, the last failure is thrown (LangChain
 * hands it to the caller as a `MiddlewareError`, the typed error its `cause`). Each attempt is a
 * model run of its own, so the invocation's callbacks (a `UsageTracker`) count every one.
 *
 * @example
 * ```ts
 * import { createAgent } from "langchain";
 * import { ChatInferenceService } from "langchain-inference-service";
 * import { fallbackMiddleware } from "langchain-inference-service/middleware";
 *
 * const agent = createAgent({
 *   model: new ChatInferenceService("emulator-chat"),
 *   tools: [],
 *   middleware: [fallbackMiddleware({ models: [new ChatInferenceService("emulator-reasoner")] })],
 * });
 * ```
 */
export function fallbackMiddleware(options: FallbackMiddlewareOptions) {
  const { models, on = shouldFallBack } = parseOptions(SPEC, options);
  return createMiddleware({
    name: "fallbackMiddleware",
    wrapModelCall: async (request, handler) => {
      let failed: ModelRequest["model"] = request.model;
      let error: unknown;
      try {
        return await handler(request);
      } catch (caught) {
        error = typedCause(caught);
      }
      for (let from = 0; ; ) {
        // A call its caller stopped is never sent again, whatever it failed with.
        if (request.runtime.signal?.aborted) throw error;
        const at = models.findIndex((next, i) => i >= from && on(error, { failed, next }));
        if (at < 0) throw error;
        const next = models[at]!;
        try {
          return await handler({ ...request, model: next });
        } catch (caught) {
          error = typedCause(caught);
          failed = next;
          from = at + 1;
        }
      }
    },
  });
}
