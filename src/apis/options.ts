/**
 * @module The options of both models, each declared once: a zod schema per model whose fields give
 * the option's type, check, wording, JSDoc and default, and say whether the model serialises it.
 */
import type { ClientOptions } from "@langchain/openai";
import type { OpenAI } from "openai";
import { z } from "zod";
import { readEnv } from "../config/env.js";
import {
  aFunction,
  callbacks,
  checkedOnResolve,
  describeValue,
  optionsSchema,
  parseOptions,
  timeoutMs,
  unwrapField,
} from "../config/options.js";
import { profilesSchema } from "../config/profiles.js";
import { hasBrand, RATE_LIMITER_BRAND } from "../constants.js";
import { ConfigurationError } from "../errors/errors.js";
import type { RateLimiter } from "../spend/rate_limiter.js";
import type { Fetch } from "../transport/fetch.js";
import { DEFAULT_MAX_RETRIES, retryOptionsSchema } from "../transport/retry.js";
import { checkReasoningSummary, useResponsesApiSchema } from "./responses/options.js";

declare const SERIALISED: unique symbol;

/** A field {@link serialised} marks: the type says so, for the model's fields typed from it. */
export type Serialised<T> = T & { readonly [SERIALISED]: true };

/**
 * Marks an option the model writes into its serialised form (`lc_serializable_keys`) and keeps
 * as a field of the instance, where `toJSON` reads it.
 */
function serialised<T extends z.ZodType>(schema: T): Serialised<T> {
  return schema.meta({ serialised: true }) as Serialised<T>;
}

/**
 * Marks an option the model never serialises: a secret (written as a reference to its env
 * variable instead), a function, a live object, or a header value.
 */
function unserialised<T extends z.ZodType>(schema: T): T {
  return schema.meta({ serialised: false });
}

/** Whether the model serialises the option: `undefined` for a field that is not marked. */
export function isSerialised(field: z.core.$ZodType): boolean | undefined {
  for (const layer of unwrapField(field).layers) {
    const marked = z.globalRegistry.get(layer)?.serialised;
    if (typeof marked === "boolean") return marked;
  }
  return undefined;
}

/** The options of `shape` a model serialises, in order. */
function serialisedKeys(shape: Record<string, z.core.$ZodType>): string[] {
  return Object.keys(shape).filter((key) => isSerialised(shape[key]!));
}

type SerialisedKeys<S> = {
  [K in keyof S]: S[K] extends { readonly [SERIALISED]: true } ? K : never;
}[keyof S];

/** The serialised options of a shape, checked and with their defaults: the fields a model keeps. */
export type SerialisedOptions<S extends z.core.$ZodLooseShape> = Pick<
  z.output<z.ZodObject<S>>,
  SerialisedKeys<S> & keyof z.output<z.ZodObject<S>>
>;

/** A count with no upper bound: a whole number ≥ 1, or `Infinity` (`maxConcurrency`, `topN`). */
export const countOrInfinity = z
  .union([z.number().int().positive(), z.literal(Number.POSITIVE_INFINITY)])
  .describe("a whole number ≥ 1, or Infinity");

/** A number of retries: a model's `maxRetries`, or a call's. */
export const retryCount = z
  .number()
  .int()
  .nonnegative()
  .describe("a whole number ≥ 0 (0 disables retries)");

/**
 * A model's fields from its constructor's arguments, `(model, fields?)` or `(fields?)`. A
 * JavaScript caller's other shapes (a number for the model, a string for the fields) are refused
 * here: spread as they are, they would turn into `0`, `1`, … or into nothing, and the error would
 * name an option the caller never wrote.
 */
export function constructorFields<F extends { model?: string }>(
  modelOrFields: string | F | undefined,
  maybeFields: Omit<F, "model"> | undefined,
  example: string,
): F {
  const isFields = (value: unknown) =>
    value === undefined || (typeof value === "object" && value !== null && !Array.isArray(value));
  if (typeof modelOrFields === "string") {
    if (isFields(maybeFields)) return { ...maybeFields, model: modelOrFields } as F;
    throw new ConfigurationError(
      "fields",
      `\`fields\`, the options after the model ID, must be an object, e.g. ${example}; got ${describeValue(maybeFields)}.`,
    );
  }
  if (isFields(modelOrFields)) return { ...modelOrFields } as F;
  throw new ConfigurationError(
    "model",
    `\`model\`, the first argument, must be the model ID (a string) or an object of options, e.g. ${example}; got ${describeValue(modelOrFields)}.`,
  );
}

