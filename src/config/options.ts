/**
 * @module Option checking, made once where options enter: one zod schema per entry point and
 * one helper, {@link parseOptions}, that turns the first problem into a `ConfigurationError`
 * naming the option and saying what it must be.
 */
import { z } from "zod";
import { hasBrand, RATE_LIMITER_BRAND } from "../constants.js";
import { ConfigurationError } from "../errors/errors.js";
import type { UsageStore } from "../stores/usage_store.js";
import { DEFAULT_MAX_RETRIES, type RetryOptions } from "../transport/retry.js";
import { type ModelProfiles, PROFILES_EXPECTED, profilesSchema } from "./profiles.js";

/** A schema and the words its problems are reported in. */
export interface OptionsSpec {
  /** The class or function the options are given to, named when an option is unknown. */
  owner: string;
  schema: z.ZodType;
  /**
   * What each option must be, by dotted path; a `*` segment matches any key (e.g. a model ID).
   * The longest path that matches the problem's wins.
   */
  expected: Readonly<Record<string, string>>;
  /** The options the owner takes, listed when an unknown one is given at the top level. */
  takes?: string;
}

/**
 * Checks `value` against `spec.schema` and returns it unchanged, or throws a `ConfigurationError`
 * for the first problem: its `option` is the dotted path (`retry.initialDelayMs`,
 * `prices.<model>.input`; an array counts as one option), its message says what the option must
 * be and what it got.
 */
export function parseOptions<T>(spec: OptionsSpec, value: T): T {
  const result = spec.schema.safeParse(value);
  if (result.success) return value;
  const issue = result.error.issues[0]!;
  // An array is one option: `stop` must be an array of strings, not `stop.0` a string.
  const firstIndex = issue.path.findIndex((key) => typeof key !== "string");
  const path = (firstIndex < 0 ? issue.path : issue.path.slice(0, firstIndex)).map(String);
  if (issue.code === "unrecognized_keys" && firstIndex < 0) {
    const option = [...path, issue.keys[0]!].join(".");
    throw new ConfigurationError(
      option,
      path.length === 0
        ? `\`${option}\` is not an option of ${spec.owner}; it takes ${spec.takes ?? Object.keys(spec.expected).join(", ")}.`
        : `\`${option}\` is not an option: \`${path.join(".")}\` must be ${expectedAt(spec, path)}.`,
    );
  }
  const option = path.join(".") || "options";
  const got = path.reduce<unknown>(
    (parent, key) => (parent as Record<string, unknown> | null | undefined)?.[key],
    value,
  );
  throw new ConfigurationError(
    option,
    `\`${option}\` must be ${expectedAt(spec, path)}; got ${describeValue(got)}.`,
  );
}

/** The `expected` entry of the longest pattern matching `path`. */
function expectedAt(spec: OptionsSpec, path: readonly string[]): string {
  for (let length = path.length; length > 0; length--) {
    for (const [pattern, text] of Object.entries(spec.expected)) {
      const parts = pattern.split(".");
      if (parts.length === length && parts.every((p, i) => p === "*" || p === path[i])) {
        return text;
      }
    }
  }
  return "an object";
}

