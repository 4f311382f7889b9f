/**
 * @module Token usage in its three shapes — the service's snake_case `usage`, LangChain's
 * `TokenUsage` and `UsageMetadata`, and a tracker's {@link RunUsage} — the conversions between
 * them, and what a usage record reads from a run (its model and request ID). Standard LangChain
 * fields only, so any LangChain model can be tracked.
 */
import type { TokenUsage } from "@langchain/core/language_models/base";
import type { Serialized } from "@langchain/core/load/serializable";
import type {
  InputTokenDetails,
  OutputTokenDetails,
  UsageMetadata,
} from "@langchain/core/messages";
import type { Generation, LLMResult } from "@langchain/core/outputs";
import { withoutUndefined } from "../utils/without_undefined.js";

/**
 * LangChain's breakdown of a prompt's tokens, with the split of its cache writes by lifetime
 * under the names LangChain's Anthropic integration gives them: `cache_creation` is every write,
 * `ephemeral_1h_input_tokens` those that live an hour, `ephemeral_5m_input_tokens` the rest.
 */
export type PromptTokenDetails = InputTokenDetails & {
  ephemeral_5m_input_tokens?: number;
  ephemeral_1h_input_tokens?: number;
};

/** Token counts of one run, as a usage tracker records them. */
export interface RunUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /**
   * Prompt tokens read from the cache (`cache_read`), written to it (`cache_creation`, and its
   * split by lifetime) and the like, when the model reports them.
   */
  inputTokenDetails?: PromptTokenDetails;
  /** Reasoning tokens and the like, when the model reports them. */
  outputTokenDetails?: OutputTokenDetails;
}

/** The usage of a run that sent no request or failed: nothing counted. */
export const NO_USAGE: Readonly<RunUsage> = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
});

// ---- the service's `usage` and LangChain's TokenUsage --------------------------------------

/**
 * The `usage` of a response body or stream chunk (snake_case, as the SDK passes it on) as
 * LangChain's `TokenUsage`; undefined when it holds no usable count. A missing total is derived.
 * Read in either API's names: `prompt_tokens` and `completion_tokens` (Chat Completions), or
 * `input_tokens` and `output_tokens` (the Responses API).
 */
export function tokenUsageFromWire(usage: unknown): TokenUsage | undefined {
  if (typeof usage !== "object" || usage === null) return undefined;
  const u = usage as Record<string, unknown>;
  const promptTokens = countOrUndefined(u.prompt_tokens ?? u.input_tokens);
  const completionTokens = countOrUndefined(u.completion_tokens ?? u.output_tokens);
  const totalTokens =
    countOrUndefined(u.total_tokens) ??
    (promptTokens !== undefined && completionTokens !== undefined
      ? promptTokens + completionTokens
      : undefined);
  if (promptTokens === undefined && completionTokens === undefined && totalTokens === undefined) {
    return undefined;
  }
  // Set one by one, not a copy without the undefined ones: this reads every answer's usage.
  const counts: TokenUsage = {};
  if (promptTokens !== undefined) counts.promptTokens = promptTokens;
  if (completionTokens !== undefined) counts.completionTokens = completionTokens;
  if (totalTokens !== undefined) counts.totalTokens = totalTokens;
  return counts;
}

/**
 * The `usage` of an answer that reads tokens and writes none (rerank) as LangChain's
 * `TokenUsage`: its `prompt_tokens`, else its `total_tokens` (Jina's rerankers write only that),
 * is the prompt, and the output is 0. Undefined when it holds neither: Cohere's
 * `meta.billed_units.search_units` counts searches, not tokens, and is not read as either.
 */
export function promptUsageFromWire(usage: unknown): TokenUsage | undefined {
  if (typeof usage !== "object" || usage === null) return undefined;
  const u = usage as Record<string, unknown>;
  const promptTokens = countOrUndefined(u.prompt_tokens) ?? countOrUndefined(u.total_tokens);
  if (promptTokens === undefined) return undefined;
  return { promptTokens, completionTokens: 0, totalTokens: promptTokens };
}