/** The options both models take and treat alike. */
const modelOptions = {
  /**
   * API key, sent as `Authorization: Bearer …`; a dedicated endpoint needs a key with the
   * **Inference Service** permission (docs/service-contract.md#authentication). Serialised only
   * as a reference to its env variable. @default env `INFERENCE_SERVICE_API_KEY`
   */
  apiKey: unserialised(checkedOnResolve<string>().optional()),
  /**
   * `ChatOpenAI`'s older name for `apiKey`, read as `apiKey`; giving both with different values
   * is a `ConfigurationError`. @default env `INFERENCE_SERVICE_API_KEY`
   */
  openAIApiKey: unserialised(checkedOnResolve<string>().optional()),
  /**
   * The service's host root or `…/inference/v1` (normalised, docs/service-contract.md#versioning).
   * @default env `INFERENCE_SERVICE_BASE_URL`
   */
  baseURL: serialised(checkedOnResolve<string>().optional()),
  /**
   * Retries of retryable failures: 429, 408, 409, 5xx, connection errors, timeouts, and a
   * dedicated endpoint that is still Pending. @default 2 (docs/service-contract.md#limits-and-retries)
   */
  maxRetries: serialised(retryCount.default(DEFAULT_MAX_RETRIES)),
  /**
   * Most requests in flight at once, across `invoke`, `batch` and `generate`. A streamed request
   * frees its slot when its first event arrives, not when the stream ends. @default Infinity
   */
  maxConcurrency: serialised(countOrInfinity.optional()),
  /**
   * Milliseconds one attempt may wait for the response to begin (the openai SDK's per-attempt
   * timeout); a timeout is a retryable `ServiceTimeoutError`. At most 2147483647 (about 24.8
   * days). @default 600000 (the openai SDK's, 10 minutes; no env variable)
   */
  timeout: serialised(timeoutMs.optional()),
  /**
   * Milliseconds a stream may wait for its next complete event — before its first, or between
   * two; comments such as `: ping` and the bytes of an unfinished event do not count — before the
   * attempt fails with a retryable `ServiceTimeoutError` (code `idle_timeout`). A stream that
   * stalls before its first event is retried; one that stalls later keeps what arrived in
   * `partialOutput`. A non-streamed answer is bounded by `timeout` as a whole. At most
   * 2147483647 (about 24.8 days). @default `timeout` (no env variable)
   */
  idleTimeout: serialised(timeoutMs.optional()),
  /** Backoff of those retries. @default `{ initialDelayMs: 500, maxDelayMs: 8000, maxRetryAfterMs: 30000 }` */
  retry: serialised(retryOptionsSchema.prefault({})),
  /** The fetch that sends requests (tests, proxies, the in-process emulator). @default `globalThis.fetch` */
  fetch: unserialised(aFunction<Fetch>("a fetch function").optional()),
  /** Called with the typed error of every failed attempt; throwing from it stops the retries. @default none */
  onFailedAttempt: unserialised(aFunction<(error: unknown) => unknown>().optional()),
  /**
   * Client-side limit on requests and tokens per minute; calls over it wait their turn (after
   * the `maxConcurrency` queue) instead of failing, and 429s slow it down. Share one instance
   * between models to share the limit. @default none
   */
  rateLimiter: unserialised(
    z
      .custom<RateLimiter>((value) => hasBrand(value, RATE_LIMITER_BRAND))
      .describe("a RateLimiter (new RateLimiter({ requestsPerMinute, … }))")
      .optional(),
  ),
  /**
   * OpenTelemetry spans and metrics of this model's calls — one span per call, one per HTTP
   * attempt, the GenAI conventions' metrics — whenever the app registers a tracer or meter
   * provider with `@opentelemetry/api` (docs/observability.md); `false` turns them off for this
   * model. Without a registered provider nothing is built either way. @default true
   */
  telemetry: serialised(z.boolean().describe("true or false").default(true)),
  /**
   * Record prompts and replies on the spans (`gen_ai.input.messages`, `gen_ai.output.messages`)
   * and failures' whole messages. Off unless asked: they may hold personal data. Keys and header
   * values are never recorded, whatever this says.
   * @default env `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` (`true` turns it on), else false
   */
  captureContent: serialised(z.boolean().describe("true or false").optional()),
};

