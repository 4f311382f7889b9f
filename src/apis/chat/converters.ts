/**
 * @module From the service's answers to LangChain's results: a completion to a `ChatResult`, a
 * stream chunk to a `ChatGenerationChunk`, each message with the request ID and model of its
 * response. Messages are converted by `@langchain/openai`'s own converters, so content, tool
 * calls, reasoning and refusals read exactly as `ChatOpenAI` reads them.
 */
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { ChatModelStreamEvent } from "@langchain/core/language_models/event";
import type { UsageMetadata } from "@langchain/core/messages";
import {
  AIMessage,
  AIMessageChunk,
  type AIMessageFields,
  isAIMessage,
} from "@langchain/core/messages";
import { type ChatGeneration, ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import {
  convertCompletionsDeltaToBaseMessageChunk,
  convertCompletionsMessageToBaseMessage,
  convertOpenAICompletionsStream,
} from "@langchain/openai";
import type { OpenAI } from "openai";
import type { ReasoningSettings } from "../../config/profiles.js";
import { LS_PROVIDER } from "../../constants.js";
import { type FailureContext, headerRequestId } from "../../errors/mapper.js";
import { tokenCountFromWire } from "../../spend/call_meter.js";
import { estimateTokens } from "../../spend/estimate.js";
import {
  cacheTokenDetails,
  promptCacheFromWire,
  tokenUsageFromMetadata,
} from "../../spend/usage.js";
import type { Answer } from "../../transport/attempt.js";
import type { Reading } from "../../transport/channel.js";
import { abortError } from "../../utils/sleep.js";
import { checkChatCompletion, checkStructuredFinish } from "./answer.js";
import { replyText } from "./metering.js";
import { readCompletionReasoning, StreamReasoning } from "./reasoning/read_reasoning.js";

type Completion = OpenAI.Chat.Completions.ChatCompletion;
type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
/** A chunk as core's OpenAI stream converter types it. */
type EventChunk =
  Parameters<typeof convertOpenAICompletionsStream>[0] extends AsyncIterable<infer C> ? C : never;

/** What the messages of one response carry in `response_metadata` besides the converters' fields. */
export interface ResponseMeta {
  /** From the `X-Gateway-Request-Id` header (docs/service-contract.md#errors, rule 5). */
  requestId?: string;
  /** The model that answered, as the body names it. */
  model?: string;
}

/** `response_metadata` fields of a response: `model`, `requestId`, when known. */
export function metadataFields(meta: ResponseMeta | undefined): Record<string, unknown> {
  return addMetadataFields({}, meta);
}

/** Writes `meta`'s fields into `into` (see {@link metadataFields}): no copy, on every answer. */
function addMetadataFields(
  into: Record<string, unknown>,
  meta: ResponseMeta | undefined,
): Record<string, unknown> {
  if (meta?.model !== undefined) into.model = meta.model;
  if (meta?.requestId !== undefined) into.requestId = meta.requestId;
  return into;
}

/**
 * The service's request ID of a reply of `ChatInferenceService`: what LangChain keeps, untyped,
 * in `response_metadata.requestId` — of an `invoke`'s message, of a stream's first chunk or of
 * its chunks concatenated, of the message a graph or an agent hands back. Undefined for a
 * message without one (yours, another model's reply, a later chunk of a stream). It is the
 * answer's `X-Gateway-Request-Id`: quote it to support; a `UsageTracker` record's `requestId` and
 * the call span's `inference_service.request_id` hold the same.
 *
 * @example
 * ```ts
 * const reply = await model.invoke("What is the capital of France?");
 * console.log(requestIdOf(reply)); // "20261122082851065306740900000001"
 * ```
 */
export function requestIdOf(
  message: { readonly response_metadata?: unknown } | null | undefined,
): string | undefined {
  const metadata = message?.response_metadata;
  if (typeof metadata !== "object" || metadata === null) return undefined;
  const id = (metadata as { requestId?: unknown }).requestId;
  return typeof id === "string" && id !== "" ? id : undefined;
}

/**
 * The wire's `usage` as LangChain's `usage_metadata`, as `ChatOpenAI` reads it: totals, and the
 * prompt's audio tokens, cache reads (`cache_read`) and writes (`cache_creation`, read from every
 * field the gateway writes them in, with their split by lifetime when it gives one) and the
 * reply's audio and reasoning tokens.
 */
export function usageMetadataOf(usage: OpenAI.CompletionUsage | undefined): UsageMetadata {
  // Fields set one by one, not spread from conditional objects: this runs on every answer.
  // A detail whose condition holds is set even when undefined, as `ChatOpenAI` sets it.
  const metadata: Partial<UsageMetadata> = {};
  if (usage?.completion_tokens) metadata.output_tokens = usage.completion_tokens;
  if (usage?.prompt_tokens) metadata.input_tokens = usage.prompt_tokens;
  if (usage?.total_tokens) metadata.total_tokens = usage.total_tokens;
  const prompt = usage?.prompt_tokens_details;
  const reply = usage?.completion_tokens_details;
  const cache = cacheTokenDetails(promptCacheFromWire(usage));
  if (
    prompt?.audio_tokens !== null ||
    prompt?.cached_tokens !== null ||
    cache.cache_creation !== undefined
  ) {
    const input: Record<string, number | undefined> = {};
    if (prompt?.audio_tokens !== null) input.audio = prompt?.audio_tokens;
    if (prompt?.cached_tokens !== null) input.cache_read = prompt?.cached_tokens;
    if (cache.cache_creation !== undefined) {
      input.cache_creation = cache.cache_creation;
      if (cache.ephemeral_1h_input_tokens !== undefined) {
        input.ephemeral_5m_input_tokens = cache.ephemeral_5m_input_tokens;
        input.ephemeral_1h_input_tokens = cache.ephemeral_1h_input_tokens;
      }
    }
    metadata.input_token_details = input as UsageMetadata["input_token_details"];
  }
  if (reply?.audio_tokens !== null || reply?.reasoning_tokens !== null) {
    const output: Record<string, number | undefined> = {};
    if (reply?.audio_tokens !== null) output.audio = reply?.audio_tokens;
    if (reply?.reasoning_tokens !== null) output.reasoning = reply?.reasoning_tokens;
    metadata.output_token_details = output as UsageMetadata["output_token_details"];
  }
  return metadata as UsageMetadata;
}

/**
 * A non-streamed completion as LangChain's result: one generation per choice, each message with
 * the answer's usage, its finish reason and logprobs, and the response's request ID and model.
 */
export function toChatResult(
  completion: Completion,
  meta: ResponseMeta,
  includeRawResponse: boolean | undefined,
): ChatResult {
  const usage = usageMetadataOf(completion.usage);
  const generations: ChatGeneration[] = [];
  for (const part of completion.choices ?? []) {
    const converted = convertCompletionsMessageToBaseMessage({
      message: part.message ?? { role: "assistant" },
      rawResponse: completion,
      includeRawResponse,
    });
    addMetadataFields(converted.response_metadata, meta).model_provider = LS_PROVIDER;
    if (isAIMessage(converted)) converted.usage_metadata = usage;
    // A fresh message from the converted one's fields, as `ChatOpenAI` builds it: its
    // serialised form then holds the usage.
    const message = new AIMessage(ownFields(converted) as AIMessageFields);
    generations.push({
      text: part.message?.content ?? "",
      message,
      generationInfo: {
        ...(part.finish_reason ? { finish_reason: part.finish_reason } : {}),
        ...(part.logprobs ? { logprobs: part.logprobs } : {}),
      },
    });
  }
  return {
    generations,
    llmOutput: {
      tokenUsage: {
        promptTokens: usage.input_tokens,
        completionTokens: usage.output_tokens,
        totalTokens: usage.total_tokens,
      },
    },
  };
}

/**
 * A message's own fields but LangChain's `lc_*` bookkeeping, as `ChatOpenAI` copies them
 * (entries → filter → fromEntries there; a loop here, on every answer).
 */
function ownFields(message: object): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(message)) {
    if (!key.startsWith("lc_")) fields[key] = (message as Record<string, unknown>)[key];
  }
  return fields;
}

