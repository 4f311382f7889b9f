/**
 * The fallback rules as a table: what each failure decides, the context-window comparison, and
 * the rules table of docs/agents.md, which must be this table row for row.
 */
import { readFileSync } from "node:fs";
import { ContextOverflowError, ModelAbortError } from "@langchain/core/errors";
import { describe, expect, it } from "vitest";
import {
  AuthenticationError,
  BadRequestError,
  BudgetExceededError,
  ContentFilterError,
  ContextLengthExceededError,
  EndpointNotReadyError,
  InsufficientCreditError,
  KeyQuotaExceededError,
  ModelNotFoundError,
  RateLimitError,
  ServiceConnectionError,
  ServiceTimeoutError,
  ServiceUnavailableError,
} from "../../src/errors/errors.js";
import { FALLBACK_RULES, shouldFallBack } from "../../src/middleware/fallback_rules.js";

const init = { summary: "It failed.", hint: "Do something.", surface: "hosted" as const };
const model = (maxInputTokens?: number) => ({ profile: { maxInputTokens } });
const any = { failed: model(), next: model() };

describe("shouldFallBack", () => {
  it.each([
    ["ModelNotFoundError", new ModelNotFoundError(init), true],
    ["ServiceUnavailableError", new ServiceUnavailableError(init), true],
    ["RateLimitError", new RateLimitError(init), true],
    ["ServiceTimeoutError", new ServiceTimeoutError(init), true],
    ["ServiceConnectionError", new ServiceConnectionError(init), true],
    ["AuthenticationError", new AuthenticationError(init), false],
    ["InsufficientCreditError", new InsufficientCreditError(init), false],
    ["BudgetExceededError", new BudgetExceededError({ budget: 1, spent: 1 }), false],
    ["BadRequestError", new BadRequestError(init), false],
    ["ContentFilterError", new ContentFilterError(init), false],
    ["an abort (LangChain's)", new ModelAbortError("stopped"), false],
    ["an abort (fetch's)", new DOMException("The operation was aborted.", "AbortError"), false],
    ["KeyQuotaExceededError (not in the rules)", new KeyQuotaExceededError(init), false],
    ["EndpointNotReadyError (not in the rules)", new EndpointNotReadyError(init), false],
    ["an unknown error", new Error("boom"), false],
    ["a thrown string", "boom", false],
    [
      "another provider's MODEL_RATE_LIMIT",
      Object.assign(new Error("429"), { lc_error_code: "MODEL_RATE_LIMIT" }),
      true,
    ],
    [
      "another provider's MODEL_NOT_FOUND",
      Object.assign(new Error("404"), { lc_error_code: "MODEL_NOT_FOUND" }),
      true,
    ],
    [
      "another provider's MODEL_AUTHENTICATION",
      Object.assign(new Error("401"), { lc_error_code: "MODEL_AUTHENTICATION" }),
      false,
    ],
  ])("%s: %s", (_name, error, expected) => {
    expect(shouldFallBack(error, any)).toBe(expected);
  });

  it("a context overflow goes to a larger declared window only, or where either window is undeclared", () => {
    for (const error of [
      new ContextLengthExceededError(init),
      new ContextOverflowError("too long"),
    ]) {
      expect(shouldFallBack(error, { failed: model(32_768), next: model(65_536) })).toBe(true);
      expect(shouldFallBack(error, { failed: model(32_768), next: model(32_768) })).toBe(false);
      expect(shouldFallBack(error, { failed: model(65_536), next: model(32_768) })).toBe(false);
      expect(shouldFallBack(error, { failed: model(), next: model(32_768) })).toBe(true);
      expect(shouldFallBack(error, { failed: model(32_768), next: model() })).toBe(true);
      expect(shouldFallBack(error, { failed: "openai:gpt-4o", next: null })).toBe(true);
    }
  });

  it("puts each subclass before its parent, so the first row that matches is the most specific", () => {
    const classes = [ContextLengthExceededError, ContentFilterError, ServiceTimeoutError];
    for (const errorClass of classes) {
      const error = new errorClass(init);
      const first = FALLBACK_RULES.find((rule) => rule.matches(error))!;
      expect(first.failure).toContain(errorClass.name);
    }
  });
});

describe("docs/agents.md's rules table", () => {
  it("is FALLBACK_RULES, row for row: the failure, whether another model is tried, and why", () => {
    const lines = readFileSync("docs/agents.md", "utf8").split("\n");
    const start = lines.indexOf("| the model call fails with | another model? | why |");
    expect(start).toBeGreaterThan(0);
    const rows: string[][] = [];
    for (const line of lines.slice(start + 2)) {
      if (!line.startsWith("|")) break;
      rows.push(line.split(" | ").map((cell) => cell.replace(/^\| ?| ?\|$/g, "").trim()));
    }
    expect(rows).toEqual(FALLBACK_RULES.map((rule) => [rule.failure, rule.fallBack, rule.why]));
  });
});
