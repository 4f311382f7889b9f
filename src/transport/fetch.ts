/**
 * @module The fetch layer under the openai SDK: adds a surface's headers and reports every
 * failure with what it knows of it, for the attempt to type.
 */

import { SERVICE_NAME_HEADER } from "../constants.js";
import { isAbortError, isTimeoutError } from "../errors/abort.js";
import { ModelNotFoundError } from "../errors/errors.js";
import {
  type Failure,
  type FailureContext,
  failureClass,
  UntypedFailure,
} from "../errors/mapper.js";
import { secretHeaderValues } from "../utils/secrets.js";
import { APIS, type ApiRow } from "./apis.js";
import { type AttemptLog, takeAttemptHeader } from "./attempt_log.js";
import { guardBody, readErrorBody } from "./body.js";
import { listModelIds } from "./model_list.js";

/**
 * A failure of this layer, left for the attempt that sent the request to type in its whole
 * context (errors are typed once, `errors/mapper.ts`).
 */
function failed(failure: Failure, ctx: FailureContext): UntypedFailure {
  return new UntypedFailure(failure, ctx);
}

/** The signature of `globalThis.fetch`, which the openai SDK accepts as its `fetch` option. */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Options of {@link createServiceFetch}. */
export interface ServiceFetchOptions extends FailureContext {
  /** The fetch that really sends; defaults to `globalThis.fetch` at call time (so test interceptors apply). */
  fetch?: Fetch;
  /** Headers this surface needs on every request, unless the request already sets them. */
  headers?: Readonly<Record<string, string>>;
  /**
   * On a `ModelNotFoundError` of a `…/chat/completions` or `…/embeddings` call, send one `GET …/models` with the
   * same key (2 s at most, never retried, its failure ignored) and name the listed IDs, and the
   * near misses of the model ID, in the error's hint. @default false
   */
  lookUpModels?: boolean;
  /**
   * Milliseconds a stream may wait for its next complete event (comments and partial events do
   * not count; a JSON document answering a stream request is one event) before the attempt fails
   * with a retryable `ServiceTimeoutError`; an error body gets as long for the whole of it. A JSON
   * answer is bounded by the SDK's own `timeout`, which covers reading it.
   * @default 600000 (the openai SDK's default `timeout`)
   */
  idleTimeout?: number;
  /** The channel's attempts in flight, which a request names by a header this layer takes off. */
  attempts?: AttemptLog;
}

/** The openai SDK's default `timeout`, the idle timeout when none is given. */
export const DEFAULT_IDLE_TIMEOUT_MS = 600_000;
/** Redirects followed before a call fails as a redirect loop. */
export const MAX_REDIRECTS = 5;

