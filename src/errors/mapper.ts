/** @module The one place that turns a failed service call into exactly one typed error. */
import { APIConnectionError, APIError } from "openai";
import { REQUEST_ID_HEADER } from "../constants.js";
import { MIN_SECRET_LENGTH, REDACTED } from "../utils/secrets.js";
import { isAbortError, isTimeoutError } from "./abort.js";
import { availableModelsText } from "./available_models.js";
// The mapper picks among every class of errors.ts: the module is imported whole.
import * as errors from "./errors.js";
import { failureRow } from "./failure_rows.js";
import { type ErrorRow, rowForCode } from "./gateway_codes.js";
import { aboutInputs, type InputWording } from "./input_wording.js";
import { isNotReady, type NetworkCause, networkCause } from "./network_cause.js";
import { bareMessage, quoted, REQUEST_ID_SUFFIX } from "./service_message.js";
import { fillParts, type HostedApi, type StatusRow, statusRow } from "./status_rows.js";

export type { InputWording };

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
  api?: HostedApi;
  /** Embeddings: the inputs the request carried, by their positions among the call's texts. */
  inputs?: { first: number; count: number };
  /** The URL the request was sent to, when the layer that sent it knows it: messages name it. */
  url?: string;
  /**
   * How the API words a refusal of its request's inputs (an API's row, `transport/apis.ts`):
   * chat's wording about messages when undefined.
   */
  inputWording?: InputWording;
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

/** A row, plus the `code` this package sets for failures the service sends no code for. */
interface Row extends ErrorRow {
  code?: string;
}

function who(ctx: FailureContext): string {
  return ctx.surface === "dedicated"
    ? `dedicated endpoint "${ctx.serviceName ?? "?"}"`
    : `model "${ctx.model ?? "?"}"`;
}

/**
 * Picks the class for an HTTP status and service `code` (docs/service-contract.md#errors table;
 * docs/service-contract.md#errors, rules 1–3): a 401 is always the key; then a code of the
 * gateway's table (`GATEWAY_CODES`) decides (it sends request errors as 500 and passes the model
 * server's own errors through); then the status (`STATUS_ROWS`). A 2xx that carries an error
 * object is judged like an error event inside a stream: by the status the object implies. `how`
 * says how the error arrived (`HTTP 503`, or where the error object was when the status was a
 * success), so that a summary never names a status the service did not send.
 */
