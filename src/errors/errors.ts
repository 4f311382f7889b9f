/** @module Typed errors of the inference service: one class per failure a program can act on. */
import {
  LangChainError,
  type LangChainErrorCodes,
  ns,
  stampRetryable,
} from "@langchain/core/errors";
import { MIN_SECRET_LENGTH, REDACTED } from "../utils/secrets.js";

/** Which call surface of the service an error came from (service contract docs/service-contract.md#the-two-surfaces). */
export type Surface = "hosted" | "dedicated";

/** Everything a service error carries; the mapper in `mapper.ts` fills it in. */
export interface InferenceServiceErrorInit {
  /** What failed, in one sentence, without the hint or details. */
  summary: string;
  /** What to change so the call can succeed. */
  hint: string;
  surface: Surface;
  status?: number;
  code?: string;
  type?: string;
  param?: string;
  /** First request ID found (header, else message suffix). */
  requestId?: string;
  /** Every request ID found, header first, then each `(request id: …)` suffix in order. */
  requestIds?: readonly string[];
  /** The service's own message text, unchanged (e.g. the Chinese 403 text). */
  serviceMessage?: string;
  /** Overrides the class default, where a row of the gateway's code table says otherwise. */
  retryable?: boolean;
  /** Milliseconds the service asked us to wait (`Retry-After`). */
  retryAfterMs?: number;
  /** True when the error arrived as an event inside a 200 stream. */
  midStream?: boolean;
  /** Output received before a mid-stream failure. */
  partialOutput?: string;
  /** Embeddings: the position of the input the service refused, among the texts of the call. */
  inputIndex?: number;
  cause?: unknown;
}

const serviceNs = ns.sub("inference-service");

/** The details an error's message ends with: `(status 503, code x, request id y, mid-stream)`. */
export function formatDetails(init: {
  status?: number;
  code?: string;
  requestId?: string;
  midStream?: boolean;
}): string {
  const parts: string[] = [];
  if (init.status !== undefined) parts.push(`status ${init.status}`);
  if (init.code) parts.push(`code ${init.code}`);
  if (init.requestId) parts.push(`request id ${init.requestId}`);
  if (init.midStream) parts.push("mid-stream");
  return parts.length > 0 ? ` (${parts.join(", ")})` : "";
}

/**
 * Base class of every error this package raises for a service call.
 *
 * Programs branch on the class (or `code`) and on `retryable`, never on the message text
 * (service contract docs/service-contract.md#errors, rule 1). `isInstance` works across duplicate copies of the package.
 *
 * @example
 * ```ts
 * try {
 *   await model.invoke("hi");
 * } catch (error) {
 *   if (InsufficientCreditError.isInstance(error)) topUpWallet();
 *   else if (InferenceServiceError.isInstance(error) && error.retryable) scheduleRetry();
 *   else throw error;
 * }
 * ```
 */
export class InferenceServiceError extends serviceNs.brand(LangChainError) {
  override readonly name: string = "InferenceServiceError";
  /** Whether retrying the same request can succeed; the class default unless the row says otherwise. */
  static readonly retryable: boolean = false;
  /** LangChain's troubleshooting code, where LangChain has one for this failure. */
  readonly lc_error_code?: LangChainErrorCodes;
  readonly status?: number;
  readonly code?: string;
  readonly type?: string;
  readonly param?: string;
  readonly requestId?: string;
  readonly requestIds: readonly string[];
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  /** What failed, in one sentence: the message without the hint and the details. */
  readonly summary: string;
  readonly hint: string;
  readonly surface: Surface;
  readonly serviceMessage?: string;
  readonly midStream: boolean;
  readonly partialOutput?: string;
  /**
   * Embeddings: the position, among the texts given to `embedDocuments`, of the input the service
   * refused (too long, or its content); absent when the failure is not about one input.
   */
  readonly inputIndex?: number;
  declare readonly cause?: unknown;

