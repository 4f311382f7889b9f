/**
 * @module The gateway's error replies beyond docs/service-contract.md#errors, as the new-api gateway the service runs on sends
 * them (status, `code`, `type`, message and where the `(request id: …)` suffix is): injected with
 * `X-Emulator-Fault: <name>` so that a program's handling of each can be tested offline. Named
 * after the gateway's code where there is one.
 */

import { consolePage } from "./console/index.js";
import { type EmulatorResponse, jsonReply, REQUEST_ID_HEADER } from "./reply.js";

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

/** Every gateway reply the emulator can inject, by fault name. */
export const GATEWAY_FAULTS = {
  // Model rate limit middleware: a Chinese message and an empty code.
  "429-cn": ({ requestId }) =>
    gatewayError(429, "", `您已达到请求数限制：1分钟内最多请求60次${suffix(requestId)}`, requestId),
  // The global rate limiter answers with the status alone.
  "429-empty": ({ requestId }) => ({
    kind: "response",
    status: 429,
    headers: { [REQUEST_ID_HEADER]: requestId },
    body: "",
    abort: false,
    delayMs: 0,
  }),
  access_denied: ({ requestId }) =>
    gatewayError(
      403,
      "access_denied",
      `您的 IP 不在令牌允许访问的列表中${suffix(requestId)}`,
      requestId,
    ),
  // The key's model limits: an empty code.
  "403-model": ({ requestId, model }) =>
    gatewayError(
      403,
      "",
      `This token has no access to model ${model ?? "this model"}${suffix(requestId)}`,
      requestId,
    ),
  pre_consume_token_quota_failed: ({ requestId }) =>
    gatewayError(
      403,
      "pre_consume_token_quota_failed",
      `token quota is not enough, token remain quota: $0.000000, need quota: $0.002000${suffix(requestId)}`,
      requestId,
    ),
  // The Wallet cannot cover what the call reserves (the other wording of the same code).
  insufficient_user_quota: ({ requestId }) =>
    gatewayError(
      403,
      "insufficient_user_quota",
      `预扣费额度失败, 用户剩余额度: ¥0.100000, 需要预扣费额度: ¥0.500000${suffix(requestId)}`,
      requestId,
    ),
  // Request errors the relay sends as 500.
  invalid_request: ({ requestId }) =>
    gatewayError(
      500,
      "invalid_request",
      `field messages is required${suffix(requestId)}`,
      requestId,
    ),
  sensitive_words_detected: ({ requestId }) =>
    gatewayError(
      500,
      "sensitive_words_detected",
      `sensitive_words_detected${suffix(requestId)}`,
      requestId,
    ),
  // The Gemini channel's reply to a prompt its safety check blocks: written by the channel, with
  // the model server's status and no request ID in the message.
  prompt_blocked: ({ requestId }) =>
    gatewayError(400, "prompt_blocked", "request blocked by Gemini API: SAFETY", requestId, {
      type: "prompt_blocked",
      param: "",
    }),
  model_price_error: ({ requestId, model }) =>
    gatewayError(
      400,
      "model_price_error",
      `model ${model ?? "unknown"} ratio or price not set, please set or start self-use mode${suffix(requestId)}`,
      requestId,
    ),
  read_request_body_failed: ({ requestId }) =>
    gatewayError(
      413,
      "read_request_body_failed",
      `request body too large${suffix(requestId)}`,
      requestId,
    ),
  // RelayNotImplemented: no request ID in the message.
  api_not_implemented: ({ requestId }) =>
    gatewayError(501, "api_not_implemented", "API not implemented", requestId),
  system_cpu_overloaded: overloaded("system_cpu_overloaded", " CPU "),
  system_memory_overloaded: overloaded("system_memory_overloaded", "内存"),
  system_disk_overloaded: overloaded("system_disk_overloaded", "磁盘"),
  do_request_failed: ({ requestId }) =>
    gatewayError(
      500,
      "do_request_failed",
      `upstream error: do request failed${suffix(requestId)}`,
      requestId,
      {
        type: "do_request_failed",
      },
    ),
  // The model server's own error, passed through with its status, type and code.
  context_length_exceeded: ({ requestId }) =>
    gatewayError(
      400,
      "context_length_exceeded",
      `This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens. Please reduce the length of the messages.${suffix(requestId)}`,
      requestId,
      { type: "invalid_request_error", param: "messages" },
    ),
  // A model server's error that came with a 200, passed on with it.
  "200-error": ({ requestId }) =>
    gatewayError(
      200,
      "upstream_error",
      `The upstream model failed to answer${suffix(requestId)}`,
      requestId,
      { type: "upstream_error" },
    ),
  // A JSON error written after the stream's headers were set: labelled text/event-stream.
  "503-sse": ({ requestId }) => {
    const reply = gatewayError(
      503,
      "",
      `当前分组上游负载已饱和，请稍后再试${suffix(requestId)}`,
      requestId,
    );
    return { ...reply, headers: { ...reply.headers, "Content-Type": "text/event-stream" } };
  },
  // A proxy's page labelled JSON.
  "html-json": ({ requestId }) => {
    const page = consolePage(requestId);
    return {
      ...page,
      headers: { ...page.headers, "Content-Type": "application/json; charset=utf-8" },
    };
  },
} as const satisfies Readonly<Record<string, Build>>;

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
