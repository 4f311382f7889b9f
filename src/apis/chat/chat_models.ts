/** @module `ChatInferenceService`: the chat model for the service's hosted models (docs/service-contract.md#hosted-models). */

import type { CallbackManagerForLLMRun, Callbacks } from "@langchain/core/callbacks/manager";
import type {
  BaseLanguageModelInput,
  StructuredOutputMethodOptions,
} from "@langchain/core/language_models/base";
import type { ChatModelStreamEvent } from "@langchain/core/language_models/event";
import type { ModelProfile } from "@langchain/core/language_models/profile";
import type {
  AIMessageChunk,
  BaseMessage,
  BaseMessageLike,
  MessageContent,
} from "@langchain/core/messages";
import type { ChatGenerationChunk, ChatResult, LLMResult } from "@langchain/core/outputs";
import type { Runnable, RunnableConfig } from "@langchain/core/runnables";
import type { InteropZodType } from "@langchain/core/utils/types";
import {
  type BaseChatOpenAIFields,
  ChatOpenAICompletions,
  type ChatOpenAICompletionsCallOptions,
  convertMessagesToCompletionsMessageParams,
} from "@langchain/openai";
import type { OpenAI } from "openai";
import {
  DEFAULT_HOSTED_PROFILE,
  type InferenceModelProfile,
  type ModelProfiles,
  reasoningSettingsOf,
  resolveProfile,
} from "../../config/profiles.js";
import { LC_NAMESPACE, LS_PROVIDER, PACKAGE_NAME } from "../../constants.js";
import { toServiceError } from "../../errors/mapper.js";
import { type MeteredRun, streamEventsRun } from "../../spend/call_meter.js";
import { estimateTokens } from "../../spend/estimate.js";
import type { RateLimiter } from "../../spend/rate_limiter.js";
import { ServiceChannel } from "../../transport/channel.js";
import { REDACTED, redactCallOptions } from "../../utils/secrets.js";
import { VERSION } from "../../version.js";
import {
  checkChatCallOptions,
  checkCompletionWithRetry,
  checkLangChainFields,
  checkMessageContent,
} from "../call_options.js";
import { constructorFields, serialisedValues } from "../options.js";
import { type ResponsesRoute, routeFor } from "../responses/route.js";
import { needsRunId, startedRun, startedStream } from "../run_start.js";
import { keepRun, runOf } from "./base_class.js";
import { registerContentBlockTranslator } from "./content_blocks.js";
import {
  type StreamState,
  toChatModelEvents,
  toChatResult,
  toChatResultFromChunks,
  toGenerationChunks,
} from "./converters.js";
import { contentText, countChunk, countGenerationChunk } from "./metering.js";
import { type ChatInferenceServiceOptions, chatModelId, validateChatOptions } from "./options.js";
import { readStreamReasoning } from "./reasoning/read_reasoning.js";
import { reasoningToSendBack, withReasoningSentBack } from "./reasoning/send_reasoning.js";
import { RedactedBinding } from "./redacted_binding.js";
import { type ChatSender, completeChat, streamChat } from "./send.js";
import { hideApiKey, serialisableKeys, withOwnSecret } from "./serialisation.js";
import { type StructuredOutputWithRaw, structuredOutput } from "./structured_output.js";

/** Call options of {@link ChatInferenceService}: those of `ChatOpenAICompletions` (tools, `tool_choice`, `response_format`, `signal`, `timeout`, `maxRetries`, …). */
export interface ChatInferenceServiceCallOptions extends ChatOpenAICompletionsCallOptions {
  /** Retries for this call only; overrides the model's `maxRetries`. */
  maxRetries?: number;
  /**
   * Extra body fields for this call, laid over the model's `modelKwargs` (and over the fields
   * this class writes): e.g. a provider's thinking switch, `{ thinking: { type: "enabled" } }`
   * (DeepSeek, GLM), `{ enable_thinking: false }` (Qwen3 on DashScope) or
   * `{ chat_template_kwargs: { enable_thinking: false } }` (Qwen3 on vLLM or SGLang).
   */
  modelKwargs?: Record<string, unknown>;
  /** With `useResponsesApi`: continues a response stored on the service (docs/responses.md). */
  previous_response_id?: string;
}