  constructor(init: InferenceServiceErrorInit) {
    super(`${init.summary} ${init.hint}${formatDetails(init)}`);
    this.status = init.status;
    this.code = init.code;
    this.type = init.type;
    this.param = init.param;
    this.requestId = init.requestId;
    this.requestIds = init.requestIds ?? (init.requestId ? [init.requestId] : []);
    this.retryable = init.retryable ?? (this.constructor as typeof InferenceServiceError).retryable;
    this.retryAfterMs = init.retryAfterMs;
    this.summary = init.summary;
    this.hint = init.hint;
    this.surface = init.surface;
    this.serviceMessage = init.serviceMessage;
    this.midStream = init.midStream ?? false;
    this.partialOutput = init.partialOutput;
    this.inputIndex = init.inputIndex;
    // Non-enumerable: a cause can be a large SDK object; JSON output stays small and safe.
    Object.defineProperty(this, "cause", { value: init.cause, enumerable: false });
    stampRetryable(this, this.retryable);
  }

  /** A plain, secret-free view for logs and `JSON.stringify`. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      status: this.status,
      code: this.code,
      type: this.type,
      param: this.param,
      requestId: this.requestId,
      requestIds: this.requestIds,
      retryable: this.retryable,
      retryAfterMs: this.retryAfterMs,
      summary: this.summary,
      hint: this.hint,
      surface: this.surface,
      serviceMessage: this.serviceMessage,
      midStream: this.midStream,
      inputIndex: this.inputIndex,
      lc_error_code: this.lc_error_code,
    };
  }
}

/** The API key is missing, invalid or expired, or (dedicated surface) lacks the Inference Service permission (docs/service-contract.md#authentication, rule 3, docs/service-contract.md#errors, rule 7). */
export class AuthenticationError extends serviceNs.brand(InferenceServiceError, "authentication") {
  override readonly name = "AuthenticationError";
  override readonly lc_error_code = "MODEL_AUTHENTICATION" as const;
}

/** 403 `insufficient_user_quota`: the account's credit (Wallet) is exhausted; not a rate limit (docs/service-contract.md#errors, rule 3). */
export class InsufficientCreditError extends serviceNs.brand(
  InferenceServiceError,
  "insufficient-credit",
) {
  override readonly name = "InsufficientCreditError";
}

/**
 * 403 `pre_consume_token_quota_failed`: the API key's own quota (a limit set on the key) is used
 * up; the account's Wallet may still have credit. Not retryable: raise the key's quota or use
 * another key.
 */
export class KeyQuotaExceededError extends serviceNs.brand(
  InferenceServiceError,
  "key-quota-exceeded",
) {
  override readonly name = "KeyQuotaExceededError";
}

/**
 * 403 other than a credit or key quota: the gateway refused the call for this key — `access_denied`
 * (the key's IP allow-list), an empty code (the key may not use this model or group), or a code
 * docs/service-contract.md#errors does not document (docs/service-contract.md#errors, rule 2).
 */
export class PermissionDeniedError extends serviceNs.brand(
  InferenceServiceError,
  "permission-denied",
) {
  override readonly name = "PermissionDeniedError";
}

/** 404 on the hosted surface, or 501 `api_not_implemented`: the request went to a path the service does not serve (docs/service-contract.md#hosted-models, rule 1). */
export class InvalidURLError extends serviceNs.brand(InferenceServiceError, "invalid-url") {
  override readonly name = "InvalidURLError";
}

/** The `Service-Name` header is malformed or names no deployment of yours (docs/service-contract.md#dedicated-endpoints, rule 2, docs/service-contract.md#errors, rule 7). */
export class ServiceNameError extends serviceNs.brand(InferenceServiceError, "service-name") {
  override readonly name = "ServiceNameError";
}

/** 503 `model_not_found`: the model ID is unknown; the service is not down (docs/service-contract.md#hosted-models, rule 4). */
export class ModelNotFoundError extends serviceNs.brand(InferenceServiceError, "model-not-found") {
  override readonly name = "ModelNotFoundError";
  override readonly lc_error_code = "MODEL_NOT_FOUND" as const;
}

/**
 * The base URL does not reach the API: a 200 whose body is HTML or other non-JSON (it misses
 * `/v1`, docs/service-contract.md#hosted-models, rule 2, docs/service-contract.md#errors, rule 4), or it redirects more than 5 times or to another origin.
 */
export class BaseURLError extends serviceNs.brand(InferenceServiceError, "base-url") {
  override readonly name = "BaseURLError";
}

/** A 200 JSON body without what the interface promises, such as a non-empty `choices` array (docs/service-contract.md#errors, rule 4). */
export class MalformedResponseError extends serviceNs.brand(
  InferenceServiceError,
  "malformed-response",
) {
  override readonly name = "MalformedResponseError";
}

/** 429: too many requests; retried after `Retry-After` (docs/service-contract.md#errors, rule 9). */
export class RateLimitError extends serviceNs.brand(InferenceServiceError, "rate-limit") {
  override readonly name = "RateLimitError";
  override readonly lc_error_code = "MODEL_RATE_LIMIT" as const;
  static override readonly retryable = true;
}

/**
 * 408, 409, or a 5xx whose code does not say otherwise (an overloaded gateway, a failed upstream
 * request, no channel free): a passing fault on the service side.
 */
export class ServiceUnavailableError extends serviceNs.brand(
  InferenceServiceError,
  "service-unavailable",
) {
  override readonly name = "ServiceUnavailableError";
  static override readonly retryable = true;
}

/**
 * 400, 413, 422 and other 4xx, and the gateway's 500s about the request itself
 * (`invalid_request`, `count_token_failed`, …): the request needs changing. A prompt refused for
 * its content is the subclass {@link ContentFilterError}, one too long the subclass
 * {@link ContextLengthExceededError}.
 */
export class BadRequestError extends serviceNs.brand(InferenceServiceError, "bad-request") {
  override readonly name:
    | "BadRequestError"
    | "ContextLengthExceededError"
    | "ContentFilterError"
    | "ResponseFormatError" = "BadRequestError";
}

/**
 * The prompt and `max_tokens` do not fit the model's context window (`context_length_exceeded`,
 * passed through by the gateway from the model's server). Also a LangChain `ContextOverflowError`
 * (`ContextOverflowError.isInstance(error)` is true), so LangChain's own handling applies.
 */
export class ContextLengthExceededError extends serviceNs.brand(
  ns.brand(BadRequestError, "context-overflow"),
  "context-length-exceeded",
) {
  override readonly name = "ContextLengthExceededError";
  override readonly lc_error_code = "CONTEXT_OVERFLOW" as const;
}

/**
 * The service refused the prompt for its content (`sensitive_words_detected`, `prompt_blocked`,
 * `violation_fee.grok.csam`): rephrase it, since the same text is refused every time. Also a
 * {@link BadRequestError}, so handling written for that still catches it; check this class first
 * to tell a blocked prompt from a malformed request.
 *
 * @example
 * ```ts
 * try {
 *   await model.invoke(userText);
 * } catch (error) {
 *   if (ContentFilterError.isInstance(error)) askTheUserToRephrase();
 *   else if (BadRequestError.isInstance(error)) reportABug(error);
 *   else throw error;
 * }
 * ```
 */
export class ContentFilterError extends serviceNs.brand(BadRequestError, "content-filter") {
  override readonly name = "ContentFilterError";
}

/**
 * The model's server refused the request's `response_format`: a type it does not take (DeepSeek's
 * "This response_format type is unavailable now") or a JSON schema that breaks its rules
 * (OpenAI's `invalid_json_schema`). Also a {@link BadRequestError}. `withStructuredOutput` with
 * method `jsonSchema` answers it by asking once more with a forced tool call; anywhere else, leave
 * `response_format` out for this model, or send a schema it accepts.
 */
export class ResponseFormatError extends serviceNs.brand(BadRequestError, "response-format") {
  override readonly name = "ResponseFormatError";
}

/** The service could not be reached (DNS, refused, reset, timeout) on the hosted surface (docs/service-contract.md#errors, rule 9). */
export class ServiceConnectionError extends serviceNs.brand(
  InferenceServiceError,
  "service-connection",
) {
  override readonly name: "ServiceConnectionError" | "ServiceTimeoutError" =
    "ServiceConnectionError";
  static override readonly retryable = true;
}

/**
 * An attempt ran out of time: no response within `timeout` (`code` "timeout"), or no data for
 * `idleTimeout` once the response had begun (`code` "idle_timeout", a stalled stream or body).
 * Retried automatically; still a `ServiceConnectionError`.
 */
export class ServiceTimeoutError extends serviceNs.brand(
  ServiceConnectionError,
  "service-timeout",
) {
  override readonly name = "ServiceTimeoutError";
}

/** A dedicated endpoint refused the connection or answered with nothing: it is still Pending (docs/service-contract.md#endpoint-states, docs/service-contract.md#errors, rule 7). */
export class EndpointNotReadyError extends serviceNs.brand(
  InferenceServiceError,
  "endpoint-not-ready",
) {
  override readonly name = "EndpointNotReadyError";
  static override readonly retryable = true;
}

/** Options that cannot work, found before any request is sent. */
export class ConfigurationError extends serviceNs.brand(LangChainError, "configuration") {
  override readonly name = "ConfigurationError";
  /** The option at fault, e.g. `baseURL`. */
  readonly option: string;
  /** The environment variable that can supply it, when there is one. */
  readonly envVar?: string;

