/** @module The one place that turns a failed service call into exactly one typed error. */
import { APIConnectionError, APIError } from "openai";
import { REQUEST_ID_HEADER } from "../constants.js";
import { MIN_SECRET_LENGTH, REDACTED } from "../utils/secrets.js";
import { isAbortError, isTimeoutError } from "./abort.js";
import { availableModelsText } from "./available_models.js";
// The mapper picks among every class of errors.ts: the module is imported whole.
import * as errors from "./errors.js";
import { type ErrorRow, rowForCode, TRANSIENT_HINT } from "./gateway_codes.js";

/** What the caller knew when the call failed; used only for messages and redaction. */
export interface FailureContext {
  surface: errors.Surface;
  /** Hosted surface: the model ID sent. */
  model?: string;
  /** Dedicated surface: the `Service-Name` sent. */
  serviceName?: string;
  /** Values that must never appear in an error (API key, header values). */
  secrets?: readonly string[];
  /** Set while reading a 200 stream: the failure happened mid-stream. */
  midStream?: boolean;
  /** Output already streamed when a mid-stream failure arrived. */
  partialOutput?: string;
  /**
   * The model IDs `GET …/models` listed, when a caller looked them up (see `model_list.ts`): a
   * `ModelNotFoundError`'s hint then names them and the near misses of `model`.
   */
  availableModels?: readonly string[];
  /** Headers of the response being read, so a failure after them keeps its request ID. */
  responseHeaders?: Headers;
  /** Hosted surface: the API called, when it is not chat completions. */
  api?: "embeddings";
  /** Embeddings: the inputs the request carried, by their positions among the call's texts. */
  inputs?: { first: number; count: number };
  /** The URL the request was sent to, when the layer that sent it knows it: messages name it. */
  url?: string;
}

/**
 * A failure as observed on the wire, before it has a class. `http` also covers a 2xx whose JSON
 * body is an `{"error": …}` object; `timeout` is `response` (no response within `timeout`) or
 * `idle` (no data for `ms` once the response had begun); `still-pending` ends a `waitForReady`.
 */
export type Failure =
  | { kind: "http"; status: number; body: string; headers?: Headers }
  | { kind: "network"; cause: unknown; afterResponse?: boolean; headers?: Headers }
  | {
      kind: "timeout";
      cause?: unknown;
      phase?: "response" | "idle";
      ms?: number;
      headers?: Headers;
    }
  | { kind: "empty"; status: number; headers?: Headers }
  | { kind: "non-json"; status: number; body: string; contentType: string; headers?: Headers }
  | { kind: "malformed"; detail: string; body?: unknown; headers?: Headers; status?: number }
  | { kind: "stream-error"; payload: unknown; headers?: Headers; partialOutput?: string }
  | {
      kind: "redirect";
      status: number;
      /** Redirects followed before giving up. */
      hops: number;
      /** Set when the redirect leads to another origin, which is never followed. */
      crossOrigin?: string;
      headers?: Headers;
    }
  | { kind: "still-pending"; waitedMs: number; limitMs: number; last?: unknown };

/**
 * The failure a 2xx answer's `{"error": …}` holds (an object or a message), or undefined when it
 * holds none: the gateway passes a model server's error on with the status it came with, 200
 * included, so such a body is that error, mapped by its code.
 */
export function errorObjectFailure(
  data: unknown,
  status: number,
  headers: Headers,
): Failure | undefined {
  const error = (data as { error?: unknown } | null | undefined)?.error;
  if ((typeof error === "object" && error !== null) || typeof error === "string") {
    return { kind: "http", status, body: JSON.stringify({ error }), headers };
  }
  return undefined;
}

/** The `error` object of a service body (docs/service-contract.md#errors), read leniently: every field may be missing. */
interface ErrorBody {
  code?: string;
  message?: string;
  type?: string;
  param?: string;
  status?: number;
}

const REQUEST_ID_SUFFIX = /\(request id: ([^)\s]+)\)/g;
const BODY_PREVIEW_CHARS = 120;

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** Reads `{"error": {...}}`, `{"error": "text"}` or a bare `{code, message}`; never throws. */
export function parseErrorBody(body: unknown): ErrorBody {
  let value = body;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return {};
    }
  }
  if (typeof value !== "object" || value === null) return {};
  const outer = value as Record<string, unknown>;
  const inner = outer.error;
  if (typeof inner === "string") return { message: inner };
  const e = (typeof inner === "object" && inner !== null ? inner : outer) as Record<
    string,
    unknown
  >;
  return {
    code: str(e.code),
    message: str(e.message),
    type: str(e.type),
    param: str(e.param),
    status: typeof e.status === "number" ? e.status : undefined,
  };
}

