/**
 * @module `ResponsesRoute`: a chat model's calls through the Responses API (`POST …/responses`),
 * sent through a channel of its own that shares the chat channel's queue and retries — so every
 * call is metered, rate limited, traced and typed as on Chat Completions — and, for
 * `useResponsesApi: "auto"`, the choice of API per call and the fall back to Chat Completions
 * (docs/responses.md). The chat model only routes its calls here.
 */
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { ChatModelStreamEvent } from "@langchain/core/language_models/event";
import type { BaseMessage } from "@langchain/core/messages";
import type { ChatGenerationChunk, ChatResult } from "@langchain/core/outputs";
import type { OpenAI } from "openai";
import { InferenceServiceError } from "../../errors/errors.js";
import { headerRequestId } from "../../errors/mapper.js";
import { type MeteredRun, tokenCountFromWire } from "../../spend/call_meter.js";
import { estimateTokens } from "../../spend/estimate.js";
import type { MediaRates } from "../../spend/media_tokens.js";
import type { CallStream } from "../../transport/call_stream.js";
import {
  type ChannelOptions,
  type ChannelRequest,
  type Reading,
  ServiceChannel,
  type StreamReader,
} from "../../transport/channel.js";
import { checkResponse, type ResponseEvent, ResponsesWatch } from "./answer.js";
import { toChatModelEvents, toChatResult, toGenerationChunks } from "./converters.js";
import { estimateResponsesRequest } from "./estimate.js";
import { type AutoTarget, autoUsesResponses, rememberFallback } from "./fallbacks.js";
import { toInputItems } from "./input.js";
import type { ResponsesMode } from "./options.js";
import { type ResponsesBody, responsesBody } from "./request.js";
import { countChunk, countEvent } from "./usage.js";

/** The call options the route reads (the chat model's parsed call options). */
export interface ResponsesCall {
  signal?: AbortSignal | null;
  maxRetries?: number;
  /** The openai SDK's request options of the call. */
  options?: OpenAI.RequestOptions;
  /** Continues a stored response (the caller then keeps state on the service). */
  previous_response_id?: string;
  reasoning?: OpenAI.Reasoning;
  promptIndex?: number;
}

/** What the route asks of the chat model it serves. */
export interface ResponsesHost {
  /** The call's fields as the chat model writes them for Chat Completions (`invocationParams`). */
  params(call: ResponsesCall, stream: boolean): Record<string, unknown>;
  /** The model's own `reasoning` option. */
  reasoning(): OpenAI.Reasoning | undefined;
  /** Whether the model's profile says it reasons (`reasoningOutput`). */
  reasons(): boolean;
  /** Whether `streamUsage` is on, for the stream-events protocol. */
  streamUsage(): boolean | undefined;
  /** The profile's rates for images and files (`mediaTokens`), which the estimate sizes them by. */
  mediaTokens(): MediaRates | undefined;
}

type Fields = Record<string, unknown>;

/** The Responses API side of a chat model. */
export class ResponsesRoute {
  readonly #mode: ResponsesMode;
  readonly #channel: ServiceChannel;
  readonly #host: ResponsesHost;
  readonly #target: AutoTarget;

