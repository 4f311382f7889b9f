/** @module `DedicatedEndpointLLM`: the text LLM for a user's own dedicated endpoint (docs/service-contract.md#dedicated-endpoints). */
import type { CallbackManagerForLLMRun, Callbacks } from "@langchain/core/callbacks/manager";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import {
  BaseLLM,
  type BaseLLMCallOptions,
  type BaseLLMParams,
} from "@langchain/core/language_models/llms";
import type { ModelProfile } from "@langchain/core/language_models/profile";
import { type Generation, GenerationChunk, type LLMResult } from "@langchain/core/outputs";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { OpenAI } from "openai";
import {
  DEFAULT_DEDICATED_PROFILE,
  type ModelProfiles,
  resolveProfile,
} from "../../config/profiles.js";
import { resolveServiceName, validateServiceName } from "../../config/service_name.js";
import {
  ENV,
  LC_NAMESPACE,
  LS_PROVIDER,
  PACKAGE_NAME,
  SERVICE_NAME_HEADER,
} from "../../constants.js";
import { toServiceError } from "../../errors/mapper.js";
import { tokenCountOf } from "../../spend/call_meter.js";
import {
  estimateCompletionRequest,
  estimateTokens,
  type StreamReading,
} from "../../spend/estimate.js";
import type { RateLimiter } from "../../spend/rate_limiter.js";
import { sumTokenUsage, tokenUsageFromWire } from "../../spend/usage.js";
import { type RawChoice, textOfChoice } from "../../transport/answer.js";
import type { StreamHead } from "../../transport/call_stream.js";
import { type ChannelRequest, ServiceChannel } from "../../transport/channel.js";
import { abortError } from "../../utils/sleep.js";
import { withoutUndefined } from "../../utils/without_undefined.js";
import { VERSION } from "../../version.js";
import { checkLangChainFields, checkLLMCallOptions } from "../call_options.js";
import { secretReference, serialisedValues } from "../options.js";
import { startedRun, startedStream } from "../run_start.js";
import { parseCompletion } from "./answer.js";
import {
  checkStreamedChoices,
  DEDICATED_SERIALISED,
  type DedicatedEndpointLLMOptions,
  type DedicatedEndpointLLMSettings,
  validateDedicatedEndpointOptions,
} from "./options.js";

/** Call options of {@link DedicatedEndpointLLM}: LangChain's (`stop`, `signal`, `timeout`, callbacks, …) plus these. */
export interface DedicatedEndpointLLMCallOptions extends BaseLLMCallOptions {
  /**
   * `Service-Name` for this call only, `<TENANT_ID>.<JOB_ALIAS_NAME>`; validated like the
   * constructor's before any request. @default the model's `serviceName`
   */
  serviceName?: string;
  /** Retries for this call only; overrides the model's `maxRetries`. */
  maxRetries?: number;
}

/**
 * Options of {@link DedicatedEndpointLLM}: give `serviceName`, or `tenantId` and `jobAlias`. Each
 * is documented where its schema declares it; LangChain's own (callbacks, tags, …) work as there.
 */
export type DedicatedEndpointLLMFields = Omit<BaseLLMParams, keyof DedicatedEndpointLLMOptions> &
  DedicatedEndpointLLMOptions;

/** One call of the model: the Service-Name it uses and its run. */
interface Call {
  serviceName: string;
  runManager?: CallbackManagerForLLMRun;
}

/** What LangSmith records about an LLM call (mirrors the chat models' `LangSmithParams`). */
export interface LLMLangSmithParams {
  ls_provider: string;
  ls_model_name: string;
  ls_model_type: "llm";
  ls_temperature?: number;
  ls_max_tokens?: number;
  ls_stop?: string[];
}

// The options DedicatedEndpointLLM serialises are fields of the instance, typed and documented by
// the schema; its constructor assigns them from the checked options (the resolved ones -- tenant
// ID, job alias, base URL -- it declares itself).
export interface DedicatedEndpointLLM
  extends Omit<DedicatedEndpointLLMSettings, "tenantId" | "jobAlias" | "baseURL"> {}