/** What the prompt cache did for one request, as the service's `usage` reports it. */
export interface PromptCacheCounts {
  /** Prompt tokens read from the cache. */
  read?: number;
  /** Prompt tokens written to the cache, both lifetimes. */
  written?: number;
  /** Of `written`, those written to live an hour (the rest live five minutes). */
  writtenForAnHour?: number;
}

/**
 * The prompt cache's reads and writes in the `usage` of a response body or stream chunk, from
 * every field the gateway writes them in (docs/service-contract.md#hosted-models): reads in
 * `prompt_tokens_details.cached_tokens`; writes in `prompt_tokens_details.cached_creation_tokens`
 * (its Claude channels) or `cache_write_tokens` (OpenAI's name), and split by lifetime in the
 * top-level `claude_cache_creation_5_m_tokens` and `claude_cache_creation_1_h_tokens`. Like the
 * gateway, the larger of the totals wins (the same writes are never counted twice), and writes
 * the split leaves out live five minutes. The Responses API's `input_tokens_details` is read the
 * same way. Each count is undefined when no field holds it.
 */
export function promptCacheFromWire(usage: unknown): PromptCacheCounts {
  if (typeof usage !== "object" || usage === null) return {};
  const u = usage as Record<string, unknown>;
  const details = recordOf(u.prompt_tokens_details) ?? recordOf(u.input_tokens_details);
  const fiveMinutes = countOrUndefined(u.claude_cache_creation_5_m_tokens);
  const anHour = countOrUndefined(u.claude_cache_creation_1_h_tokens);
  const byLifetime =
    fiveMinutes === undefined && anHour === undefined
      ? undefined
      : (fiveMinutes ?? 0) + (anHour ?? 0);
  // Pairwise, not an array filtered and spread into Math.max: this runs on every answer.
  const written = larger(
    larger(
      countOrUndefined(details?.cached_creation_tokens),
      countOrUndefined(details?.cache_write_tokens),
    ),
    byLifetime,
  );
  const counts: PromptCacheCounts = {};
  const read = countOrUndefined(details?.cached_tokens);
  if (read !== undefined) counts.read = read;
  if (written !== undefined) counts.written = written;
  if (anHour && written !== undefined) counts.writtenForAnHour = Math.min(anHour, written);
  return counts;
}

/** The larger of two counts, either of which may be missing. */
function larger(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.max(a, b);
}

/**
 * A prompt's cache reads and writes as `usage_metadata.input_token_details` holds them:
 * `cache_read`, `cache_creation` and, when some writes live an hour, their split by lifetime
 * (see {@link PromptTokenDetails}).
 */
export function cacheTokenDetails(counts: PromptCacheCounts): PromptTokenDetails {
  const { read, written, writtenForAnHour } = counts;
  const details: PromptTokenDetails = {};
  if (read !== undefined) details.cache_read = read;
  if (written === undefined) return details;
  details.cache_creation = written;
  if (writtenForAnHour) {
    details.ephemeral_5m_input_tokens = written - writtenForAnHour;
    details.ephemeral_1h_input_tokens = writtenForAnHour;
  }
  return details;
}

/** A chat message's `usage_metadata` as the `llmOutput.tokenUsage` LLM callbacks expect. */
export function tokenUsageFromMetadata(usage: UsageMetadata): TokenUsage {
  return {
    promptTokens: usage.input_tokens,
    completionTokens: usage.output_tokens,
    totalTokens: usage.total_tokens,
  };
}

