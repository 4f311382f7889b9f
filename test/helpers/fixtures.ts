/** @module Error bodies exactly as the service contract describes them (docs/service-contract.md#errors). */

import type { GatewayErrorBody } from "../../src/errors/gateway_codes.js";

export const RID = "2026112208000012345678";

/** The service's docs/service-contract.md#errors bodies, one per row, with the `(request id: …)` suffix where docs/service-contract.md#errors, rule 5 says so. */
export const bodies = {
  unauthorized: {
    error: { code: "", message: `Invalid token (request id: ${RID})`, type: "new_api_error" },
  },
  noCredit: {
    error: {
      code: "insufficient_user_quota",
      message: `用户额度不足, 剩余额度: ¥0.000000 (request id: ${RID})`,
      type: "new_api_error",
      param: "",
    },
  },
  forbiddenOther: {
    error: {
      code: "access_denied",
      message: `forbidden (request id: ${RID})`,
      type: "new_api_error",
      param: "",
    },
  },
  invalidUrl: {
    error: {
      code: "",
      message: "Invalid URL (POST /v1/chat/completion)",
      type: "invalid_request_error",
      param: "",
    },
  },
  modelNotFound: {
    error: {
      code: "model_not_found",
      message: `No available channel for model nope under group default (request id: ${RID})`,
      type: "new_api_error",
    },
  },
  rateLimited: {
    error: {
      code: "rate_limit_exceeded",
      message: `Too many requests (request id: ${RID})`,
      type: "new_api_error",
    },
  },
  upstream: {
    error: { code: "", message: `upstream error (request id: ${RID})`, type: "new_api_error" },
  },
  badRequest: {
    error: {
      code: "invalid_request",
      message: "max_tokens must be positive",
      type: "invalid_request_error",
    },
  },
} as const;

export const HTML_PAGE =
  "<!doctype html><html><head><title>Console</title></head><body>app</body></html>";

export const withRequestId = (extra: Record<string, string> = {}) => ({
  "Content-Type": "application/json",
  "X-Gateway-Request-Id": RID,
  ...extra,
});

/** A gateway code's sample body as the JSON text the gateway sends, `{requestId}` and `{model}` filled in. */
export function sampleText(
  sample: GatewayErrorBody,
  values: { requestId: string; model: string },
): string {
  return JSON.stringify(sample, (_key, value: unknown) =>
    typeof value === "string"
      ? value.replace(/\{(requestId|model)\}/g, (_all, name: "requestId" | "model") => values[name])
      : value,
  );
}
