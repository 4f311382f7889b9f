/**
 * @module The gateway's error replies beyond docs/service-contract.md#errors, as the new-api gateway the service runs on sends
 * them (status, `code`, `type`, message and where the `(request id: …)` suffix is): injected with
 * `X-Emulator-Fault: <name>` so that a program's handling of each can be tested offline. Named
 * after the gateway's code where there is one.
 */

import { consolePage } from "../console/index.js";
import { type EmulatorResponse, jsonReply, REQUEST_ID_HEADER } from "../reply.js";

/** What a gateway reply may name: the model of the request, when it has one. */
export interface GatewayFaultContext {
  requestId: string;
  /** The `model` of a hosted request's body, if it can be read. */
  model?: string;
}

type Build = (ctx: GatewayFaultContext) => EmulatorResponse;

const suffix = (requestId: string) => ` (request id: ${requestId})`;

/** `{"error": {message, type, code}}` in the key order of the gateway's `abortWithOpenAiMessage`. */
function gatewayError(
  status: number,
  code: string,
  message: string,
  requestId: string,
  extra: { type?: string; param?: string; headers?: Record<string, string> } = {},
): EmulatorResponse {
  return jsonReply(
    status,
    {
      error: {
        message,
        type: extra.type ?? "new_api_error",
        ...(extra.param !== undefined ? { param: extra.param } : {}),
        code,
      },
    },
    requestId,
    extra.headers,
  );
}

const overloaded =
  (code: string, what: string): Build =>
  ({ requestId }) =>
    // The performance middleware answers before the relay: no request ID in the message.
    gatewayError(503, code, `系统${what}负载过高，请稍后重试`, requestId);

/** One gateway reply: how it is built, and what it is in a line for people. */
export interface GatewayFault {
  /**
   * What the gateway says with it, in one line: the console shows it beside the fault's switch,
   * and docs/emulator.md's table is generated from it (`code` in backticks).
   */
  summary: string;
  build: Build;
  /**
   * Set for a reply about one part of a request: the body it is sent for. Any other request is
   * answered as usual (so a client's second try without that part gets its answer).
   */
  appliesTo?: (body: string) => boolean;
}

/**
 * A model server's 400 to a request with a `json_schema` response format, passed through by the
 * gateway (its `type`, `param` and code, the gateway's request ID suffix); other requests pass.
 */
function refusesJsonSchema(
  why: string,
  code: string,
  message: string,
  param: string,
): GatewayFault {
  return {
    summary: `400 to a \`json_schema\` \`response_format\`: ${why}; other requests are answered`,
    appliesTo: asksJsonSchema,
    build: ({ requestId }) =>
      gatewayError(400, code, `${message}${suffix(requestId)}`, requestId, {
        type: "invalid_request_error",
        param,
      }),
  };
}

/** Whether a request body asks for a `json_schema` response format; never throws. */
function asksJsonSchema(body: string): boolean {
  try {
    const format = (JSON.parse(body) as { response_format?: { type?: unknown } } | null)
      ?.response_format;
    return format?.type === "json_schema";
  } catch {
    return false;
  }
}

