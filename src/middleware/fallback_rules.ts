/**
 * @module When a failed model call goes to another model, as a table: one row per failure, the
 * first that matches decides. `fallbackMiddleware` reads it through {@link shouldFallBack};
 * docs/agents.md shows it (a test checks the page against it).
 */
import { ContextOverflowError } from "@langchain/core/errors";
import { isAbortError } from "../errors/abort.js";
import {
  AuthenticationError,
  BadRequestError,
  BudgetExceededError,
  ContentFilterError,
  InsufficientCreditError,
  ModelNotFoundError,
  RateLimitError,
  ServiceConnectionError,
  ServiceTimeoutError,
  ServiceUnavailableError,
} from "../errors/errors.js";

/** The model that failed and the one a fallback would go to, as `on` is asked about them. */
export interface FallbackCandidates {
  /** The model whose call failed (the agent's own model, or a fallback). */
  failed: unknown;
  /** The next model of `models` that could take the call. */
  next: unknown;
}

/**
 * Whether another model is tried: `"yes"`, `"no"`, or `"larger window"` — only a model whose
 * context window (`profile.maxInputTokens`) is larger, where both models declare one.
 */
export type FallbackChoice = "yes" | "no" | "larger window";

/** One row: a failure, whether another model is tried for it, and why. */
export interface FallbackRule {
  /** The failure, as the docs name it. */
  failure: string;
  matches(error: unknown): boolean;
  fallBack: FallbackChoice;
  /** Why, in a sentence. */
  why: string;
}

/** The failures, most specific first (a subclass before its parent): the first row that matches decides. */
export const FALLBACK_RULES: readonly FallbackRule[] = [
  {
    failure: "an abort (the caller's signal)",
    matches: isAbortError,
    fallBack: "no",
    why: "The caller stopped the call: no model should answer it.",
  },
  {
    failure: "`BudgetExceededError`",
    matches: (error) => BudgetExceededError.isInstance(error),
    fallBack: "no",
    why: "A budget refused the call before it was sent: it holds every model's calls alike.",
  },
  {
    failure: "`AuthenticationError`",
    matches: (error) => AuthenticationError.isInstance(error),
    fallBack: "no",
    why: "The key is refused, and with it every model called with it.",
  },
  {
    failure: "`InsufficientCreditError`",
    matches: (error) => InsufficientCreditError.isInstance(error),
    fallBack: "no",
    why: "The Wallet is the account's: every model of the account is refused until it is topped up.",
  },
  {
    failure: "`ContextLengthExceededError` (any LangChain `ContextOverflowError`)",
    matches: (error) => ContextOverflowError.isInstance(error),
    fallBack: "larger window",
    why: "Only a larger context window takes the same prompt; a model whose declared window is not larger is skipped.",
  },
  {
    failure: "`ContentFilterError`",
    matches: (error) => ContentFilterError.isInstance(error),
    fallBack: "no",
    why: "The prompt itself was refused: it would be sent as it is to the next model.",
  },
  {
    failure: "`BadRequestError`",
    matches: (error) => BadRequestError.isInstance(error),
    fallBack: "no",
    why: "The request needs changing; another model would hide the bug.",
  },
  {
    failure: "`ModelNotFoundError`",
    matches: (error) => ModelNotFoundError.isInstance(error),
    fallBack: "yes",
    why: "This model ID is not served (unknown or withdrawn); another one may be.",
  },
  {
    failure: "`RateLimitError`",
    matches: (error) => RateLimitError.isInstance(error),
    fallBack: "yes",
    why: "It reaches the middleware once the model's own retries (`maxRetries`) are spent; another model has limits of its own.",
  },
  {
    failure: "`ServiceUnavailableError`",
    matches: (error) => ServiceUnavailableError.isInstance(error),
    fallBack: "yes",
    why: "A passing fault of this model's upstream, after its retries.",
  },
  {
    failure: "`ServiceTimeoutError`",
    matches: (error) => ServiceTimeoutError.isInstance(error),
    fallBack: "yes",
    why: "No answer in `timeout` (or a stalled stream), after its retries.",
  },
  {
    failure: "`ServiceConnectionError`",
    matches: (error) => ServiceConnectionError.isInstance(error),
    fallBack: "yes",
    why: "The service could not be reached, after its retries; another model may be reached otherwise (another provider).",
  },
  {
    failure: "another provider's error LangChain codes `MODEL_NOT_FOUND` or `MODEL_RATE_LIMIT`",
    matches: (error) => {
      const code = (error as { lc_error_code?: unknown } | null)?.lc_error_code;
      return code === "MODEL_NOT_FOUND" || code === "MODEL_RATE_LIMIT";
    },
    fallBack: "yes",
    why: "The same failures as `ModelNotFoundError` and `RateLimitError`, from a model of another package.",
  },
  {
    failure: "anything else",
    matches: () => true,
    fallBack: "no",
    why: "Not known to be another model's to fix: thrown as it is, unless `on` says otherwise.",
  },
];

/** The context window a model declares in its profile, if any. */
function windowOf(model: unknown): number | undefined {
  const window = (model as { profile?: { maxInputTokens?: unknown } } | null)?.profile
    ?.maxInputTokens;
  return typeof window === "number" ? window : undefined;
}

/**
 * The default choice of `fallbackMiddleware`: whether the call that failed with `error` goes to
 * `next`, by the first row of {@link FALLBACK_RULES} that matches. Call it from your own `on` to
 * add to the rules instead of replacing them.
 *
 * @example
 * ```ts
 * fallbackMiddleware({
 *   models: [backup],
 *   on: (error, models) => KeyQuotaExceededError.isInstance(error) || shouldFallBack(error, models),
 * });
 * ```
 */
export function shouldFallBack(error: unknown, { failed, next }: FallbackCandidates): boolean {
  const rule = FALLBACK_RULES.find((row) => row.matches(error));
  if (rule?.fallBack !== "larger window") return rule?.fallBack === "yes";
  const from = windowOf(failed);
  const to = windowOf(next);
  return from === undefined || to === undefined || to > from;
}
