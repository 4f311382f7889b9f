/**
 * @module The gateway's error codes, as one table: for each `error.code` the service sends, the
 * status it comes with, what it means for a caller (its class, whether retrying can help, what to
 * change) and a sample of the body. The service runs on the new-api gateway (its bodies say
 * `"type": "new_api_error"`); a code decides before the HTTP status does, because the gateway
 * sends request errors as 500 and passes the model server's errors through with their own status
 * (docs/service-contract.md#errors, rule 1: branch on status and code, never on the message).
 *
 * The mapper reads this table; docs/errors.md's table is generated from it
 * (`npm run docs:errors`), and tests check the emulator's replies and the property tests'
 * oracle against it.
 */
// The table names many classes of errors.ts: the module is imported whole.
import * as errors from "./errors.js";

/** The hint of a failure that passes: shared with the mapper's own retryable rows. */
export const TRANSIENT_HINT =
  "This is usually temporary; it is retried automatically up to `maxRetries` times.";

/** A class the mapper can build, with its default `retryable` and its brand check. */
export type ErrorClass = (new (
  init: errors.InferenceServiceErrorInit,
) => errors.InferenceServiceError) & {
  readonly retryable: boolean;
  isInstance(value: unknown): boolean;
};

/** What one failure becomes: its class, its one-line summary and what to change. */
export interface ErrorRow {
  cls: ErrorClass;
  summary: string;
  hint: string;
  /** Set where it is not the class's default. */
  retryable?: boolean;
}

/**
 * An error body as the gateway writes it: `{"error": {…}}`, keys in the order it writes them.
 * `{requestId}` and `{model}` in a message stand for the request's ID and model ID.
 */
export interface GatewayErrorBody {
  error: { code: string; message: string; type: string; param?: string };
}

/** One row of the table: one code, as the gateway sends it and as this package reads it. */
export interface GatewayCode {
  /** The gateway's `error.code`. */
  code: string;
  /**
   * For a code a model server sends for many failures (DeepSeek's `invalid_request_error`): the
   * row speaks only for a message that `pattern` matches, and `says` is that message in the docs'
   * table. Another message with the code is typed by a later row of the code, else by its status.
   */
  message?: { pattern: RegExp; says: string };
  /** The status the gateway sends it with (that of `sample`), then others it may come with. */
  status: readonly [number, ...number[]];
  /**
   * Who sets the code: the gateway itself, the model server behind it (passed through), or this
   * package's emulator replaying a cassette (a request the cassette does not hold).
   */
  setBy: "gateway" | "model server" | "emulator replay";
  cls: ErrorClass;
  /** Whether the same request can succeed later: the class's default unless `retryableDiffers` says why not. */
  retryable: boolean;
  /** Why `retryable` is not the class's default, when a row departs from it on purpose. */
  retryableDiffers?: string;
  /**
   * What failed, in one sentence. `{message}` stands for `: <the service's message>` (nothing
   * when it has none), `{subject}` for `model "<id>"` or `dedicated endpoint "<Service-Name>"`.
   */
  summary: string;
  /** What to change. `{models}` stands for the models the service lists, when a caller looked them up. */
  hint: string;
  /** The body exactly as the gateway sends it (and the emulator, where it can inject the code). */
  sample: GatewayErrorBody;
}

const BLOCKED = {
  setBy: "gateway",
  cls: errors.ContentFilterError,
  retryable: false,
  summary: "The service refused the prompt: it contains content the service blocks.",
  hint: "Rephrase the prompt; the same text is refused every time, so it is not retried.",
} as const;

const ENTITLEMENT = {
  status: [403],
  setBy: "gateway",
  cls: errors.PermissionDeniedError,
  retryable: false,
  summary:
    "The account's plan does not allow this call now (no active entitlement, or its daily or total limit is reached).",
  hint: "Check the account's subscription in the console, or use another key; retrying now will not help.",
} as const;

const CONVERSION = {
  status: [500],
  setBy: "gateway",
  cls: errors.BadRequestError,
  retryable: false,
  summary: "The service could not prepare the request for the model{message}.",
  hint: "Change the request (its parameters, tools or content types); the same request fails the same way, so it is not retried.",
} as const;

const RESPONSE_FORMAT = {
  status: [400],
  setBy: "model server",
  cls: errors.ResponseFormatError,
  retryable: false,
} as const;

/** What a refused `response_format` asks of a caller. */
const RESPONSE_FORMAT_HINT =
  "Declare `structuredOutput: false` in the model's profile, so that `withStructuredOutput` and `createAgent` ask with a forced tool call instead, or leave `response_format` out for this model";