/** `configuration` of `ChatInferenceService`: the openai SDK's client options, as `ChatOpenAI` takes them. */
export type ChatConfiguration = Omit<ClientOptions, "apiKey" | "baseURL" | "maxRetries"> & {
  /** Read as `apiKey`. */
  apiKey?: string;
  /** Read as `baseURL`. */
  baseURL?: string;
};

/**
 * The options of `ChatInferenceService` that this package owns (the rest are `ChatOpenAI`'s, and
 * pass through unchecked).
 */
export const chatInferenceServiceOptions = optionsSchema({
  /**
   * Model ID of the hosted model, sent as `model` in the body (docs/service-contract.md#hosted-models);
   * outer spaces are trimmed. @default none (required: the first argument, or `model`)
   */
  model: serialised(z.string().optional()),
  ...modelOptions,
  /**
   * openai SDK client options, as `ChatOpenAI` takes them. `configuration.apiKey` and
   * `configuration.baseURL` are read as `apiKey` and `baseURL` (a `ConfigurationError` when they
   * disagree with those); `configuration.fetch` is used when `fetch` is not given;
   * `configuration.maxRetries` is refused (retries live in one layer: pass `maxRetries`);
   * `defaultHeaders` are sent but never serialised. @default `{}`
   */
  configuration: unserialised(checkedOnResolve<ChatConfiguration>().optional()),
  /**
   * What each hosted model can do and how many tokens it reads, by model ID: `profile` is this
   * model's entry laid over `DEFAULT_HOSTED_PROFILE`. LangChain v1 reads it — e.g.
   * summarization middleware (`maxInputTokens`) and `createAgent`'s structured-output strategy
   * (`structuredOutput`). Checked here: a misspelt field is a `ConfigurationError`.
   * @default `{}` (every model gets the defaults; no env variable)
   */
  profiles: serialised(profilesSchema.optional()),
  /**
   * How much the model thinks, as `ChatOpenAI` takes it: `{ effort: "low" }` is sent as
   * `reasoning_effort` for every hosted model (`ChatOpenAI` sends it only for the model names it
   * knows as OpenAI's reasoning models). A call's `reasoning` (or `reasoningEffort`) overrides
   * it. Provider switches that turn thinking on or off (`thinking`, `enable_thinking`,
   * `chat_template_kwargs`) go in `modelKwargs`, the model's or a call's. A `summary` is asked of
   * the Responses API (`useResponsesApi`); with Chat Completions it is a `ConfigurationError`.
   * @default none
   */
  reasoning: serialised(
    z
      .custom<OpenAI.Reasoning>(
        (value) =>
          typeof value === "object" &&
          value !== null &&
          !Array.isArray(value) &&
          isEffort((value as { effort?: unknown }).effort),
      )
      .describe('an object such as { effort: "low" } (effort a non-empty string)')
      .optional(),
  ),
  /**
   * Which of the service's APIs the model calls: `false`, Chat Completions (`POST
   * …/chat/completions`); `true`, OpenAI's Responses API (`POST …/responses`), stateless, with
   * the reasoning items sent back whole; `"auto"`, the Responses API for a model the service's
   * model list marks `"openai-response"`, and Chat Completions otherwise or when the gateway
   * cannot serve the call there (docs/responses.md).
   * @default false
   */
  useResponsesApi: serialised(useResponsesApiSchema.optional()),
});

/** A reasoning effort as a provider may name it ("low", "high", …), or none. */
function isEffort(effort: unknown): boolean {
  return effort === undefined || effort === null || (typeof effort === "string" && effort !== "");
}

/** The options of `ChatInferenceService` that this package owns, as a caller writes them. */
export type ChatInferenceServiceOptions = z.input<typeof chatInferenceServiceOptions>;

const CHAT_SPEC = { owner: "ChatInferenceService", schema: chatInferenceServiceOptions };

/** The names of the options `ChatInferenceService` owns, and those of them it serialises. */
export const CHAT_OPTIONS = {
  owned: Object.keys(chatInferenceServiceOptions.shape),
  serialised: serialisedKeys(chatInferenceServiceOptions.shape),
};

/** Checks the options of `ChatInferenceService` that this package owns; returns them with their defaults. */
export function validateChatOptions(fields: unknown): z.output<typeof chatInferenceServiceOptions> {
  const options = parseOptions(CHAT_SPEC, fields);
  checkReasoningSummary(options.reasoning, options.useResponsesApi);
  return options;
}