/** Sums the usage of several requests; a field is present when some request reported it. */
export function sumTokenUsage(usages: Array<TokenUsage | undefined>): TokenUsage {
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

// ---- what a usage record reads from LangChain's callbacks ----------------------------------

/**
 * The model a run is for, from the start callback: the requested model ID
 * (`invocation_params.model`), else LangSmith's `ls_model_name` (a dedicated endpoint's
 * Service-Name), else the serialised constructor arguments, else the class name.
 */
export function modelOfRun(
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
export function runUsageFromResult(output: LLMResult): RunUsage {
  const generations = generationsOf(output);
  for (const generation of generations) {
    const message = messageOf(generation);
    const usage = message?.usage_metadata as UsageMetadata | undefined;
    if (usage !== undefined) return runUsageFromMetadata(usage, message?.response_metadata);
  }
  // On a multi-prompt LLM `generate`, the first run holds the sum and the others `{}`: trusting
  // an empty object here (instead of falling through) keeps each token counted once.
  const tokenUsage = recordOf(output?.llmOutput?.tokenUsage);
  if (tokenUsage !== undefined) return runUsageFromTokenUsage(tokenUsage);
  for (const generation of generations) {
    const streamed = recordOf(generation.generationInfo?.tokenUsage);
    if (streamed !== undefined) return runUsageFromTokenUsage(streamed);
  }
  return NO_USAGE;
}

/**
 * The request ID in `response_metadata` (chat models), `generationInfo` (LLMs) or `llmOutput`
 * (this package's embeddings, whose runs have no generations).
 */
export function requestIdOfResult(output: LLMResult): string | undefined {
  for (const generation of generationsOf(output)) {
    const id =
      stringOf(recordOf(messageOf(generation)?.response_metadata)?.requestId) ??
      stringOf(generation.generationInfo?.requestId);
    if (id !== undefined) return id;
  }
  return stringOf(output?.llmOutput?.requestId);
}

/** The request ID a failed call's error carries (this package's errors have one). */
export function requestIdOfError(error: unknown): string | undefined {
  return stringOf(recordOf(error)?.requestId);
}

function generationsOf(output: LLMResult): Generation[] {
  return Array.isArray(output?.generations) ? output.generations.flat() : [];
}

function messageOf(generation: Generation): Record<string, unknown> | undefined {
  return recordOf((generation as { message?: unknown }).message);
}

function runUsageFromMetadata(usage: UsageMetadata, responseMetadata: unknown): RunUsage {
  const inputTokens = count(usage.input_tokens);
  const outputTokens = count(usage.output_tokens);
  return withoutUndefined({
    inputTokens,
    outputTokens,
    totalTokens: count(usage.total_tokens, inputTokens + outputTokens),
    inputTokenDetails: withWriteSplit(details(usage.input_token_details), responseMetadata),
    outputTokenDetails: details(usage.output_token_details),
  });
}

/**
 * The prompt's details with the split of its cache writes by lifetime. LangChain's merging of
 * stream chunks keeps only `cache_read` and `cache_creation` of the usage chunk's details, so
 * the split of a streamed answer is read again from the service's usage, which the message keeps
 * as it came in `response_metadata.usage` (this package's models and `ChatOpenAI` alike).
 */
function withWriteSplit(
  prompt: PromptTokenDetails | undefined,
  responseMetadata: unknown,
): PromptTokenDetails | undefined {
  const written = prompt?.cache_creation;
  if (!written || prompt.ephemeral_1h_input_tokens !== undefined) return prompt;
  const anHour = promptCacheFromWire(recordOf(responseMetadata)?.usage).writtenForAnHour;
  if (!anHour) return prompt;
  return {
    ...prompt,
    ...cacheTokenDetails({ written, writtenForAnHour: Math.min(anHour, written) }),
  };
}

function runUsageFromTokenUsage(usage: Record<string, unknown>): RunUsage {
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

/**
 * The reasoning part of the output in the `usage` of a response body or stream chunk
 * (`completion_tokens_details.reasoning_tokens`, or `output_tokens_details.reasoning_tokens` in
 * the Responses API); undefined when the usage does not say.
 */
export function reasoningTokensFromWire(usage: unknown): number | undefined {
  if (typeof usage !== "object" || usage === null) return undefined;
  const { completion_tokens_details: completion, output_tokens_details: output } = usage as Record<
    string,
    unknown
  >;
  const details = completion ?? output;
  if (typeof details !== "object" || details === null) return undefined;
  return countOrUndefined((details as { reasoning_tokens?: unknown }).reasoning_tokens);
}

function countOrUndefined(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function count(value: unknown, fallback = 0): number {
  return countOrUndefined(value) ?? fallback;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function recordOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null
    ? (value as Record<string, unknown>)
    : undefined;
}