  constructor(
    mode: Exclude<ResponsesMode, false>,
    options: ChannelOptions,
    chat: ServiceChannel,
    target: { model: string; host: ResponsesHost },
  ) {
    const { model, host } = target;
    this.#mode = mode;
    this.#host = host;
    this.#channel = new ServiceChannel("responses", options, { model, caller: chat.caller });
    const fetch = (options.fetch ?? options.configuration?.fetch) as AutoTarget["fetch"];
    this.#target = {
      baseURL: chat.baseURL,
      apiKey: chat.apiKey,
      model,
      ...(fetch ? { fetch } : {}),
    };
  }

  /** Whether this call goes to the Responses API: always with `true`; by the model list with "auto". */
  #uses(): Promise<boolean> | boolean {
    return this.#mode === true || autoUsesResponses(this.#target);
  }

  /**
   * Whether a failure of this call sends it to Chat Completions: only with "auto", only when the
   * gateway cannot serve the call there (`convert_request_failed`, or a 404), and never a call
   * that Chat Completions would refuse (function tools with a reasoning effort).
   */
  #fallsBack(error: unknown, body: ResponsesBody): boolean {
    if (this.#mode !== "auto" || !InferenceServiceError.isInstance(error)) return false;
    const unserved =
      error.code === "convert_request_failed" ||
      (error.status === 404 && error.name === "InvalidURLError");
    if (!unserved) return false;
    const tools =
      Array.isArray(body.tools) &&
      body.tools.some((tool) => (tool as unknown as Fields).type === "function");
    const effort = (body.reasoning as Fields | undefined)?.effort;
    if (tools && typeof effort === "string" && effort !== "none") return false;
    rememberFallback(this.#target);
    return true;
  }

  /** One call's body: the chat fields renamed, the messages as input items, stateless unless asked. */
  #body(messages: BaseMessage[], call: ResponsesCall, stream: boolean): ResponsesBody {
    const params = this.#host.params(call, stream);
    const previousResponseId = call.previous_response_id;
    const stateless = params.store !== true && !previousResponseId;
    const summary = call.reasoning?.summary ?? this.#host.reasoning()?.summary;
    return responsesBody(params, {
      input: toInputItems(messages, this.#target.model, stateless),
      stream,
      previousResponseId,
      summary,
      reasons: this.#host.reasons(),
    });
  }

  #request(body: ResponsesBody, call: ResponsesCall, run?: MeteredRun): ChannelRequest {
    const model = this.#target.model;
    const host = this.#host;
    return {
      body,
      signal: call.signal ?? undefined,
      maxRetries: call.maxRetries,
      options: call.options,
      run,
      estimate() {
        return estimateResponsesRequest(body, model, host.mediaTokens());
      },
    };
  }

  /**
   * `invoke` through the Responses API: the response checked, the attempt settled to its usage,
   * LangChain's result; `chat` answers instead when "auto" sends the call to Chat Completions.
   */
  async generate(
    messages: BaseMessage[],
    call: ResponsesCall,
    runManager: CallbackManagerForLLMRun | undefined,
    chat: () => Promise<ChatResult>,
  ): Promise<ChatResult> {
    if (!(await this.#uses())) return chat();
    const body = this.#body(messages, call, false);
    try {
      const structured = isStructured(body);
      return await this.#channel.request(this.#request(body, call, runManager), (answer, ctx) =>
        read(answer, ctx, structured),
      );
    } catch (error) {
      if (this.#fallsBack(error, body)) return chat();
      throw error;
    }
  }

  /**
   * A stream through the Responses API, opened once its first event has arrived; undefined when
   * "auto" sends the call to Chat Completions instead.
   */
  async #open<U>(
    body: ResponsesBody,
    call: ResponsesCall,
    run: MeteredRun | undefined,
    reader: StreamReader<ResponseEvent, U>,
  ): Promise<CallStream<U> | undefined> {
    const request = { ...this.#request(body, call, run), watch: new ResponsesWatch() };
    const stream = this.#channel.stream<ResponseEvent, U>(request, reader);
    try {
      await stream.open();
    } catch (error) {
      if (this.#fallsBack(error, body)) return undefined;
      throw error;
    }
    return stream;
  }

  /**
   * `stream()` through the Responses API: LangChain chunks, the reasoning item whole on the last
   * (see `converters.ts`), settled once however the stream ends; `chat` streams instead when
   * "auto" sends the call to Chat Completions.
   */
  async *chunks(
    messages: BaseMessage[],
    call: ResponsesCall,
    runManager: CallbackManagerForLLMRun | undefined,
    chat: () => AsyncGenerator<ChatGenerationChunk>,
  ): AsyncGenerator<ChatGenerationChunk> {
    if (!(await this.#uses())) return yield* chat();
    const body = this.#body(messages, call, true);
    const signal = call.signal ?? undefined;
    const how = { promptIndex: call.promptIndex, structured: isStructured(body) };
    const stream = await this.#open(body, call, runManager, {
      read: (events, { requestId }) =>
        toGenerationChunks(events, { requestId }, signal, runManager, how),
      count: countChunk,
    });
    if (stream === undefined) return yield* chat();
    yield* stream;
  }

  /** LangChain's chat-model stream events through the Responses API (or `chat`'s, as above). */
  async *events(
    messages: BaseMessage[],
    call: ResponsesCall,
    run: MeteredRun | undefined,
    chat: () => AsyncGenerator<ChatModelStreamEvent>,
  ): AsyncGenerator<ChatModelStreamEvent> {
    if (!(await this.#uses())) return yield* chat();
    const body = this.#body(messages, call, true);
    const stream = await this.#open(body, call, run, { count: countEvent });
    if (stream === undefined) return yield* chat();
    const { requestId } = await stream.open();
    const signal = call.signal ?? undefined;
    yield* toChatModelEvents(stream, { requestId }, signal, this.#host.streamUsage());
  }
}

/** Whether a body asks for a json_schema answer, which structured output reads as `parsed`. */
function isStructured(body: ResponsesBody): boolean {
  return (body.text?.format as Fields | undefined)?.type === "json_schema";
}

/** Reads a whole response: checked, and what it cost (its usage, else an estimate) for the channel. */
function read(
  { data, response }: { data: unknown; response: Response },
  ctx: Parameters<typeof checkResponse>[2],
  structured: boolean,
): Reading<ChatResult> {
  const checked = checkResponse(data, response.headers, ctx);
  return {
    cost() {
      return {
        usage: tokenCountFromWire(checked.usage),
        outputTokens: estimateTokens(JSON.stringify(checked.output ?? [])),
      };
    },
    // Made once the answer is paid for: a json_schema answer it cannot parse fails after.
    get result() {
      return toChatResult(checked, { requestId: headerRequestId(response.headers) }, structured);
    },
  };
}

/** What `routeFor` reads of the chat model it routes (`ChatInferenceService`). */
export interface RoutedModel {
  model: string;
  reasoning?: OpenAI.Reasoning;
  streamUsage?: boolean;
  readonly profile: { reasoningOutput?: boolean; mediaTokens?: MediaRates };
  invocationParams(options: never, extra: { streaming: boolean }): object;
}

/**
 * The Responses API side of a chat model, when its `useResponsesApi` asks for one (`true` or
 * "auto"); undefined for Chat Completions alone.
 */
export function routeFor(
  options: ChannelOptions & { useResponsesApi?: ResponsesMode },
  chat: ServiceChannel,
  model: RoutedModel,
): ResponsesRoute | undefined {
  const mode = options.useResponsesApi ?? false;
  if (mode === false) return undefined;
  return new ResponsesRoute(mode, options, chat, {
    model: model.model,
    host: {
      params: (call, streaming) =>
        model.invocationParams(call as never, { streaming }) as Record<string, unknown>,
      reasoning: () => model.reasoning,
      reasons: () => model.profile.reasoningOutput === true,
      streamUsage: () => model.streamUsage,
      mediaTokens: () => model.profile.mediaTokens,
    },
  });
}