/** The hosted model ID of `ChatInferenceService`, trimmed: none, or only spaces, is a `ConfigurationError`. */
export function chatModelId(named: unknown): string {
  // No model ID has outer spaces: " my-model" (as "provider: model" is often written) is "my-model".
  const model = typeof named === "string" ? named.trim() : "";
  if (model === "") {
    throw new ConfigurationError(
      "model",
      '`model` is required: pass the hosted model\'s ID, e.g. new ChatInferenceService("my-model").',
    );
  }
  return model;
}

/** Where a model whose ID may come from the environment says it is missing. */
export interface ModelIdSource {
  /** The env variable that supplies the ID. */
  env: string;
  /** The kind of model, in messages: "embedding", "rerank". */
  kind: string;
  /** A constructor call that passes an ID, for the message. */
  example: string;
}

/**
 * The model ID from the option, else from its env variable, trimmed: not a string, or none (only
 * spaces), is a `ConfigurationError` that names the option and the variable.
 */
export function modelIdFrom(given: unknown, { env, kind, example }: ModelIdSource): string {
  if (given !== undefined && typeof given !== "string") {
    throw new ConfigurationError(
      "model",
      `\`model\` must be a string: the ${kind} model's ID.`,
      env,
    );
  }
  const model = (given ?? readEnv(env) ?? "").trim();
  if (model === "") {
    throw new ConfigurationError(
      "model",
      `\`model\` is required: pass the ${kind} model's ID, e.g. ${example}, or set ${env}.`,
      env,
    );
  }
  return model;
}

/** `configuration` of a class that takes no other client option than the key and the URL. */
const connectionOnly = z
  .object({
    apiKey: checkedOnResolve<string>().optional(),
    baseURL: checkedOnResolve<string>().optional(),
  })
  .strict()
  .describe(
    "an object with only `apiKey` and `baseURL` (read as those options; this model has no other client options)",
  )
  .nullable()
  .optional();

/** The options of `DedicatedEndpointLLM`. */
const dedicatedEndpointLLMShape = {
  /**
   * The `Service-Name` header, `<TENANT_ID>.<JOB_ALIAS_NAME>`: tenant ID, one dot, job alias
   * (docs/service-contract.md#dedicated-endpoints). Not serialised: it is a header value, and
   * `tenantId` and `jobAlias` carry it. @default `tenantId` + "." + `jobAlias`
   */
  serviceName: unserialised(checkedOnResolve<string>().optional()),
  /**
   * Tenant ID, shown with the tenant name in the console sidebar (docs/service-contract.md#authentication,
   * rule 5). Serialised as a reference to its env variable. @default env `INFERENCE_SERVICE_TENANT_ID`
   */
  tenantId: serialised(checkedOnResolve<string>().optional()),
  /** Job alias name of the endpoint. Serialised as a reference to its env variable. @default env `INFERENCE_SERVICE_JOB_ALIAS` */
  jobAlias: serialised(checkedOnResolve<string>().optional()),
  ...modelOptions,
  /**
   * Where `ChatOpenAI` and `OpenAI` users put the key and the URL: `apiKey` and `baseURL` here are
   * read as the options of the same name (a `ConfigurationError` when they disagree). This model
   * takes no other client option: any other field is a `ConfigurationError`. @default `{}`
   */
  configuration: unserialised(connectionOnly),
  /** `max_tokens`: token cap on the generated output (docs/service-contract.md#dedicated-endpoints); a whole number ≥ 1. @default the endpoint's own */
  maxTokens: serialised(z.number().int().min(1).describe("a whole number ≥ 1").optional()),
  /** `temperature`: sampling temperature (docs/service-contract.md#dedicated-endpoints); a finite number ≥ 0. @default the endpoint's own */
  temperature: serialised(z.number().nonnegative().describe("a finite number ≥ 0").optional()),
  /** Stop sequences sent as `stop`; a call's `stop` replaces them. @default none */
  stop: serialised(z.array(z.string()).describe("an array of strings").optional()),
  /**
   * Milliseconds to keep retrying while the endpoint is Pending (refused connection or empty
   * response, docs/service-contract.md#endpoint-states), whatever `maxRetries` says; then an
   * `EndpointNotReadyError` saying how long it waited. `0` turns it off. Any length: it is a
   * deadline the retries are measured against, never a timer of its own. @default 0
   */
  waitForReady: serialised(
    z.number().nonnegative().describe("a number of milliseconds ≥ 0 (0 turns it off)").default(0),
  ),
  /** Stream (SSE) inside `invoke`/`generate` too, so callbacks get each token. @default false */
  streaming: serialised(z.boolean().describe("true or false").default(false)),
  /**
   * Extra body fields (`top_p`, `model`, `n`, …); they override the fields above, not
   * `prompt`/`stream`. An `n` above 1 is refused on a streamed call. @default `{}`
   */
  modelKwargs: serialised(
    // Any non-array object, as the body spreads it (a class instance too).
    z
      .custom<Record<string, unknown>>(
        (v) => typeof v === "object" && v !== null && !Array.isArray(v),
      )
      .describe("an object of extra body fields")
      .default(() => ({})),
  ),
  /**
   * What each deployment can do and how many tokens it reads, by Service-Name: `profile` is the
   * entry of this model's `serviceName` laid over `DEFAULT_DEDICATED_PROFILE`. Not serialised:
   * its keys are Service-Names, which are header values. A misspelt field is a
   * `ConfigurationError` here.
   * @default `{}` (the defaults; no env variable)
   */
  profiles: unserialised(profilesSchema.optional()),
};