/** The request ID of a response, from its `X-Gateway-Request-Id` header (docs/service-contract.md#errors, rule 5). */
export function headerRequestId(headers?: Headers): string | undefined {
  return headers?.get(REQUEST_ID_HEADER)?.trim() || undefined;
}

/**
 * Request IDs: the `X-Gateway-Request-Id` header first, then each `(request id: …)` suffix of the
 * message in order (chained gateways add several). Never the client's own `X-Request-Id` (docs/service-contract.md#errors, rules 5–6).
 */
export function findRequestIds(headers?: Headers, message?: string): string[] {
  const ids: string[] = [];
  const header = headerRequestId(headers);
  if (header) ids.push(header);
  for (const match of message?.matchAll(REQUEST_ID_SUFFIX) ?? []) {
    if (match[1] && !ids.includes(match[1])) ids.push(match[1]);
  }
  return ids;
}

/** Seconds or an HTTP date, as `Retry-After` allows; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function redact(text: string | undefined, secrets: readonly string[] = []): string | undefined {
  if (text === undefined) return undefined;
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_LENGTH) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** JSON text of any value; never throws (BigInt, cycles, throwing getters give a placeholder). */
function safeJSON(value: unknown): string {
  try {
    return typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    return "[unserialisable]";
  }
}

function preview(body: string): string {
  const flat = body.replace(/\s+/g, " ").trim();
  return flat.length > BODY_PREVIEW_CHARS ? `${flat.slice(0, BODY_PREVIEW_CHARS)}…` : flat;
}

function networkCode(cause: unknown): string | undefined {
  let current: unknown = cause;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && code !== "") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Why a connection failed, in words, with the code it came with, and what to check. */
interface NetworkCause {
  code?: string;
  /** e.g. `nothing accepted the connection on that host and port (ECONNREFUSED)`. */
  words: string;
  /** What to check, without a final full stop. */
  fix: string;
}

const CHECK_URL = "Check the host and port of `baseURL` and that the service is up there";
const CHECK_NETWORK =
  "Check the network between this machine and the host (proxy, VPN, firewall) and the host of `baseURL`";

/** The causes a user meets, by the code Node, undici or the resolver gives them. */
const CAUSES: ReadonlyArray<[RegExp, string, string]> = [
  [/^ECONNREFUSED$/, "nothing accepted the connection on that host and port", CHECK_URL],
  [
    /^(ENOTFOUND|EAI_NONAME|EAI_NODATA)$/,
    "no DNS record has that host name",
    "Check the host name in `baseURL` for a typo",
  ],
  [/^EAI_AGAIN$/, "the host name could not be resolved now (DNS did not answer)", CHECK_NETWORK],
  [
    /^(ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)$/,
    "the server closed the connection without answering",
    CHECK_URL,
  ],
  [
    /^(ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT)$/,
    "the connection attempt timed out: the host did not answer",
    CHECK_NETWORK,
  ],
  [/^(EHOSTUNREACH|ENETUNREACH|ENETDOWN)$/, "there is no network route to the host", CHECK_NETWORK],
  [
    /^(CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|ERR_TLS_CERT_ALTNAME_INVALID$)/,
    "the server's TLS certificate is not trusted",
    "Check that `baseURL` names the service's own host; for a private certificate authority, set NODE_EXTRA_CA_CERTS to its certificate file",
  ],
  [
    /^(EPROTO|ERR_SSL_)/,
    "the TLS handshake failed, as when an https URL names a server that speaks plain http",
    "Check the scheme of `baseURL` (https or http)",
  ],
];

/** The innermost message of a cause chain: undici's "fetch failed" says less than its cause. */
function innermostMessage(cause: unknown): string | undefined {
  let message: string | undefined;
  let current: unknown = cause;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const text = (current as { message?: unknown }).message;
    if (typeof text === "string" && text.trim() !== "") message = text.trim();
    current = (current as { cause?: unknown }).cause;
  }
  return message;
}