/** A chat stream, opened: its events, and what reading them needs. */
export interface OpenedChatStream {
  events: AsyncIterable<Chunk>;
  /** The request ID of the response; the model is read from the chunks. */
  meta: ResponseMeta;
  /** The `<think>` tags the model's profile says to look for. */
  reasoning: ReasoningSettings["reasoningTags"];
}

/** What a stream's chunks need from the stream as a whole. */
export interface StreamState {
  /** The role of the first delta, which later deltas leave out. */
  role?: OpenAI.Chat.ChatCompletionRole;
  /** The response's metadata, until the first chunk with a choice has carried it. */
  meta?: ResponseMeta;
  /** The call's place in a batch (`promptIndex`). */
  promptIndex: number;
  logprobs: boolean;
  includeRawResponse: boolean | undefined;
}

/**
 * One stream chunk's first choice as a LangChain chunk (undefined when it carries none), as
 * `ChatOpenAI` builds it: the delta converted, the choice's index and finish reason in
 * `generationInfo`. The first such chunk also carries the response's request ID and model, so
 * that concatenated chunks hold one copy of each.
 */
export function toGenerationChunk(
  data: Chunk,
  state: StreamState,
): ChatGenerationChunk | undefined {
  const { meta } = state;
  if (meta && meta.model === undefined && typeof data.model === "string") meta.model = data.model;
  const choice = data?.choices?.[0];
  const delta = choice?.delta;
  if (!choice || !delta) return undefined;
  const message = convertCompletionsDeltaToBaseMessageChunk({
    delta,
    rawResponse: data,
    includeRawResponse: state.includeRawResponse,
    defaultRole: state.role,
  });
  state.role = delta.role ?? state.role;
  if (typeof message.content !== "string") return undefined;
  // Written in place, not merged from a new object: this runs on every chunk.
  const metadata = message.response_metadata as Record<string, unknown>;
  metadata.model_provider = LS_PROVIDER;
  if (meta) {
    addMetadataFields(metadata, meta);
    state.meta = undefined;
  }
  const generationInfo: Record<string, unknown> = {
    prompt: state.promptIndex,
    completion: choice.index ?? 0,
  };
  if (choice.finish_reason != null) {
    generationInfo.finish_reason = choice.finish_reason;
    generationInfo.system_fingerprint = data.system_fingerprint;
    generationInfo.model_name = data.model;
    generationInfo.service_tier = data.service_tier;
  }
  if (state.logprobs) generationInfo.logprobs = choice.logprobs;
  return new ChatGenerationChunk({ message, text: message.content, generationInfo });
}