/** The options of `DedicatedEndpointLLM`. */
export const dedicatedEndpointLLMOptions = optionsSchema(dedicatedEndpointLLMShape);

/** The options of `DedicatedEndpointLLM`, as a caller writes them. */
export type DedicatedEndpointLLMOptions = z.input<typeof dedicatedEndpointLLMOptions>;

/** What `DedicatedEndpointLLM` keeps of its options, checked and with their defaults: those it serialises. */
export type DedicatedEndpointLLMSettings = SerialisedOptions<typeof dedicatedEndpointLLMShape>;

/** The names of the options `DedicatedEndpointLLM` serialises (and keeps as its fields). */
export const DEDICATED_SERIALISED: readonly string[] = serialisedKeys(dedicatedEndpointLLMShape);

const DEDICATED_SPEC = { owner: "DedicatedEndpointLLM", schema: dedicatedEndpointLLMOptions };

/** Checks the options of `DedicatedEndpointLLM` (the Service-Name, key and URL are checked where they are resolved). */
export function validateDedicatedEndpointOptions(
  fields: unknown,
): z.output<typeof dedicatedEndpointLLMOptions> {
  const options = parseOptions(DEDICATED_SPEC, fields);
  if (options.streaming) checkStreamedChoices(options.modelKwargs);
  return options;
}

/**
 * A streamed dedicated call asks for one choice: LangChain's LLM stream is a stream of strings,
 * and core joins a streamed call's chunks into one generation (`stream()`, and `invoke` under a
 * handler that prefers streaming), so the choices of `n > 1` would interleave into one text.
 * `modelKwargs.n` above 1 is a `ConfigurationError` on a stream, before any request.
 */
export function checkStreamedChoices(modelKwargs: Record<string, unknown>): void {
  const { n } = modelKwargs;
  if (typeof n !== "number" || !(n > 1)) return;
  throw new ConfigurationError(
    "modelKwargs.n",
    `\`modelKwargs.n\` is ${n}, but a streamed call (\`stream()\`, or \`streaming: true\`) returns one text per prompt: its ${n} choices would interleave. Call \`generate()\` without \`streaming\` for one generation per choice, or leave out \`n\`.`,
  );
}

/** The values of `options` a model serialises, for its fields. */
export function serialisedValues<T extends object>(
  options: T,
  keys: readonly string[],
): Partial<T> {
  return Object.fromEntries(
    Object.entries(options).filter(([key]) => keys.includes(key)),
  ) as Partial<T>;
}

// An embeddings answer is one JSON body: no stream, so no `idleTimeout`; and its own concurrency default.
const { idleTimeout: _idle, maxConcurrency: _concurrency, ...sharedModelOptions } = modelOptions;

