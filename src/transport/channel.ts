/**
 * @module `ServiceChannel`: how every request of a model travels, built once per model instance
 * — the key and the URL, the failure context, the fetch layer, the openai SDK client, the caller
 * (queue and retries) and the meter's setup (rate limiter, key ID). The chat model, the LLM, the
 * embeddings and `diagnose` send through it, each with one call: {@link ServiceChannel.request}
 * for a JSON answer, {@link ServiceChannel.stream} for a stream, whose reader hands it to
 * {@link settleStream}. Every request is traced here when the app registered a tracer or meter
 * provider (docs/observability.md).
 */
import type { OpenAI } from "openai";
import { type ConnectionFields, resolveConnection } from "../config/connection.js";
import { checkHeaders } from "../config/headers.js";
import { SERVICE_NAME_HEADER } from "../constants.js";
import { EndpointNotReadyError } from "../errors/errors.js";
import {
  asServiceError,
  type FailureContext,
  headerRequestId,
  toServiceError,
} from "../errors/mapper.js";
import {
  type CallMeter,
  createCallMeter,
  type MeteredAttempt,
  type MeteredRun,
} from "../spend/call_meter.js";
import type { RequestEstimate, StreamReading } from "../spend/estimate.js";
import { apiKeyId, type RateLimiter } from "../spend/rate_limiter.js";
import type { CallTrace } from "../telemetry/call_trace.js";
import { Telemetry } from "../telemetry/telemetry.js";
import { secretHeaderValues } from "../utils/secrets.js";
import { APIS, type Api, type ApiRow } from "./apis.js";
import { type Answer, sendRequest } from "./attempt.js";
import { type ClientExtras, createServiceClient } from "./client.js";
import { createServiceFetch, DEFAULT_IDLE_TIMEOUT_MS, type Fetch } from "./fetch.js";
import { type DirectTarget, postJSON } from "./post.js";
import { type RetryOptions, ServiceCaller } from "./retry.js";
import { openStream, type StreamWatch } from "./stream.js";

/**
 * The options a channel is built from: the shared options of the models, as their schemas check
 * them (`apis/options.ts`); the channel reads nothing else.
 */
export interface ChannelOptions extends ConnectionFields {
  /** `configuration`: the key and URL are read as above; chat takes further SDK client options. */
  configuration?: (ClientExtras & { apiKey?: unknown; baseURL?: unknown; fetch?: unknown }) | null;
  maxRetries?: number;
  maxConcurrency?: number;
  /** Milliseconds per attempt (the SDK's `timeout`). */
  timeout?: number;
  /** Milliseconds a stream may wait for its next event. @default `timeout` */
  idleTimeout?: number;
  retry?: RetryOptions;
  fetch?: Fetch;
  rateLimiter?: RateLimiter;
  /** Sees the typed error of every failed attempt. */
  onFailedAttempt?: (error: unknown) => unknown;
  /** `false` turns the channel's spans and metrics off. @default true */
  telemetry?: boolean;
  /** Record prompts and replies on spans; undefined reads the conventions' env variable. */
  captureContent?: boolean;
}

/** Whom a channel's requests are for. */
export interface ChannelTarget {
  /** Hosted APIs: the model ID every request names. */
  model?: string;
  /** Dedicated endpoints: the `Service-Name` sent with every request unless one sends its own. */
  serviceName?: string;
  /**
   * Dedicated endpoints: milliseconds to keep retrying a Pending endpoint, whatever
   * `maxRetries` says (see `waitForReady` in `apis/options.ts`). @default 0
   */
  waitForReady?: number;
  /**
   * Whether an unknown model's error names the models the service lists (one `GET …/models`).
   * @default the API's own (`APIS`)
   */
  lookUpModels?: boolean;
  /**
   * The caller (queue and retries) of another channel of the same model, shared so that a model
   * that calls two APIs counts both against one `maxConcurrency`. @default one of its own
   */
  caller?: ServiceCaller;
}