/** Why a connection failed, in words a user can act on; the code, when there is one, follows. */
function networkCause(cause: unknown): NetworkCause {
  const code = networkCode(cause);
  const known = code === undefined ? undefined : CAUSES.find(([pattern]) => pattern.test(code));
  if (known) return { code, words: `${known[1]} (${code})`, fix: known[2] };
  const message = innermostMessage(cause);
  if (message === "bad port") {
    return {
      code,
      words: "fetch refuses to connect to that port, one it blocks for safety (such as 9 or 6000)",
      fix: "Use another port in `baseURL`",
    };
  }
  const what = message && !/^fetch failed$/i.test(message) ? bareMessage(message) : undefined;
  return {
    code,
    words: what
      ? `${what}${code && !what.includes(code) ? ` (${code})` : ""}`
      : code
        ? `the connection failed (${code})`
        : "the connection failed",
    fix: "Check the host and port of `baseURL`, that the service is up there, and the network between",
  };
}

/** Codes that mean "nothing is listening" or "the peer hung up without answering" (docs/service-contract.md#endpoint-states Pending). */
const NOT_READY_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
]);

/** A row, plus the `code` this package sets for failures the service sends no code for. */
interface Row extends ErrorRow {
  code?: string;
}

const PENDING_HINT =
  "Wait until the endpoint's Scaling in the console shows every replica running (e.g. 1/1), then call again; or set `waitForReady` to let calls wait for it.";

function who(ctx: FailureContext): string {
  return ctx.surface === "dedicated"
    ? `dedicated endpoint "${ctx.serviceName ?? "?"}"`
    : `model "${ctx.model ?? "?"}"`;
}

/**
 * The service's message as a summary quotes it: without its `(request id: …)` suffixes and
 * without a final full stop, since the summary ends the sentence itself.
 */
function bareMessage(message: string | undefined): string | undefined {
  const bare = message
    ?.replace(REQUEST_ID_SUFFIX, "")
    .trim()
    .replace(/[.。]+$/, "")
    .trim();
  return bare ? bare : undefined;
}

/** `: <the service's message>`, or nothing when it sent none. */
function quoted(message: string | undefined): string {
  const bare = bareMessage(message);
  return bare ? `: ${bare}` : "";
}

/**
 * Picks the class for an HTTP status and service `code` (docs/service-contract.md#errors table; docs/service-contract.md#errors, rules 1–3): a 401 is always
 * the key; then a code of the gateway's table (`GATEWAY_CODES`) decides (it sends request errors as 500 and passes
 * the model server's own errors through); then the status. A 2xx that carries an error object is
 * judged like an error event inside a stream: by the status the object implies. `how` says how
 * the error arrived (`HTTP 503`, or where the error object was when the status was a success), so
 * that a summary never names a status the service did not send.
 */