function rowForStatus(
  status: number,
  body: ErrorBody,
  ctx: FailureContext,
  how = `HTTP ${status}`,
): Row {
  const facts = {
    status,
    surface: ctx.surface,
    api: ctx.api,
    hasCode: Boolean(body.code),
    param: body.param,
    message: body.message,
  };
  const key = statusRow(facts, true);
  if (key) return statusErrorRow(key, status, body, ctx, how);
  const byCode = rowForCode(body.code, body.message, {
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
  return statusErrorRow(statusRow(facts, false)!, status, body, ctx, how);
}

/** A status row with its parts filled. */
function statusErrorRow(
  row: StatusRow,
  status: number,
  body: ErrorBody,
  ctx: FailureContext,
  how: string,
): Row {
  const parts = {
    how,
    status: String(status),
    code: body.code,
    message: quoted(body.message),
    url: ctx.url ? ` (${ctx.url})` : "",
    serviceName: ctx.serviceName ?? "?",
  };
  const summary = fillParts(row.summary, parts);
  return {
    cls: row.cls,
    ...(row.code ? { code: row.code } : {}),
    summary,
    hint: fillParts(row.hint, parts),
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

/** The class, summary and hint of any failure: by `FAILURE_ROWS`, or by its status and code. */
function rowForFailure(failure: Failure, ctx: FailureContext, body: ErrorBody): Row {
  const cause = failure.kind === "network" ? networkCause(failure.cause) : undefined;
  const row = failureRow({
    kind: failure.kind,
    surface: ctx.surface,
    midStream: ctx.midStream === true,
    afterResponse: failure.kind === "network" && failure.afterResponse === true,
    notReady: cause !== undefined && isNotReady(cause),
    idle: failure.kind === "timeout" && failure.phase === "idle",
    began: ctx.responseHeaders !== undefined,
    crossOrigin: failure.kind === "redirect" && failure.crossOrigin !== undefined,
  });
  if (row.byStatus) {
    return failure.kind === "http"
      ? rowForStatus(failure.status, body, ctx)
      : rowForStatus(
          body.status ?? statusForStreamCode(body),
          body,
          ctx,
          "an error event in the middle of its stream",
        );
  }
  const parts = failureParts(failure, ctx, cause);
  return {
    cls: row.cls!,
    ...(row.code ? { code: row.code } : {}),
    summary: fillParts(row.summary!, parts),
    hint: fillParts(row.hint!, parts),
  };
}

/** What a failure row's `{…}` parts read as, for this failure. */
function failureParts(
  failure: Failure,
  ctx: FailureContext,
  cause: NetworkCause | undefined,
): Record<string, string | undefined> {
  const { url } = ctx;
  const parts: Record<string, string | undefined> = {
    subject: who(ctx),
    at: url ? ` at ${url}` : "",
    to: url ? ` to ${url}` : "",
    cause: cause?.words,
    fix: cause?.fix,
    causeCode: cause?.code ? ` (${cause.code})` : "",
  };
  switch (failure.kind) {
    case "timeout":
      parts.idleMs = String(Math.round(failure.ms ?? 0));
      parts.after = failure.ms === undefined ? "" : ` after ${Math.round(failure.ms)} ms`;
      break;
    case "redirect":
      parts.hops = String(failure.hops);
      parts.origin = failure.crossOrigin;
      parts.lastTo = redirectTarget(failure.headers, url);
      break;
    case "still-pending":
      parts.waitedMs = String(Math.round(failure.waitedMs));
      parts.limitMs = String(failure.limitMs);
      break;
    case "non-json":
      parts.source = url ?? "The service";
      parts.status = String(failure.status);
      parts.what =
        /html/i.test(failure.contentType) || /^\s*</.test(failure.body)
          ? "an HTML page"
          : failure.contentType || "a body that is not JSON";
      parts.preview = preview(redact(failure.body, ctx.secrets) ?? "");
      break;
    case "malformed":
      parts.detail = failure.detail;
      parts.bodyStart =
        failure.body === undefined
          ? ""
          : ` (body starts: ${preview(redact(safeJSON(failure.body), ctx.secrets) ?? "")})`;
      break;
  }
  return parts;
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

/** The body a failure carries: an HTTP error's, or a stream's error event's; "" for the others. */
function rawBodyOf(failure: Failure): unknown {
  return failure.kind === "http"
    ? failure.body
    : failure.kind === "stream-error"
      ? failure.payload
      : "";
}

/**
 * Turns one observed failure into exactly one typed error. This is the only function that
 * picks an error class; every layer (fetch, models, CLI) calls it.
 */
export function toServiceError(
  failure: Failure,
  ctx: FailureContext,
): errors.InferenceServiceError {
  const body = parseErrorBody(rawBodyOf(failure));
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
  return error;
}

/**
 * A failure seen below the attempt that sent the request — in the fetch layer, or in a body's
 * guard — with what that layer knows of it. Not an error a user sees: the attempt (or the
 * stream's reader) types it, once, in its whole context ({@link asServiceError}), which adds
 * what the layer below does not know (the request's inputs, the model IDs looked up by a caller,
 * the output already streamed).
 */
export class UntypedFailure extends Error {
  override readonly name = "UntypedFailure";
  readonly failure: Failure;
  readonly ctx: FailureContext;

  constructor(failure: Failure, ctx: FailureContext) {
    // No detail here: its message could carry what its context keeps secret.
    super(`a ${failure.kind} failure, typed by the attempt that sent the request`);
    this.failure = failure;
    this.ctx = ctx;
  }
}

/**
 * The class a failure would be typed as in `ctx` (the fetch layer asks whether an unknown model's
 * error is worth a lookup of the listed models), without building the error.
 */
export function failureClass(failure: Failure, ctx: FailureContext): ErrorRow["cls"] {
  return rowForFailure(failure, ctx, parseErrorBody(rawBodyOf(failure))).cls;
}

/**
 * The context a failure seen below is typed in: what the layer below knew of the request on the
 * wire (its URL, its Service-Name, its header values as secrets, the models it looked up), with
 * what the typing layer adds (the request's inputs, the output streamed).
 */
function contextOf(below: FailureContext, ctx: FailureContext): FailureContext {
  const secrets = [...(below.secrets ?? []), ...(ctx.secrets ?? [])];
  return {
    ...ctx,
    ...below,
    ...(ctx.inputs !== undefined ? { inputs: ctx.inputs } : {}),
    ...(ctx.midStream !== undefined ? { midStream: ctx.midStream } : {}),
    ...(ctx.partialOutput !== undefined ? { partialOutput: ctx.partialOutput } : {}),
    ...(below.availableModels === undefined && ctx.availableModels !== undefined
      ? { availableModels: ctx.availableModels }
      : {}),
    ...(below.responseHeaders === undefined && ctx.responseHeaders !== undefined
      ? { responseHeaders: ctx.responseHeaders }
      : {}),
    secrets,
  };
}

/**
 * Normalises anything a call threw: our errors pass through (also when the SDK wrapped them as a
 * `cause`), a failure seen below ({@link UntypedFailure}) and SDK status and stream errors go
 * through `toServiceError` in `ctx`, aborts stay aborts.
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
    if (errors.InferenceServiceError.isInstance(current)) return current;
    if (current instanceof UntypedFailure) {
      return toServiceError(current.failure, contextOf(current.ctx, ctx));
    }
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
  // Before APIError, which it extends: a connection error carries no status either.
  if (error instanceof APIConnectionError) {
    return toServiceError({ kind: "network", cause: (error as { cause?: unknown }).cause }, ctx);
  }
  // The SDK raises an APIError without a status for an `{"error": …}` event inside a 200 stream.
  if (error instanceof APIError || (e.error !== undefined && e.status === undefined)) {
    return toServiceError({ kind: "stream-error", payload: { error: e.error }, headers }, ctx);
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