/**
 * Options of {@link ChatInferenceService}: those this package owns (model, key, URL, retries,
 * timeouts, rate limit, profiles; each documented where its schema declares it), and every other
 * `ChatOpenAI` field (temperature, maxTokens, streaming, …), which works as there.
 */
export type ChatInferenceServiceFields = Omit<
  BaseChatOpenAIFields,
  keyof ChatInferenceServiceOptions
> &
  ChatInferenceServiceOptions;

// biome-ignore lint/suspicious/noExplicitAny: matches the base class's structured-output signature
type AnyRecord = Record<string, any>;
/** A structured output's schema, as the base class takes it: zod, or JSON schema. */
type OutputSchema<R extends AnyRecord> = InteropZodType<R> | AnyRecord;
type Completion = OpenAI.Chat.Completions.ChatCompletion;
type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type ChatRequest = OpenAI.Chat.ChatCompletionCreateParams;

// Before any reply exists: `contentBlocks` of this package's messages finds its translator.
registerContentBlockTranslator();

/**
 * Chat model for the hosted models of the inference service — a drop-in for `ChatOpenAI` in any
 * chain, agent or RAG pipeline, with typed fail-fast errors (see {@link InferenceServiceError}).
 * The guide, with every feature and its output, is docs/hosted-models.md.
 *
 * @example
 * ```ts
 * import { ChatInferenceService } from "langchain-inference-service";
 * // INFERENCE_SERVICE_BASE_URL and INFERENCE_SERVICE_API_KEY set
 * const model = new ChatInferenceService("emulator-chat", { temperature: 0, maxRetries: 2 });
 * const reply = await model.invoke("What is the capital of France?");
 * console.log(reply.content, reply.usage_metadata, reply.response_metadata.requestId);
 * for await (const chunk of await model.stream("Tell me a story")) process.stdout.write(chunk.text);
 * ```
 * Tools (`bindTools`), structured output (`withStructuredOutput`, its method chosen by the
 * model's profile), model profiles (`profiles`), reasoning models (`reasoning` content blocks,
 * `outputVersion: "v1"`, `reasoning: { effort }`), budgets (`UsageTracker`) and rate limits
 * (`rateLimiter`) work as the guide shows. Every failure is a subclass of `InferenceServiceError`
 * with `status`, `code`, `requestId`, `retryable` and a `hint`; what no retry can fix fails on the
 * first response.
 */
export class ChatInferenceService<
  CallOptions extends ChatInferenceServiceCallOptions = ChatInferenceServiceCallOptions,