// Lower case: compared with header names as given, which Headers would normalise.
const SERVICE_NAME = SERVICE_NAME_HEADER.toLowerCase();
const JSON_TYPE = /json/i;
const SSE_TYPE = /event-stream/i;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * The request's headers with the surface's added and, on the hosted surface, `Service-Name`
 * removed (docs/service-contract.md#hosted-models). Returns the caller's own object when nothing changes: copying headers is the
 * biggest cost of this layer on a hosted call.
 */
function surfaceHeaders(
  given: HeadersInit | undefined,
  extra: ReadonlyArray<[string, string]>,
  surface: FailureContext["surface"],
): HeadersInit | undefined {
  if (extra.length === 0 && surface === "hosted" && !hasServiceName(given)) return given;
  const headers = new Headers(given);
  for (const [name, value] of extra) if (!headers.has(name)) headers.set(name, value);
  if (surface === "hosted") headers.delete(SERVICE_NAME);
  return headers;
}

function hasServiceName(headers: HeadersInit | undefined): boolean {
  if (headers === undefined) return false;
  if (headers instanceof Headers) return headers.has(SERVICE_NAME);
  const names = Array.isArray(headers) ? headers.map(([name]) => name) : Object.keys(headers);
  return names.some((name) => name.toLowerCase() === SERVICE_NAME);
}

/**
 * Wraps `fetch` so that every response the SDK sees is one it can use, and every failure is a
 * typed error thrown from here (the SDK passes it on as the `cause` of its connection error).
 *
 * - adds the surface's headers; on the hosted surface removes `Service-Name` (docs/service-contract.md#hosted-models);
 * - every header value the request carries, other than the protocol's own, is a secret its errors
 *   never show (the key, configured and per-call headers);
 * - follows at most {@link MAX_REDIRECTS} redirects, on the same origin only (the key is never
 *   sent elsewhere), keeping the method and body; more is a redirect loop (`BaseURLError`);
 * - non-2xx: reads at most 64 KiB of the error body and throws the mapped error, so the SDK never
 *   retries it;
 * - 2xx HTML or other non-JSON: throws `BaseURLError` (docs/service-contract.md#errors, rule 4); an empty 2xx is mapped too;
 * - 2xx JSON and SSE bodies are passed on, an SSE body chunk by chunk: a stream that waits longer
 *   than `idleTimeout` for its next event fails the attempt with a retryable `ServiceTimeoutError`, and an
 *   error object, an HTML page or an empty or cut body found in them is typed with the request ID.
 */
export function createServiceFetch(options: ServiceFetchOptions): Fetch {
  const {
    fetch: baseFetch,
    headers: extra = {},
    lookUpModels = false,
    idleTimeout = DEFAULT_IDLE_TIMEOUT_MS,
    ...ctx
  } = options;
  const layer: Layer = {
    baseFetch,
    ctx,
    extra: Object.entries(extra),
    secrets: [...(ctx.secrets ?? []), ...secretHeaderValues(extra)],
    lookUpModels,
    idleTimeout,
  };
  return async (input, init) => {
    // Taken off first: never sent, never in a redirect's or a model lookup's headers.
    const record = options.attempts?.find(takeAttemptHeader(init?.headers));
    const headers = surfaceHeaders(init?.headers, layer.extra, ctx.surface);
    const request = new RequestContext(
      ctx,
      input,
      layer.secrets,
      headers,
      init?.signal,
      idleTimeout,
    );
    const sent: RequestInit = { ...init, headers };
    // Followed here, so that a loop ends after a few hops and the key stays on this origin.
    if (!(input instanceof Request)) sent.redirect = "manual";
    let response = await sendTyped(layer.baseFetch, input, sent, request);
    // Redirect statuses, and 0 for a browser's opaque redirect: rare, so checked by status first.
    const { status } = response;
    if (((status >= 300 && status < 400) || status === 0) && isRedirect(response)) {
      response = await followRedirects(
        input,
        response,
        (url) => sendTyped(layer.baseFetch, url, sent, request),
        (failure) => failed(failure, request.ctx()),
      );
    }
    if (record) record.headers = response.headers;
    if (!response.ok) throw await statusFailure(layer, response, request, input, sent);
    return usableBody(response, request, record?.stream === true);
  };
}

/** What a fetch layer is set up with. */
interface Layer {
  baseFetch?: Fetch;
  ctx: FailureContext;
  extra: ReadonlyArray<[string, string]>;
  secrets: readonly string[];
  lookUpModels: boolean;
  idleTimeout: number;
}

/**
 * The typed error of a non-2xx answer, its body read up to a bound. An unknown model's error
 * names the models the service lists, when the layer looks them up.
 */
async function statusFailure(
  layer: Layer,
  response: Response,
  request: RequestContext,
  input: string | URL | Request,
  sent: RequestInit,
): Promise<unknown> {
  const text = await readErrorBody(response, layer.idleTimeout);
  const { status, headers } = response;
  const failure: Failure = { kind: "http", status, body: text, headers };
  const ctx = request.ctx();
  if (!layer.lookUpModels || failureClass(failure, ctx) !== ModelNotFoundError) {
    return new UntypedFailure(failure, ctx);
  }
  const availableModels = await lookUp(input, sent.headers, layer.baseFetch, sent.signal);
  return new UntypedFailure(failure, availableModels ? { ...ctx, availableModels } : ctx);
}

/**
 * A 2xx answer the SDK can use: a JSON or SSE body guarded as it is read (a stream request's
 * JSON answer read as a stream), JSON sent without its content type relabelled; an empty body,
 * an HTML page or other text is the typed error it means. Synchronous for JSON and SSE, as
 * nearly every answer is: no promise of its own on every call.
 */
function usableBody(
  response: Response,
  request: RequestContext,
  stream: boolean,
): Response | Promise<Response> {
  const { status, headers } = response;
  const contentType = headers.get("content-type") ?? "";
  const isSSE = SSE_TYPE.test(contentType);
  if (isSSE || JSON_TYPE.test(contentType)) {
    if (headers.get("content-length") === "0") {
      throw failed({ kind: "empty", status, headers }, request.ctx());
    }
    return guardBody(response, isSSE || stream ? "sse" : "json", request);
  }
  return unlabelledBody(response, request, contentType);
}

/** A 2xx answer not labelled JSON: read once (bounded); JSON sent without a content type passes. */
async function unlabelledBody(
  response: Response,
  request: RequestContext,
  contentType: string,
): Promise<Response> {
  const { status, headers } = response;
  const text = await readErrorBody(response, request.idleMs);
  if (text.trim() === "") throw failed({ kind: "empty", status, headers }, request.ctx());
  if (!/^\s*</.test(text)) {
    try {
      JSON.parse(text);
      const fixed = new Headers(headers);
      fixed.set("content-type", "application/json");
      return guardBody(new Response(text, { status, headers: fixed }), "json", request);
    } catch {
      // fall through: not JSON either
    }
  }
  const type = contentType.split(";")[0] ?? "";
  throw failed({ kind: "non-json", status, body: text, contentType: type, headers }, request.ctx());
}

/** The URL a request goes to, as its errors name it: without a query string or fragment. */
function requestURL(input: string | URL | Request): string | undefined {
  try {
    const url = new URL(input instanceof Request ? input.url : String(input));
    return `${url.origin}${url.pathname}`;
  } catch {
    return undefined;
  }
}

/**
 * What one request's failures are typed with, built only when a failure needs it: a successful
 * call never pays for reading the request's headers.
 */
class RequestContext {
  #built?: FailureContext;

  constructor(
    private readonly base: FailureContext,
    private readonly input: string | URL | Request,
    private readonly baseSecrets: readonly string[],
    private readonly headers: HeadersInit | undefined,
    private readonly signal: AbortSignal | null | undefined,
    readonly idleMs: number,
  ) {}

  ctx(): FailureContext {
    this.#built ??= {
      ...this.base,
      url: requestURL(this.input),
      ...(this.base.surface === "dedicated"
        ? { serviceName: new Headers(this.headers).get(SERVICE_NAME) ?? this.base.serviceName }
        : {}),
      secrets: [...this.baseSecrets, ...secretHeaderValues(this.headers)],
    };
    return this.#built;
  }

  /** Whether the caller cancelled the request: its abort then passes through as it is. */
  aborted(): boolean {
    return this.signal?.aborted === true;
  }
}