  constructor(option: string, message: string, envVar?: string) {
    super(message);
    this.option = option;
    this.envVar = envVar;
    stampRetryable(this, false);
  }
}

/** What {@link BudgetExceededError} reports. */
export interface BudgetExceededErrorInit {
  /** The `budget` the tracker was given, in the unit of its prices. */
  budget: number;
  /** Cost settled so far (by every process sharing the budget). */
  spent: number;
  /** Worst-case cost held by calls in flight when the call was refused. @default 0 */
  reserved?: number;
  /** The refused call's own worst-case cost (prompt estimate plus `max_tokens`). */
  requested?: number;
  /** Unit label of prices and budget, e.g. `"credit"`. */
  currency?: string;
  /** The model ID or Service-Name of the refused call. */
  model?: string;
}

/**
 * A `UsageTracker`'s budget could not hold the next call's worst-case cost, so the call was
 * refused before any request was sent. A guard only: the service's Wallet is authoritative and
 * ends calls with a 403 `insufficient_user_quota` ({@link InsufficientCreditError}, docs/service-contract.md#resources, docs/service-contract.md#errors).
 */
export class BudgetExceededError extends serviceNs.brand(LangChainError, "budget-exceeded") {
  override readonly name = "BudgetExceededError";
  readonly code = "budget_exceeded";
  readonly budget: number;
  readonly spent: number;
  readonly reserved: number;
  readonly requested?: number;
  readonly currency?: string;
  readonly model?: string;
  readonly hint: string;