> extends ChatOpenAICompletions<CallOptions> {
  /** The normalised `…/inference/v1` URL requests go to. */
  readonly baseURL: string;
  /** Profiles by model ID, as given (see {@link ChatInferenceServiceFields.profiles}). */
  readonly profiles?: ModelProfiles;
  /** The client-side rate limit of this model's calls, if one was given. */
  readonly rateLimiter?: RateLimiter;
  /** How requests travel; it alone holds the key, the client and the headers. */
  readonly #channel: ServiceChannel;
  /** Where calls go through the Responses API, when `useResponsesApi` asks for it. */
  readonly #responses?: ResponsesRoute;
  #profile?: { model: string; profile: Readonly<InferenceModelProfile> };

  static override lc_name(): string {
    return "ChatInferenceService";
  }

  override lc_namespace = [LC_NAMESPACE, "chat_models"];

  /**
   * The key written as a reference to INFERENCE_SERVICE_API_KEY, never as a value. Done here and
   * not through `lc_secrets`: core merges that up the class chain with the base class winning, so
   * an override of it could never rename `ChatOpenAI`'s OPENAI_API_KEY (see `withOwnSecret`).
   */
  override toJSON() {
    return withOwnSecret(super.toJSON());
  }

  constructor(model: string, fields?: Omit<ChatInferenceServiceFields, "model">);
  constructor(fields?: ChatInferenceServiceFields);
  constructor(
    modelOrFields?: string | ChatInferenceServiceFields,
    maybeFields?: Omit<ChatInferenceServiceFields, "model">,
  ) {
    const fields = constructorFields(
      modelOrFields,
      maybeFields,
      'new ChatInferenceService("my-model", { maxTokens: 256 })',
    );
    checkLangChainFields(fields);
    const model = chatModelId(fields.model ?? fields.modelName);
    const options = validateChatOptions({ ...fields, model });
    const channel = new ServiceChannel("chat", options, { model });
    // What `ChatOpenAI` reads itself (temperature, maxTokens, streaming, …); never the secrets.
    const {
      configuration: _configuration,
      fetch: _fetch,
      rateLimiter: _limiter,
      openAIApiKey: _alias,
      baseUrl: _loadedSpelling,
      modelName: _name,
      ...rest
    } = fields;
    const { baseURL } = channel;
    // The base class gets a placeholder key: it would keep the real one on public fields.
    const given = {
      ...rest,
      model,
      apiKey: REDACTED,
      baseURL,
      maxRetries: options.maxRetries,
      configuration: { baseURL, organization: null, project: null },
    };
    super(given as BaseChatOpenAIFields);
    // What LangChain prints and serialises: `ChatOpenAI`'s keys with this package's own in place of
    // those it owns (see serialisableKeys).
    this.lc_kwargs = serialisedValues(given, serialisableKeys(this.lc_serializable_keys));
    hideApiKey(this, channel.apiKey);
    // The base class's identifying params (cache keys, traces, `inspect`) spread its client
    // config; this model has no client of the base class's, so it is the URL alone (never the
    // placeholder key, the organization or a header).
    this.clientConfig = { baseURL };
    this.organization = undefined;
    this.baseURL = baseURL;
    this.profiles = options.profiles;
    this.rateLimiter = options.rateLimiter;
    this.#channel = channel;
    this.caller = channel.caller;
    this.#responses = routeFor(options, channel, this);
    this._addVersion(PACKAGE_NAME, VERSION);
  }

  /**
   * What `console.log(model)` and `util.inspect` show: the identifying params, never the key,
   * the client or header values (the base class keeps those on public fields it reads).
   */
  [Symbol.for("nodejs.util.inspect.custom")](
    _depth: number,
    options: unknown,
    inspect: (value: unknown, options: unknown) => string,
  ): string {
    return `${ChatInferenceService.lc_name()} ${inspect(this._identifyingParams(), options)}`;
  }

  override _llmType(): string {
    return LS_PROVIDER;
  }

  /** @ignore What callbacks and LangSmith receive as the call's options: per-call header values redacted. */
  protected override _getCallOptionsForTracing(
    options: this["ParsedCallOptions"],
    invocationParams: ReturnType<this["invocationParams"]>,
  ): this["ParsedCallOptions"] {
    return redactCallOptions(super._getCallOptionsForTracing(options, invocationParams));
  }

  /**
   * What this model can do, as LangChain v1 agents and middleware read it: the `profiles` entry
   * of its model ID laid over {@link DEFAULT_HOSTED_PROFILE} (context window unknown unless declared).
   *
   * @example
   * const model = new ChatInferenceService("my-model", {
   *   profiles: { "my-model": { maxInputTokens: 131_072, structuredOutput: true } },
   * });
   * model.profile.maxInputTokens; // 131072
   * model.profile.toolCalling; // true (default)
   */
  override get profile(): ModelProfile {
    // A copy: what a caller changes in it changes nothing here.
    return { ...this.#resolvedProfile() };
  }

  /** The profile, resolved once per model ID: every call reads its reasoning settings. */
  #resolvedProfile(): Readonly<InferenceModelProfile> {
    if (this.#profile?.model !== this.model) {
      const profile = resolveProfile(this.model, this.profiles, DEFAULT_HOSTED_PROFILE);
      this.#profile = { model: this.model, profile };
    }
    return this.#profile.profile;
  }

  override getLsParams(options: this["ParsedCallOptions"]) {
    return { ...super.getLsParams(options), ls_provider: LS_PROVIDER };
  }

  /**
   * @ignore The request's fields: the base class's, with `reasoning_effort` for every model (the
   * base class writes it only for model names it knows as OpenAI's reasoning models), and the
   * call's `modelKwargs` last.
   */
  override invocationParams(
    options?: this["ParsedCallOptions"],
    extra?: { streaming?: boolean },
  ): ReturnType<ChatOpenAICompletions<CallOptions>["invocationParams"]> {
    const params = super.invocationParams(options, extra);
    const effort =
      params.reasoning_effort ??
      options?.reasoning?.effort ??
      this.reasoning?.effort ??
      options?.reasoningEffort;
    const perCall = options?.modelKwargs;
    if (effort == null && perCall === undefined) return params;
    return {
      ...params,
      ...(effort != null ? { reasoning_effort: effort } : {}),
      ...perCall,
    } as typeof params;
  }

  /**
   * A local estimate, by the package's one rule (a token per three UTF-8 bytes, see
   * `estimateTokens`): the base class downloads tokenizer ranks from the internet, which stalls
   * offline, and the service reports real usage anyway.
   */
  override async getNumTokens(content: MessageContent): Promise<number> {
    checkMessageContent(content);
    return estimateTokens(contentText(content));
  }

  /**
   * One call: a completion, sent through the channel and read into LangChain's result. With
   * `streaming: true` it streams, and keeps the service's own usage chunk (the base class would
   * estimate tokens with a tokenizer it downloads, impossible offline).
   */
  override async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    if (this.streaming) return this.#generateFromStream(messages, options, runManager);
    options.signal?.throwIfAborted();
    const responses = this.#responses;
    if (responses === undefined) return this.#complete(messages, options, runManager);
    return responses.generate(messages, options, runManager, () =>
      this.#complete(messages, options, runManager),
    );
  }

  /** One call through Chat Completions: the completion read into LangChain's result. */
  async #complete(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const body = this.#body(messages, options, false);
    const { completion, meta } = await completeChat(this.#sender(), body, options, runManager);
    return toChatResult(completion, meta, this.__includeRawResponse);
  }

  /** `invoke` of a `streaming: true` model: the stream's chunks, one generation per choice. */
  async #generateFromStream(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const result = await toChatResultFromChunks(
      this._streamResponseChunks(messages, options, runManager),
    );
    if (result === undefined) {
      throw toServiceError(
        { kind: "malformed", detail: "the stream ended without any choice" },
        this.#channel.context,
      );
    }
    return result;
  }

  /**
   * A stream's chunks, read from the channel chunk by chunk: reasoning in its own field, the
   * request ID and model on the first chunk, each token to `handleLLMNewToken`, the usage chunk
   * last. The call's meter settles to the usage chunk; without it, to what was streamed when the
   * stream fails, to its worst case when it is left or stopped; its span ends then too.
   */
  override _streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const chat = () => this.#chatChunks(messages, options, runManager);
    return this.#responses?.chunks(messages, options, runManager, chat) ?? chat();
  }

  #chatChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const state: StreamState = {
      promptIndex: options.promptIndex ?? 0,
      logprobs: this.logprobs === true,
      includeRawResponse: this.__includeRawResponse,
    };
    const sender = this.#sender();
    // Sent when the chunks are first read: nothing is built or sent for a stream nobody reads.
    return streamChat(sender, () => this.#body(messages, options, true), options, runManager, {
      read: (events, { requestId }) =>
        toGenerationChunks(
          async () => ({ events, meta: { requestId }, reasoning: sender.tags }),
          state,
          options.signal,
          runManager,
        ),
      count: countGenerationChunk,
    });
  }

  /**
   * `invoke`, `batch` and `generate`: the base class's, with its run's ID fixed so that a failed
   * start can be ended (see `run_start.ts`). Guarded here, around both of core's paths: with a
   * `cache`, core starts the run before `_generateUncached`. A call with nothing to end and no
   * stream-events handler is core's alone.
   */
  override async generate(
    messages: BaseMessageLike[][],
    options?: string[] | Partial<CallOptions>,
    callbacks?: Callbacks,
  ): Promise<LLMResult> {
    const given: Partial<CallOptions> = Array.isArray(options)
      ? ({ stop: options } as Partial<CallOptions>)
      : (options ?? {});
    const runCallbacks = given.callbacks ?? callbacks;
    checkChatCallOptions(given, { callbacks: runCallbacks });
    const lists = [runCallbacks, this.callbacks];
    if (given.runId === undefined && !needsRunId(lists)) {
      return super.generate(messages, options, callbacks);
    }
    return startedRun(given.runId, lists, (runId) =>
      super.generate(messages, { ...given, runId }, callbacks),
    );
  }

  /**
   * Core's chat-model stream-events path calls the stream without its run manager: when a handler
   * may send the call down that path, the run (its ID fixed by `generate`) is kept for the stream
   * (the workaround named in `base_class.ts`).
   */
  override async _generateUncached(
    messages: BaseMessageLike[][],
    parsedOptions: this["ParsedCallOptions"],
    handledOptions: RunnableConfig,
    startedRunManagers?: CallbackManagerForLLMRun[],
  ): Promise<LLMResult> {
    const started = startedRunManagers?.[0];
    const run = started
      ? streamEventsRun(started.handlers, undefined, started.runId)
      : streamEventsRun(handledOptions.callbacks, this.callbacks, handledOptions.runId);
    keepRun(parsedOptions, run);
    return super._generateUncached(messages, parsedOptions, handledOptions, startedRunManagers);
  }

  /** `stream()`: the base class's, with its run's ID fixed so that a failed start can be ended. */
  override _streamIterator(
    input: BaseLanguageModelInput,
    options?: CallOptions,
  ): AsyncGenerator<AIMessageChunk> {
    checkChatCallOptions(options ?? {});
    return startedStream(options?.runId, [options?.callbacks, this.callbacks], (runId) =>
      super._streamIterator(input, { ...options, runId } as CallOptions),
    );
  }

  /**
   * LangChain's chat-model stream-events protocol (`model.streamEvents(input)`, and the path core
   * takes when a handler prefers these events, e.g. LangGraph's messages streaming). Built as
   * `@langchain/openai` builds it (core's OpenAI stream converter: reasoning, tool calls and
   * finish reasons as typed blocks), from this model's stream, with the request ID in the
   * message's metadata.
   */
  override _streamChatModelEvents(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatModelStreamEvent> {
    const run = runManager ?? runOf(options);
    const chat = () => this.#chatEvents(messages, options, run);
    return this.#responses?.events(messages, options, run, chat) ?? chat();
  }

  async *#chatEvents(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    run: MeteredRun | undefined,
  ): AsyncGenerator<ChatModelStreamEvent> {
    const sender = this.#sender();
    const stream = streamChat(sender, () => this.#body(messages, options, true), options, run, {
      read: (events) => readStreamReasoning(events, sender.tags),
      count: countChunk,
    });
    const { requestId } = await stream.open();
    yield* toChatModelEvents(stream, { requestId }, options.signal, this.streamUsage);
  }

  /**
   * `ChatOpenAI`'s public way to send a request the caller built itself: sent through the
   * channel like every other (with the model's rate limiter), a stream once its first event has
   * arrived, a completion once checked.
   */
  override completionWithRetry(
    request: OpenAI.Chat.ChatCompletionCreateParamsStreaming,
    requestOptions?: OpenAI.RequestOptions,
  ): Promise<AsyncIterable<Chunk>>;
  override completionWithRetry(
    request: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
    requestOptions?: OpenAI.RequestOptions,
  ): Promise<Completion>;
  override async completionWithRetry(
    request: ChatRequest,
    requestOptions?: OpenAI.RequestOptions & { maxRetries?: number },
  ): Promise<AsyncIterable<Chunk> | Completion> {
    checkCompletionWithRetry(request, requestOptions);
    const { maxRetries, signal, ...options } = requestOptions ?? {};
    const call = { signal: signal ?? undefined, maxRetries, options };
    const sender = this.#sender();
    if (request.stream) {
      const stream = streamChat(sender, () => request, call, undefined, {
        read: (events) => readStreamReasoning(events, sender.tags),
        count: countChunk,
      });
      await stream.open();
      return stream;
    }
    return (await completeChat(sender, request, call, undefined)).completion;
  }

  /** The request of one call: the call's fields, its messages, and the reasoning they send back. */
  #body(messages: BaseMessage[], options: this["ParsedCallOptions"], stream: boolean): ChatRequest {
    const params = this.invocationParams(options, { streaming: stream });
    const converted = convertMessagesToCompletionsMessageParams({ messages, model: this.model });
    const body: ChatRequest = stream
      ? { ...params, messages: converted, stream: true }
      : { ...params, stream: false, messages: converted };
    const { reasoningRoundTrip } = reasoningSettingsOf(this.#resolvedProfile());
    return withReasoningSentBack(body, reasoningToSendBack(messages, reasoningRoundTrip));
  }

  /** Where a chat call goes, and the reasoning tags its answer is read for. */
  #sender(): ChatSender {
    const profile = this.#resolvedProfile();
    const { reasoningTags } = reasoningSettingsOf(profile);
    return {
      channel: this.#channel,
      model: this.model,
      tags: reasoningTags,
      mediaTokens: profile.mediaTokens,
    };
  }

  override withStructuredOutput<RunOutput extends AnyRecord = AnyRecord>(
    outputSchema: OutputSchema<RunOutput>,
    config?: StructuredOutputMethodOptions<false>,
  ): Runnable<BaseLanguageModelInput, RunOutput>;
  override withStructuredOutput<RunOutput extends AnyRecord = AnyRecord>(
    outputSchema: OutputSchema<RunOutput>,
    config?: StructuredOutputMethodOptions<true>,
  ): Runnable<BaseLanguageModelInput, StructuredOutputWithRaw<RunOutput>>;
  /**
   * Structured output (see `structured_output.ts`): `method: "jsonSchema"` when the model's profile
   * says `structuredOutput: true`, else `"functionCalling"` (a forced tool call); an explicit
   * `method` wins. A `jsonSchema` answer in prose, or a refused `response_format`, is asked once
   * more as a forced tool call; an answer that still cannot be read is a `StructuredOutputError`.
   */
  override withStructuredOutput<RunOutput extends AnyRecord = AnyRecord>(
    outputSchema: OutputSchema<RunOutput>,
    config?: StructuredOutputMethodOptions<boolean>,
  ):
    | Runnable<BaseLanguageModelInput, RunOutput>
    | Runnable<BaseLanguageModelInput, StructuredOutputWithRaw<RunOutput>> {
    return structuredOutput(this, outputSchema, config) as Runnable<
      BaseLanguageModelInput,
      RunOutput
    >;
  }

  /**
   * A binding with these call options. Per-call headers in it (`options.headers`) are sent but
   * never serialised or printed: `JSON.stringify` and `console.log` of the binding show
   * `[redacted]`, as for `defaultHeaders`.
   */
  override withConfig(
    config: Partial<CallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, CallOptions> {
    return new RedactedBinding<BaseLanguageModelInput, AIMessageChunk, CallOptions>({
      bound: this,
      kwargs: {},
      config,
    });
  }
}
