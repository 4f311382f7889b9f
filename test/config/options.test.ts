import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type OptionsSpec, parseOptions } from "../../src/config/options.js";
import { RateLimiter } from "../../src/spend/rate_limiter.js";
import { configurationProblem } from "../helpers/errors.js";

const spec: OptionsSpec = {
  owner: "Thing",
  schema: z
    .object({
      size: z.number().int().describe("a whole number").optional(),
      tags: z.array(z.string()).describe("an array of strings").optional(),
      limits: z
        .record(z.string(), z.object({ max: z.number().describe("a number (the limit)") }).strict())
        .describe("an object of { max } per name")
        .optional(),
    })
    .strict(),
  takes: "size, tags and limits",
};

describe("parseOptions", () => {
  it("returns the checked options when they are valid", () => {
    expect(parseOptions(spec, { size: 3, tags: ["a"] })).toEqual({ size: 3, tags: ["a"] });
  });

  it("names the first bad option by its dotted path, with what it must be and what it got", () => {
    expect(configurationProblem(() => parseOptions(spec, { size: 1.5 }))).toEqual({
      option: "size",
      message: "`size` must be a whole number; got 1.5.",
    });
    expect(
      configurationProblem(() => parseOptions(spec, { limits: { gpu: { max: "9" } } })),
    ).toEqual({
      option: "limits.gpu.max",
      message: '`limits.gpu.max` must be a number (the limit); got "9".',
    });
  });

  it("falls back to the nearest option the schema describes", () => {
    expect(configurationProblem(() => parseOptions(spec, { limits: { gpu: 3 } }))).toEqual({
      option: "limits.gpu",
      message: "`limits.gpu` must be an object of { max } per name; got 3.",
    });
  });

  it("reports an array as one option", () => {
    expect(configurationProblem(() => parseOptions(spec, { tags: ["a", 2] }))).toEqual({
      option: "tags",
      message: '`tags` must be an array of strings; got ["a",2].',
    });
  });

  it("names an unknown option, at the top level with what the owner takes", () => {
    expect(configurationProblem(() => parseOptions(spec, { sise: 1, other: 2 }))).toEqual({
      option: "sise",
      message: "`sise` is not an option of Thing; it takes size, tags and limits.",
    });
    expect(
      configurationProblem(() => parseOptions(spec, { limits: { gpu: { max: 1, min: 0 } } })),
    ).toEqual({
      option: "limits.gpu.min",
      message:
        "`limits.gpu.min` is not an option: `limits.gpu` must be an object of { max } per name.",
    });
  });

  it("shows values JSON cannot (a BigInt, a cycle, a function) without throwing anything else", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(configurationProblem(() => parseOptions(spec, { size: 10n as never })).message).toBe(
      "`size` must be a whole number; got 10.",
    );
    expect(configurationProblem(() => parseOptions(spec, { tags: cycle as never })).message).toBe(
      "`tags` must be an array of strings; got [object Object].",
    );
    expect(
      configurationProblem(() => parseOptions(spec, { size: (() => 1) as never })).message,
    ).toBe("`size` must be a whole number; got a function.");
  });

  it("shows Infinity and NaN as given, not as JSON's null", () => {
    expect(
      configurationProblem(() => parseOptions(spec, { size: Number.POSITIVE_INFINITY })).message,
    ).toBe("`size` must be a whole number; got Infinity.");
    expect(configurationProblem(() => parseOptions(spec, { size: Number.NaN })).message).toBe(
      "`size` must be a whole number; got NaN.",
    );
    expect(
      configurationProblem(() => new RateLimiter({ requestsPerMinute: Number.POSITIVE_INFINITY })),
    ).toEqual({
      option: "requestsPerMinute",
      message: "`requestsPerMinute` must be a number > 0; got Infinity.",
    });
  });

  it("says the options themselves must be an object", () => {
    expect(configurationProblem(() => parseOptions(spec, "big" as never))).toEqual({
      option: "options",
      message: '`options` must be an object; got "big".',
    });
  });
});
