/**
 * @module The options both models (and `diagnose`) check the same way: retries, concurrency,
 * timeouts, backoff, profiles and the rate limiter, with the words their errors use.
 */
import { z } from "zod";
import { milliseconds, parseOptions } from "../config/options.js";
import { type ModelProfiles, PROFILES_EXPECTED, profilesSchema } from "../config/profiles.js";
import { hasBrand, RATE_LIMITER_BRAND } from "../constants.js";
import { DEFAULT_MAX_RETRIES, type RetryOptions } from "../transport/retry.js";

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