/** One request: its body and what this call adds to the channel's settings. */
export interface ChannelRequest {
  body: Record<string, unknown>;
  /** The caller's cancellation: stops the retries and every wait. */
  signal?: AbortSignal;
  /** Retries for this request; the channel's `maxRetries` when undefined. */
  maxRetries?: number;
  /**
   * The openai SDK's request options of this call (a chat call's `options`: headers, query); an
   * API sent without the SDK (`APIS`) takes only `headers` below.
   */
  options?: OpenAI.RequestOptions;
  /** Headers of this request, over the channel's (a call's own `Service-Name`). */
  headers?: Record<string, string | null>;
  /** The call's meter (trackers and rate limiter); undefined when it has neither. */
  meter?: CallMeter;
  /** The request's worst case, for the meter; computed only when there is one. */
  estimate?: () => RequestEstimate;
  /** What this request's failures know besides the channel's context (its inputs, its Service-Name). */
  context?: Partial<FailureContext>;
  /**
   * The request's telemetry, from {@link ServiceChannel.trace}. A JSON request is traced by the
   * channel without one; a stream is traced only with one, since its reader ends it
   * ({@link settleStream}).
   */
  trace?: CallTrace;
  /**
   * A stream's events, as its API tells them: how to read the answer, the output and a failure
   * out of them. @default the choices of chat and completions chunks
   */
  watch?: StreamWatch<object>;
}

/** A stream whose first event has arrived, with the request ID of its response. */
export interface OpenedStream<T> {
  events: AsyncIterableIterator<T>;
  requestId?: string;
  response: Response;
  /** The metered attempt that answered: whoever reads the stream settles it (`meterStream`). */
  attempt?: MeteredAttempt;
}

/** How a model's stream is settled once it ends (see {@link settleStream}). */
export interface StreamSettling<T> {
  /** The call's meter, if it has one: settles the attempt that answered to what was read. */
  meter?: CallMeter;
  /** What one item adds to the meter's reading (output text, usage). */
  count?: (reading: StreamReading, item: T) => void;
  /** The metered attempt that answered, asked for when the stream ends. */
  attempt?: () => MeteredAttempt | undefined;
  /** The request's telemetry, as passed in its request: ended when the stream ends. */
  trace?: CallTrace;
  /** The call's signal: a stream it stops is settled at once, read again or not. */
  signal?: AbortSignal;
}

/**
 * A model's stream as it hands it out, settled once however it ends — read to its end, failed,
 * left (`break`, `return`) or stopped by its signal: the meter settles the attempt that answered
 * (`CallMeter.meterStream`) and the request's span ends (`CallTrace.follow`). The one place a
 * stream's end reaches the meter and the telemetry; the stream itself when it has neither.
 */
export function settleStream<T>(
  chunks: AsyncGenerator<T>,
  how: StreamSettling<T>,
): AsyncGenerator<T>;
export function settleStream<T>(chunks: AsyncIterable<T>, how: StreamSettling<T>): AsyncIterable<T>;
export function settleStream<T>(
  chunks: AsyncIterable<T>,
  { meter, count, attempt = () => undefined, trace, signal }: StreamSettling<T>,
): AsyncIterable<T> {
  const metered = meter && count ? meter.meterStream(chunks, count, attempt, signal) : chunks;
  return trace ? trace.follow(metered, signal) : metered;
}

/** A JSON answer's reader: checks it, settles the attempt, returns the result. */
export type ReadJSON<R> = (
  answer: Answer<unknown>,
  ctx: FailureContext,
  attempt: MeteredAttempt | undefined,
) => R | Promise<R>;

/**
 * The one way a model reaches the service. Every request goes through the caller's queue and
 * retries, the meter's reservation and rate limit, the SDK client and the fetch layer; every
 * failure comes out as one typed error (`errors/mapper.ts`).
 *
 * @example
 * const channel = new ServiceChannel("chat", options, { model: "emulator-chat" });
 * const completion = await channel.request({ body }, ({ data, response }, ctx) =>
 *   checkChatCompletion(data, response.headers, ctx),
 * );
 */
export class ServiceChannel {
  /** The normalised `…/inference/v1` URL. */
  readonly baseURL: string;
  /** The rate limit of the channel's requests, if one was given. */
  readonly rateLimiter?: RateLimiter;
  readonly #row: ApiRow;
  readonly #apiKey: string;
  readonly #keyId: string;
  readonly #ctx: FailureContext;
  readonly #client: OpenAI;
  /** Where JSON requests go without the SDK, for an API it has no method for (`APIS`). */
  readonly #direct?: DirectTarget;
  readonly #caller: ServiceCaller;
  readonly #telemetry: Telemetry;
  /** The context each failed request was typed in: a `waitForReady` deadline names its Service-Name. */
  readonly #contextOf = new WeakMap<object, FailureContext>();