/**
 * Sends one request (a redirect's); a failure before any response is typed, a cancellation or
 * timeout not. The fetch's own promise with a rejection handler, not an async wrapper: one hop
 * less on every call.
 */
function sendTyped(
  baseFetch: Fetch | undefined,
  url: string | URL | Request,
  init: RequestInit,
  request: RequestContext,
): Promise<Response> {
  try {
    return (baseFetch ?? globalThis.fetch)(url, init).then(undefined, (error: unknown) => {
      throw untypedOrNetwork(error, request);
    });
  } catch (error) {
    return Promise.reject(untypedOrNetwork(error, request));
  }
}

/**
 * What a failed send throws: not a network failure, a cancellation passes through as it is, and
 * a timeout is left to the SDK and the mapper, which type it as one (here it would read as a
 * Pending endpoint); anything else is a typed network failure.
 */
function untypedOrNetwork(error: unknown, request: RequestContext): unknown {
  if (request.aborted() || isAbortError(error) || isTimeoutError(error)) return error;
  return failed({ kind: "network", cause: error }, request.ctx());
}

function isRedirect(response: Response): boolean {
  return REDIRECT_STATUSES.has(response.status) || response.type === "opaqueredirect";
}

/**
 * Follows same-origin redirects from `first`, the answer to `input`, up to {@link MAX_REDIRECTS}
 * times. A runtime that hides redirects (a browser's opaque redirect) or a redirect to another
 * origin ends the call.
 */
async function followRedirects(
  input: string | URL | Request,
  first: Response,
  send: (url: string | URL | Request) => Promise<Response>,
  fail: (failure: Failure) => unknown,
): Promise<Response> {
  let url = input;
  let response = first;
  for (let hops = 0; ; hops++) {
    if (hops > 0) response = await send(url);
    if (!isRedirect(response) || url instanceof Request) return response;
    const { status, headers } = response;
    await response.body?.cancel().catch(() => undefined);
    const location = headers.get("location");
    const from = new URL(String(url));
    const to = location === null ? undefined : new URL(location, from);
    if (to === undefined || to.origin !== from.origin) {
      throw fail({
        kind: "redirect",
        status,
        hops,
        crossOrigin: to?.origin ?? "a hidden location",
        headers,
      });
    }
    if (hops >= MAX_REDIRECTS) throw fail({ kind: "redirect", status, hops, headers });
    url = to.href;
  }
}

/**
 * The paths of the APIs whose model IDs the lookup can list (`lookUpModels` in `APIS`: chat
 * completions, embeddings, rerank); anything else has no model ID to check.
 */
const MODEL_PATH = new RegExp(
  `(?:${Object.values(APIS as Record<string, ApiRow>)
    .filter((row) => row.lookUpModels)
    .map((row) => row.path)
    .join("|")})$`,
);

/** The model IDs the service lists, with the key of the failed call (see `lookUpModels`). */
async function lookUp(
  input: string | URL | Request,
  headers: HeadersInit | undefined,
  fetch: Fetch | undefined,
  signal: AbortSignal | null | undefined,
): Promise<string[] | undefined> {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!MODEL_PATH.test(url.pathname)) return undefined;
  const authorization = new Headers(headers).get("authorization") ?? "";
  return listModelIds({
    baseURL: `${url.origin}${url.pathname.replace(MODEL_PATH, "")}`,
    apiKey: authorization.replace(/^Bearer\s+/i, "") || undefined,
    fetch,
    signal: signal ?? undefined,
  });
}
