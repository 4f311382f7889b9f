/**
 * @module What a usage tracker reads from LangChain's callbacks: the model of a run, its token
 * usage and its request ID — standard fields only, so any LangChain model can be tracked.
 */
import type { Serialized } from "@langchain/core/load/serializable";
import type {
  InputTokenDetails,
  OutputTokenDetails,
  UsageMetadata,
} from "@langchain/core/messages";
import type { Generation, LLMResult } from "@langchain/core/outputs";

/** Token counts of one run. */
export interface RunUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Cached input tokens (`cache_read`) and the like, when the model reports them. */
  inputTokenDetails?: InputTokenDetails;
  /** Reasoning tokens and the like, when the model reports them. */
  outputTokenDetails?: OutputTokenDetails;
}

export const NO_USAGE: Readonly<RunUsage> = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
});

/**
 * The model a run is for, from the start callback: the requested model ID
 * (`invocation_params.model`), else LangSmith's `ls_model_name` (a dedicated endpoint's
 * Service-Name), else the serialised constructor arguments, else the class name.
 */
export function modelOf(
  llm: Serialized,
  extraParams: Record<string, unknown> | undefined,
  metadata: Record<string, unknown> | undefined,
): string {
  const params = recordOf(extraParams?.invocation_params);
  const kwargs = llm.type === "constructor" ? recordOf(llm.kwargs) : undefined;
  return (
    stringOf(params?.model) ??
    stringOf(params?.model_name) ??
    stringOf(metadata?.ls_model_name) ??
    stringOf(kwargs?.model) ??
    stringOf(kwargs?.model_name) ??
    stringOf(kwargs?.service_name) ??
    llm.id?.at(-1) ??
    "unknown"
  );
}

/**
 * Usage of one run, from the first of: a message's `usage_metadata` (chat models, including the
 * aggregated message that ends a stream; with `n > 1` every choice repeats the call's figures,
 * so only the first counts), `llmOutput.tokenUsage` (LLMs), a generation's
 * `generationInfo.tokenUsage` (streamed LLMs, whose end carries no `llmOutput`).
 */
export function usageOf(output: LLMResult): RunUsage {
  const generations = generationsOf(output);
  for (const generation of generations) {
    const usage = messageOf(generation)?.usage_metadata as UsageMetadata | undefined;
    if (usage !== undefined) return fromUsageMetadata(usage);
  }
  // On a multi-prompt LLM `generate`, the first run holds the sum and the others `{}`: trusting
  // an empty object here (instead of falling through) keeps each token counted once.
  const tokenUsage = recordOf(output?.llmOutput?.tokenUsage);
  if (tokenUsage !== undefined) return fromTokenUsage(tokenUsage);
  for (const generation of generations) {
    const streamed = recordOf(generation.generationInfo?.tokenUsage);
    if (streamed !== undefined) return fromTokenUsage(streamed);
  }
  return NO_USAGE;
}

/** The request ID in `response_metadata` (chat models) or `generationInfo` (LLMs). */
export function requestIdOf(output: LLMResult): string | undefined {
  for (const generation of generationsOf(output)) {
    const id =
      stringOf(recordOf(messageOf(generation)?.response_metadata)?.requestId) ??
      stringOf(generation.generationInfo?.requestId);
    if (id !== undefined) return id;
  }
  return undefined;
}

/** The request ID a failed call's error carries (this package's errors have one). */
export function errorRequestIdOf(error: unknown): string | undefined {
  return stringOf(recordOf(error)?.requestId);
}

function generationsOf(output: LLMResult): Generation[] {
  return Array.isArray(output?.generations) ? output.generations.flat() : [];
}

function messageOf(generation: Generation): Record<string, unknown> | undefined {
  return recordOf((generation as { message?: unknown }).message);
}

function fromUsageMetadata(usage: UsageMetadata): RunUsage {
  const inputTokens = count(usage.input_tokens);
  const outputTokens = count(usage.output_tokens);
  return withoutUndefined({
    inputTokens,
    outputTokens,
    totalTokens: count(usage.total_tokens, inputTokens + outputTokens),
    inputTokenDetails: details(usage.input_token_details),
    outputTokenDetails: details(usage.output_token_details),
  });
}

function fromTokenUsage(usage: Record<string, unknown>): RunUsage {
  const inputTokens = count(usage.promptTokens);
  const outputTokens = count(usage.completionTokens);
  return {
    inputTokens,
    outputTokens,
    totalTokens: count(usage.totalTokens, inputTokens + outputTokens),
  };
}

/** Token details with at least one count, without the missing ones. */
function details<T extends object>(value: T | undefined): T | undefined {
  if (value === undefined) return undefined;
  const kept = Object.entries(value).filter(([, n]) => typeof n === "number" && Number.isFinite(n));
  return kept.length > 0 ? (Object.fromEntries(kept) as T) : undefined;
}

function count(value: unknown, fallback = 0): number {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function recordOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null
    ? (value as Record<string, unknown>)
    : undefined;
}

/** A copy without the keys whose value is `undefined` (records stay small in JSON and logs). */
export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
