/** @module The error bodies of service contract docs/service-contract.md#errors, byte for byte, plus the emulator's own. */

import { gatewayReply } from "../faults/gateway_faults.js";
import { type EmulatorResponse, jsonReply } from "../reply.js";

// docs/service-contract.md#errors: {"error": {"code", "message", "type", "param" (403 and 404 only)}}. Key order follows the
// document so recorded bodies diff cleanly against the real service.

/** 401 for a missing, unknown or expired key, or a key without permission (docs/service-contract.md#authentication, rules 3–4). */
export function invalidToken(requestId: string): EmulatorResponse {
  return jsonReply(
    401,
    {
      error: {
        code: "",
        message: `Invalid token (request id: ${requestId})`,
        type: "new_api_error",
      },
    },
    requestId,
  );
}

/** 403 when credit is at or below zero (docs/service-contract.md#errors, docs/service-contract.md#hosted-models, rule 3): Simplified Chinese, with the balance. */
export function insufficientQuota(requestId: string, balance: number): EmulatorResponse {
  return jsonReply(
    403,
    {
      error: {
        code: "insufficient_user_quota",
        message: `用户额度不足, 剩余额度: ¥${formatBalance(balance)} (request id: ${requestId})`,
        type: "new_api_error",
        param: "",
      },
    },
    requestId,
  );
}

/** 404 for a wrong path under `/inference/v1` (docs/service-contract.md#errors): the path after `/inference`, no request ID in the body. */
export function invalidUrl(requestId: string, method: string, path: string): EmulatorResponse {
  return jsonReply(
    404,
    {
      error: {
        code: "",
        message: `Invalid URL (${method} ${path})`,
        type: "invalid_request_error",
        param: "",
      },
    },
    requestId,
  );
}

/** 503 for an unknown hosted model (docs/service-contract.md#hosted-models, rule 4): the service is not down, so retrying never helps. */
export function modelNotFound(requestId: string, model: string): EmulatorResponse {
  return gatewayReply("model_not_found", requestId, model);
}

/**
 * 400 for a body the emulator cannot use (the service's is not shown; this is the emulator's
 * choice), naming the field at fault in `param` when there is one.
 */
export function badRequest(requestId: string, message: string, param = ""): EmulatorResponse {
  return jsonReply(
    400,
    {
      error: {
        code: "invalid_request",
        message: `${message} (request id: ${requestId})`,
        type: "new_api_error",
        param,
      },
    },
    requestId,
  );
}

/**
 * 400 from the model server behind the gateway, which passes it on (as it does
 * `context_length_exceeded`): the server's message with the request ID appended, code and type
 * `invalid_request_error`.
 */
export function modelServerBadRequest(requestId: string, message: string): EmulatorResponse {
  return jsonReply(
    400,
    {
      error: {
        code: "invalid_request_error",
        message: `${message} (request id: ${requestId})`,
        type: "invalid_request_error",
        param: "",
      },
    },
    requestId,
  );
}

/**
 * 400 `context_length_exceeded` for an embedding input (or a rerank document with its query) over
 * the model's `maxInputTokens`, as a model server writes it and the gateway passes it on (its
 * `invalid_request_error` type, `param` naming the field).
 */
export function inputTooLong(
  requestId: string,
  limit: number,
  tokens: number,
  index: number,
  field: "input" | "documents" = "input",
): EmulatorResponse {
  return jsonReply(
    400,
    {
      error: {
        message: `This model's maximum context length is ${limit} tokens, however you requested ${tokens} tokens in ${field}[${index}]. Please reduce the length of the input. (request id: ${requestId})`,
        type: "invalid_request_error",
        param: field,
        code: "context_length_exceeded",
      },
    },
    requestId,
  );
}

/**
 * 413 for a body over `maxBodyBytes`: docs/service-contract.md#limits-and-retries shows no size limit, so the code and wording are the
 * emulator's; the shape is the docs/service-contract.md#errors one, so clients need one parser.
 */
export function requestTooLarge(requestId: string, limit: number): EmulatorResponse {
  return jsonReply(
    413,
    {
      error: {
        code: "request_too_large",
        message: `Request body is larger than ${limit} bytes (request id: ${requestId})`,
        type: "new_api_error",
      },
    },
    requestId,
    // The rest of the body is never read: the connection cannot carry another request.
    { Connection: "close" },
  );
}

/** 500 when the emulator itself fails: a bug, reported with the ID instead of a hung request. */
export function emulatorFailure(requestId: string, message: string): EmulatorResponse {
  return jsonReply(
    500,
    {
      error: {
        code: "emulator_error",
        message: `Emulator failure: ${message} (request id: ${requestId})`,
        type: "emulator_error",
      },
    },
    requestId,
  );
}

/** Six decimals, as the service's gateway prints quota: `10` → `10.000000`, never `-0.000000`. */
export function formatBalance(balance: number): string {
  const fixed = balance.toFixed(6);
  return fixed === "-0.000000" ? "0.000000" : fixed;
}