/** A value as an error message shows it; never throws (BigInt, cycles). */
function describeValue(value: unknown): string {
  if (typeof value === "function") return "a function";
  // JSON writes Infinity and NaN as null: show what was really given.
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

// ---- the models' options ------------------------------------------------------------------

/** The options every model of this package accepts and checks the same way. */
export interface CommonOptions {
  maxRetries?: number;
  maxConcurrency?: number;
  timeout?: number;
  idleTimeout?: number;
  retry?: RetryOptions;
  profiles?: ModelProfiles;
  rateLimiter?: unknown;
}

const milliseconds = z.number().nonnegative();

/** What a `UsageStore` must have: its methods, checked by name (users may write their own). */
function isUsageStore(value: unknown): value is UsageStore {
  const store = value as Record<string, unknown> | null;
  return (
    typeof store === "object" &&
    store !== null &&
    ["reserve", "settle", "charge", "budgetState", "resetBudget", "takeRate", "penalizeRate"].every(
      (method) => typeof store[method] === "function",
    )
  );
}

const commonSchema = z.object({
  maxRetries: z.number().int().nonnegative().optional(),
  maxConcurrency: z
    .union([z.number().int().positive(), z.literal(Number.POSITIVE_INFINITY)])
    .optional(),
  timeout: z.number().positive().optional(),
  idleTimeout: z.number().positive().optional(),
  retry: z
    .object({
      initialDelayMs: milliseconds.optional(),
      maxDelayMs: milliseconds.optional(),
      maxRetryAfterMs: milliseconds.optional(),
    })
    .strict()
    .optional(),
  profiles: profilesSchema.optional(),
  rateLimiter: z.custom((value) => hasBrand(value, RATE_LIMITER_BRAND)).optional(),
});

const COMMON_EXPECTED = {
  maxRetries: "a whole number ≥ 0 (0 disables retries)",
  maxConcurrency: "a whole number ≥ 1, or Infinity",
  timeout: "a number of milliseconds > 0",
  idleTimeout: "a number of milliseconds > 0",
  retry: "an object with initialDelayMs, maxDelayMs and maxRetryAfterMs (milliseconds ≥ 0)",
  "retry.*": "a number of milliseconds ≥ 0",
  ...PROFILES_EXPECTED,
  rateLimiter: "a RateLimiter (new RateLimiter({ requestsPerMinute, … }))",
};

/** The shared options checked, with their defaults applied. */
export interface CheckedCommonOptions {
  maxRetries: number;
  retry: RetryOptions;
}

function withDefaults(fields: CommonOptions): CheckedCommonOptions {
  return { maxRetries: fields.maxRetries ?? DEFAULT_MAX_RETRIES, retry: fields.retry ?? {} };
}

/** Checks the options of `ChatInferenceService` that this package owns (the rest are `ChatOpenAI`'s). */
export function validateChatOptions(fields: CommonOptions): CheckedCommonOptions {
  parseOptions(
    { owner: "ChatInferenceService", schema: commonSchema, expected: COMMON_EXPECTED },
    fields,
  );
  return withDefaults(fields);
}

const dedicatedSchema = commonSchema.extend({
  maxTokens: z.number().int().min(1).optional(),
  temperature: z.number().nonnegative().optional(),
  stop: z.array(z.string()).optional(),
  waitForReady: z.number().nonnegative().optional(),
  // Any non-array object, as the body spreads it (a class instance too).
  modelKwargs: z
    .custom<Record<string, unknown>>(
      (v) => typeof v === "object" && v !== null && !Array.isArray(v),
    )
    .optional(),
  streaming: z.boolean().optional(),
  // What a `ChatOpenAI` or `OpenAI` user writes: their values are checked by resolveConnection.
  configuration: z
    .object({ apiKey: z.unknown().optional(), baseURL: z.unknown().optional() })
    .strict()
    .nullable()
    .optional(),
});

/** The options of `DedicatedEndpointLLM` that are checked by shape. */
export interface DedicatedEndpointOptions extends CommonOptions {
  maxTokens?: number;
  temperature?: number;
  stop?: string[];
  waitForReady?: number;
  modelKwargs?: Record<string, unknown>;
  streaming?: boolean;
  configuration?: { apiKey?: string; baseURL?: string } | null;
}

/** Checks the options of `DedicatedEndpointLLM` (the Service-Name, key and URL are resolved in config/config.ts). */
export function validateDedicatedEndpointOptions(
  fields: DedicatedEndpointOptions,
): CheckedCommonOptions {
  parseOptions(
    {
      owner: "DedicatedEndpointLLM",
      schema: dedicatedSchema,
      expected: {
        ...COMMON_EXPECTED,
        maxTokens: "a whole number ≥ 1",
        temperature: "a finite number ≥ 0",
        stop: "an array of strings",
        waitForReady: "a number of milliseconds ≥ 0 (0 turns it off)",
        modelKwargs: "an object of extra body fields",
        streaming: "true or false",
        configuration:
          "an object with only `apiKey` and `baseURL` (read as those options; this model has no other client options)",
      },
    },
    fields,
  );
  return withDefaults(fields);
}

/** Checks the options of `diagnose()` that are checked by shape. */
export function validateDiagnoseOptions(options: { timeout?: number }): void {
  parseOptions(
    {
      owner: "diagnose",
      schema: commonSchema.pick({ timeout: true }),
      expected: { timeout: COMMON_EXPECTED.timeout },
    },
    options,
  );
}

const STORE_EXPECTED =
  "a UsageStore (a MemoryStore, a RedisStore or your own with reserve, settle, charge, budgetState, resetBudget, takeRate and penalizeRate)";

// ---- the usage tracker's options ----------------------------------------------------------

const amount = z.number().nonnegative();

const trackerSchema = z
  .object({
    prices: z.record(z.string(), z.object({ input: amount, output: amount }).strict()).optional(),
    budget: amount.optional(),
    currency: z.string().optional(),
    onUsage: z.custom<(record: never) => void>((v) => typeof v === "function").optional(),
    maxRecords: z
      .union([z.number().int().nonnegative(), z.literal(Number.POSITIVE_INFINITY)])
      .optional(),
    store: z.custom<UsageStore>(isUsageStore).optional(),
    budgetKey: z.string().min(1).optional(),
    defaultReplyTokens: z.number().int().nonnegative().optional(),
  })
  .strict();

/** The shape of `UsageTrackerOptions` that is checked (the interface lives with the tracker). */
export interface TrackerOptionsShape {
  prices?: Readonly<Record<string, { input: number; output: number }>>;
  budget?: number;
}

/** Checks a `UsageTracker`'s options where they enter; the error names the option (`prices.<model>.input`). */
export function validateUsageTrackerOptions<T extends TrackerOptionsShape>(options: T): T {
  parseOptions(
    {
      owner: "UsageTracker",
      schema: trackerSchema,
      expected: {
        prices: "an object of { input, output } per model: prices per million tokens, numbers ≥ 0",
        "prices.*.*": "a number ≥ 0 (price per million tokens)",
        budget: "a number ≥ 0, in the unit of `prices`",
        currency: "a string",
        onUsage: "a function",
        maxRecords: "a whole number ≥ 0, or Infinity",
        store: STORE_EXPECTED,
        budgetKey: "a non-empty string",
        defaultReplyTokens: "a whole number ≥ 0",
      },
      takes:
        "prices, budget, currency, onUsage, maxRecords, store, budgetKey, defaultReplyTokens, and prices of { input, output }",
    },
    options,
  );
  if (options.budget !== undefined && Object.keys(options.prices ?? {}).length === 0) {
    throw new ConfigurationError(
      "budget",
      "`budget` needs `prices`: without a price no call has a cost, so the budget is never reached.",
    );
  }
  return options;
}

// ---- the rate limiter's options -----------------------------------------------------------

const perMinute = z.number().positive();

const rateLimiterSchema = z
  .object({
    requestsPerMinute: perMinute.optional(),
    tokensPerMinute: perMinute.optional(),
    per: z.enum(["model", "key"]).optional(),
    burst: z.number().int().positive().optional(),
    adaptive: z.boolean().optional(),
    decrease: z.number().gt(0).lt(1).optional(),
    recoveryMs: z.number().positive().optional(),
    pauseMs: milliseconds.optional(),
    maxPauseMs: milliseconds.optional(),
    defaultReplyTokens: z.number().int().nonnegative().optional(),
    store: z.custom<UsageStore>(isUsageStore).optional(),
    name: z.string().min(1).optional(),
    clock: z.custom<() => number>((v) => typeof v === "function").optional(),
  })
  .strict();

/** Checks a `RateLimiter`'s options where they enter; the error names the option. */
export function validateRateLimiterOptions<T extends object>(options: T): T {
  return parseOptions(
    {
      owner: "RateLimiter",
      schema: rateLimiterSchema,
      expected: {
        requestsPerMinute: "a number > 0",
        tokensPerMinute: "a number > 0",
        per: '"model" or "key"',
        burst: "a whole number ≥ 1",
        adaptive: "true or false",
        decrease: "a number between 0 and 1 (both excluded), e.g. 0.5",
        recoveryMs: "a number of milliseconds > 0",
        pauseMs: "a number of milliseconds ≥ 0",
        maxPauseMs: "a number of milliseconds ≥ 0",
        defaultReplyTokens: "a whole number ≥ 0",
        store: STORE_EXPECTED,
        name: "a non-empty string",
        clock: "a function returning milliseconds since the epoch",
      },
    },
    options,
  );
}
