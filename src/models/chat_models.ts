/** @module `ChatInferenceService`: the chat model for the service's hosted models (docs/service-contract.md#hosted-models). */

import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type {
  BaseLanguageModelInput,
  StructuredOutputMethodOptions,
} from "@langchain/core/language_models/base";
import type { ChatModelStreamEvent } from "@langchain/core/language_models/event";
import type { ModelProfile } from "@langchain/core/language_models/profile";
import type {
  AIMessageChunk,
  BaseMessage,
  BaseMessageChunk,
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
  convertOpenAICompletionsStream,
} from "@langchain/openai";
import type { OpenAI } from "openai";
import { ContentFilterFinishReasonError, LengthFinishReasonError } from "openai/error";
import { resolveConnection } from "../config/connection.js";
import { checkHeaders } from "../config/headers.js";
import {
  DEFAULT_HOSTED_PROFILE,
  type InferenceModelProfile,
  type ModelProfiles,
  reasoningSettingsOf,
  resolveProfile,
} from "../config/profiles.js";
import { ENV, LC_NAMESPACE, LS_PROVIDER, PACKAGE_NAME } from "../constants.js";
import { ConfigurationError } from "../errors/errors.js";
import { asServiceError, type FailureContext, toServiceError } from "../errors/mapper.js";
import {
  type CallMeter,
  createCallMeter,
  type MeteredRun,
  streamEventsRun,
  tokenCountFromWire,
} from "../spend/call_meter.js";
import { estimateChatRequest, estimateTokens, type StreamReading } from "../spend/estimate.js";
import { apiKeyId, type RateLimiter } from "../spend/rate_limiter.js";
import { tokenUsageFromMetadata } from "../spend/usage.js";
import { checkChatCompletion } from "../transport/answer.js";
import { sendRequest, withFetchOptions } from "../transport/attempt.js";
import { createServiceClient } from "../transport/client.js";
import { createServiceFetch, DEFAULT_IDLE_TIMEOUT_MS, type Fetch } from "../transport/fetch.js";
import { type RequestMeta, requestMetaOf, tagResponse } from "../transport/response_meta.js";
import { ServiceCaller } from "../transport/retry.js";
import { openStream } from "../transport/stream.js";
import { REDACTED, redactCallOptions, secretHeaderValues } from "../utils/secrets.js";
import { VERSION } from "../version.js";
import { registerContentBlockTranslator } from "./content_blocks.js";
import { CHAT_OPTIONS, type ChatInferenceServiceOptions, validateChatOptions } from "./options.js";
import { readCompletionReasoning, readStreamReasoning } from "./reasoning/read_reasoning.js";
import {
  reasoningToSendBack,
  type SentReasoning,
  withReasoningSentBack,
} from "./reasoning/send_reasoning.js";
import { RedactedBinding } from "./redacted_binding.js";

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

// Before any reply exists: `contentBlocks` of this package's messages finds its translator.
registerContentBlockTranslator();
/**
 * The two places where run state rides through base-class code, because the base calls our code
 * without it (each is exercised by CI against the lowest and newest versions the ranges allow):
 * - CALL: the call's meter and the reasoning its messages send back, from `_generate` /
 *   `_streamResponseChunks` through the base class's methods of the same name, which hand their
 *   options on to `completionWithRetry` (with the messages already converted);
 * - RUN: the run, from `_generateUncached` through core to `_streamChatModelEvents`, which core
 *   calls without its run manager.
 * The third note, the fetch layer's record of an attempt, rides in the openai SDK's public
 * `fetchOptions` request option (transport/attempt.ts).
 */
const CALL = Symbol("inference-service.call");
/** What a call needs at its request that the base class does not hand on. */
interface CallState {
  meter?: CallMeter;
  /** Reasoning for the tool-calling assistant messages (see `reasoningRoundTrip`). */
  sentReasoning?: SentReasoning;
}
type CallCarrier = { [CALL]?: CallState };
/** A chunk as core's OpenAI stream converter types it. */
type StreamChunk =
  Parameters<typeof convertOpenAICompletionsStream>[0] extends AsyncIterable<infer C> ? C : never;

const RUN = Symbol("inference-service.run");
type RunCarrier = { [RUN]?: MeteredRun };

