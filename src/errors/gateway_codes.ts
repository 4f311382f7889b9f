/**
 * @module The gateway's error codes: what each `error.code` the service sends means for a caller —
 * its class, whether retrying can help, and what to change. The service runs on the new-api
 * gateway (its bodies say `"type": "new_api_error"`); a code decides before the HTTP status does,
 * because the gateway sends request errors as 500 and passes the model server's errors through
 * with their own status (docs/service-contract.md#errors, rule 1: branch on status and code, never on the message).
 */
// The row picks among many classes of errors.ts: the module is imported whole.
import * as errors from "./errors.js";

/** The hint of a failure that passes: shared with the mapper's own retryable rows. */
export const TRANSIENT_HINT =
  "This is usually temporary; it is retried automatically up to `maxRetries` times.";

/** A class the mapper can build. */
export type ErrorClass = new (
  init: errors.InferenceServiceErrorInit,
) => errors.InferenceServiceError;

/** What one failure becomes: its class, its one-line summary and what to change. */
export interface ErrorRow {
  cls: ErrorClass;
  summary: string;
  hint: string;
}

/** What a code row may quote: the service's own message, when it says what is wrong. */
type Row = (message: string | undefined) => ErrorRow;

const quoted = (message: string | undefined) => (message ? `: ${message}` : "");

const overloaded =
  (what: string): Row =>
  () => ({
    cls: errors.ServiceUnavailableError,
    summary: `The service is overloaded (${what} above its limit) and refused the call for now.`,
    hint: "This passes; it is retried automatically up to `maxRetries` times. If it persists, lower your concurrency or retry later.",
  });

const conversion: Row = (message) => ({
  cls: errors.BadRequestError,
  summary: `The service could not prepare the request for the model${quoted(message)}.`,
  hint: "Change the request (its parameters, tools or content types); the same request fails the same way, so it is not retried.",
});

const blocked: Row = () => ({
  cls: errors.BadRequestError,
  summary: "The service refused the prompt: it contains content the service blocks.",
  hint: "Rephrase the prompt; the same text is refused every time, so it is not retried.",
});

const entitlement: Row = () => ({
  cls: errors.PermissionDeniedError,
  summary:
    "The account's plan does not allow this call now (no active entitlement, or its daily or total limit is reached).",
  hint: "Check the account's subscription in the console, or use another key; retrying now will not help.",
});

/**
 * Rows by `error.code`. Codes set by the gateway itself (middleware/auth.go, distributor.go,
 * performance.go, controller/relay.go, service/billing*.go in new-api) and the model servers'
 * codes it passes through (`context_length_exceeded`).
 */
const BY_CODE: Readonly<Record<string, Row>> = {
  insufficient_user_quota: () => ({
    cls: errors.InsufficientCreditError,
    summary:
      "The account has no credit left (Wallet at or below zero, or below what the call reserves).",
    hint: "Top up the account's credit; this is not a rate limit and retrying will not help.",
  }),
  pre_consume_token_quota_failed: () => ({
    cls: errors.KeyQuotaExceededError,
    summary:
      "The API key's own quota is used up (a limit set on the key, not the account's Wallet).",
    hint: "Raise the key's quota in the console (API keys page) or use another key; topping up the Wallet does not help, nor does retrying.",
  }),
  access_denied: () => ({
    cls: errors.PermissionDeniedError,
    summary:
      "The service refused the call: this machine's IP address is not in the key's allowed list.",
    hint: "Add this address to the key's IP allow-list in the console, or use a key without one.",
  }),
  entitlement_required: entitlement,
  entitlement_inactive: entitlement,
  entitlement_daily_limit_exceeded: entitlement,
  entitlement_total_limit_exceeded: entitlement,
  token_concurrency_limit_reached: () => ({
    cls: errors.RateLimitError,
    summary: "The API key already has as many calls in flight as it may.",
    hint: "Lower your concurrency (`maxConcurrency`); the call is retried automatically.",
  }),
  invalid_request: (message) => ({
    cls: errors.BadRequestError,
    summary: `The service could not read the request${quoted(message)}.`,
    hint: "Fix the request parameters named in the message; the same request fails the same way, so it is not retried.",
  }),
  bad_request_body: (message) => ({
    cls: errors.BadRequestError,
    summary: `The service could not read the request body${quoted(message)}.`,
    hint: "Fix the request parameters named in the message; the same request fails the same way, so it is not retried.",
  }),
  read_request_body_failed: () => ({
    cls: errors.BadRequestError,
    summary: "The service could not read the request body: it is too large or was cut off.",
    hint: "Send a smaller request (a shorter prompt, fewer messages or images).",
  }),
  sensitive_words_detected: blocked,
  prompt_blocked: blocked,
  "violation_fee.grok.csam": blocked,
  count_token_failed: (message) => ({
    cls: errors.BadRequestError,
    summary: `The service could not count the prompt's tokens${quoted(message)}.`,
    hint: "Change the input (for example an image URL the service cannot fetch); the same request fails the same way.",
  }),
  model_price_error: () => ({
    cls: errors.BadRequestError,
    summary: "The service has no usable price for this model, so it cannot bill the call.",
    hint: "Use another model ID, or ask the service's operator to set a price for this one; retrying will not help.",
  }),
  convert_request_failed: conversion,
  json_marshal_failed: conversion,
  invalid_api_type: conversion,
  gen_relay_info_failed: conversion,
  context_length_exceeded: (message) => ({
    cls: errors.ContextLengthExceededError,
    summary: `The prompt does not fit the model's context window${quoted(message)}.`,
    hint: "Shorten the messages (or summarise the history) or lower `maxTokens`; retrying the same prompt will not help.",
  }),
  api_not_implemented: () => ({
    cls: errors.InvalidURLError,
    summary: "The service does not implement this API.",
    hint: "Check `baseURL` and that this surface is enabled on the service; retrying will not help.",
  }),
  system_cpu_overloaded: overloaded("CPU"),
  system_memory_overloaded: overloaded("memory"),
  system_disk_overloaded: overloaded("disk"),
  do_request_failed: () => ({
    cls: errors.ServiceUnavailableError,
    summary: "The service could not reach the model server behind it.",
    hint: TRANSIENT_HINT,
  }),
  get_channel_failed: () => ({
    cls: errors.ServiceUnavailableError,
    summary: "The service has no upstream channel free for this model right now.",
    hint: TRANSIENT_HINT,
  }),
};

/**
 * The row of a code the gateway documents, or undefined (then the HTTP status decides).
 * `model_not_found` is the mapper's own row: its summary names the model.
 */
export function rowForCode(
  code: string | undefined,
  message: string | undefined,
): ErrorRow | undefined {
  if (!code || !Object.hasOwn(BY_CODE, code)) return undefined;
  return BY_CODE[code]?.(message);
}
