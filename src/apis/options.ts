/**
 * @module What the options of every model share, each declared once: the marks that say whether a
 * model serialises an option, the options every model takes (`modelOptions`), the pieces several
 * schemas reuse, and the reading of a model's constructor arguments and model ID. Each model's own
 * schema is beside it, in its API's folder (`chat/options.ts`, `completions/options.ts`,
 * `embeddings/options.ts`, `rerank/options.ts`).
 */
import { z } from "zod";
import { readEnv } from "../config/env.js";
import {
  aFunction,
  checkedOnResolve,
  describeValue,
  timeoutMs,
  unwrapField,
} from "../config/options.js";
import { hasBrand, RATE_LIMITER_BRAND } from "../constants.js";
import { ConfigurationError } from "../errors/errors.js";
import type { RateLimiter } from "../spend/rate_limiter.js";
import type { Fetch } from "../transport/fetch.js";
import { DEFAULT_MAX_RETRIES, retryOptionsSchema } from "../transport/retry.js";

declare const SERIALISED: unique symbol;

/** A field {@link serialised} marks: the type says so, for the model's fields typed from it. */
export type Serialised<T> = T & { readonly [SERIALISED]: true };

/**
 * Marks an option the model writes into its serialised form (the keys its constructor keeps in
 * `lc_kwargs`) and keeps as a field of the instance, where `toJSON` reads it.
 */
export function serialised<T extends z.ZodType>(schema: T): Serialised<T> {
  return schema.meta({ serialised: true }) as Serialised<T>;
}

/**
 * Marks an option the model never serialises: a secret (written as a reference to its env
 * variable instead), a function, a live object, or a header value.
 */
export function unserialised<T extends z.ZodType>(schema: T): T {
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
export function serialisedKeys(shape: Record<string, z.core.$ZodType>): string[] {
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
export const modelOptions = {
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
   * LangChain's spelling of `baseURL`: `load()` turns a serialised `base_url` into `baseUrl`.
   * Read as `baseURL` (never serialised under its own name); giving both with different values
   * is a `ConfigurationError`. @default env `INFERENCE_SERVICE_BASE_URL`
   */
  baseUrl: unserialised(checkedOnResolve<string>().optional()),
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
export const connectionOnly = z
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

/** A secret as a model serialises it: a reference to the env variable `load()` reads it from. */
export function secretReference(variable: string) {
  return { lc: 1, type: "secret", id: [variable] } as const;
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

/**
 * The options every model takes, as a caller writes them. Each model's options type extends it
 * (or {@link SharedModelOptions}), so that the JSDoc declared once in {@link modelOptions} shows on
 * every model's type, in the sources and in the published declarations alike (a schema's type
 * inferred across modules would print these fields without their JSDoc).
 */
export interface ModelOptions extends z.input<z.ZodObject<typeof modelOptions>> {}

/**
 * {@link ModelOptions} of a model whose answer is one JSON body (embeddings, rerank): no
 * `idleTimeout`, a `maxConcurrency` of its own, and no `baseUrl` (such a model is never
 * serialised, so `load()` never passes that spelling).
 */
export interface SharedModelOptions
  extends Omit<ModelOptions, "idleTimeout" | "maxConcurrency" | "baseUrl"> {}

// An embeddings or rerank answer is one JSON body: no stream, so no `idleTimeout`; and each its own concurrency default.
const {
  idleTimeout: _idle,
  maxConcurrency: _concurrency,
  baseUrl: _loadedSpelling,
  ...sharedOptions
} = modelOptions;

/** The options of {@link modelOptions} a model whose answer is one JSON body takes (embeddings, rerank). */
export const sharedModelOptions = sharedOptions;
