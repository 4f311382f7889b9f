/**
 * @module `ServiceChannel`: how every request of a model travels, built once per model instance
 * — the key and the URL, the failure context, the fetch layer, the openai SDK client, the caller
 * (queue and retries) and the meter's setup (rate limiter, key ID). The chat model, the LLM, the
 * embeddings and `diagnose` send through it, each with one call: {@link ServiceChannel.request}
 * for a JSON answer, {@link ServiceChannel.stream} for a stream. The channel owns the whole call:
 * it reserves with the run's trackers, waits for the rate limiter, sends, retries, types every
 * failure, settles the attempt to what it used and traces the request (when the app registered a
 * tracer or meter provider, docs/observability.md), for every ending; a model only builds the
 * body and reads the answer.
 */
import type { OpenAI } from "openai";
import { type ConnectionFields, resolveConnection } from "../config/connection.js";
import { checkHeaders } from "../config/headers.js";
import { SERVICE_NAME_HEADER } from "../constants.js";
import { EndpointNotReadyError } from "../errors/errors.js";
import { type FailureContext, headerRequestId, toServiceError } from "../errors/mapper.js";
import {
  type CallMeter,
  createCallMeter,
  type MeteredAttempt,
  type MeteredRun,
} from "../spend/call_meter.js";
import type { RequestEstimate, StreamReading } from "../spend/estimate.js";
import { apiKeyId, type RateLimiter } from "../spend/rate_limiter.js";
import type { TokenCount } from "../spend/spend_guard.js";
import type { CallTrace } from "../telemetry/call_trace.js";
import { Telemetry } from "../telemetry/telemetry.js";
import { secretHeaderValues } from "../utils/secrets.js";
import { APIS, type Api, type ApiRow } from "./apis.js";
import { type Answer, sendRequest } from "./attempt.js";
import { AttemptLog } from "./attempt_log.js";
import { CallStream, type OpenedItems, type StreamHead } from "./call_stream.js";
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
  /**
   * The run the call belongs to (LangChain's run manager, or the run a model started): its usage
   * trackers reserve each attempt's worst case and are settled to what it used.
   */
  run?: MeteredRun;
  /** The request's worst case, for the meter; computed only when there is one. */
  estimate?: () => RequestEstimate;
  /** What this request's failures know besides the channel's context (its inputs, its Service-Name). */
  context?: Partial<FailureContext>;
  /**
   * A stream's events, as its API tells them: how to read the answer, the output and a failure
   * out of them. @default the choices of chat and completions chunks
   */
  watch?: StreamWatch<object>;
}

/**
 * What a JSON answer's reader makes of it: the call's result and what the answer cost, which the
 * channel settles the attempt to.
 */
export interface Reading<R> {
  /** The call's result; a getter is read once the answer is paid for (its throw then fails the call). */
  readonly result: R;
  /**
   * What the answer cost, asked only when the call is metered: the usage it reports (undefined
   * settles to the prompt's estimate plus `outputTokens`, the estimated tokens of the output).
   */
  cost?: () => { usage?: TokenCount; outputTokens?: number };
  /**
   * A check that comes after the answer is paid for (a json_schema answer cut short): its throw
   * fails the call, the attempt settled to what the service charged.
   */
  check?: () => void;
}

/** A JSON answer's reader: checks it and says what it cost ({@link Reading}). */
export type ReadJSON<R> = (
  answer: Answer<unknown>,
  ctx: FailureContext,
) => Reading<R> | Promise<Reading<R>>;

/** How a model reads its stream: what it makes of the events, and what each item counts. */
export interface StreamReader<T, U> {
  /** The items handed out, made of the stream's events. @default the events as they are */
  read?: (events: AsyncIterableIterator<T>, head: StreamHead) => AsyncIterable<U>;
  /** What one item adds to the meter's reading (output text, usage). */
  count?: (reading: StreamReading, item: U) => void;
}