  constructor(init: BudgetExceededErrorInit) {
    const unit = init.currency ? ` ${init.currency}` : "";
    const amount = (n: number) => `${Number(n.toPrecision(6))}${unit}`;
    const call = init.model ? `the call to "${init.model}"` : "the call";
    const reserved = init.reserved ?? 0;
    const held = reserved > 0 ? `, ${amount(reserved)} held by calls in flight` : "";
    const asked = init.requested !== undefined ? ` (up to ${amount(init.requested)})` : "";
    const hint =
      "Raise `budget`, lower `maxTokens` (a call holds its worst case until it settles), or start a new tracker; the service's Wallet stays authoritative.";
    super(
      `Usage budget reached: spent ${amount(init.spent)} of ${amount(init.budget)}${held}; ${call}${asked} was not sent. ${hint}`,
    );
    this.budget = init.budget;
    this.spent = init.spent;
    this.reserved = reserved;
    this.requested = init.requested;
    this.currency = init.currency;
    this.model = init.model;
    this.hint = hint;
    stampRetryable(this, false);
  }
}

/** How `withStructuredOutput` asks for its answer: a forced tool call, or a `response_format`. */
export type StructuredOutputMethod = "functionCalling" | "jsonSchema" | "jsonMode";

/** What {@link StructuredOutputError} reports. */
export interface StructuredOutputErrorInit {
  /** What is wrong with the answer, in one sentence. */
  summary: string;
  /** What to change. */
  hint: string;
  /** The last answer as it came: its text, or the arguments of its tool call. */
  rawText: string;
  /** The methods tried, in order: one, or two when the call stepped down. */
  methods: readonly StructuredOutputMethod[];
  /** The request ID of each attempt that has one, in order. */
  requestIds: readonly string[];
  /** The model ID asked. */
  model?: string;
  /** The parser's or the schema's own error, when there is one. */
  cause?: unknown;
}

/**
 * `withStructuredOutput`'s answer could not be read as the schema asks: prose where JSON was
 * asked for (after the one step down from `jsonSchema` to a forced tool call, when it was taken),
 * no call of the forced tool, or JSON that does not fit the schema. The service answered and
 * billed every attempt; nothing was retried. With `includeRaw: true` it is returned as
 * `parsingError` beside `{ raw, parsed: null }` instead of thrown.
 *
 * @example
 * ```ts
 * try {
 *   await model.withStructuredOutput(Person).invoke(text);
 * } catch (error) {
 *   if (StructuredOutputError.isInstance(error)) console.log(error.rawText, error.requestIds);
 *   else throw error;
 * }
 * ```
 */
export class StructuredOutputError extends serviceNs.brand(LangChainError, "structured-output") {
  override readonly name = "StructuredOutputError";
  /** LangChain's troubleshooting code for an answer that cannot be parsed. */
  readonly lc_error_code = "OUTPUT_PARSING_FAILURE" as const;
  readonly code = "structured_output_unparsable";
  /** The same request would most likely get the same kind of answer: nothing retries it. */
  readonly retryable = false;
  readonly summary: string;
  readonly hint: string;
  readonly rawText: string;
  readonly methods: readonly StructuredOutputMethod[];
  /** The request ID of the last attempt. */
  readonly requestId?: string;
  readonly requestIds: readonly string[];
  readonly model?: string;
  declare readonly cause?: unknown;

