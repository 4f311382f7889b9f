/** @module The one place that turns a failed service call into exactly one typed error. */
import { isAbortError, isTimeoutError } from "./abort.js";
import { availableModelsText } from "./available_models.js";
import { REQUEST_ID_HEADER } from "./constants.js";
// The mapper picks among every class of errors.ts: the module is imported whole.
import * as errors from "./errors.js";

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
}

/** A failure as observed on the wire, before it has a class. */
export type Failure =
  | { kind: "http"; status: number; body: string; headers?: Headers }
  | { kind: "network"; cause: unknown; afterResponse?: boolean }
  | { kind: "timeout"; cause?: unknown }
  | { kind: "empty"; status: number; headers?: Headers }
  | { kind: "non-json"; status: number; body: string; contentType: string; headers?: Headers }
  | { kind: "malformed"; detail: string; body?: unknown; headers?: Headers }
  | { kind: "stream-error"; payload: unknown; headers?: Headers; partialOutput?: string };

/** The `error` object of a service body (§7), read leniently: every field may be missing. */
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

/** The request ID of a response, from its `X-Gateway-Request-Id` header (§7 rule 5). */
export function headerRequestId(headers?: Headers): string | undefined {
  return headers?.get(REQUEST_ID_HEADER)?.trim() || undefined;
}

/**
 * Request IDs: the `X-Gateway-Request-Id` header first, then each `(request id: …)` suffix of the
 * message in order (chained gateways add several). Never the client's own `X-Request-Id` (§7 rules 5–6).
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
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join("[redacted]");
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

/** Codes that mean "nothing is listening" or "the peer hung up without answering" (§3 Pending). */
const NOT_READY_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
]);

type ErrorClass = new (init: errors.InferenceServiceErrorInit) => errors.InferenceServiceError;

interface Row {
  cls: ErrorClass;
  summary: string;
  hint: string;
}

function who(ctx: FailureContext): string {
  return ctx.surface === "dedicated"
    ? `dedicated endpoint "${ctx.serviceName ?? "?"}"`
    : `model "${ctx.model ?? "?"}"`;
}

/** Picks the class for an HTTP status and service `code` (§7 table; §7 rules 1–3). */
function rowForStatus(status: number, body: ErrorBody, ctx: FailureContext): Row {
  const dedicated = ctx.surface === "dedicated";
  if (body.code === "model_not_found" && (status === 503 || status === 404 || status === 0)) {
    return {
      cls: errors.ModelNotFoundError,
      summary: `The service does not know the ${who(ctx)} (the service is not down).`,
      hint: `Check the model ID passed as \`model\`; retrying will not help.${
        ctx.availableModels ? ` ${availableModelsText(ctx.model ?? "", ctx.availableModels)}` : ""
      }`,
    };
  }
  switch (status) {
    case 401:
      return {
        cls: errors.AuthenticationError,
        summary: "The service rejected the API key (missing, invalid or expired).",
        hint: dedicated
          ? "Use a valid, unexpired key that has the Inference Service permission (set `apiKey` or INFERENCE_SERVICE_API_KEY)."
          : "Set a valid, unexpired key with `apiKey` or INFERENCE_SERVICE_API_KEY.",
      };
    case 403:
      return body.code === "insufficient_user_quota"
        ? {
            cls: errors.InsufficientCreditError,
            summary: "The account has no credit left (Wallet at or below zero).",
            hint: "Top up the account's credit; this is not a rate limit and retrying will not help.",
          }
        : {
            cls: errors.PermissionDeniedError,
            summary: `The service refused the call with an unexpected 403 (code "${body.code ?? ""}").`,
            hint: "Only insufficient_user_quota is documented for 403; check the key's permissions and contact support with the request ID.",
          };
    case 404:
      return dedicated
        ? {
            cls: errors.ServiceNameError,
            summary: `No deployment answers to Service-Name "${ctx.serviceName ?? "?"}".`,
            hint: "Service-Name must be <TENANT_ID>.<JOB_ALIAS_NAME>: the tenant ID from the console sidebar, one dot, the endpoint's job alias.",
          }
        : {
            cls: errors.InvalidURLError,
            summary: `The service does not serve the path it was sent${body.message ? `: ${body.message}` : ""}.`,
            hint: "Set `baseURL` to the host root or …/inference/v1 (not …/chat/completions, and the path is plural: /chat/completions).",
          };
    case 429:
      return {
        cls: errors.RateLimitError,
        summary: "The service is rate-limiting requests.",
        hint: "Slow down or retry after the time the service asks for.",
      };
    case 400:
    case 413:
    case 422:
      return {
        cls: errors.BadRequestError,
        summary: `The service rejected the request as invalid${body.message ? `: ${body.message}` : ""}.`,
        hint:
          status === 413
            ? "Send a smaller request (shorter prompt or fewer messages)."
            : "Fix the request parameters named in the message.",
      };
  }
  if (status === 408 || status === 409 || status >= 500) {
    return {
      cls: errors.ServiceUnavailableError,
      summary: `The service failed to answer (HTTP ${status}).`,
      hint: "This is usually temporary; it is retried automatically up to `maxRetries` times.",
    };
  }
  if (status >= 400) {
    return {
      cls: errors.BadRequestError,
      summary: `The service rejected the request with HTTP ${status}.`,
      hint: "Check the request and the key; retrying will not help.",
    };
  }
  return {
    cls: errors.MalformedResponseError,
    summary: `The service answered with an unexpected HTTP ${status}.`,
    hint: "Check that `baseURL` points at the inference service.",
  };
}