/** The chunk that closes a stream with its usage, as `ChatOpenAI` writes it. */
export function usageChunk(usage: OpenAI.CompletionUsage): ChatGenerationChunk {
  const { input_token_details, output_token_details } = usageMetadataOf(usage);
  return new ChatGenerationChunk({
    message: new AIMessageChunk({
      content: "",
      response_metadata: { usage: { ...usage } },
      usage_metadata: {
        input_tokens: usage.prompt_tokens,
        output_tokens: usage.completion_tokens,
        total_tokens: usage.total_tokens,
        ...(input_token_details &&
          Object.keys(input_token_details).length > 0 && { input_token_details }),
        ...(output_token_details &&
          Object.keys(output_token_details).length > 0 && { output_token_details }),
      },
    }),
    text: "",
  });
}

/**
 * A stream's chunks as `ChatOpenAI` builds them, from a stream opened when they are first read:
 * each chunk's reasoning read out of it (`StreamReasoning`), each token given to
 * `handleLLMNewToken` once it is handed out, what the reasoning reader held back and the usage
 * chunk last. A stream stopped by `signal` ends with the signal's own error.
 * One async generator over the watched stream: it sits on every chunk.
 */
export async function* toGenerationChunks(
  open: () => Promise<OpenedChatStream>,
  state: StreamState,
  signal: AbortSignal | undefined,
  runManager: CallbackManagerForLLMRun | undefined,
): AsyncGenerator<ChatGenerationChunk> {
  const { events, meta, reasoning } = await open();
  state.meta = meta;
  const reader = new StreamReasoning<Chunk>(reasoning);
  let usage: Chunk["usage"] | undefined;
  const convert = (data: Chunk) => {
    if (data.usage) usage = data.usage;
    return toGenerationChunk(data, state);
  };
  for await (const data of events) {
    if (signal?.aborted) throw abortError(signal);
    reader.read(data);
    const chunk = convert(data);
    if (chunk === undefined) continue;
    yield chunk;
    await newToken(runManager, chunk);
  }
  for (const data of reader.end()) {
    const chunk = convert(data);
    if (chunk === undefined) continue;
    yield chunk;
    await newToken(runManager, chunk);
  }
  if (usage) {
    const chunk = usageChunk(usage);
    yield chunk;
    await newToken(runManager, chunk, { prompt: 0, completion: 0 });
  }
  if (signal?.aborted) throw abortError(signal);
}

/** Hands one chunk to the run's `handleLLMNewToken`, with its place in the batch. */
function newToken(
  runManager: CallbackManagerForLLMRun | undefined,
  chunk: ChatGenerationChunk,
  indices = chunk.generationInfo as { prompt: number; completion: number },
): Promise<void> | undefined {
  return runManager?.handleLLMNewToken(chunk.text, indices, undefined, undefined, undefined, {
    chunk,
  });
}