function rowForStatus(
  status: number,
  body: ErrorBody,
  ctx: FailureContext,
  how = `HTTP ${status}`,
): Row {
  const dedicated = ctx.surface === "dedicated";
  if (status === 401) {
    return {
      cls: errors.AuthenticationError,
      summary: "The service rejected the API key (missing, invalid or expired).",
      hint: dedicated
        ? "Use a valid, unexpired key that has the Inference Service permission (set `apiKey` or INFERENCE_SERVICE_API_KEY)."
        : "Set a valid, unexpired key with `apiKey` or INFERENCE_SERVICE_API_KEY.",
    };
  }
  const byCode = rowForCode(body.code, {
    message: bareMessage(body.message),
    subject: who(ctx),
    models: ctx.availableModels && availableModelsText(ctx.model ?? "", ctx.availableModels),
  });
  if (byCode) return byCode;
  if (status >= 200 && status < 300) {
    const implied = body.status !== undefined && body.status >= 300 ? body.status : undefined;
    return rowForStatus(
      implied ?? statusForStreamCode(body),
      body,
      ctx,
      `an error object in an HTTP ${status} answer`,
    );
  }
  switch (status) {
    case 403:
      return body.code
        ? {
            cls: errors.PermissionDeniedError,
            summary: `The service refused the call (${how}) with code "${body.code}", which it does not document.`,
            hint: "Check the key's permissions in the console and contact support with the request ID; retrying will not help.",
          }
        : {
            cls: errors.PermissionDeniedError,
            summary: `The service refused the call for this key (${how})${quoted(body.message)}.`,
            hint: "The key may not use this model or group (its model or group limits), or its user is disabled: check the key's settings in the console, or use another key.",
          };
    case 404:
      if (ctx.api === "embeddings" && !dedicated) {
        // The contract does not show /embeddings: a deployment may simply not offer it.
        return {
          cls: errors.InvalidURLError,
          summary: `The service offers no embeddings at this URL${body.message ? `: ${body.message}` : ""}.`,
          hint: "Check `baseURL` (the host root or …/inference/v1); if it is right, this deployment does not serve /embeddings: ask its operator for an embedding model, or embed with another provider.",
        };
      }
      return dedicated
        ? {
            cls: errors.ServiceNameError,
            summary: `No deployment answers to Service-Name "${ctx.serviceName ?? "?"}".`,
            hint: "Service-Name must be <TENANT_ID>.<JOB_ALIAS_NAME>: the tenant ID from the console sidebar, one dot, the endpoint's job alias.",
          }
        : {
            cls: errors.InvalidURLError,
            summary: `The service does not serve the path it was sent${ctx.url ? ` (${ctx.url})` : ""}${quoted(body.message)}.`,
            hint: "Set `baseURL` to the host root or …/inference/v1 (not …/chat/completions, and the path is plural: /chat/completions).",
          };
    case 429:
      return {
        cls: errors.RateLimitError,
        summary: `The service is rate-limiting requests (${how})${quoted(body.message)}.`,
        hint: "Slow down or retry after the time the service asks for.",
      };
    case 400:
    case 413:
    case 422:
      return {
        cls: errors.BadRequestError,
        summary: `The service rejected the request as invalid (${how})${quoted(body.message)}.`,
        hint:
          status === 413
            ? "Send a smaller request (shorter prompt or fewer messages)."
            : "Fix the request parameters named in the message.",
      };
  }
  if (status === 408 || status === 409 || status >= 500) {
    return {
      cls: errors.ServiceUnavailableError,
      summary: `The service failed to answer (${how})${quoted(body.message)}.`,
      hint: TRANSIENT_HINT,
    };
  }
  if (status >= 400) {
    return {
      cls: errors.BadRequestError,
      summary: `The service rejected the request (${how})${quoted(body.message)}.`,
      hint: "Check the request and the key; retrying will not help.",
    };
  }
  return {
    cls: errors.MalformedResponseError,
    summary: `The service answered with an unexpected HTTP ${status}.`,
    hint: "Check that `baseURL` points at the inference service.",
  };
}

/**
 * The status an error object implies when it arrived without one of its own (an event inside a
 * 200 stream, or a 200 JSON body): a rate limit is a 429, the OpenAI `invalid_request_error`
 * type a 400, anything else a passing 500.
 */
function statusForStreamCode(body: ErrorBody): number {
  if (body.code === "rate_limit_exceeded") return 429;
  if (body.type === "invalid_request_error") return 400;
  return 500;
}

