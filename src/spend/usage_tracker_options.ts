/**
 * @module The options of `UsageTracker` (and of `withUsage`), declared once: prices per model,
 * the budget and where it lives, and what a tracker keeps.
 */
import { z } from "zod";
import { optionsSchema, parseOptions } from "../config/options.js";
import { ConfigurationError } from "../errors/errors.js";
import { MemoryStore } from "../stores/memory_store.js";
import { usageStoreSchema } from "../stores/usage_store.js";
import { defaultReplyTokensSchema } from "./estimate.js";
import type { UsageRecord } from "./usage_records.js";

const pricePerMillion = z
  .number()
  .nonnegative()
  .describe("a number ≥ 0 (price per million tokens)");

const modelPriceShape = optionsSchema({
  /** Per million input (prompt) tokens. */
  input: pricePerMillion,
  /** Per million output (completion) tokens, reasoning included. */
  output: pricePerMillion,
  /**
   * Per million cached input tokens: the part of the prompt the model server read from its
   * prompt cache (`prompt_tokens_details.cached_tokens`, `usage_metadata.input_token_details.cache_read`).
   * @default `input`
   */
  cachedInput: pricePerMillion.optional(),
  /**
   * Per million prompt tokens written to the prompt cache to live five minutes
   * (`prompt_tokens_details.cached_creation_tokens` or `cache_write_tokens`,
   * `usage_metadata.input_token_details.cache_creation`): Anthropic bills them at 1.25 × input.
   * @default `input`
   */
  cacheWrite: pricePerMillion.optional(),
  /**
   * Per million prompt tokens written to the prompt cache to live an hour
   * (`claude_cache_creation_1_h_tokens`, `input_token_details.ephemeral_1h_input_tokens`):
   * Anthropic bills them at 2 × input.
   * @default `cacheWrite`
   */
  cacheWrite1h: pricePerMillion.optional(),
}).strict();

/** Price of one model per million tokens, in the unit of your choice (e.g. the Wallet's credit). */
export interface ModelPrice extends z.output<typeof modelPriceShape> {}

/** One model's price, typed by name so that `prices` shows its fields' documentation. */
const modelPriceSchema: z.ZodType<ModelPrice, ModelPrice> = modelPriceShape;

/** Options of {@link UsageTracker} (and of {@link withUsage}); each is checked when the tracker is built. */
export const usageTrackerOptions = optionsSchema({
  /**
   * Price per million tokens of each model ID (hosted surface) or Service-Name (dedicated
   * surface). Cost is computed locally from these; a model without a price counts tokens only.
   * @default {} (no costs)
   */
  prices: z
    .record(z.string(), modelPriceSchema)
    .describe(
      "an object of { input, output, cachedInput?, cacheWrite?, cacheWrite1h? } per model: prices per million tokens, numbers ≥ 0",
    )
    .default(() => ({})),
  /**
   * Spending limit, in the unit of `prices`. Before each request of this package's models (as it
   * leaves the `maxConcurrency` queue) the tracker reserves the request's worst-case cost — its
   * estimated prompt plus `max_tokens` (or `defaultReplyTokens`) per choice — and refuses it with
   * {@link BudgetExceededError}, unsent, when the budget cannot hold it; when the call ends the
   * reservation settles to the real cost. Other LangChain models are checked when their run
   * starts and counted when it ends. Needs `prices`.
   * @default none
   */
  budget: z.number().nonnegative().describe("a number ≥ 0, in the unit of `prices`").optional(),
  /** Unit label of prices and budget for `summary()` and errors, e.g. `"credit"`. @default none */
  currency: z.string().describe("a string").optional(),
  /** Called once per finished run (failed ones too), for live dashboards. @default none */
  onUsage: z
    .custom<(record: UsageRecord) => void>((v) => typeof v === "function")
    .describe("a function")
    .optional(),
  /** How many records `records` keeps (oldest dropped first); totals count every run. @default 10000 */
  maxRecords: z
    .union([z.number().int().nonnegative(), z.literal(Number.POSITIVE_INFINITY)])
    .describe("a whole number ≥ 0, or Infinity")
    .default(10_000),
  /**
   * Where the budget's spend and reservations live. A `RedisStore`
   * (`langchain-inference-service/redis`) shares one budget between processes.
   * @default a new `MemoryStore` (this tracker alone)
   */
  store: usageStoreSchema.default(() => new MemoryStore()),
  /** Names the budget in the store: trackers with one `budgetKey` and one store share one budget. @default "default" */
  budgetKey: z.string().min(1).describe("a non-empty string").default("default"),
  /** Reply tokens reserved for a request that sets no `max_tokens` (a longer reply overshoots). @default 1024 */
  defaultReplyTokens: defaultReplyTokensSchema,
}).strict();

/** Options of {@link UsageTracker} (and of {@link withUsage}); each is checked when the tracker is built. */
export type UsageTrackerOptions = z.input<typeof usageTrackerOptions>;

const SPEC = {
  owner: "UsageTracker",
  schema: usageTrackerOptions,
  takes:
    "prices, budget, currency, onUsage, maxRecords, store, budgetKey, defaultReplyTokens, and prices of { input, output, cachedInput, cacheWrite, cacheWrite1h }",
};

/**
 * Checks a `UsageTracker`'s options where they enter and returns them with their defaults; the
 * error names the option (`prices.<model>.input`).
 */
export function validateUsageTrackerOptions(
  options: unknown,
): z.output<typeof usageTrackerOptions> {
  const checked = parseOptions(SPEC, options);
  if (checked.budget !== undefined && Object.keys(checked.prices).length === 0) {
    throw new ConfigurationError(
      "budget",
      "`budget` needs `prices`: without a price no call has a cost, so the budget is never reached.",
    );
  }
  return checked;
}