/**
 * A streamed call's chunks as one result, one generation per choice (by the chunks' `completion`
 * index), each message's `response_metadata` with the generation's info; undefined when the
 * stream carried no choice.
 */
export async function toChatResultFromChunks(
  chunks: AsyncIterable<ChatGenerationChunk>,
): Promise<ChatResult | undefined> {
  const byIndex = new Map<number, ChatGenerationChunk>();
  for await (const chunk of chunks) {
    const index = (chunk.generationInfo?.completion as number | undefined) ?? 0;
    const previous = byIndex.get(index);
    byIndex.set(index, previous ? previous.concat(chunk) : chunk);
  }
  if (byIndex.size === 0) return undefined;
  const generations = [...byIndex.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, generation]) => {
      const { completion: _c, prompt: _p, ...info } = generation.generationInfo ?? {};
      generation.message.response_metadata = { ...info, ...generation.message.response_metadata };
      return generation;
    });
  const usage = (generations[0]?.message as AIMessageChunk | undefined)?.usage_metadata;
  return {
    generations,
    llmOutput: usage ? { tokenUsage: tokenUsageFromMetadata(usage) } : {},
  };
}

/**
 * A non-streamed answer, read: checked (a non-empty `choices`), its reasoning read out of it,
 * what it cost (its usage, else an estimate of the reply) for the channel to settle, and a
 * json_schema answer cut short refused, once paid for, as the openai SDK's `parse` refuses it —
 * never `parse` itself, which would read the answer before its `<think>` tags are taken out
 * (LangChain parses the answer anyway).
 */
export function readCompletion(
  { data, response }: Answer<unknown>,
  ctx: FailureContext,
  tags: ReasoningSettings["reasoningTags"],
  structured: boolean,
): Reading<{ completion: Completion; meta: ResponseMeta }> {
  const completion = readCompletionReasoning(
    checkChatCompletion(data as Completion, response.headers, ctx),
    tags,
  );
  const model = typeof completion.model === "string" ? completion.model : undefined;
  return {
    result: { completion, meta: { requestId: headerRequestId(response.headers), model } },
    // Methods, not arrow properties: the same closures, without a name set on each at run time
    // by a transpiler that keeps names (the benchmarks run the sources through one).
    cost() {
      return {
        usage: tokenCountFromWire(completion.usage),
        outputTokens: estimateTokens(replyText(completion)),
      };
    },
    ...(structured ? { check: () => checkStructuredFinish(completion) } : {}),
  };
}

/**
 * LangChain's chat-model stream events of a stream, built as `@langchain/openai` builds them
 * (core's OpenAI stream converter: reasoning, tool calls and finish reasons as typed blocks),
 * with the request ID and model in the finished message's metadata. Stops quietly at an abort:
 * core raises it once the events stop.
 */
export async function* toChatModelEvents(
  events: AsyncIterable<Chunk>,
  meta: ResponseMeta,
  signal: AbortSignal | undefined,
  streamUsage: boolean | undefined,
): AsyncGenerator<ChatModelStreamEvent> {
  let usage: Chunk["usage"] | undefined;
  async function* untilAborted(source: AsyncIterable<Chunk>): AsyncGenerator<EventChunk> {
    for await (const data of source) {
      if (signal?.aborted) return;
      if (meta.model === undefined && typeof data.model === "string") meta.model = data.model;
      if (data.usage) usage = data.usage;
      yield data as EventChunk; // the SDK's type also allows `custom` tool calls
    }
  }
  const converted = convertOpenAICompletionsStream(untilAborted(events), {
    streamUsage,
    provider: LS_PROVIDER,
  });
  for await (const event of converted) {
    if (event.event !== "message-finish") yield event;
    else {
      const responseMetadata = {
        ...event.responseMetadata,
        model_provider: LS_PROVIDER,
        ...metadataFields(meta),
      };
      // Core's converter reads cache reads only: the writes as this package reads them.
      const writes = usage && cacheTokenDetails(promptCacheFromWire(usage));
      const finished =
        event.usage && writes?.cache_creation !== undefined
          ? {
              ...event,
              usage: {
                ...event.usage,
                input_token_details: { ...event.usage.input_token_details, ...writes },
              },
            }
          : event;
      yield { ...finished, responseMetadata };
    }
  }
}