/**
 * LLM (text in, text out) for a dedicated endpoint of the inference service: a model you deployed
 * yourself, called at `…/inference/v1/completions` and routed by the `Service-Name` header that
 * standard SDK clients never send (docs/service-contract.md#dedicated-endpoints, rule 1). Use it in any chain like another LangChain LLM.
 *
 * ## Setup
 * 1. Deploy the model as a dedicated endpoint and wait until its **Scaling** shows every replica
 *    running, e.g. `1/1` (docs/service-contract.md#endpoint-states): until then it is Pending and calls are refused or answered empty.
 * 2. Note the **tenant ID** (console sidebar, next to the tenant name) and the endpoint's
 *    **job alias** name.
 * 3. Create an API key with the **Inference Service** permission (it is shown once).
 * ```bash
 * npm install langchain-inference-service @langchain/core
 * export INFERENCE_SERVICE_BASE_URL="https://your-host/inference/v1"
 * export INFERENCE_SERVICE_API_KEY="sk-…"
 * export INFERENCE_SERVICE_TENANT_ID="t-1234"
 * export INFERENCE_SERVICE_JOB_ALIAS="summarizer"
 * ```
 *
 * ## Instantiate
 * ```ts
 * import { DedicatedEndpointLLM } from "langchain-inference-service";
 * const llm = new DedicatedEndpointLLM({ maxTokens: 256, temperature: 0 }); // Service-Name t-1234.summarizer
 * // or: new DedicatedEndpointLLM({ serviceName: "t-1234.summarizer" })
 * // or: new DedicatedEndpointLLM({ tenantId: "t-1234", jobAlias: "summarizer" })
 * ```
 * A malformed Service-Name (not exactly one dot, an empty part, whitespace, control or non-ASCII
 * characters) throws a `ConfigurationError` here, before any request.
 *
 * ## Invoke
 * ```ts
 * const text = await llm.invoke("The capital of France is");
 * console.log(text);
 * // " Paris."
 * ```
 * Another deployment for one call: `llm.invoke(prompt, { serviceName: "t-1234.other" })`.
 *
 * ## Stream
 * ```ts
 * for await (const token of await llm.stream("Tell me a story")) process.stdout.write(token);
 * // Once upon a time…
 * ```
 * A stream carries one choice: `modelKwargs: { n: 2 }` on a streamed call is a
 * `ConfigurationError` (`generate()` without `streaming` returns one generation per choice).
 *
 * ## Batch
 * One request per prompt; at most `maxConcurrency` requests are waiting for a response at once.
 * ```ts
 * const llm = new DedicatedEndpointLLM({ maxConcurrency: 4 });
 * const answers = await llm.batch(["1 + 1 =", "2 + 2 =", "3 + 3 ="]);
 * // [" 2", " 4", " 6"]
 * ```
 *
 * ## Usage
 * ```ts
 * const result = await llm.generate(["Hello"]);
 * console.log(result.llmOutput?.tokenUsage);
 * // { promptTokens: 1, completionTokens: 5, totalTokens: 6 }
 * console.log(result.generations[0][0].generationInfo);
 * // { finishReason: "stop", requestId: "20240101…", tokenUsage: { promptTokens: 1, … } }
 * ```
 * Streams ask for usage with `stream_options.include_usage`; it arrives on the last chunk.
 * A `UsageTracker` budget (priced by Service-Name) reserves each prompt's worst case before it
 * is sent, and `rateLimiter: new RateLimiter({ requestsPerMinute })` paces the requests.
 *
 * ## Errors
 * Every failure is an `InferenceServiceError` subclass with `status`, `requestId`, `retryable`
 * and a `hint` (docs/service-contract.md#errors, rule 7):
 * - `AuthenticationError` (401): the key is invalid, expired, or lacks the Inference Service permission;
 * - `ServiceNameError` (404): no deployment answers to that Service-Name — check tenant ID and job alias;
 * - `EndpointNotReadyError`: refused connection or empty response — the endpoint is still Pending.
 * Non-retryable errors fail on the first response; retryable ones are retried `maxRetries` times.
 *
 * ## Waiting for a Pending endpoint
 * ```ts
 * const llm = new DedicatedEndpointLLM({ waitForReady: 120_000 }); // retry with backoff for up to 2 min
 * await llm.invoke("ping"); // answers once Scaling shows 1/1, or throws EndpointNotReadyError
 * // EndpointNotReadyError: The dedicated endpoint "t-1234.summarizer" was still not ready after waiting 120004 ms …
 * ```
 *
 * ## Wire format (docs/service-contract.md#dedicated-endpoints leaves the response "not shown")
 * The body is `{ prompt, max_tokens?, temperature?, stop?, stream?, stream_options?, ...modelKwargs }`;
 * `model` is not sent, since routing is by Service-Name (pass `modelKwargs: { model }` if your
 * endpoint wants one). The answer is read from `choices[i].text`, else `choices[i].message.content`;
 * anything else is a `MalformedResponseError` showing the start of the body.
 */