const OVERLOADED = {
  status: [503],
  setBy: "gateway",
  cls: errors.ServiceUnavailableError,
  retryable: true,
  hint: "This passes; it is retried automatically up to `maxRetries` times. If it persists, lower your concurrency or retry later.",
} as const;

const READ_HINT =
  "Fix the request parameters named in the message; the same request fails the same way, so it is not retried.";

/** `{"error": {message, type, code}}`: the gateway's own replies, as the emulator sends them. */
const body = (code: string, message: string, type = "new_api_error"): GatewayErrorBody => ({
  error: { message, type, code },
});

/** The gateway's `(request id: …)` suffix. */
const RID = " (request id: {requestId})";

/**
 * Every code the gateway documents: codes set by the gateway itself (middleware/auth.go,
 * distributor.go, performance.go, controller/relay.go, service/billing*.go in new-api) and the
 * model servers' codes it passes through (`context_length_exceeded`).
 */
export const GATEWAY_CODES: readonly GatewayCode[] = [
  {
    code: "insufficient_user_quota",
    status: [403],
    setBy: "gateway",
    cls: errors.InsufficientCreditError,
    retryable: false,
    summary:
      "The account has no credit left (Wallet at or below zero, or below what the call reserves).",
    hint: "Top up the account's credit; this is not a rate limit and retrying will not help.",
    sample: body(
      "insufficient_user_quota",
      `预扣费额度失败, 用户剩余额度: ¥0.100000, 需要预扣费额度: ¥0.500000${RID}`,
    ),
  },
  {
    code: "pre_consume_token_quota_failed",
    status: [403],
    setBy: "gateway",
    cls: errors.KeyQuotaExceededError,
    retryable: false,
    summary:
      "The API key's own quota is used up (a limit set on the key, not the account's Wallet).",
    hint: "Raise the key's quota in the console (API keys page) or use another key; topping up the Wallet does not help, nor does retrying.",
    sample: body(
      "pre_consume_token_quota_failed",
      `token quota is not enough, token remain quota: $0.000000, need quota: $0.002000${RID}`,
    ),
  },
  {
    code: "access_denied",
    status: [403],
    setBy: "gateway",
    cls: errors.PermissionDeniedError,
    retryable: false,
    summary:
      "The service refused the call: this machine's IP address is not in the key's allowed list.",
    hint: "Add this address to the key's IP allow-list in the console, or use a key without one.",
    sample: body("access_denied", `您的 IP 不在令牌允许访问的列表中${RID}`),
  },
  {
    ...ENTITLEMENT,
    code: "entitlement_required",
    sample: body("entitlement_required", `no active entitlement for model {model}${RID}`),
  },
  {
    ...ENTITLEMENT,
    code: "entitlement_inactive",
    sample: body("entitlement_inactive", `entitlement is not active${RID}`),
  },
  {
    ...ENTITLEMENT,
    code: "entitlement_daily_limit_exceeded",
    sample: body("entitlement_daily_limit_exceeded", `entitlement daily requests exhausted${RID}`),
  },
  {
    ...ENTITLEMENT,
    code: "entitlement_total_limit_exceeded",
    sample: body("entitlement_total_limit_exceeded", `entitlement total requests exhausted${RID}`),
  },
  {
    // docs/service-contract.md#hosted-models, rule 4: the model is unknown, the service is not down.
    code: "model_not_found",
    status: [503, 404],
    setBy: "gateway",
    cls: errors.ModelNotFoundError,
    retryable: false,
    summary: "The service does not know the {subject} (the service is not down).",
    hint: "Check the model ID passed as `model`; retrying will not help.{models}",
    // The key order of docs/service-contract.md#errors, as the emulator sends it.
    sample: {
      error: {
        code: "model_not_found",
        message: `No available channel for model {model} under group default${RID}`,
        type: "new_api_error",
      },
    },
  },
  {
    code: "invalid_request",
    status: [500, 400],
    setBy: "gateway",
    cls: errors.BadRequestError,
    retryable: false,
    summary: "The service could not read the request{message}.",
    hint: READ_HINT,
    sample: body("invalid_request", `field messages is required${RID}`),
  },
  {
    code: "bad_request_body",
    status: [500, 400],
    setBy: "gateway",
    cls: errors.BadRequestError,
    retryable: false,
    summary: "The service could not read the request body{message}.",
    hint: READ_HINT,
    sample: body("bad_request_body", `unexpected end of JSON input${RID}`),
  },
  {
    ...BLOCKED,
    code: "sensitive_words_detected",
    status: [500],
    // The relay has no message for it but the code itself.
    sample: body("sensitive_words_detected", `sensitive_words_detected${RID}`),
  },
  {
    // A model server's refusal, renamed by the gateway and sent with the model server's status
    // and message (no request ID in it).
    ...BLOCKED,
    code: "violation_fee.grok.csam",
    status: [500],
    sample: {
      error: {
        message: "Failed check: SAFETY_CHECK_TYPE_CSAM",
        type: "violation_fee.grok.csam",
        param: "",
        code: "violation_fee.grok.csam",
      },
    },
  },
  {
    // The Gemini channel's prompt feedback: written by the channel itself, no request ID in it.
    ...BLOCKED,
    code: "prompt_blocked",
    status: [400],
    sample: {
      error: {
        message: "request blocked by Gemini API: SAFETY",
        type: "prompt_blocked",
        param: "",
        code: "prompt_blocked",
      },
    },
  },
  {
    code: "count_token_failed",
    status: [500],
    setBy: "gateway",
    cls: errors.BadRequestError,
    retryable: false,
    summary: "The service could not count the prompt's tokens{message}.",
    hint: "Change the input (for example an image URL the service cannot fetch); the same request fails the same way.",
    sample: body("count_token_failed", `failed to get image from url${RID}`),
  },
  {
    ...CONVERSION,
    code: "convert_request_failed",
    sample: body("convert_request_failed", `unsupported content type: input_audio${RID}`),
  },
  {
    ...CONVERSION,
    code: "json_marshal_failed",
    sample: body("json_marshal_failed", `json: unsupported value: NaN${RID}`),
  },
  {
    ...CONVERSION,
    code: "invalid_api_type",
    sample: body("invalid_api_type", `invalid api type: 0${RID}`),
  },
  {
    ...CONVERSION,
    code: "gen_relay_info_failed",
    sample: body("gen_relay_info_failed", `invalid relay format${RID}`),
  },
  {
    code: "model_price_error",
    status: [400, 500],
    setBy: "gateway",
    cls: errors.BadRequestError,
    retryable: false,
    summary: "The service has no usable price for this model, so it cannot bill the call.",
    hint: "Use another model ID, or ask the service's operator to set a price for this one; retrying will not help.",
    sample: body(
      "model_price_error",
      `model {model} ratio or price not set, please set or start self-use mode${RID}`,
    ),
  },
  {
    code: "read_request_body_failed",
    status: [413, 400],
    setBy: "gateway",
    cls: errors.BadRequestError,
    retryable: false,
    summary: "The service could not read the request body: it is too large or was cut off.",
    hint: "Send a smaller request (a shorter prompt, fewer messages or images).",
    sample: body("read_request_body_failed", `request body too large${RID}`),
  },
  {
    code: "api_not_implemented",
    status: [501],
    setBy: "gateway",
    cls: errors.InvalidURLError,
    retryable: false,
    summary: "The service does not implement this API.",
    hint: "Check `baseURL` and that this surface is enabled on the service; retrying will not help.",
    // RelayNotImplemented: no request ID in the message.
    sample: body("api_not_implemented", "API not implemented"),
  },
  {
    code: "context_length_exceeded",
    status: [400],
    setBy: "model server",
    cls: errors.ContextLengthExceededError,
    retryable: false,
    summary: "The prompt does not fit the model's context window{message}.",
    hint: "Shorten the messages (or summarise the history) or lower `maxTokens`; retrying the same prompt will not help.",
    sample: {
      error: {
        message: `This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens. Please reduce the length of the messages.${RID}`,
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    },
  },
  {
    // OpenAI's strict rules for a response_format schema, passed through with its status.
    ...RESPONSE_FORMAT,
    code: "invalid_json_schema",
    summary:
      "The model's server refused the JSON schema of the request's `response_format`{message}.",
    hint: `${RESPONSE_FORMAT_HINT}; or send a schema that follows its strict rules (\`withStructuredOutput(schema, { strict: true })\` prepares one).`,
    sample: {
      error: {
        message: `Invalid schema for response_format 'extract': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'age'.${RID}`,
        type: "invalid_request_error",
        param: "response_format",
        code: "invalid_json_schema",
      },
    },
  },
  {
    // DeepSeek names every refused request `invalid_request_error`: only this message is about the format.
    ...RESPONSE_FORMAT,
    code: "invalid_request_error",
    message: {
      pattern: /response_format type is unavailable/i,
      says: "This response_format type is unavailable now",
    },
    summary: "The model does not take this type of `response_format`{message}.",
    hint: `${RESPONSE_FORMAT_HINT}.`,
    sample: {
      error: {
        message: `This response_format type is unavailable now${RID}`,
        type: "invalid_request_error",
        param: "",
        code: "invalid_request_error",
      },
    },
  },
  {
    code: "token_concurrency_limit_reached",
    status: [429],
    setBy: "gateway",
    cls: errors.RateLimitError,
    retryable: true,
    summary: "The API key already has as many calls in flight as it may.",
    hint: "Lower your concurrency (`maxConcurrency`); the call is retried automatically.",
    sample: body("token_concurrency_limit_reached", `token_concurrency_limit_reached${RID}`),
  },
  // The performance middleware answers before the relay: no request ID in the messages.
  {
    ...OVERLOADED,
    code: "system_cpu_overloaded",
    summary: "The service is overloaded (CPU above its limit) and refused the call for now.",
    sample: body("system_cpu_overloaded", "系统 CPU 负载过高，请稍后重试"),
  },
  {
    ...OVERLOADED,
    code: "system_memory_overloaded",
    summary: "The service is overloaded (memory above its limit) and refused the call for now.",
    sample: body("system_memory_overloaded", "系统内存负载过高，请稍后重试"),
  },
  {
    ...OVERLOADED,
    code: "system_disk_overloaded",
    summary: "The service is overloaded (disk above its limit) and refused the call for now.",
    sample: body("system_disk_overloaded", "系统磁盘负载过高，请稍后重试"),
  },
  {
    code: "do_request_failed",
    status: [500],
    setBy: "gateway",
    cls: errors.ServiceUnavailableError,
    retryable: true,
    summary: "The service could not reach the model server behind it.",
    hint: TRANSIENT_HINT,
    sample: body(
      "do_request_failed",
      `upstream error: do request failed${RID}`,
      "do_request_failed",
    ),
  },
  {
    code: "get_channel_failed",
    status: [500],
    setBy: "gateway",
    cls: errors.ServiceUnavailableError,
    retryable: true,
    summary: "The service has no upstream channel free for this model right now.",
    hint: TRANSIENT_HINT,
    sample: body(
      "get_channel_failed",
      `分组 default 下模型 {model} 的可用渠道不存在（retry）${RID}`,
    ),
  },
  {
    // Not the service's: what the emulator answers, replaying a cassette, to a request the
    // cassette holds no recording of (docs/testing.md). Its message names the nearest recording.
    code: "not_in_cassette",
    status: [400],
    setBy: "emulator replay",
    cls: errors.BadRequestError,
    retryable: false,
    summary: "The cassette holds no recording of this request{message}.",
    hint: "Record it (run the test once with INFERENCE_SERVICE_RECORD=new, or record with `inference-service record`), or send the request as it was recorded; the same request misses the same way.",
    sample: body(
      "not_in_cassette",
      "POST /chat/completions is not in the cassette; nearest: entry 0, which differs in body.messages[0].content",
      "invalid_request_error",
    ),
  },
];

/** The rows of each code, in the table's order. */
const BY_CODE: ReadonlyMap<string, readonly GatewayCode[]> = GATEWAY_CODES.reduce(
  (byCode, row) => byCode.set(row.code, [...(byCode.get(row.code) ?? []), row]),
  new Map<string, GatewayCode[]>(),
);

/**
 * The first row of `code` whose message pattern, if it has one, matches `message`; undefined
 * when none does or the gateway does not document the code (then the status decides).
 */
export function gatewayCode(code: string | undefined, message?: string): GatewayCode | undefined {
  if (code === undefined) return undefined;
  return BY_CODE.get(code)?.find(
    (row) => row.message === undefined || row.message.pattern.test(message ?? ""),
  );
}

/** What a row's `{…}` parts are filled with; each is left out when undefined. */
export interface RowParts {
  /** The service's message, without its request ID. */
  message?: string;
  /** `model "<id>"` or `dedicated endpoint "<Service-Name>"`. */
  subject: string;
  /** A sentence naming the models the service lists. */
  models?: string;
}

/** Fills the `{message}`, `{subject}` and `{models}` of a summary or hint, in one pass. */
export function fill(template: string, parts: RowParts): string {
  return template.replace(/\{(message|subject|models)\}/g, (_all, key: keyof RowParts) => {
    const value = parts[key];
    if (value === undefined) return "";
    return key === "message" ? `: ${value}` : key === "models" ? ` ${value}` : value;
  });
}

/**
 * The error row of a code the gateway documents, read with the service's `message` where a row
 * of the code asks for it; undefined when no row speaks for them (then the HTTP status decides).
 */
export function rowForCode(
  code: string | undefined,
  message: string | undefined,
  parts: RowParts,
): ErrorRow | undefined {
  const row = gatewayCode(code, message);
  return row && errorRow(row, parts);
}

/** What a row makes of one failure: its `{…}` parts filled, `retryable` where not the class's. */
export function errorRow(row: GatewayCode, parts: RowParts): ErrorRow {
  return {
    cls: row.cls,
    summary: fill(row.summary, parts),
    hint: fill(row.hint, parts),
    ...(row.retryable === row.cls.retryable ? {} : { retryable: row.retryable }),
  };
}
