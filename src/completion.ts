/** @module Tolerant reading of `/completions` answers, whose body §4.1 leaves "not shown". */
import type { TokenUsage } from "@langchain/core/language_models/base";
import type { Generation } from "@langchain/core/outputs";
import { type FailureContext, headerRequestId, toServiceError } from "./error_mapper.js";

/** One entry of `choices`, in the completions, chat or chat-stream shape. */
export interface RawChoice {
  text?: unknown;
  message?: { content?: unknown };
  delta?: { content?: unknown };
  finish_reason?: string | null;
}

/** §4.1 shows no response body: the completions shape first, then the chat shape. */
export function textOfChoice(
  choice: RawChoice,
  chatField: "message" | "delta",
): string | undefined {
  if (typeof choice?.text === "string") return choice.text;
  const content = choice?.[chatField]?.content;
  return typeof content === "string" ? content : undefined;
}

/**
 * The generations of one non-streamed answer, each with its finish reason, the request ID
 * (`X-Gateway-Request-Id`, §7 rule 5) and the answer's usage. An empty body is the empty answer of
 * a Pending endpoint (§3); a body without readable choices is a `MalformedResponseError`.
 */
export function parseCompletion(
  data: unknown,
  response: Response,
  ctx: FailureContext,
): Generation[] {
  // The SDK turns an empty JSON body into `undefined`: the empty answer of a Pending endpoint (§3).
  if (data === undefined || data === "") {
    throw toServiceError(
      { kind: "empty", status: response.status, headers: response.headers },
      ctx,
    );
  }
  const choices = (data as { choices?: unknown } | null)?.choices;
  const texts = Array.isArray(choices)
    ? choices.map((choice: RawChoice) => textOfChoice(choice, "message"))
    : [];
  if (texts.length === 0 || texts.some((text) => text === undefined)) {
    // The mapper quotes the start of the body, redacting secrets before it cuts.
    throw toServiceError(
      {
        kind: "malformed",
        detail: "the JSON body has neither choices[].text nor choices[].message.content",
        body: data,
        headers: response.headers,
      },
      ctx,
    );
  }
  const requestId = headerRequestId(response.headers);
  const tokenUsage = usageOf((data as { usage?: unknown }).usage);
  return (choices as RawChoice[]).map((choice, i) => ({
    text: texts[i] ?? "",
    generationInfo: withoutUndefined({
      finishReason: choice.finish_reason ?? undefined,
      requestId,
      tokenUsage,
    }),
  }));
}

/** The SDK's `usage` (snake_case) as LangChain's `TokenUsage`; undefined when nothing usable. */
export function usageOf(usage: unknown): TokenUsage | undefined {
  if (typeof usage !== "object" || usage === null) return undefined;
  const u = usage as Record<string, unknown>;
  const count = (value: unknown) =>
    typeof value === "number" && Number.isFinite(value) ? value : undefined;
  const promptTokens = count(u.prompt_tokens);
  const completionTokens = count(u.completion_tokens);
  const totalTokens =
    count(u.total_tokens) ??
    (promptTokens !== undefined && completionTokens !== undefined
      ? promptTokens + completionTokens
      : undefined);
  if (promptTokens === undefined && completionTokens === undefined && totalTokens === undefined) {
    return undefined;
  }
  return withoutUndefined({ promptTokens, completionTokens, totalTokens });
}

/** Sums the usage of several requests; a field is present when some request reported it. */
export function sumUsage(usages: Array<TokenUsage | undefined>): TokenUsage {
  const total: TokenUsage = {};
  const seen = new Set<object>();
  for (const usage of usages) {
    // Every generation of one response carries the same object: count it once.
    if (usage === undefined || seen.has(usage)) continue;
    seen.add(usage);
    for (const key of ["promptTokens", "completionTokens", "totalTokens"] as const) {
      const value = usage[key];
      if (value !== undefined) total[key] = (total[key] ?? 0) + value;
    }
  }
  return total;
}

/** A copy without the undefined fields, so bodies and generation info stay minimal. */
export function withoutUndefined<T extends Record<string, unknown>>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as T;
}