  constructor(api: Api, options: ChannelOptions, target: ChannelTarget = {}) {
    const { apiKey, baseURL } = resolveConnection(options);
    const row: ApiRow = APIS[api];
    const { apiKey: _k, baseURL: _u, fetch: given, ...extra } = options.configuration ?? {};
    const surfaceHeaders: Record<string, string> =
      // docs/service-contract.md#dedicated-endpoints, rule 1: Service-Name on every request.
      target.serviceName === undefined ? {} : { [SERVICE_NAME_HEADER]: target.serviceName };
    this.baseURL = baseURL;
    this.rateLimiter = options.rateLimiter;
    this.#row = row;
    this.#apiKey = apiKey;
    this.#keyId = apiKeyId(apiKey);
    this.#ctx = {
      surface: row.surface,
      ...(row.api ? { api: row.api } : {}),
      ...(target.model !== undefined ? { model: target.model } : {}),
      ...(target.serviceName !== undefined ? { serviceName: target.serviceName } : {}),
      secrets: [apiKey, ...secretHeaderValues(extra.defaultHeaders)],
    };
    const fetch = createServiceFetch({
      ...this.#ctx,
      fetch: options.fetch ?? (given as Fetch | undefined),
      headers: surfaceHeaders,
      lookUpModels: target.lookUpModels ?? row.lookUpModels,
      idleTimeout: options.idleTimeout ?? options.timeout ?? DEFAULT_IDLE_TIMEOUT_MS,
    });
    this.#client = createServiceClient({ apiKey, baseURL, timeout: options.timeout, extra, fetch });
    if (!row.sdk) {
      this.#direct = { url: `${baseURL}${row.path}`, apiKey, fetch, timeout: options.timeout };
    }
    this.#caller =
      target.caller ??
      new ServiceCaller({
        maxRetries: options.maxRetries,
        maxConcurrency: options.maxConcurrency,
        onFailedAttempt: options.onFailedAttempt,
        ...options.retry,
        normalize: (error) => asServiceError(error, this.#ctx),
        deadline: this.#pendingDeadline(target.waitForReady ?? 0),
      });
    this.#telemetry = new Telemetry({
      operation: row.operation,
      url: `${baseURL}${row.path}`,
      enabled: options.telemetry,
      captureContent: options.captureContent,
    });
  }

  /** The API key, for a model that shows it as `ChatOpenAI` does (never enumerable there). */
  get apiKey(): string {
    return this.#apiKey;
  }

  /** What every failure of this channel is typed with (surface, model or Service-Name, secrets). */
  get context(): FailureContext {
    return this.#ctx;
  }

  /** The queue and retry layer, which LangChain's base classes also take as their `caller`. */
  get caller(): ServiceCaller {
    return this.#caller;
  }

  /** A meter for one call of `run`, when it has usage trackers or the channel a rate limiter. */
  meter(run?: MeteredRun): CallMeter | undefined {
    return createCallMeter({ run, limiter: this.rateLimiter, keyId: this.#keyId });
  }

  /**
   * The telemetry of one request, for a stream's reader to pass in its request and end with
   * {@link settleStream}; undefined (nothing to do) when nothing is traced.
   */
  trace(): CallTrace | undefined {
    return this.#telemetry.trace();
  }

  /** Types anything a call threw in this channel's context (or a request's own). */
  typed(error: unknown, ctx: FailureContext = this.#ctx): unknown {
    return asServiceError(error, ctx);
  }

  /**
   * Sends a request that is answered with JSON; `read` checks the answer and settles the
   * attempt to the usage it reports. A throw from `read` fails the attempt like any failure.
   */
  request<R>(request: ChannelRequest, read: ReadJSON<R>): Promise<R> {
    const ctx = this.#contextFor(request);
    const trace = request.trace ?? this.#telemetry.trace();
    return this.#send(request, ctx, false, trace, async (answer, attempt) => {
      const result = await read(answer, ctx, attempt);
      trace?.answered(answer.data);
      return result;
    });
  }

  /**
   * Sends a request that asks for a stream and returns it once its first event has arrived: a
   * stream that fails, stalls or ends before it is retried like a failed request; later events
   * are never retried. Its metered attempt is the reader's to settle (`CallMeter.meterStream`).
   */
  stream<T extends object>(request: ChannelRequest): Promise<OpenedStream<T>> {
    const ctx = this.#contextFor(request);
    const { trace } = request;
    return this.#send(request, ctx, true, trace, async ({ data, response }, attempt) => {
      const stream = data as AsyncIterable<T>;
      const observe = trace && ((event: T) => trace.chunk(event));
      const { signal, watch } = request;
      const events = await openStream(
        stream,
        response,
        ctx,
        signal,
        observe,
        watch as StreamWatch<T> | undefined,
      );
      trace?.opened();
      return { events, response, requestId: headerRequestId(response.headers), attempt };
    });
  }

  /**
   * Sends through the pipeline, traced when `trace` is given: it begins here and ends when the
   * request fails, or, for a JSON answer, when the answer has been read (a stream's reader ends it).
   */
  #send<R>(
    request: ChannelRequest,
    ctx: FailureContext,
    stream: boolean,
    trace: CallTrace | undefined,
    read: (answer: Answer<unknown>, attempt: MeteredAttempt | undefined) => Promise<R> | R,
  ): Promise<R> {
    const { body, signal, options, headers } = request;
    const path = this.#row.path;
    const client = this.#client;
    const direct = this.#direct;
    trace?.begin(body, ctx, stream);
    const sent = sendRequest({
      caller: this.#caller,
      maxRetries: request.maxRetries,
      signal,
      ctx,
      meter: request.meter,
      estimate: request.estimate,
      stream,
      send: (fetchOptions) =>
        direct && !stream
          ? postJSON(direct, { body, signal, headers, fetchOptions })
          : (client
              .post<unknown>(path, {
                ...options,
                body,
                stream,
                signal: signal ?? options?.signal,
                headers: headers
                  ? { ...(options?.headers as object), ...headers }
                  : options?.headers,
                fetchOptions: (options?.fetchOptions
                  ? { ...options.fetchOptions, ...fetchOptions }
                  : fetchOptions) as OpenAI.RequestOptions["fetchOptions"],
              })
              .withResponse() as Promise<Answer<unknown>>),
      read,
      onError: (error) => {
        if (typeof error === "object" && error !== null) this.#contextOf.set(error, ctx);
      },
      trace,
    });
    if (trace === undefined) return sent;
    return sent.then(
      (result) => {
        if (!stream) trace.end();
        return result;
      },
      (error: unknown) => {
        trace.end(error, stream ? (signal?.aborted ? "aborted" : "failed") : undefined);
        throw error;
      },
    );
  }

  /**
   * The channel's context, with what this request adds: per-call header values are secrets too,
   * and refused up front when a header cannot carry them.
   */
  #contextFor(request: ChannelRequest): FailureContext {
    const perCall = secretHeaderValues(checkHeaders(request.options?.headers, "options.headers"));
    const serviceName = request.headers?.[SERVICE_NAME_HEADER];
    if (perCall.length === 0 && request.context === undefined && !serviceName) return this.#ctx;
    return {
      ...this.#ctx,
      ...request.context,
      ...(serviceName ? { serviceName } : {}),
      secrets: [...(this.#ctx.secrets ?? []), ...perCall],
    };
  }

  /**
   * A Pending endpoint is retried until `waitForReady` has passed, whatever `maxRetries` says;
   * then one `EndpointNotReadyError` says how long it waited, for the Service-Name it was sent with.
   */
  #pendingDeadline(waitForReady: number) {
    if (waitForReady <= 0) return undefined;
    return {
      ms: waitForReady,
      when: (error: unknown) => EndpointNotReadyError.isInstance(error),
      onDeadline: (error: unknown, waitedMs: number) =>
        toServiceError(
          { kind: "still-pending", waitedMs, limitMs: waitForReady, last: error },
          this.#contextOf.get(error as object) ?? this.#ctx,
        ),
    };
  }
}