export class DedicatedEndpointLLM extends BaseLLM<DedicatedEndpointLLMCallOptions> {
  /** The `Service-Name` every call sends unless it passes its own. */
  readonly serviceName: string;
  readonly tenantId: string;
  readonly jobAlias: string;
  /** The normalised `…/inference/v1` URL requests go to. */
  readonly baseURL: string;
  /** Profiles by Service-Name, as given (see {@link DedicatedEndpointLLMFields.profiles}). */
  readonly profiles?: ModelProfiles;
  /** The client-side rate limit of this model's calls, if one was given. */
  readonly rateLimiter?: RateLimiter;
  /** How requests travel; ES-private, so the key never shows up in `console.log` or serialisation. */
  readonly #channel: ServiceChannel;

  static override lc_name(): string {
    return "DedicatedEndpointLLM";
  }

  override lc_serializable = true;

  override lc_namespace = [LC_NAMESPACE, "llms"];

  /**
   * The schema's serialised options (see the constructor), with the key and the two parts of the
   * Service-Name header as references to their env variables, never as values: `load()` resolves
   * them again from its secrets map or the environment. Done here rather than through
   * `lc_secrets`, so that one member holds the whole duty.
   */
  override toJSON() {
    const json = super.toJSON();
    if (json.type !== "constructor") return json;
    return {
      ...json,
      kwargs: {
        api_key: secretReference(ENV.apiKey),
        ...json.kwargs,
        tenant_id: secretReference(ENV.tenantId),
        job_alias: secretReference(ENV.jobAlias),
      },
    };
  }

  constructor(fields: DedicatedEndpointLLMFields = {}) {
    const options = validateDedicatedEndpointOptions(fields);
    checkLangChainFields(fields);
    const { serviceName, tenantId, jobAlias } = resolveServiceName(options);
    const { waitForReady } = options;
    const channel = new ServiceChannel("completions", options, { serviceName, waitForReady });
    const { openAIApiKey: _alias, baseUrl, configuration: _configuration, ...rest } = fields;
    // `baseUrl` (how `load()` spells a serialised `base_url`) is kept as the option it stands for.
    const baseURL = rest.baseURL ?? baseUrl;
    super({ ...rest, ...(baseURL != null && { baseURL }), maxRetries: options.maxRetries });
    // What LangChain prints and serialises: the schema's serialised options only — not `apiKey`
    // (see toJSON), `serviceName` (a header value, carried by tenantId/jobAlias), `fetch`,
    // `profiles`, `rateLimiter`, `configuration`.
    this.lc_kwargs = serialisedValues(this.lc_kwargs, DEDICATED_SERIALISED);
    Object.assign(this, serialisedValues(options, DEDICATED_SERIALISED));
    // Serialised too, but as resolved (from the env, normalised), not as given.
    this.serviceName = serviceName;
    this.tenantId = tenantId;
    this.jobAlias = jobAlias;
    this.baseURL = channel.baseURL;
    this.profiles = options.profiles;
    this.rateLimiter = options.rateLimiter;
    this.#channel = channel;
    this.caller = channel.caller;
    this._addVersion(PACKAGE_NAME, VERSION);
  }

  override _llmType(): string {
    return LS_PROVIDER;
  }

  /**
   * What the deployment behind `serviceName` can do: its `profiles` entry laid over
   * {@link DEFAULT_DEDICATED_PROFILE} (text in, text out; context window unknown unless declared).
   *
   * @example
   * const llm = new DedicatedEndpointLLM({
   *   serviceName: "t-1234.summarizer",
   *   profiles: { "t-1234.summarizer": { maxInputTokens: 8_192, maxOutputTokens: 1_024 } },
   * });
   * llm.profile.maxInputTokens; // 8192
   */
  override get profile(): ModelProfile {
    return resolveProfile(this.serviceName, this.profiles, DEFAULT_DEDICATED_PROFILE);
  }

  /** LangSmith parameters of a call; `ls_model_name` is the Service-Name it uses. */
  getLsParams(options: this["ParsedCallOptions"]): LLMLangSmithParams {
    const stop = options.stop ?? this.stop;
    return {
      ls_provider: LS_PROVIDER,
      ls_model_name:
        typeof options.serviceName === "string" ? options.serviceName : this.serviceName,
      ls_model_type: "llm",
      ...(this.temperature !== undefined ? { ls_temperature: this.temperature } : {}),
      ...(this.maxTokens !== undefined ? { ls_max_tokens: this.maxTokens } : {}),
      ...(stop !== undefined ? { ls_stop: stop } : {}),
    };
  }

