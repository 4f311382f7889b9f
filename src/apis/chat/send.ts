/**
 * @module How `ChatInferenceService` hands a chat call to its channel: the request (signal,
 * retries, request options, run, estimate), then a completion read and checked, or a stream
 * opened when it is first read; the channel meters, traces and settles both.
 */
import type { OpenAI } from "openai";
import type { ReasoningSettings } from "../../config/profiles.js";
import type { MeteredRun } from "../../spend/call_meter.js";
import { estimateChatRequest, type StreamReading } from "../../spend/estimate.js";
import type { MediaRates } from "../../spend/media_tokens.js";
import type { CallStream, StreamHead } from "../../transport/call_stream.js";
import type { ChannelRequest, ServiceChannel } from "../../transport/channel.js";
import { type ResponseMeta, readCompletion } from "./converters.js";

type Completion = OpenAI.Chat.Completions.ChatCompletion;
type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type ChatRequest = OpenAI.Chat.ChatCompletionCreateParams;

/** Where a chat call goes: the model's channel, its model ID, the `<think>` tags of its profile. */
export interface ChatSender {
  channel: ServiceChannel;
  model: string;
  tags: ReasoningSettings["reasoningTags"];
  /** The profile's rates for images and files (`mediaTokens`), which the estimate sizes them by. */
  mediaTokens?: MediaRates;
}

/** What one call passes to the channel from its options. */
export interface CallSettings {
  signal?: AbortSignal | null;
  maxRetries?: number;
  /** The openai SDK's request options of the call (`options` of the call options). */
  options?: OpenAI.RequestOptions;
}

/** What a call hands the channel besides the body: its signal, retries, request options and run. */
function channelRequest(
  to: ChatSender,
  body: ChatRequest,
  call: CallSettings,
  run: MeteredRun | undefined,
): ChannelRequest {
  return {
    body: body as unknown as Record<string, unknown>,
    signal: call.signal ?? undefined,
    maxRetries: call.maxRetries,
    options: call.options,
    run,
    estimate() {
      return estimateChatRequest(
        body as unknown as Record<string, unknown>,
        to.model,
        to.mediaTokens,
      );
    },
  };
}

/**
 * One completion, checked (a non-empty `choices`), its reasoning read out of the answer, the
 * attempt settled to its usage by the channel. Never the SDK's `parse`: it would read a
 * json_schema answer before its `<think>` tags are taken out, and LangChain parses the answer
 * itself.
 */
export function completeChat(
  to: ChatSender,
  body: ChatRequest,
  call: CallSettings,
  run: MeteredRun | undefined,
): Promise<{ completion: Completion; meta: ResponseMeta }> {
  const structured = body.response_format?.type === "json_schema";
  return to.channel.request(channelRequest(to, body, call, run), (answer, ctx) =>
    readCompletion(answer, ctx, to.tags, structured),
  );
}

/** How a chat stream's events are read into what the model hands out, and what each counts. */
export interface ChatStreamReader<U> {
  read: (events: AsyncIterable<Chunk>, head: StreamHead) => AsyncIterable<U>;
  count: (reading: StreamReading, item: U) => void;
}

/**
 * A chat stream, sent when it is first read (the body built then), metered, traced and settled
 * by the channel however it ends.
 */
export function streamChat<U>(
  to: ChatSender,
  body: () => ChatRequest,
  call: CallSettings,
  run: MeteredRun | undefined,
  reader: ChatStreamReader<U>,
): CallStream<U> {
  return to.channel.stream<Chunk, U>(() => channelRequest(to, body(), call, run), reader);
}