function rowForFailure(failure: Failure, ctx: FailureContext, body: ErrorBody): Row {
  const dedicated = ctx.surface === "dedicated";
  switch (failure.kind) {
    case "http":
      return rowForStatus(failure.status, body, ctx);
    case "stream-error":
      return rowForStatus(
        body.status ?? statusForStreamCode(body),
        body,
        ctx,
        "an error event in the middle of its stream",
      );
    case "network": {
      const cause = networkCause(failure.cause);
      const at = ctx.url ? ` at ${ctx.url}` : "";
      // The response had begun: the service was reached, so this is neither "unreachable" nor,
      // on the dedicated surface, a Pending endpoint (docs/service-contract.md#endpoint-states).
      if (ctx.midStream || failure.afterResponse) {
        return {
          cls: errors.ServiceConnectionError,
          summary: `The connection${ctx.url ? ` to ${ctx.url}` : ""} was cut before the response was complete${cause.code ? ` (${cause.code})` : ""}.`,
          hint: ctx.midStream
            ? "The output received so far is in `partialOutput`; call again for the whole answer."
            : TRANSIENT_HINT,
        };
      }
      if (dedicated && (cause.code === undefined || NOT_READY_CODES.has(cause.code))) {
        return {
          cls: errors.EndpointNotReadyError,
          summary: `The ${who(ctx)}${at} is not serving yet (still Pending): ${cause.words}.`,
          hint: PENDING_HINT,
        };
      }
      return {
        cls: errors.ServiceConnectionError,
        summary: `Could not reach the inference service${at}: ${cause.words}.`,
        hint: `${cause.fix}; connection failures are retried automatically.`,
      };
    }
    case "timeout": {
      const after = failure.ms === undefined ? "" : ` after ${Math.round(failure.ms)} ms`;
      return failure.phase === "idle"
        ? {
            cls: errors.ServiceTimeoutError,
            code: "idle_timeout",
            summary: `The response stalled: no complete event arrived for ${Math.round(failure.ms ?? 0)} ms${ctx.midStream ? " in the middle of the stream" : ""}.`,
            hint: ctx.midStream
              ? "The output received so far is in `partialOutput`; call again, or raise `idleTimeout` (default: `timeout`) if the model pauses this long."
              : "It is retried automatically; raise `idleTimeout` (default: `timeout`) if the model pauses this long before answering.",
          }
        : {
            cls: errors.ServiceTimeoutError,
            code: "timeout",
            summary: ctx.responseHeaders
              ? `The response began but did not finish before the timeout${after}.`
              : `The service did not answer before the timeout${after}.`,
            hint: "Raise `timeout`, or retry; timeouts are retried automatically.",
          };
    }
    case "redirect":
      return failure.crossOrigin
        ? {
            cls: errors.BaseURLError,
            code: "cross_origin_redirect",
            summary: `The service redirected the call to another origin (${failure.crossOrigin}); the key is never sent there.`,
            hint: "Set `baseURL` to the URL the service redirects to, if you trust it.",
          }
        : {
            cls: errors.BaseURLError,
            code: "too_many_redirects",
            summary: `The service redirected the call ${failure.hops} times without answering (a redirect loop${redirectTarget(failure.headers, ctx.url)}).`,
            hint: "Set `baseURL` to the service's own …/inference/v1 URL, not one that redirects (a proxy or load balancer may be misconfigured).",
          };
    case "still-pending":
      return {
        cls: errors.EndpointNotReadyError,
        summary: `The ${who(ctx)} was still not ready after waiting ${Math.round(failure.waitedMs)} ms (\`waitForReady\`: ${failure.limitMs} ms).`,
        hint: "Check in the console that the endpoint's Scaling shows every replica running (e.g. 1/1), then call again, or raise `waitForReady`.",
      };
    case "empty":
      return dedicated
        ? {
            cls: errors.EndpointNotReadyError,
            summary: `The ${who(ctx)} answered with an empty response: it is not serving yet (still Pending).`,
            hint: PENDING_HINT,
          }
        : {
            cls: errors.MalformedResponseError,
            summary: "The service answered HTTP 200 with an empty body.",
            hint: "Check that `baseURL` points at the inference service.",
          };
    case "non-json":
      return {
        cls: errors.BaseURLError,
        summary: `${ctx.url ?? "The service"} answered HTTP ${failure.status} with ${/html/i.test(failure.contentType) || /^\s*</.test(failure.body) ? "an HTML page" : failure.contentType || "a body that is not JSON"} instead of the API's JSON ("${preview(redact(failure.body, ctx.secrets) ?? "")}").`,
        hint: "That URL is not the inference service's API (a console page, or a wrong path prefix): set `baseURL` to the service's host root or its …/inference/v1 URL.",
      };
    case "malformed":
      return {
        cls: errors.MalformedResponseError,
        summary: `The service's answer is not usable: ${failure.detail}${failure.body === undefined ? "" : ` (body starts: ${preview(redact(safeJSON(failure.body), ctx.secrets) ?? "")})`}.`,
        hint: "Check that `baseURL` points at the inference service; if it does, report the request ID.",
      };
  }
}

/** `, last to <origin><path>` from a redirect's Location (no query: it may carry a token), or nothing. */
function redirectTarget(headers: Headers | undefined, base: string | undefined): string {
  const location = headers?.get("location");
  if (!location) return "";
  try {
    const to = new URL(location, base);
    return `, last to ${to.origin}${to.pathname}`;
  } catch {
    return "";
  }
}

