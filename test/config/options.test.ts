import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type OptionsSpec,
  parseOptions,
  validateChatOptions,
  validateDedicatedEndpointOptions,
  validateDiagnoseOptions,
  validateRateLimiterOptions,
  validateUsageTrackerOptions,
} from "../../src/config/options.js";
import { ConfigurationError } from "../../src/errors/errors.js";
import { RateLimiter } from "../../src/spend/rate_limiter.js";

/** The ConfigurationError `fn` throws, as the fields a program reads. */
function problem(fn: () => unknown): { option: string; message: string } {
  try {
    fn();
  } catch (error) {
    expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
    const { option, message } = error as ConfigurationError;
    return { option, message };
  }
  throw new Error("expected a ConfigurationError");
}

const spec: OptionsSpec = {
  owner: "Thing",
  schema: z
    .object({
      size: z.number().int().optional(),
      tags: z.array(z.string()).optional(),
      limits: z.record(z.string(), z.object({ max: z.number() }).strict()).optional(),
    })
    .strict(),
  expected: {
    size: "a whole number",
    tags: "an array of strings",
    limits: "an object of { max } per name",
    "limits.*.max": "a number (the limit)",
  },
  takes: "size, tags and limits",
};

describe("parseOptions", () => {
  it("returns the options unchanged when they are valid", () => {
    const options = { size: 3, tags: ["a"] };
    expect(parseOptions(spec, options)).toBe(options);
  });

  it("names the first bad option by its dotted path, with what it must be and what it got", () => {
    expect(problem(() => parseOptions(spec, { size: 1.5 }))).toEqual({
      option: "size",
      message: "`size` must be a whole number; got 1.5.",
    });
    expect(problem(() => parseOptions(spec, { limits: { gpu: { max: "9" } } }))).toEqual({
      option: "limits.gpu.max",
      message: '`limits.gpu.max` must be a number (the limit); got "9".',
    });
  });

  it("falls back to the nearest option the table names", () => {
    expect(problem(() => parseOptions(spec, { limits: { gpu: 3 } }))).toEqual({
      option: "limits.gpu",
      message: "`limits.gpu` must be an object of { max } per name; got 3.",
    });
  });

  it("reports an array as one option", () => {
    expect(problem(() => parseOptions(spec, { tags: ["a", 2] }))).toEqual({
      option: "tags",
      message: '`tags` must be an array of strings; got ["a",2].',
    });
  });

  it("names an unknown option, at the top level with what the owner takes", () => {
    expect(problem(() => parseOptions(spec, { sise: 1, other: 2 }))).toEqual({
      option: "sise",
      message: "`sise` is not an option of Thing; it takes size, tags and limits.",
    });
    expect(problem(() => parseOptions(spec, { limits: { gpu: { max: 1, min: 0 } } }))).toEqual({
      option: "limits.gpu.min",
      message:
        "`limits.gpu.min` is not an option: `limits.gpu` must be an object of { max } per name.",
    });
  });

  it("shows values JSON cannot (a BigInt, a cycle, a function) without throwing anything else", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(problem(() => parseOptions(spec, { size: 10n as never })).message).toBe(
      "`size` must be a whole number; got 10.",
    );
    expect(problem(() => parseOptions(spec, { tags: cycle as never })).message).toBe(
      "`tags` must be an array of strings; got [object Object].",
    );
    expect(problem(() => parseOptions(spec, { size: (() => 1) as never })).message).toBe(
      "`size` must be a whole number; got a function.",
    );
  });

  it("shows Infinity and NaN as given, not as JSON's null", () => {
    expect(problem(() => parseOptions(spec, { size: Number.POSITIVE_INFINITY })).message).toBe(
      "`size` must be a whole number; got Infinity.",
    );
    expect(problem(() => parseOptions(spec, { size: Number.NaN })).message).toBe(
      "`size` must be a whole number; got NaN.",
    );
    expect(problem(() => new RateLimiter({ requestsPerMinute: Number.POSITIVE_INFINITY }))).toEqual(
      {
        option: "requestsPerMinute",
        message: "`requestsPerMinute` must be a number > 0; got Infinity.",
      },
    );
  });

  it("says the options themselves must be an object", () => {
    expect(problem(() => parseOptions(spec, "big" as never))).toEqual({
      option: "options",
      message: '`options` must be an object; got "big".',
    });
  });
});