/**
 * Chat model for the hosted models of the inference service — a drop-in for `ChatOpenAI` in any
 * chain, agent or RAG pipeline, with typed fail-fast errors (see {@link InferenceServiceError}).
 *
 * ## Setup
 * ```bash
 * npm install langchain-inference-service @langchain/core
 * export INFERENCE_SERVICE_BASE_URL="https://your-host/inference/v1"
 * export INFERENCE_SERVICE_API_KEY="sk-…"
 * ```
 *
 * ## Instantiate
 * ```ts
 * import { ChatInferenceService } from "langchain-inference-service";
 * const model = new ChatInferenceService("emulator-chat", { temperature: 0, maxRetries: 2 });
 * ```
 *
 * ## Invoke
 * ```ts
 * const reply = await model.invoke("What is the capital of France?");
 * console.log(reply.content);
 * // Emulated reply to: "What is the capital of France?"
 * console.log(reply.response_metadata.requestId); // quote it to support
 * ```
 *
 * ## Stream
 * ```ts
 * for await (const chunk of await model.stream("Tell me a story")) process.stdout.write(chunk.text);
 * ```
 *
 * ## Tools
 * ```ts
 * const withTools = model.bindTools([getWeather]);
 * const msg = await withTools.invoke("What's the weather in Paris?");
 * console.log(msg.tool_calls);
 * // [{ name: "get_weather", args: { city: "Paris" }, id: "call_…", type: "tool_call" }]
 * ```
 *
 * ## Structured output
 * ```ts
 * const Person = z.object({ name: z.string(), age: z.number() });
 * const person = await model.withStructuredOutput(Person).invoke("Ada is 36 years old");
 * // { name: "Ada", age: 36 } — default method "functionCalling"; `includeRaw: true` also returns the message
 * ```
 *
 * ## Usage
 * ```ts
 * const reply = await model.invoke("What is the capital of France?");
 * console.log(reply.usage_metadata);
 * // { output_tokens: 13, input_tokens: 14, total_tokens: 27, … } — also on the last streamed chunk
 * console.log(reply.response_metadata.model, reply.response_metadata.requestId);
 * // emulator-chat 20261122083641613663523600000001
 * ```
 * For cost and budgets across calls, chains and agents, see `UsageTracker` and `withUsage`.
 *
 * ## Budgets and rate limits
 * Each request reserves its worst case (prompt + `maxTokens`) with the call's `UsageTracker`
 * before it is sent, and waits for its turn at the model's `rateLimiter`:
 * ```ts
 * const usage = new UsageTracker({ prices, budget: 5 });
 * const model = new ChatInferenceService("emulator-chat", {
 *   maxTokens: 256,
 *   rateLimiter: new RateLimiter({ requestsPerMinute: 600 }),
 * });
 * await model.batch(prompts, { callbacks: [usage], maxConcurrency: 64 });
 * // calls that would overrun the budget fail unsent with BudgetExceededError; 600 a minute go out
 * ```
 *
 * ## Model profile
 * LangChain v1 agents and middleware read `model.profile` (summarization triggers on
 * `maxInputTokens`, `createAgent` picks its structured-output strategy from `structuredOutput`).
 * The service publishes no limits, so declare them per model ID; an entry may be partial:
 * ```ts
 * const model = new ChatInferenceService("emulator-reasoner", {
 *   profiles: { "emulator-reasoner": { maxInputTokens: 65_536, maxOutputTokens: 8_192, reasoningOutput: true } },
 * });
 * console.log(model.profile);
 * // { maxInputTokens: 65536, maxOutputTokens: 8192, reasoningOutput: true, toolCalling: true,
 * //   toolChoice: true, structuredOutput: false, imageInputs: false, … }
 * ```
 * A model ID without an entry gets `DEFAULT_HOSTED_PROFILE`: tools on, `structuredOutput: false`,
 * text only, and `maxInputTokens: undefined`, so fractional limits fail loudly instead of guessing.
 * The emulator's models: `profiles: emulator.state.modelProfiles()`.
 *
 * ## Reasoning models and standard content blocks
 * Reasoning from the service — `reasoning_content`, vLLM's `reasoning`, or `<think>` tags opening
 * the answer (see the profile's `reasoningTags`) — is a standard `reasoning` block of
 * `contentBlocks` (invoke and each streamed chunk), and stays in
 * `additional_kwargs.reasoning_content`; the answer holds no tags:
 * ```ts
 * const reply = await new ChatInferenceService("emulator-reasoner").invoke("Is 17 prime?");
 * console.log(reply.contentBlocks);
 * // [
 * //   { type: 'reasoning', reasoning: 'Thinking about "Is 17 prime?". No tool, context or schema applies, so I will reply directly.' },
 * //   { type: 'text', text: 'Emulated reply to: "Is 17 prime?"' }
 * // ]
 * ```
 * With `outputVersion: "v1"` (option, call option, or env `LC_OUTPUT_VERSION=v1`) `content` is
 * those blocks and `reply.text` the answer; a v1 stream concatenates into one block of each kind.
 *
 * In an agent loop, the assistant messages of the current turn that called tools go back with
 * their reasoning as `reasoning_content`, which a thinking model needs (DeepSeek's answers 400
 * without it); declare `reasoningRoundTrip: "never"` for an R1-style model, which refuses it.
 * `reasoning: { effort: "low" }` is sent as `reasoning_effort`; providers' thinking switches go in
 * `modelKwargs` (the model's, or a call's):
 * ```ts
 * const model = new ChatInferenceService("emulator-thinker", { reasoning: { effort: "low" } });
 * await model.invoke("Is 17 prime?", { modelKwargs: { thinking: { type: "disabled" } } });
 * ```
 *
 * ## From a model string
 * ```ts
 * const model = initChatInferenceService("inference-service:emulator-chat", { temperature: 0 });
 * ```
 * LangChain's `initChatModel` has no way to add a provider, so it cannot build this class.
 *
 * ## Errors
 * Every failure is a subclass of `InferenceServiceError` with `status`, `code`, `requestId`,
 * `retryable` and a `hint`. Non-retryable ones (401, 403 credit, 404 URL, 503 `model_not_found`,
 * HTML 200) fail on the first response:
 * ```ts
 * try { await model.invoke("hi"); }
 * catch (e) { if (InsufficientCreditError.isInstance(e)) console.error(e.hint); }
 * ```
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
  readonly #failureContext: FailureContext;
  readonly #keyId: string;
  /** The openai SDK client every request goes through; it alone holds the key and the headers. */
  #profile?: { model: string; profile: Readonly<InferenceModelProfile> };
  readonly #client: OpenAI;
  readonly #caller: ServiceCaller;
  /** True only while `withStructuredOutput` builds its pipeline (see `withConfig`). */
  #namingStructuredOutput = false;

  static override lc_name(): string {
    return "ChatInferenceService";
  }

  override lc_namespace = [LC_NAMESPACE, "chat_models"];

  override get lc_secrets(): Record<string, string> {
    return { apiKey: ENV.apiKey };
  }

  /**
   * LangChain's serialiser merges `lc_secrets` and `lc_aliases` up the class chain with the base
   * class winning, which would name the secret OPENAI_API_KEY; rename it to ours.
   */
  override toJSON() {
    const json = super.toJSON();
    if (json.type !== "constructor") return json;
    const { openai_api_key: _, ...kwargs } = json.kwargs as Record<string, unknown>;
    // `lc_kwargs` never holds the key (see the constructor): it is written as a reference only.
    return { ...json, kwargs: { ...kwargs, api_key: { lc: 1, type: "secret", id: [ENV.apiKey] } } };
  }

  override get lc_aliases(): Record<string, string> {
    // Without it `load()` would turn `base_url` back into `baseUrl`, which this class does not read.
    return { baseURL: "base_url" };
  }

  override get lc_serializable_keys(): string[] {
    // `ChatOpenAI` names its own fields; the schema says which of this package's it writes (never
    // `configuration`, which holds header values and a fetch function, nor the key).
    const owned = new Set(CHAT_OPTIONS.owned);
    return [
      ...super.lc_serializable_keys.filter((key) => !owned.has(key)),
      ...CHAT_OPTIONS.serialised,
    ];
  }

  constructor(model: string, fields?: Omit<ChatInferenceServiceFields, "model">);
  constructor(fields?: ChatInferenceServiceFields);
  constructor(
    modelOrFields?: string | ChatInferenceServiceFields,
    maybeFields?: Omit<ChatInferenceServiceFields, "model">,
  ) {
    const fields: ChatInferenceServiceFields =
      typeof modelOrFields === "string"
        ? { ...maybeFields, model: modelOrFields }
        : { ...modelOrFields };
    const named = fields.model ?? fields.modelName;
    // No model ID has outer spaces: " my-model" (as "provider: model" is often written) is "my-model".
    const model = typeof named === "string" ? named.trim() : "";
    if (model === "") {
      throw new ConfigurationError(
        "model",
        '`model` is required: pass the hosted model\'s ID, e.g. new ChatInferenceService("my-model").',
      );
    }
    const options = validateChatOptions({ ...fields, model });
    const { maxRetries, retry } = options;
    const { apiKey, baseURL } = resolveConnection(fields);
    const {
      configuration: given,
      fetch,
      rateLimiter,
      openAIApiKey: _alias,
      modelName: _name,
      ...rest
    } = fields;
    const configuration = given ?? {};
    const failureContext: FailureContext = {
      surface: "hosted",
      model,
      secrets: [apiKey, ...secretHeaderValues(configuration.defaultHeaders)],
    };
    const serviceFetch = createServiceFetch({
      ...failureContext,
      fetch: fetch ?? (configuration.fetch as Fetch | undefined),
      // An unknown model ID's error lists the IDs the service offers (docs/errors.md).
      lookUpModels: true,
      idleTimeout: options.idleTimeout ?? options.timeout ?? DEFAULT_IDLE_TIMEOUT_MS,
    });
    // The base class gets no secret: it would keep it in public fields (`apiKey`, `clientConfig`)
    // that `{ ...model }` and `Object.entries(model)` show. Requests go through this class's own
    // client, which holds the key and the headers privately.
    super({
      ...rest,
      model,
      apiKey: REDACTED,
      baseURL,
      maxRetries,
      configuration: { baseURL, organization: null, project: null },
    } as BaseChatOpenAIFields);
    // The base class keeps its fields as `lc_kwargs`; the key must not be one of them (it would
    // show wherever they are printed). Serialisation writes a reference instead (toJSON).
    delete (this.lc_kwargs as Record<string, unknown>).apiKey;
    // Readable as on `ChatOpenAI`, but not enumerable: spreads and `Object.entries` skip it.
    Object.defineProperty(this, "apiKey", { value: apiKey, enumerable: false, writable: true });
    this.organization = undefined;
    this.baseURL = baseURL;
    this.profiles = options.profiles;
    this.rateLimiter = rateLimiter;
    this.#keyId = apiKeyId(apiKey);
    this.#failureContext = failureContext;
    const { apiKey: _key, baseURL: _url, fetch: _fetch, ...clientOptions } = configuration;
    this.#client = createServiceClient({
      apiKey,
      baseURL,
      fetch: serviceFetch,
      timeout: fields.timeout,
      extra: clientOptions,
    });
    this.#caller = new ServiceCaller({
      maxRetries,
      maxConcurrency: options.maxConcurrency,
      onFailedAttempt: fields.onFailedAttempt,
      ...retry,
      normalize: (error) => asServiceError(error, failureContext),
    });
    this.caller = this.#caller;
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

  protected override get streamEventProvider(): string {
    return LS_PROVIDER;
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

  /** @ignore Identifying params feed cache keys and traces: never the client config (key, headers). */
  override _identifyingParams() {
    return { model_name: this.model, ...this.invocationParams(), baseURL: this.baseURL };
  }

  /**
   * With `streaming: true`, invoke streams and keeps the service's own usage chunk; the base
   * class would instead estimate tokens with a tokenizer it downloads (impossible offline).
   */
  override async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    if (!this.streaming) {
      const call = this.#call(messages, this.#meter(runManager));
      if (call === undefined) return super._generate(messages, options, runManager);
      // The base class hands `options.options` on to completionWithRetry as request options.
      const carried = { ...options, options: { ...options.options, [CALL]: call } };
      return super._generate(messages, carried, runManager);
    }
    const byIndex = new Map<number, ChatGenerationChunk>();
    for await (const chunk of this._streamResponseChunks(messages, options, runManager)) {
      const index = (chunk.generationInfo?.completion as number | undefined) ?? 0;
      const previous = byIndex.get(index);
      byIndex.set(index, previous ? previous.concat(chunk) : chunk);
    }
    if (byIndex.size === 0) {
      throw toServiceError(
        { kind: "malformed", detail: "the stream ended without any choice" },
        this.#failureContext,
      );
    }
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
   * Core's chat-model stream-events path calls the stream without its run manager; when a handler
   * may send the call down that path, the run (its ID fixed here) rides in the options so the
   * request is still reserved before it is sent.
   */
  override async _generateUncached(
    messages: BaseMessageLike[][],
    parsedOptions: this["ParsedCallOptions"],
    handledOptions: RunnableConfig,
    startedRunManagers?: CallbackManagerForLLMRun[],
  ): Promise<LLMResult> {
    const started = startedRunManagers?.[0];
    const run: MeteredRun | undefined = started
      ? streamEventsRun(started.handlers, undefined, started.runId)
      : streamEventsRun(handledOptions.callbacks, this.callbacks, handledOptions.runId);
    if (run === undefined) {
      return super._generateUncached(messages, parsedOptions, handledOptions, startedRunManagers);
    }
    const carried: RunCarrier = { [RUN]: run };
    return super._generateUncached(
      messages,
      { ...parsedOptions, ...carried },
      { ...handledOptions, runId: run.runId },
      startedRunManagers,
    );
  }

  /**
   * LangChain's chat-model stream-events protocol (`model.streamEvents(input)`, and the path core
   * takes when a handler prefers these events, e.g. LangGraph's messages streaming). Built as
   * `@langchain/openai` builds it (core's OpenAI stream converter: reasoning, tool calls and
   * finish reasons as typed blocks), with the request made through this class's
   * `completionWithRetry` under the call's meter, and the request ID in the message's metadata.
   * Core passes no run manager here: the run rides in the options (see `_generateUncached`).
   */
  override async *_streamChatModelEvents(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatModelStreamEvent> {
    const request = withReasoningSentBack(
      {
        ...this.invocationParams(options, { streaming: true }),
        messages: convertMessagesToCompletionsMessageParams({ messages, model: this.model }),
        stream: true,
      } satisfies OpenAI.Chat.ChatCompletionCreateParamsStreaming,
      this.#call(messages, undefined)?.sentReasoning,
    );
    const meter = this.#meter(runManager ?? (options as RunCarrier)[RUN]);
    const { signal: callSignal, maxRetries, options: perCall } = options;
    const stream = (await this.#request(
      request,
      { ...perCall, signal: callSignal },
      maxRetries,
      meter,
    )) as AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>;
    let meta: RequestMeta | undefined;
    const signal = options.signal;
    async function* read(
      source: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>,
    ): AsyncGenerator<StreamChunk> {
      for await (const data of source) {
        if (signal?.aborted) return; // core raises the abort once the events stop
        meta ??= requestMetaOf(data);
        yield data as StreamChunk; // the SDK's type also allows `custom` tool calls
      }
    }
    const events = convertOpenAICompletionsStream(
      read(meter ? meter.meterStream(stream, readRawChunk) : stream),
      { streamUsage: this.streamUsage, provider: LS_PROVIDER },
    );
    for await (const event of events) {
      if (event.event !== "message-finish") yield event;
      else {
        const responseMetadata = {
          ...event.responseMetadata,
          model_provider: LS_PROVIDER,
          ...metadataFields(meta),
        };
        yield { ...event, responseMetadata };
      }
    }
  }

  /**
   * Streams through the base class, reading each chunk so the call's reservations settle to the
   * usage chunk — or, if the stream fails or is left with `break` before it, to an estimate of
   * what was streamed — and so a stream left early is still counted.
   */
  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const call = this.#call(messages, this.#meter(runManager));
    if (call === undefined) {
      yield* super._streamResponseChunks(messages, options, runManager);
      return;
    }
    const chunks = super._streamResponseChunks(messages, { ...options, [CALL]: call }, runManager);
    yield* call.meter ? call.meter.meterStream(chunks, readChunk) : chunks;
  }

  /** What a call carries to its request (see CALL); undefined when it has nothing to carry. */
  #call(messages: readonly BaseMessage[], meter: CallMeter | undefined): CallState | undefined {
    const { reasoningRoundTrip } = reasoningSettingsOf(this.#resolvedProfile());
    const sentReasoning = reasoningToSendBack(messages, reasoningRoundTrip);
    return meter === undefined && sentReasoning === undefined
      ? undefined
      : { meter, sentReasoning };
  }

  /** A meter when the call has usage trackers or this model a rate limiter. */
  #meter(run: MeteredRun | undefined): CallMeter | undefined {
    return createCallMeter({ run, limiter: this.rateLimiter, keyId: this.#keyId });
  }

  /**
   * A local estimate, by the package's one rule (a token per three UTF-8 bytes, see
   * `estimateTokens`): the base class downloads tokenizer ranks from the internet, which stalls
   * offline, and the service reports real usage anyway.
   */
  override async getNumTokens(content: MessageContent): Promise<number> {
    const text =
      typeof content === "string"
        ? content
        : content
            .map((part) =>
              typeof part === "string" ? part : ((part as { text?: string }).text ?? ""),
            )
            .join("");
    return estimateTokens(text);
  }

  override completionWithRetry(
    request: OpenAI.Chat.ChatCompletionCreateParamsStreaming,
    requestOptions?: OpenAI.RequestOptions,
  ): Promise<AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>>;
  override completionWithRetry(
    request: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
    requestOptions?: OpenAI.RequestOptions,
  ): Promise<OpenAI.Chat.Completions.ChatCompletion>;
  override async completionWithRetry(
    request: OpenAI.Chat.ChatCompletionCreateParams,
    requestOptions?: OpenAI.RequestOptions & { maxRetries?: number },
  ): Promise<
    | AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>
    | OpenAI.Chat.Completions.ChatCompletion
  > {
    // The base class's stream passes the whole call options here, with the per-call request
    // options (`options.headers`) one level down; invoke passes them spread. Both are sent.
    const {
      maxRetries,
      [CALL]: call,
      options: nested,
      ...rest
    } = (requestOptions ?? {}) as OpenAI.RequestOptions & {
      maxRetries?: number;
      options?: OpenAI.RequestOptions;
    } & CallCarrier;
    const sdkOptions: OpenAI.RequestOptions =
      nested && typeof nested === "object" ? { ...rest, ...nested } : rest;
    // Calls that bypass _generate/_streamResponseChunks still meet the rate limiter.
    return this.#request(
      withReasoningSentBack(request, call?.sentReasoning),
      sdkOptions,
      maxRetries,
      call?.meter ?? this.#meter(undefined),
    );
  }

  /**
   * Sends one chat completion through the request pipeline: a stream once its first event
   * arrived, or a checked completion tagged with its request ID and model.
   */
  #request(
    request: OpenAI.Chat.ChatCompletionCreateParams,
    sdkOptions: OpenAI.RequestOptions,
    maxRetries: number | undefined,
    meter: CallMeter | undefined,
  ): Promise<
    | AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>
    | OpenAI.Chat.Completions.ChatCompletion
  > {
    const tags = reasoningSettingsOf(this.#resolvedProfile()).reasoningTags;
    const perCall = secretHeaderValues(checkHeaders(sdkOptions.headers, "options.headers"));
    const ctx: FailureContext =
      perCall.length === 0
        ? this.#failureContext
        : {
            ...this.#failureContext,
            secrets: [...(this.#failureContext.secrets ?? []), ...perCall],
          };
    const completions = this.#client.chat.completions;
    return sendRequest({
      caller: this.#caller,
      maxRetries,
      signal: sdkOptions.signal ?? undefined,
      ctx,
      meter,
      estimate: () =>
        estimateChatRequest(request as unknown as Record<string, unknown>, this.model),
      stream: request.stream === true,
      // Never the SDK's `parse`: it reads a json_schema answer before `<think>` tags are taken
      // out of it (readCompletionReasoning), and LangChain parses the answer itself.
      send: (fetchOptions) =>
        completions.create(request, withFetchOptions(sdkOptions, fetchOptions)).withResponse(),
      read: async ({ data, response }, attempt) => {
        if (request.stream) {
          // The first event is awaited inside the attempt: a stream that fails or stalls
          // before it is retried like a failed request.
          const events = await openStream(
            data as unknown as AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>,
            response,
            ctx,
          );
          if (attempt) meter?.holdStream(attempt);
          return readStreamReasoning(events, tags);
        }
        const completion = readCompletionReasoning(
          checkChatCompletion(
            data as OpenAI.Chat.Completions.ChatCompletion,
            response.headers,
            ctx,
          ),
          tags,
        );
        await attempt?.settle(
          tokenCountFromWire(completion.usage),
          estimateTokens(replyText(completion)),
        );
        if (request.response_format?.type === "json_schema") checkStructuredFinish(completion);
        return tagResponse(completion, response.headers);
      },
    });
  }

  protected override _convertCompletionsMessageToBaseMessage(
    message: OpenAI.ChatCompletionMessage,
    rawResponse: OpenAI.ChatCompletion,
  ): BaseMessage {
    const converted = super._convertCompletionsMessageToBaseMessage(message, rawResponse);
    Object.assign(converted.response_metadata, metadataFields(requestMetaOf(rawResponse)), {
      model_provider: LS_PROVIDER,
    });
    return converted;
  }

  protected override _convertCompletionsDeltaToBaseMessageChunk(
    // biome-ignore lint/suspicious/noExplicitAny: the base class types the delta this way
    delta: Record<string, any>,
    rawResponse: OpenAI.Chat.Completions.ChatCompletionChunk,
    defaultRole?: OpenAI.Chat.ChatCompletionRole,
  ): BaseMessageChunk {
    const chunk = super._convertCompletionsDeltaToBaseMessageChunk(delta, rawResponse, defaultRole);
    Object.assign(chunk.response_metadata, { model_provider: LS_PROVIDER });
    const meta = requestMetaOf(rawResponse);
    // Only the first chunk carries them, so concatenated chunks keep one copy of each.
    if (meta && !meta.announced) {
      meta.announced = true;
      Object.assign(chunk.response_metadata, metadataFields(meta));
    }
    return chunk;
  }

  override withStructuredOutput<
    // biome-ignore lint/suspicious/noExplicitAny: matches the base signature
    RunOutput extends Record<string, any> = Record<string, any>,
  >(
    // biome-ignore lint/suspicious/noExplicitAny: matches the base signature
    outputSchema: InteropZodType<RunOutput> | Record<string, any>,
    config?: StructuredOutputMethodOptions<false>,
  ): Runnable<BaseLanguageModelInput, RunOutput>;
  override withStructuredOutput<
    // biome-ignore lint/suspicious/noExplicitAny: matches the base signature
    RunOutput extends Record<string, any> = Record<string, any>,
  >(
    // biome-ignore lint/suspicious/noExplicitAny: matches the base signature
    outputSchema: InteropZodType<RunOutput> | Record<string, any>,
    config?: StructuredOutputMethodOptions<true>,
  ): Runnable<BaseLanguageModelInput, { raw: BaseMessage; parsed: RunOutput }>;
  /**
   * Structured output; the default method is `functionCalling` (a forced tool call), which every
   * tool-capable hosted model supports. Pass `method: "jsonSchema"` or `"jsonMode"` to use
   * `response_format` instead.
   */
  override withStructuredOutput<
    // biome-ignore lint/suspicious/noExplicitAny: matches the base signature
    RunOutput extends Record<string, any> = Record<string, any>,
  >(
    // biome-ignore lint/suspicious/noExplicitAny: matches the base signature
    outputSchema: InteropZodType<RunOutput> | Record<string, any>,
    config?: StructuredOutputMethodOptions<boolean>,
  ):
    | Runnable<BaseLanguageModelInput, RunOutput>
    | Runnable<BaseLanguageModelInput, { raw: BaseMessage; parsed: RunOutput }> {
    // The base class binds `ls_structured_output_format` through `this.withConfig`, synchronously
    // inside this call: the flag lets `withConfig` rename the traced method for this call only.
    this.#namingStructuredOutput = true;
    try {
      return super.withStructuredOutput<RunOutput>(outputSchema, {
        ...config,
        method: config?.method ?? "functionCalling",
      } as StructuredOutputMethodOptions<boolean>);
    } finally {
      this.#namingStructuredOutput = false;
    }
  }

  /**
   * A binding with these call options. Per-call headers in it (`options.headers`) are sent but
   * never serialised or printed: `JSON.stringify` and `console.log` of the binding show
   * `[redacted]`, as for `defaultHeaders`.
   *
   * `@langchain/openai` traces the function-calling method as `"function_calling"`; LangChain's
   * own name for it (the one `withStructuredOutput` takes, and its standard tests check in
   * `ls_structured_output_format.kwargs.method`) is `"functionCalling"`, which is what is bound.
   */
  override withConfig(
    config: Partial<CallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, CallOptions> {
    return new RedactedBinding<BaseLanguageModelInput, AIMessageChunk, CallOptions>({
      bound: this,
      kwargs: {},
      config: this.#namingStructuredOutput ? withFunctionCallingTrace(config) : config,
    });
  }
}

/**
 * The config with a traced `function_calling` method renamed `functionCalling`, and the traced
 * schema without the `title` the base class adds (the tool's name) when the schema has none of its
 * own: LangChain traces the schema as given. Any other config is returned as it is.
 */
function withFunctionCallingTrace<T extends object>(config: T): T {
  const { ls_structured_output_format: format, tools } = config as {
    ls_structured_output_format?: { kwargs?: { method?: string }; schema?: object };
    tools?: Array<{ function?: { parameters?: object } }>;
  };
  if (format?.kwargs?.method !== "function_calling") return config;
  let schema = format.schema;
  const parameters = tools?.[0]?.function?.parameters;
  if (schema && "title" in schema && parameters && !("title" in parameters)) {
    const { title: _injected, ...rest } = schema as { title?: unknown };
    schema = rest;
  }
  return {
    ...config,
    ls_structured_output_format: {
      ...format,
      kwargs: { ...format.kwargs, method: "functionCalling" },
      ...(schema ? { schema } : {}),
    },
  };
}

/** The text a streamed chunk adds to the output: content, reasoning, tool-call arguments. */
function readChunk(reading: StreamReading, chunk: ChatGenerationChunk): void {
  const message = chunk.message as AIMessageChunk;
  reading.addText(chunk.text);
  const reasoning = message.additional_kwargs?.reasoning_content;
  if (typeof reasoning === "string") reading.addText(reasoning);
  for (const call of message.tool_call_chunks ?? []) reading.addText(call.args);
  const usage = message.usage_metadata;
  if (usage !== undefined) {
    const cached = usage.input_token_details?.cache_read;
    reading.usage = {
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      ...(cached ? { cachedInputTokens: cached } : {}),
    };
  }
}

/** Counts one raw stream chunk's output (content, reasoning, tool-call arguments) and usage. */
function readRawChunk(
  reading: StreamReading,
  data: OpenAI.Chat.Completions.ChatCompletionChunk,
): void {
  for (const choice of data.choices ?? []) {
    const delta = choice.delta as { content?: unknown; reasoning_content?: unknown } | undefined;
    if (typeof delta?.content === "string") reading.addText(delta.content);
    if (typeof delta?.reasoning_content === "string") reading.addText(delta.reasoning_content);
    for (const call of choice.delta?.tool_calls ?? []) reading.addText(call.function?.arguments);
  }
  const usage = tokenCountFromWire(data.usage);
  if (usage !== undefined) reading.usage = usage;
}

/**
 * What the openai SDK's `parse` (which `@langchain/openai` calls for a json_schema answer) raises
 * on an answer cut short, where the JSON cannot be whole: the same errors, after the attempt has
 * settled what the service charged for it.
 */
function checkStructuredFinish(completion: OpenAI.Chat.Completions.ChatCompletion): void {
  for (const choice of completion.choices) {
    if (choice.finish_reason === "length") throw new LengthFinishReasonError();
    if (choice.finish_reason === "content_filter") throw new ContentFilterFinishReasonError();
  }
}

/** A non-streamed reply's output (reasoning, text, tool calls) as text, for an estimate when the service reports no usage. */
function replyText(completion: OpenAI.Chat.Completions.ChatCompletion): string {
  return completion.choices
    .map((choice) => {
      const message = choice.message as {
        content?: unknown;
        reasoning_content?: unknown;
        tool_calls?: unknown;
      };
      const reasoning =
        typeof message?.reasoning_content === "string" ? message.reasoning_content : "";
      const content = reasoning + (typeof message?.content === "string" ? message.content : "");
      return message?.tool_calls ? content + JSON.stringify(message.tool_calls) : content;
    })
    .join("");
}

function metadataFields(meta: RequestMeta | undefined): Record<string, unknown> {
  if (!meta) return {};
  return {
    ...(meta.model !== undefined ? { model: meta.model } : {}),
    ...(meta.requestId !== undefined ? { requestId: meta.requestId } : {}),
  };
}