  constructor(init: StructuredOutputErrorInit) {
    const ids = init.requestIds.length > 0 ? `, request ids ${init.requestIds.join(", ")}` : "";
    super(`${init.summary} ${init.hint} (code structured_output_unparsable${ids})`);
    this.summary = init.summary;
    this.hint = init.hint;
    this.rawText = init.rawText;
    this.methods = init.methods;
    this.requestIds = init.requestIds;
    this.requestId = init.requestIds.at(-1);
    this.model = init.model;
    Object.defineProperty(this, "cause", { value: init.cause, enumerable: false });
    stampRetryable(this, false);
  }
}

/** What {@link UsageStoreError} reports. */
export interface UsageStoreErrorInit {
  /** Which store failed, e.g. `"redis"`. */
  store: string;
  /** What the store was doing, e.g. `"reserve"`. */
  operation: string;
  cause?: unknown;
  /** Values neither the message nor the cause may show (the store's password). */
  secrets?: readonly string[];
}

/**
 * The store that holds a shared budget or rate limit (Redis) could not be reached or answered
 * with an error, so the call was not sent: without the store no process can tell whether the
 * budget still holds it. Configure the store with `failOpen: true` to send calls unguarded while
 * it is down instead.
 */
export class UsageStoreError extends serviceNs.brand(LangChainError, "usage-store") {
  override readonly name = "UsageStoreError";
  readonly code = "usage_store_unavailable";
  readonly store: string;
  readonly operation: string;
  readonly hint: string;
  declare readonly cause?: unknown;

  constructor(init: UsageStoreErrorInit) {
    const cause = init.cause === undefined ? undefined : scrubbed(init.cause, init.secrets ?? []);
    const reason = cause instanceof Error ? cause.message : cause ? String(cause) : "";
    const hint = `Check that ${init.store} is up and reachable, or set \`failOpen: true\` on the store to send calls unguarded while it is down.`;
    super(
      `The usage store (${init.store}) failed during ${init.operation}${reason ? `: ${reason}` : ""}; the call was not sent. ${hint}`,
    );
    this.store = init.store;
    this.operation = init.operation;
    this.hint = hint;
    Object.defineProperty(this, "cause", { value: cause, enumerable: false });
    stampRetryable(this, false);
  }
}

/**
 * A store client's error as a plain `Error` with only its name, code, message and stack (and its
 * own cause, likewise), each without `secrets`: client errors carry what they sent — ioredis's
 * `command.args` hold the password of a failed AUTH — and a deep `util.inspect` prints it all.
 */
function scrubbed(value: unknown, secrets: readonly string[], depth = 0): unknown {
  const hide = (text: string) => {
    let out = text;
    for (const secret of secrets) {
      if (secret.length >= MIN_SECRET_LENGTH) out = out.split(secret).join(REDACTED);
    }
    return out;
  };
  if (!(value instanceof Error)) return hide(String(value));
  const copy = new Error(hide(value.message));
  copy.name = value.name;
  copy.stack = value.stack === undefined ? undefined : hide(value.stack);
  const code = (value as { code?: unknown }).code;
  if (typeof code === "string" || typeof code === "number") {
    Object.assign(copy, { code: typeof code === "string" ? hide(code) : code });
  }
  if (value.cause !== undefined && depth < 4) {
    Object.defineProperty(copy, "cause", { value: scrubbed(value.cause, secrets, depth + 1) });
  }
  return copy;
}