describe("the models' options", () => {
  it("apply the retry defaults once checked (docs/service-contract.md#limits-and-retries: two retries)", () => {
    expect(validateChatOptions({})).toEqual({ maxRetries: 2, retry: {} });
    expect(validateDedicatedEndpointOptions({ maxRetries: 0, retry: { maxDelayMs: 5 } })).toEqual({
      maxRetries: 0,
      retry: { maxDelayMs: 5 },
    });
  });

  it("name a nested retry option and an unknown one by their paths", () => {
    expect(problem(() => validateChatOptions({ retry: { maxDelayMs: -1 } }))).toEqual({
      option: "retry.maxDelayMs",
      message: "`retry.maxDelayMs` must be a number of milliseconds ≥ 0; got -1.",
    });
    expect(problem(() => validateChatOptions({ retry: { delay: 1 } as never }))).toEqual({
      option: "retry.delay",
      message:
        "`retry.delay` is not an option: `retry` must be an object with initialDelayMs, maxDelayMs and maxRetryAfterMs (milliseconds ≥ 0).",
    });
  });

  it("check the shared options before the dedicated endpoint's own", () => {
    expect(
      problem(() => validateDedicatedEndpointOptions({ maxTokens: 0, maxRetries: -1 })).option,
    ).toBe("maxRetries");
  });

  it("accept any non-array object as modelKwargs, as the body spreads it", () => {
    class Extra {
      top_p = 0.5;
    }
    expect(validateDedicatedEndpointOptions({ modelKwargs: new Extra() as never })).toEqual({
      maxRetries: 2,
      retry: {},
    });
    expect(problem(() => validateDedicatedEndpointOptions({ modelKwargs: null as never }))).toEqual(
      {
        option: "modelKwargs",
        message: "`modelKwargs` must be an object of extra body fields; got null.",
      },
    );
  });

  it("check diagnose's timeout the same way", () => {
    expect(problem(() => validateDiagnoseOptions({ timeout: -1 }))).toEqual({
      option: "timeout",
      message: "`timeout` must be a number of milliseconds > 0; got -1.",
    });
  });
});

describe("the usage tracker's options", () => {
  it("name a model's price by its path, and an unknown option with the list of options", () => {
    expect(
      problem(() => validateUsageTrackerOptions({ prices: { m: { input: -1, output: 1 } } })),
    ).toEqual({
      option: "prices.m.input",
      message: "`prices.m.input` must be a number ≥ 0 (price per million tokens); got -1.",
    });
    expect(problem(() => validateUsageTrackerOptions({ price: {} } as never))).toEqual({
      option: "price",
      message:
        "`price` is not an option of UsageTracker; it takes prices, budget, currency, onUsage, maxRecords, store, budgetKey, defaultReplyTokens, and prices of { input, output }.",
    });
  });

  it("refuse a budget without prices", () => {
    expect(problem(() => validateUsageTrackerOptions({ budget: 1 })).option).toBe("budget");
  });
});

describe("the rate limiter's options", () => {
  it.each<[Record<string, unknown>, string, RegExp]>([
    [{ requestsPerMinute: 0 }, "requestsPerMinute", /must be a number > 0; got 0/],
    [{ tokensPerMinute: Number.POSITIVE_INFINITY }, "tokensPerMinute", /a number > 0/],
    [{ per: "user" }, "per", /"model" or "key"/],
    [{ burst: 1.5 }, "burst", /a whole number ≥ 1/],
    [{ decrease: 1 }, "decrease", /between 0 and 1/],
    [{ recoveryMs: -5 }, "recoveryMs", /milliseconds > 0/],
    [{ maxPauseMs: "1s" }, "maxPauseMs", /milliseconds ≥ 0/],
    [{ store: { takeRate() {} } }, "store", /a UsageStore/],
    [{ rpm: 60 }, "rpm", /not an option of RateLimiter/],
  ])("name the option of %j and what it must be", (options, option, message) => {
    const found = problem(() => validateRateLimiterOptions(options));
    expect(found.option).toBe(option);
    expect(found.message).toMatch(message);
    // The constructor checks the same way.
    expect(problem(() => new RateLimiter(options as never)).option).toBe(option);
  });

  it("accept a limiter as a model option, and nothing else there", () => {
    expect(() => validateChatOptions({ rateLimiter: new RateLimiter() })).not.toThrow();
    expect(problem(() => validateChatOptions({ rateLimiter: { acquire() {} } }))).toMatchObject({
      option: "rateLimiter",
      message: expect.stringMatching(/a RateLimiter/),
    });
    expect(problem(() => validateDedicatedEndpointOptions({ rateLimiter: 5 })).option).toBe(
      "rateLimiter",
    );
  });
});