  /**
   * `BaseLLM` has no LangSmith hook of its own; this is the one place every `invoke`, `batch`,
   * `generate` and `stream` passes through before its callbacks start, so the params go there.
   */
  protected override _separateRunnableConfigFromCallOptionsCompat(
    options?: Partial<DedicatedEndpointLLMCallOptions>,
  ): [RunnableConfig, this["ParsedCallOptions"]] {
    const [config, callOptions] = super._separateRunnableConfigFromCallOptionsCompat(options);
    config.metadata = { ...config.metadata, ...this.getLsParams(callOptions) };
    return [config, callOptions];
  }

  /** Body fields of a call other than `prompt` and `stream` (also what traces show). */
  override invocationParams(options?: this["ParsedCallOptions"]): Record<string, unknown> {
    const stop = options?.stop ?? this.stop;
    return withoutUndefined({
      max_tokens: this.maxTokens,
      temperature: this.temperature,
      stop: stop && stop.length > 0 ? stop : undefined,
      ...this.modelKwargs,
    });
  }

  /** @ignore Feeds cache keys: the deployment matters, the key and fetch never do. */
  override _identifyingParams(): Record<string, unknown> {
    return { service_name: this.serviceName, ...this.invocationParams(), baseURL: this.baseURL };
  }

  /**
   * @ignore `invoke`, `batch` and `generate`: the base class's, with its run's ID fixed so that a
   * failed start can be ended (see `run_start.ts`). Guarded here, around both of core's paths: with
   * a `cache`, core starts the run before the uncached one.
   */
  override async generate(
    prompts: string[],
    options?: string[] | Partial<DedicatedEndpointLLMCallOptions>,
    callbacks?: Callbacks,
  ): Promise<LLMResult> {
    const given = Array.isArray(options) ? { stop: options } : (options ?? {});
    const runCallbacks = given.callbacks ?? callbacks;
    checkLLMCallOptions({ ...given, callbacks: runCallbacks });
    return startedRun(given.runId, [runCallbacks, this.callbacks], (runId) =>
      super.generate(prompts, { ...given, runId }, callbacks),
    );
  }

  /** @ignore `stream()`: the base class's, with its run's ID fixed so that a failed start can be ended. */
  override _streamIterator(
    input: BaseLanguageModelInput,
    options?: DedicatedEndpointLLMCallOptions,
  ): AsyncGenerator<string> {
    checkLLMCallOptions(options ?? {});
    return startedStream(options?.runId, [options?.callbacks, this.callbacks], (runId) =>
      super._streamIterator(input, { ...options, runId }),
    );
  }

  /** One request per prompt, all through the caller's queue (so at most `maxConcurrency` at once). */
  override async _generate(
    prompts: string[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<LLMResult> {
    const call = this.#call(options, runManager);
    const generations = await Promise.all(
      prompts.map((prompt, index) =>
        this.streaming
          ? this.#streamToGeneration(prompt, index, options, call)
          : this.#complete(prompt, options, call),
      ),
    );
    const tokenUsage = sumTokenUsage(generations.flat().map((g) => g.generationInfo?.tokenUsage));
    return { generations, llmOutput: { tokenUsage } };
  }

  override async *_streamResponseChunks(
    prompt: string,
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<GenerationChunk> {
    yield* this.#streamChunks(prompt, 0, options, this.#call(options, runManager));
  }

  #call(options: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): Call {
    return { serviceName: this.#serviceNameFor(options), runManager };
  }

  #serviceNameFor(options: this["ParsedCallOptions"]): string {
    return options.serviceName === undefined
      ? this.serviceName
      : validateServiceName(options.serviceName, "serviceName");
  }

  #body(prompt: string, options: this["ParsedCallOptions"], stream: boolean) {
    const params = this.invocationParams(options);
    if (stream) checkStreamedChoices(params);
    return {
      ...params,
      prompt,
      ...(stream
        ? { stream: true, stream_options: params.stream_options ?? { include_usage: true } }
        : { stream: undefined }),
    } as unknown as OpenAI.CompletionCreateParams;
  }

  /**
   * What one request hands the channel: a call's own Service-Name is sent per request, so the
   * fetch layer keeps it instead of the model's, and its failures name it.
   */
  #request(
    options: this["ParsedCallOptions"],
    call: Call,
    body: OpenAI.CompletionCreateParams,
  ): ChannelRequest {
    const { serviceName, runManager } = call;
    return {
      body: body as unknown as Record<string, unknown>,
      signal: options.signal ?? undefined,
      maxRetries: options.maxRetries,
      headers: { [SERVICE_NAME_HEADER]: serviceName },
      run: runManager,
      estimate: () =>
        estimateCompletionRequest(body as unknown as Record<string, unknown>, serviceName),
    };
  }