/** A code seen in a mid-stream error event, when the event has no status of its own. */
function statusForStreamCode(code: string | undefined): number {
  switch (code) {
    case "model_not_found":
      return 503;
    case "insufficient_user_quota":
      return 403;
    case "rate_limit_exceeded":
      return 429;
    default:
      return 500;
  }
}

function rowForFailure(failure: Failure, ctx: FailureContext, body: ErrorBody): Row {
  const dedicated = ctx.surface === "dedicated";
  switch (failure.kind) {
    case "http":
      return rowForStatus(failure.status, body, ctx);
    case "stream-error":
      return rowForStatus(body.status ?? statusForStreamCode(body.code), body, ctx);
    case "network": {
      const code = networkCode(failure.cause);
      // The response had begun: the service was reached, so this is neither "unreachable" nor,
      // on the dedicated surface, a Pending endpoint (§3).
      if (ctx.midStream || failure.afterResponse) {
        return {
          cls: errors.ServiceConnectionError,
          summary: `The connection was cut before the response was complete${code ? ` (${code})` : ""}.`,
          hint: ctx.midStream
            ? "The output received so far is in `partialOutput`; call again for the whole answer."
            : "This is usually temporary; it is retried automatically up to `maxRetries` times.",
        };
      }
      if (dedicated && (code === undefined || NOT_READY_CODES.has(code))) {
        return {
          cls: errors.EndpointNotReadyError,
          summary: `The ${who(ctx)} refused the connection or closed it without answering${code ? ` (${code})` : ""}.`,
          hint: "The endpoint is still Pending; wait until its Scaling shows every replica running (e.g. 1/1), or set `waitForReady`.",
        };
      }
      return {
        cls: errors.ServiceConnectionError,
        summary: `Could not reach the inference service${code ? ` (${code})` : ""}.`,
        hint: "Check `baseURL` and the network; connection failures are retried automatically.",
      };
    }
    case "timeout":
      return {
        cls: errors.ServiceConnectionError,
        summary: "The service did not answer before the timeout.",
        hint: "Raise `timeout`, or retry; timeouts are retried automatically.",
      };
    case "empty":
      return dedicated
        ? {
            cls: errors.EndpointNotReadyError,
            summary: `The ${who(ctx)} answered with an empty response.`,
            hint: "The endpoint is still Pending; wait until its Scaling shows every replica running (e.g. 1/1), or set `waitForReady`.",
          }
        : {
            cls: errors.MalformedResponseError,
            summary: "The service answered HTTP 200 with an empty body.",
            hint: "Check that `baseURL` points at the inference service.",
          };
    case "non-json":
      return {
        cls: errors.BaseURLError,
        summary: `The service answered HTTP ${failure.status} with ${failure.contentType || "a non-JSON body"} instead of JSON ("${preview(redact(failure.body, ctx.secrets) ?? "")}").`,
        hint: "The base URL misses /inference/v1: set `baseURL` to the host root or …/inference/v1.",
      };
    case "malformed":
      return {
        cls: errors.MalformedResponseError,
        summary: `The service's answer is not usable: ${failure.detail}${failure.body === undefined ? "" : ` (body starts: ${preview(redact(safeJSON(failure.body), ctx.secrets) ?? "")})`}.`,
        hint: "Check that `baseURL` points at the inference service; if it does, report the request ID.",
      };
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
  const row = rowForFailure(failure, ctx, body);
  const headers = "headers" in failure ? failure.headers : undefined;
  const serviceMessage = redact(body.message, ctx.secrets);
  const requestIds = findRequestIds(headers, body.message);
  const status =
    failure.kind === "http" || failure.kind === "empty" || failure.kind === "non-json"
      ? failure.status
      : failure.kind === "stream-error"
        ? body.status
        : undefined;
  const retryAfterMs =
    row.cls === errors.RateLimitError ? parseRetryAfter(headers?.get("retry-after")) : undefined;
  return new row.cls({
    summary: redact(row.summary, ctx.secrets) ?? row.summary,
    hint: row.hint,
    surface: ctx.surface,
    status,
    code: redact(body.code, ctx.secrets),
    type: redact(body.type, ctx.secrets),
    param: redact(body.param, ctx.secrets),
    requestId: redact(requestIds[0], ctx.secrets),
    requestIds: requestIds.map((id) => redact(id, ctx.secrets) ?? id),
    serviceMessage,
    retryAfterMs,
    midStream: failure.kind === "stream-error" || ctx.midStream === true,
    partialOutput:
      failure.kind === "stream-error" || ctx.midStream
        ? ((failure.kind === "stream-error" ? failure.partialOutput : undefined) ??
          ctx.partialOutput)
        : undefined,
    cause: failure.kind === "network" || failure.kind === "timeout" ? failure.cause : undefined,
  });
}

/**
 * Normalises anything a call threw: our errors pass through (also when the SDK wrapped them as a
 * `cause`), SDK status and stream errors go through `toServiceError`, aborts stay aborts.
 */
export function asServiceError(error: unknown, ctx: FailureContext): unknown {
  try {
    return classify(error, ctx);
  } catch {
    // A thrown value with throwing getters or a revoked proxy: hand it on as it is.
    return error;
  }
}

function classify(error: unknown, ctx: FailureContext): unknown {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (errors.InferenceServiceError.isInstance(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  if (typeof error !== "object" || error === null || isAbortError(error)) return error;
  const e = error as {
    name?: string;
    status?: unknown;
    error?: unknown;
    headers?: unknown;
    message?: string;
  };
  const headers = e.headers instanceof Headers ? e.headers : undefined;
  if (isTimeoutError(error)) {
    return toServiceError({ kind: "timeout", cause: error }, ctx);
  }
  if (typeof e.status === "number") {
    return toServiceError(
      { kind: "http", status: e.status, body: safeJSON({ error: e.error ?? {} }), headers },
      ctx,
    );
  }
  // The SDK raises an APIError without a status for an `{"error": …}` event inside a 200 stream.
  if (e.name === "APIError" || (e.error !== undefined && e.status === undefined)) {
    return toServiceError({ kind: "stream-error", payload: { error: e.error }, headers }, ctx);
  }
  if (e.name === "APIConnectionError") {
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