/** The options of `InferenceServiceEmbeddings` (it serialises nothing: LangChain's embeddings are not serialisable). */
export const inferenceServiceEmbeddingsOptions = optionsSchema({
  /**
   * Model ID of the embedding model, sent as `model`; outer spaces are trimmed. Whether a
   * deployment offers embedding models at all is not known in advance.
   * @default env `INFERENCE_SERVICE_EMBEDDING_MODEL` (required: the first argument, `model` or the variable)
   */
  model: checkedOnResolve<string>().optional(),
  ...sharedModelOptions,
  /**
   * Requests in flight at once, across the batches of every call. As in `OpenAIEmbeddings`, so
   * that a corpus split into many batches does not flood the service; raise it (with a
   * `rateLimiter` if need be) for faster ingestion. @default 2
   */
  maxConcurrency: countOrInfinity.default(2),
  /**
   * Where `OpenAIEmbeddings` users put the key and the URL: `apiKey` and `baseURL` here are read
   * as the options of the same name (a `ConfigurationError` when they disagree). No other client
   * option is taken. @default `{}`
   */
  configuration: connectionOnly,
  /**
   * Texts per request: `embedDocuments` splits its texts into batches of this many, sends them
   * `maxConcurrency` at a time and returns the vectors in the order of the texts. @default 512
   */
  batchSize: z.number().int().min(1).describe("a whole number ≥ 1").default(512),
  /** `dimensions`: the length of the vectors, for models that can shorten them. @default the model's own */
  dimensions: z.number().int().min(1).describe("a whole number ≥ 1").optional(),
  /**
   * `encoding_format` asked for: `"base64"` (float32 little-endian: a quarter of the bytes of
   * JSON numbers, and what the openai SDK sends by default) or `"float"` (for a server that
   * refuses base64). Either answer is read, whatever was asked. @default "base64"
   */
  encodingFormat: z.enum(["base64", "float"]).describe('"base64" or "float"').default("base64"),
  /**
   * LangChain callback handlers that see each `embedDocuments` and `embedQuery` call as an LLM
   * run: a `UsageTracker` here counts their tokens and cost, and reserves each request against
   * its budget before it is sent. The handlers of the run the call is made in (a chain's
   * `callbacks`, `withUsage`) are added where LangChain's async context is on. @default none
   */
  callbacks: unserialised(callbacks.optional()),
});

/** The options of `InferenceServiceEmbeddings`, as a caller writes them. */
export type InferenceServiceEmbeddingsOptions = z.input<typeof inferenceServiceEmbeddingsOptions>;

const EMBEDDINGS_SPEC = {
  owner: "InferenceServiceEmbeddings",
  schema: inferenceServiceEmbeddingsOptions.strict(),
};

/** Checks the options of `InferenceServiceEmbeddings` (the key, URL and model are checked where they are resolved). */
export function validateEmbeddingsOptions(
  fields: unknown,
): z.output<typeof inferenceServiceEmbeddingsOptions> {
  return parseOptions(EMBEDDINGS_SPEC, fields);
}

/** The options of `InferenceServiceRerank` (it serialises nothing: LangChain's document compressors are not serialisable). */
export const inferenceServiceRerankOptions = optionsSchema({
  /**
   * Model ID of the rerank model, sent as `model`; outer spaces are trimmed. Whether a
   * deployment offers rerank models at all is not known in advance.
   * @default env `INFERENCE_SERVICE_RERANK_MODEL` (required: the first argument, `model` or the variable)
   */
  model: checkedOnResolve<string>().optional(),
  ...sharedModelOptions,
  /** Most rerank requests in flight at once, across calls (each call is one request). @default Infinity */
  maxConcurrency: countOrInfinity.optional(),
  /**
   * Where `OpenAI`-style clients put the key and the URL: `apiKey` and `baseURL` here are read as
   * the options of the same name (a `ConfigurationError` when they disagree). No other client
   * option is taken. @default `{}`
   */
  configuration: connectionOnly,
  /**
   * How many documents a call returns, the most relevant first: sent as `top_n` (never more than
   * the documents given). `Infinity` returns every document, reordered. A `rerank` call's own
   * `topN` overrides it. @default 3 (as `CohereRerank`)
   */
  topN: countOrInfinity.default(3),
  /**
   * LangChain callback handlers that see each call as an LLM run: a `UsageTracker` here counts
   * its tokens and cost, and reserves the request against its budget before it is sent. The
   * handlers `compressDocuments` is given (a retriever's run) and those of the run the call is
   * made in (a chain's `callbacks`, `withUsage`) are added. @default none
   */
  callbacks: unserialised(callbacks.optional()),
});

/** The options of `InferenceServiceRerank`, as a caller writes them. */
export type InferenceServiceRerankOptions = z.input<typeof inferenceServiceRerankOptions>;

const RERANK_SPEC = {
  owner: "InferenceServiceRerank",
  schema: inferenceServiceRerankOptions.strict(),
};

/** Checks the options of `InferenceServiceRerank` (the key, URL and model are checked where they are resolved). */
export function validateRerankOptions(
  fields: unknown,
): z.output<typeof inferenceServiceRerankOptions> {
  return parseOptions(RERANK_SPEC, fields);
}