/** Every gateway reply the emulator can inject, by fault name. */
export const GATEWAY_FAULTS = {
  "429-cn": {
    summary: "The model rate limiter's 429: a Chinese message and an empty `code`",
    build: ({ requestId }) =>
      gatewayError(
        429,
        "",
        `您已达到请求数限制：1分钟内最多请求60次${suffix(requestId)}`,
        requestId,
      ),
  },
  "429-empty": {
    summary: "The global rate limiter's 429: the status alone, no body, no content type",
    build: ({ requestId }) => ({
      kind: "response",
      status: 429,
      headers: { [REQUEST_ID_HEADER]: requestId },
      body: "",
      abort: false,
      delayMs: 0,
    }),
  },
  access_denied: {
    summary: "403: the key may not be used from this IP address",
    build: ({ requestId }) =>
      gatewayError(
        403,
        "access_denied",
        `您的 IP 不在令牌允许访问的列表中${suffix(requestId)}`,
        requestId,
      ),
  },
  "403-model": {
    summary: "403 with an empty `code`: the key's model limits leave out this model",
    build: ({ requestId, model }) =>
      gatewayError(
        403,
        "",
        `This token has no access to model ${model ?? "this model"}${suffix(requestId)}`,
        requestId,
      ),
  },
  pre_consume_token_quota_failed: {
    summary: "403: the key's own quota cannot cover the call",
    build: ({ requestId }) =>
      gatewayError(
        403,
        "pre_consume_token_quota_failed",
        `token quota is not enough, token remain quota: $0.000000, need quota: $0.002000${suffix(requestId)}`,
        requestId,
      ),
  },
  insufficient_user_quota: {
    summary:
      "403: the Wallet cannot cover what the call reserves, in the gateway's other wording (credit 0 gives the usual one)",
    build: ({ requestId }) =>
      gatewayError(
        403,
        "insufficient_user_quota",
        `预扣费额度失败, 用户剩余额度: ¥0.100000, 需要预扣费额度: ¥0.500000${suffix(requestId)}`,
        requestId,
      ),
  },
  invalid_request: {
    summary: "500 for a request the relay cannot read: a client error, despite its status",
    build: ({ requestId }) =>
      gatewayError(
        500,
        "invalid_request",
        `field messages is required${suffix(requestId)}`,
        requestId,
      ),
  },
  sensitive_words_detected: {
    summary: "500: the gateway's word filter refused the prompt",
    build: ({ requestId }) =>
      gatewayError(
        500,
        "sensitive_words_detected",
        `sensitive_words_detected${suffix(requestId)}`,
        requestId,
      ),
  },
  prompt_blocked: {
    // Written by the Gemini channel, with the model server's status and no request ID in it.
    summary: "400: the Gemini channel's safety check blocked the prompt",
    build: ({ requestId }) =>
      gatewayError(400, "prompt_blocked", "request blocked by Gemini API: SAFETY", requestId, {
        type: "prompt_blocked",
        param: "",
      }),
  },
  model_price_error: {
    summary: "400: the operator has set no price for the model",
    build: ({ requestId, model }) =>
      gatewayError(
        400,
        "model_price_error",
        `model ${model ?? "unknown"} ratio or price not set, please set or start self-use mode${suffix(requestId)}`,
        requestId,
      ),
  },
  read_request_body_failed: {
    summary: "413: the request body is larger than the gateway reads",
    build: ({ requestId }) =>
      gatewayError(
        413,
        "read_request_body_failed",
        `request body too large${suffix(requestId)}`,
        requestId,
      ),
  },
  api_not_implemented: {
    // RelayNotImplemented: no request ID in the message.
    summary: "501: the gateway has no relay for this route",
    build: ({ requestId }) =>
      gatewayError(501, "api_not_implemented", "API not implemented", requestId),
  },
  system_cpu_overloaded: {
    summary: "503: the gateway sheds load, its CPU overloaded",
    build: overloaded("system_cpu_overloaded", " CPU "),
  },
  system_memory_overloaded: {
    summary: "503: the gateway sheds load, its memory overloaded",
    build: overloaded("system_memory_overloaded", "内存"),
  },
  system_disk_overloaded: {
    summary: "503: the gateway sheds load, its disk overloaded",
    build: overloaded("system_disk_overloaded", "磁盘"),
  },
  do_request_failed: {
    summary: "500: the gateway could not reach the model server",
    build: ({ requestId }) =>
      gatewayError(
        500,
        "do_request_failed",
        `upstream error: do request failed${suffix(requestId)}`,
        requestId,
        { type: "do_request_failed" },
      ),
  },
  context_length_exceeded: {
    // The model server's own error, passed through with its status, type and code.
    summary:
      "400: the model server's own error, passed through: the prompt is longer than its context",
    build: ({ requestId }) =>
      gatewayError(
        400,
        "context_length_exceeded",
        `This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens. Please reduce the length of the messages.${suffix(requestId)}`,
        requestId,
        { type: "invalid_request_error", param: "messages" },
      ),
  },
  // OpenAI's refusal of a schema that breaks its strict rules, passed through with its status.
  invalid_json_schema: refusesJsonSchema(
    "OpenAI's strict rules refuse its schema",
    "invalid_json_schema",
    "Invalid schema for response_format 'extract': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'age'.",
    "response_format",
  ),
  // DeepSeek's refusal of the format type, under its code for any refused request.
  invalid_request_error: refusesJsonSchema(
    "DeepSeek does not take that type",
    "invalid_request_error",
    "This response_format type is unavailable now",
    "",
  ),
  "200-error": {
    summary: "A model server's error, passed on with its 200",
    build: ({ requestId }) =>
      gatewayError(
        200,
        "upstream_error",
        `The upstream model failed to answer${suffix(requestId)}`,
        requestId,
        { type: "upstream_error" },
      ),
  },
  "503-sse": {
    summary:
      "503 whose JSON error is labelled `text/event-stream`: written after a stream's headers were set",
    build: ({ requestId }) => {
      const reply = gatewayError(
        503,
        "",
        `当前分组上游负载已饱和，请稍后再试${suffix(requestId)}`,
        requestId,
      );
      return { ...reply, headers: { ...reply.headers, "Content-Type": "text/event-stream" } };
    },
  },
  "html-json": {
    summary:
      "200 labelled JSON whose body is an HTML page (the console's), as a proxy in the way sends",
    build: ({ requestId }) => {
      const page = consolePage(requestId);
      return {
        ...page,
        headers: { ...page.headers, "Content-Type": "application/json; charset=utf-8" },
      };
    },
  },
} as const satisfies Readonly<Record<string, GatewayFault>>;

/** A redirect to the request's own path: a client that follows it never gets an answer. */
export function redirectLoop(requestId: string, path: string): EmulatorResponse {
  return {
    kind: "response",
    status: 307,
    headers: { Location: path, [REQUEST_ID_HEADER]: requestId },
    body: "",
    abort: false,
    delayMs: 0,
  };
}

/** The `model` of a JSON request body, or undefined; never throws. */
export function modelOfBody(body: string): string | undefined {
  try {
    const model = (JSON.parse(body) as { model?: unknown } | null)?.model;
    return typeof model === "string" ? model : undefined;
  } catch {
    return undefined;
  }
}