/**
 * The one way a model reaches the service. Every request goes through the caller's queue and
 * retries, the meter's reservation and rate limit, the SDK client and the fetch layer; every
 * failure comes out as one typed error (`errors/mapper.ts`).
 *
 * @example
 * const channel = new ServiceChannel("chat", options, { model: "emulator-chat" });
 * const completion = await channel.request({ body }, ({ data, response }, ctx) => ({
 *   result: checkChatCompletion(data, response.headers, ctx),
 * }));
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
  /** The attempts in flight, which the fetch layer finds by the header each is sent with. */
  readonly #attempts = new AttemptLog();

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
      ...(row.inputWording ? { inputWording: row.inputWording } : {}),
      ...(target.model !== undefined ? { model: target.model } : {}),
      ...(target.serviceName !== undefined ? { serviceName: target.serviceName } : {}),
      secrets: [apiKey, ...secretHeaderValues(extra.defaultHeaders)],
    };
    const fetch = createServiceFetch({
      ...this.#ctx,
      attempts: this.#attempts,
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

  /**
   * Sends a request that is answered with JSON; `read` checks the answer and says what it cost,
   * which the attempt is settled to. A throw from `read` fails the attempt like any failure.
   */
  request<R>(request: ChannelRequest, read: ReadJSON<R>): Promise<R> {
    const ctx = this.#contextFor(request);
    const trace = this.#telemetry.trace();
    const meter = this.#meter(request.run);
    const sent = this.#send(request, ctx, false, meter, trace, async (answer, attempt) => {
      const reading = await read(answer, ctx);
      if (attempt !== undefined) {
        const { usage, outputTokens = 0 } = reading.cost?.() ?? {};
        await attempt.settle(usage, outputTokens);
      }
      reading.check?.();
      const { result } = reading;
      trace?.answered(answer.data);
      return result;
    });
    if (trace === undefined) return sent;
    return sent.then(
      (result) => {
        trace.end();
        return result;
      },
      (error: unknown) => {
        trace.end(error);
        throw error;
      },
    );
  }

  /**
   * A stream, sent when it is first read (or {@link CallStream.open}ed) and handed out once its
   * first event has arrived: a stream that fails, stalls or ends before it is retried like a
   * failed request; later events are never retried. What it hands out is metered and traced,
   * and settled once however it ends. `request` may be a function, called when the stream is
   * first read: nothing is built for a stream nobody reads.
   */
  stream<T extends object, U = T>(
    request: ChannelRequest | (() => ChannelRequest),
    reader: StreamReader<T, U> = {},
  ): CallStream<U> {
    const trace = this.#telemetry.trace();
    return new CallStream<U>({
      trace,
      count: reader.count,
      start: () => {
        const sent = typeof request === "function" ? request() : request;
        const meter = this.#meter(sent.run);
        const opened = this.#open(sent, meter, trace, reader);
        return { signal: sent.signal, meter, opened };
      },
    });
  }

  /** Sends a stream's request and opens it (see {@link stream}). */
  #open<T extends object, U>(
    request: ChannelRequest,
    meter: CallMeter | undefined,
    trace: CallTrace | undefined,
    reader: StreamReader<T, U>,
  ): Promise<OpenedItems<U>> {
    const ctx = this.#contextFor(request);
    const { signal, watch } = request;
    return this.#send(request, ctx, true, meter, trace, async ({ data, response }, attempt) => {
      const observe = trace && ((event: T) => trace.chunk(event));
      const events = await openStream(
        data as AsyncIterable<T>,
        response,
        ctx,
        signal,
        observe,
        watch as StreamWatch<T> | undefined,
      );
      trace?.opened();
      const head: StreamHead = { requestId: headerRequestId(response.headers), response, ctx };
      const items = reader.read ? reader.read(events, head) : (events as AsyncIterable<unknown>);
      return { items: items as AsyncIterable<U>, attempt, head };
    });
  }

  /** A meter for one call of `run`, when it has usage trackers or the channel a rate limiter. */
  #meter(run: MeteredRun | undefined): CallMeter | undefined {
    return createCallMeter({ run, limiter: this.rateLimiter, keyId: this.#keyId });
  }

  /**
   * Sends through the pipeline, traced when `trace` is given: it begins here; the caller ends it
   * ({@link request}, or the {@link CallStream}).
   */
  #send<R>(
    request: ChannelRequest,
    ctx: FailureContext,
    stream: boolean,
    meter: CallMeter | undefined,
    trace: CallTrace | undefined,
    read: (answer: Answer<unknown>, attempt: MeteredAttempt | undefined) => Promise<R> | R,
  ): Promise<R> {
    const { body, signal, options, headers } = request;
    const path = this.#row.path;
    const client = this.#client;
    const direct = this.#direct;
    const contextOf = this.#contextOf;
    trace?.begin(body, ctx, stream);
    return sendRequest({
      caller: this.#caller,
      maxRetries: request.maxRetries,
      signal,
      ctx,
      meter,
      estimate: request.estimate,
      stream,
      attempts: this.#attempts,
      // Methods, not arrow properties: no name set on each per call by a transpiler that keeps
      // names (the benchmarks run the sources through one).
      send(attemptHeaders) {
        if (direct && !stream) {
          return postJSON(direct, { body, signal, headers: { ...headers, ...attemptHeaders } });
        }
        return client
          .post<unknown>(path, {
            ...options,
            body,
            stream,
            signal: signal ?? options?.signal,
            headers: { ...headersObject(options?.headers), ...headers, ...attemptHeaders },
          })
          .withResponse() as Promise<Answer<unknown>>;
      },
      read,
      onError(error) {
        if (typeof error === "object" && error !== null) contextOf.set(error, ctx);
      },
      trace,
    });
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

/**
 * A call's own SDK headers as an object the channel's can be spread over (a `Headers` or an
 * array of pairs given as the call's `options.headers` would otherwise spread to nothing).
 */
function headersObject(given: OpenAI.RequestOptions["headers"]): object | undefined {
  return given instanceof Headers || Array.isArray(given)
    ? Object.fromEntries(new Headers(given as HeadersInit))
    : (given as object | undefined);
}
