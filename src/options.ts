/** @module Checks of the numeric options both models share, made once where the options enter. */
import { z } from "zod";
import { ConfigurationError } from "./errors.js";
import { DEFAULT_MAX_RETRIES, type RetryOptions } from "./retry.js";

/** The options every model of this package accepts and checks the same way. */
export interface CommonOptions {
  maxRetries?: number;
  maxConcurrency?: number;
  timeout?: number;
  retry?: RetryOptions;
}

const nonNegativeInt = z.number().int().nonnegative();
const positive = z.number().positive();
const milliseconds = z.number().nonnegative().finite();

const commonSchema = z.object({
  maxRetries: nonNegativeInt.optional(),
  maxConcurrency: z
    .union([z.number().int().positive(), z.literal(Number.POSITIVE_INFINITY)])
    .optional(),
  timeout: positive.finite().optional(),
  retry: z
    .object({
      initialDelayMs: milliseconds.optional(),
      maxDelayMs: milliseconds.optional(),
      maxRetryAfterMs: milliseconds.optional(),
    })
    .strict()
    .optional(),
});

const EXPECTED: Record<string, string> = {
  maxRetries: "a whole number ≥ 0 (0 disables retries)",
  maxConcurrency: "a whole number ≥ 1, or Infinity",
  timeout: "a number of milliseconds > 0",
  retry: "an object with initialDelayMs, maxDelayMs and maxRetryAfterMs (milliseconds ≥ 0)",
};

/** Validates the shared options; the error names the option and what it must be. */
export function validateCommonOptions(fields: CommonOptions): {
  maxRetries: number;
  retry: RetryOptions;
} {
  const picked = {
    maxRetries: fields.maxRetries,
    maxConcurrency: fields.maxConcurrency,
    timeout: fields.timeout,
    retry: fields.retry,
  };
  const result = commonSchema.safeParse(picked);
  if (!result.success) {
    const issue = result.error.issues[0];
    const option = String(issue?.path[0] ?? "options");
    const path = issue?.path.join(".") ?? option;
    const got = issue?.path.reduce<unknown>(
      (value, key) => (value as Record<PropertyKey, unknown> | undefined)?.[key as PropertyKey],
      picked,
    );
    throw new ConfigurationError(
      option,
      `\`${path}\` must be ${EXPECTED[option] ?? "valid"}; got ${JSON.stringify(got) ?? String(got)}.`,
    );
  }
  return { maxRetries: fields.maxRetries ?? DEFAULT_MAX_RETRIES, retry: fields.retry ?? {} };
}
