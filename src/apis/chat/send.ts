/**
 * @module How `ChatInferenceService` hands a chat call to its channel: the request (signal,
 * retries, request options, meter, estimate, trace), then a completion read and checked, or a
 * stream opened once its first event has arrived.
 */
import type { OpenAI } from "openai";
import type { ReasoningSettings } from "../../config/profiles.js";
import type { CallMeter } from "../../spend/call_meter.js";
import { estimateChatRequest } from "../../spend/estimate.js";
import type { MediaRates } from "../../spend/media_tokens.js";
import type { CallTrace } from "../../telemetry/call_trace.js";
import type { ChannelRequest, ServiceChannel } from "../../transport/channel.js";
import { type OpenedChatStream, type ResponseMeta, readCompletion } from "./converters.js";

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

/** What a call hands the channel besides the body: its signal, retries, request options and trace. */
function channelRequest(
  to: ChatSender,
  body: ChatRequest,
  call: CallSettings,
  meter: CallMeter | undefined,
  trace?: CallTrace,
): ChannelRequest {
  return {
    body: body as unknown as Record<string, unknown>,
    signal: call.signal ?? undefined,
    maxRetries: call.maxRetries,
    options: call.options,
    meter,
    estimate: () =>
      estimateChatRequest(body as unknown as Record<string, unknown>, to.model, to.mediaTokens),
    trace,
  };
}

/**
 * One completion, checked (a non-empty `choices`), its reasoning read out of the answer, the
 * attempt settled to its usage. Never the SDK's `parse`: it would read a json_schema answer
 * before its `<think>` tags are taken out, and LangChain parses the answer itself.
 */
export function completeChat(
  to: ChatSender,
  body: ChatRequest,
  call: CallSettings,
  meter: CallMeter | undefined,
): Promise<{ completion: Completion; meta: ResponseMeta }> {
  const structured = body.response_format?.type === "json_schema";
  return to.channel.request(channelRequest(to, body, call, meter), (answer, ctx, attempt) =>
    readCompletion(answer, ctx, attempt, to.tags, structured),
  );
}

/**
 * A stream, once its first event has arrived, with the response's metadata, the profile's
 * reasoning tags to read out of it, and the metered attempt that answered it, which whoever
 * reads the stream settles with its `trace` (`settleStream`).
 */
export async function openChatStream(
  to: ChatSender,
  body: ChatRequest,
  call: CallSettings,
  meter: CallMeter | undefined,
  trace: CallTrace | undefined,
): Promise<OpenedChatStream> {
  const opened = await to.channel.stream<Chunk>(channelRequest(to, body, call, meter, trace));
  return {
    events: opened.events,
    meta: { requestId: opened.requestId },
    reasoning: to.tags,
    attempt: opened.attempt,
  };
}