  async #complete(
    prompt: string,
    options: this["ParsedCallOptions"],
    call: Call,
  ): Promise<Generation[]> {
    const body = this.#body(prompt, options, false) as OpenAI.CompletionCreateParamsNonStreaming;
    const request = this.#request(options, call, body);
    return this.#channel.request(request, ({ data, response }, ctx) => {
      const generations = parseCompletion(data, response, ctx);
      return {
        result: generations,
        cost: () => ({
          usage: tokenCountOf(generations[0]?.generationInfo?.tokenUsage),
          outputTokens: estimateTokens(generations.map((g) => g.text).join("")),
        }),
      };
    });
  }

  /**
   * Chunks of one streamed prompt; each token goes to `handleLLMNewToken` before it is yielded.
   * The stream is opened inside the retried attempt and its first event read there, so a stream
   * that ends without any event counts as the empty response of a Pending endpoint
   * (docs/service-contract.md#endpoint-states) and is retried like one, as is one that fails or
   * stalls before it; later events are never retried (they have been handed out). The call's
   * meter settles to the usage chunk if it came, else to what was streamed (to its worst case
   * for a stream left or stopped); its span ends then.
   */
  async *#streamChunks(
    prompt: string,
    index: number,
    options: this["ParsedCallOptions"],
    call: Call,
  ): AsyncGenerator<GenerationChunk> {
    const body = this.#body(prompt, options, true) as OpenAI.CompletionCreateParamsStreaming;
    // One choice was asked for (see checkStreamedChoices): another one is the server's fault.
    const secondChoice =
      ({ response, ctx }: StreamHead) =>
      (detail: string): never => {
        const { headers, status } = response;
        throw toServiceError({ kind: "malformed", detail, headers, status }, ctx);
      };
    const { signal } = options;
    yield* this.#channel.stream<OpenAI.Completion, GenerationChunk>(
      this.#request(options, call, body),
      {
        read: (events, head) =>
          this.#chunksOf(events, head.requestId, index, call.runManager, secondChoice(head)),
        count: countChunk,
      },
    );
    if (signal?.aborted) throw abortError(signal);
  }

  async *#chunksOf(
    events: AsyncIterable<OpenAI.Completion>,
    requestId: string | undefined,
    index: number,
    runManager: CallbackManagerForLLMRun | undefined,
    secondChoice: (detail: string) => never,
  ): AsyncGenerator<GenerationChunk> {
    let info: Record<string, unknown> = requestId !== undefined ? { requestId } : {};
    for await (const event of events) {
      const choice = event.choices?.[0] as (RawChoice & { index?: unknown }) | undefined;
      const other = event.choices?.length > 1 ? 1 : choice?.index;
      if (typeof other === "number" && other !== 0) {
        secondChoice(`the stream carries a choice of index ${other}, but one choice was asked for`);
      }
      const tokenUsage = tokenUsageFromWire((event as { usage?: unknown }).usage);
      if (choice === undefined && tokenUsage === undefined) continue;
      const finishReason = choice?.finish_reason ?? undefined;
      const chunk = new GenerationChunk({
        text: (choice && textOfChoice(choice, "delta")) ?? "",
        generationInfo: withoutUndefined({ ...info, finishReason, tokenUsage }),
      });
      info = {};
      if (choice !== undefined) {
        const idx = { prompt: index, completion: 0 };
        await runManager?.handleLLMNewToken(chunk.text, idx, undefined, undefined, undefined, {
          chunk,
        });
      }
      yield chunk;
    }
  }

  async #streamToGeneration(
    prompt: string,
    index: number,
    options: this["ParsedCallOptions"],
    call: Call,
  ): Promise<Generation[]> {
    let whole = new GenerationChunk({ text: "" });
    const chunks = this.#streamChunks(prompt, index, options, call);
    for await (const chunk of chunks) whole = whole.concat(chunk);
    return [{ text: whole.text, generationInfo: whole.generationInfo }];
  }
}

/** What one streamed chunk adds to the output, and its usage: for the call's meter. */
function countChunk(reading: StreamReading, chunk: GenerationChunk): void {
  reading.addText(chunk.text);
  const tokenUsage = chunk.generationInfo?.tokenUsage;
  if (tokenUsage !== undefined) reading.usage = tokenCountOf(tokenUsage);
}