/** The classes that are about the inputs of a request, not its parameters. */
const INPUT_REFUSALS: ReadonlySet<ErrorRow["cls"]> = new Set([
  errors.ContextLengthExceededError,
  errors.ContentFilterError,
]);

/**
 * Embeddings: a refusal of the request's inputs themselves — too long, or blocked for their
 * content — names the inputs it carried, and the position of the one input when there was one;
 * an input too long for the model is told to be split, not the chat model's advice about messages.
 */
function aboutInputs(
  row: Row,
  ctx: FailureContext,
  message: string | undefined,
): Row & { inputIndex?: number } {
  const { inputs } = ctx;
  if (ctx.api !== "embeddings" || inputs === undefined || !INPUT_REFUSALS.has(row.cls)) return row;
  const one = inputs.count === 1;
  const which = one
    ? `the input at position ${inputs.first}`
    : `the inputs at positions ${inputs.first}–${inputs.first + inputs.count - 1}`;
  const inputIndex = one ? inputs.first : undefined;
  if (row.cls === errors.ContextLengthExceededError) {
    const Which = which[0]!.toUpperCase() + which.slice(1);
    return {
      ...row,
      summary: `${one ? `${Which} is` : `${Which} include one`} longer than the embedding model takes${message ? `: ${message.replace(/\.$/, "")}` : ""}.`,
      hint: one
        ? "Split the text into smaller pieces (a smaller `chunkSize` in your text splitter); retrying the same input will not help."
        : "Split the longest texts into smaller pieces (a smaller `chunkSize` in your text splitter); if none is too long alone, the limit is on a request's total: lower `batchSize`.",
      inputIndex,
    };
  }
  return { ...row, summary: `${row.summary.replace(/\.$/, "")} (${which}).`, inputIndex };
}

/** Every error the mapper built, with the failure it came from, so a later context can type it again. */
const failureOf = new WeakMap<object, Failure>();
/** The errors built knowing the inputs of their request (embeddings). */
const withInputs = new WeakSet<object>();

function statusOf(failure: Failure, body: ErrorBody): number | undefined {
  switch (failure.kind) {
    case "http":
    case "empty":
    case "non-json":
    case "redirect":
    case "malformed":
      return failure.status;
    case "stream-error":
      return body.status;
    case "still-pending": {
      const last = failure.last;
      return errors.InferenceServiceError.isInstance(last) ? last.status : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Turns one observed failure into exactly one typed error. This is the only function that
 * picks an error class; every layer (fetch, models, CLI) calls it.
 */
export function toServiceError(
  failure: Failure,
  ctx: FailureContext,
): errors.InferenceServiceError {
  const rawBody =
    failure.kind === "http" ? failure.body : failure.kind === "stream-error" ? failure.payload : "";
  const body = parseErrorBody(rawBody);
  const row = aboutInputs(rowForFailure(failure, ctx, body), ctx, bareMessage(body.message));
  const headers = ("headers" in failure ? failure.headers : undefined) ?? ctx.responseHeaders;
  const serviceMessage = redact(body.message, ctx.secrets);
  const last =
    failure.kind === "still-pending" && errors.InferenceServiceError.isInstance(failure.last)
      ? failure.last
      : undefined;
  const requestIds = last ? [...last.requestIds] : findRequestIds(headers, body.message);
  const retryAfterMs =
    row.cls === errors.RateLimitError ? parseRetryAfter(headers?.get("retry-after")) : undefined;
  const midStream = failure.kind === "stream-error" || ctx.midStream === true;
  const error = new row.cls({
    summary: redact(row.summary, ctx.secrets) ?? row.summary,
    hint: row.hint,
    retryable: row.retryable,
    surface: ctx.surface,
    status: statusOf(failure, body),
    code: row.code ?? redact(body.code, ctx.secrets),
    type: redact(body.type, ctx.secrets),
    param: redact(body.param, ctx.secrets),
    requestId: redact(requestIds[0], ctx.secrets),
    requestIds: requestIds.map((id) => redact(id, ctx.secrets) ?? id),
    serviceMessage,
    retryAfterMs,
    midStream,
    inputIndex: row.inputIndex,
    partialOutput: midStream
      ? ((failure.kind === "stream-error" ? failure.partialOutput : undefined) ?? ctx.partialOutput)
      : undefined,
    cause:
      failure.kind === "network" || failure.kind === "timeout"
        ? failure.cause
        : failure.kind === "still-pending"
          ? failure.last
          : undefined,
  });
  failureOf.set(error, failure);
  if (ctx.inputs !== undefined) withInputs.add(error);
  return error;
}

/**
 * Normalises anything a call threw: our errors pass through (also when the SDK wrapped them as a
 * `cause`), SDK status and stream errors go through `toServiceError`, aborts stay aborts.
 */
export function asServiceError(error: unknown, ctx: FailureContext): unknown {
  try {
    return withoutSecrets(classify(error, ctx), ctx.secrets);
  } catch {
    // A thrown value with throwing getters or a revoked proxy: hand it on as it is.
    return error;
  }
}

/**
 * An error this package passes on untyped, without the call's secrets: the runtime quotes a
 * header value it refuses (`Headers.append: "<value>" is an invalid header value`), and that
 * value may be a key. The same object when it shows none; else a copy of its class with the
 * message and stack redacted (and no cause).
 */
function withoutSecrets(error: unknown, secrets: readonly string[] | undefined): unknown {
  if (!(error instanceof Error) || !secrets?.length) return error;
  if (errors.InferenceServiceError.isInstance(error)) return error;
  const message = redact(error.message, secrets) ?? "";
  const stack = redact(error.stack, secrets);
  if (message === error.message && stack === error.stack) return error;
  const copy = Object.create(Object.getPrototypeOf(error)) as Error;
  const own = (value: unknown) => ({ value, writable: true, configurable: true });
  return Object.defineProperties(copy, { message: own(message), stack: own(stack) });
}

function classify(error: unknown, ctx: FailureContext): unknown {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (errors.InferenceServiceError.isInstance(current)) return retyped(current, ctx);
    current = (current as { cause?: unknown }).cause;
  }
  if (typeof error !== "object" || error === null || isAbortError(error)) return error;
  if (isTimeoutError(error)) {
    return toServiceError({ kind: "timeout", phase: "response", cause: error }, ctx);
  }
  const e = error as { status?: unknown; error?: unknown; headers?: unknown; message?: string };
  const headers = e.headers instanceof Headers ? e.headers : undefined;
  if (typeof e.status === "number") {
    return toServiceError(
      { kind: "http", status: e.status, body: safeJSON({ error: e.error ?? {} }), headers },
      ctx,
    );
  }
  // The SDK raises an APIError without a status for an `{"error": …}` event inside a 200 stream.
  if (error instanceof APIError || (e.error !== undefined && e.status === undefined)) {
    return toServiceError({ kind: "stream-error", payload: { error: e.error }, headers }, ctx);
  }
  if (error instanceof APIConnectionError) {
    return toServiceError({ kind: "network", cause: (error as { cause?: unknown }).cause }, ctx);
  }
  if (error instanceof SyntaxError) {
    return toServiceError({ kind: "malformed", detail: "the body is not valid JSON" }, ctx);
  }
  // undici: "fetch failed" before a response, "terminated" when a body is cut off; Deno: "error
  // reading a body from connection".
  const message = e.message ?? "";
  if (
    error instanceof TypeError &&
    /fetch failed|terminated|network|socket|connection/i.test(message)
  ) {
    const afterResponse = /terminated|reading a body/i.test(message);
    return toServiceError({ kind: "network", cause: error, afterResponse }, ctx);
  }
  return error;
}

/**
 * One of our errors, typed again when it reaches a context it was typed without: a stream's (a
 * body that stalled or was cut is typed in the fetch layer, which does not know the output
 * already streamed), or an embeddings request's (the fetch layer does not know which inputs the
 * request carried).
 */
function retyped(error: errors.InferenceServiceError, ctx: FailureContext) {
  const failure = failureOf.get(error);
  if (!failure) return error;
  const stream = ctx.midStream === true && !error.midStream;
  // Only a refusal of the inputs themselves says which they were (see aboutInputs).
  const inputs =
    ctx.inputs !== undefined &&
    !withInputs.has(error) &&
    (errors.ContextLengthExceededError.isInstance(error) ||
      errors.ContentFilterError.isInstance(error));
  return stream || inputs ? toServiceError(failure, ctx) : error;
}
