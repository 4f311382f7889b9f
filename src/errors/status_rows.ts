/**
 * @module What an HTTP status means when the service's `code` does not decide
 * (docs/service-contract.md#errors table and rules 1–3), as one table: the first row that
 * matches a status, a surface and whether a code was sent gives the class, the summary and the
 * hint. The mapper reads it; docs/errors.md's "By status" table is generated from it
 * (`npm run docs:errors`).
 */
// The table names many classes of errors.ts: the module is imported whole.
import * as errors from "./errors.js";
import { type ErrorClass, TRANSIENT_HINT } from "./gateway_codes.js";

/** A hosted API other than chat completions, whose failures may read differently. */
export type HostedApi = "embeddings" | "rerank" | "responses";

/** Which failures a row is about; every field given must match. */
export interface StatusMatch {
  /** The statuses, each listed, or `[from, to]` inclusive. */
  status: readonly number[] | { from: number; to: number };
  surface?: errors.Surface;
  /** Hosted surface: the API, when not chat completions. */
  api?: HostedApi;
  /** Whether the body named a `code`. */
  hasCode?: boolean;
  /** The body's `param`: the request field the service names (a refusal with no code of its own). */
  param?: string;
  /** What the service's message says, for a refusal whose status, code and `param` are shared. */
  says?: RegExp;
}

/**
 * One row. In `summary` and `hint`: `{how}` is how the error arrived (`HTTP 503`, or where an
 * error object was when the status was a success), `{status}` the status, `{code}` the body's
 * code, `{message}` `: <the service's message>` (nothing when it sent none), `{url}` ` (<the URL
 * it was sent to>)` when known, `{serviceName}` the Service-Name sent.
 */
export interface StatusRow {
  match: StatusMatch;
  /** Checked before the gateway's codes: a 401 is always the key, whatever its code. */
  beforeCodes?: true;
  cls: ErrorClass;
  /** The `code` the error gets, for a failure the service sends none for. */
  code?: string;
  summary: string;
  hint: string;
  /** The row as docs/errors.md shows it: when it applies, and what a program should do. */
  doc: { condition: string; action: string };
}

const BAD_REQUEST_ACTION = "Change the request (parameters, size).";

/** The rows, in the order they are tried. */
export const STATUS_ROWS: readonly StatusRow[] = [
  {
    match: { status: [401], surface: "dedicated" },
    beforeCodes: true,
    cls: errors.AuthenticationError,
    summary: "The service rejected the API key (missing, invalid or expired).",
    hint: "Use a valid, unexpired key that has the Inference Service permission (set `apiKey` or INFERENCE_SERVICE_API_KEY).",
    doc: {
      condition: "401, dedicated surface",
      action:
        "Fix the key: missing, invalid, expired, or without the **Inference Service** permission ([authentication, rule 3](service-contract.md#authentication), [errors, rule 7](service-contract.md#errors)).",
    },
  },
  {
    match: { status: [401] },
    beforeCodes: true,
    cls: errors.AuthenticationError,
    summary: "The service rejected the API key (missing, invalid or expired).",
    hint: "Set a valid, unexpired key with `apiKey` or INFERENCE_SERVICE_API_KEY.",
    doc: {
      condition: "401, hosted surface",
      action:
        "Fix the key: missing, invalid or expired. A missing and an invalid key give the same 401 ([authentication, rule 4](service-contract.md#authentication)).",
    },
  },
  {
    match: { status: [403], hasCode: true },
    cls: errors.PermissionDeniedError,
    summary: 'The service refused the call ({how}) with code "{code}", which it does not document.',
    hint: "Check the key's permissions in the console and contact support with the request ID; retrying will not help.",
    doc: {
      condition: "403 with a code not listed below",
      action:
        "Unexpected ([errors, rule 2](service-contract.md#errors)): check the key's permissions and report the request ID.",
    },
  },
  {
    match: { status: [403] },
    cls: errors.PermissionDeniedError,
    summary: "The service refused the call for this key ({how}){message}.",
    hint: "The key may not use this model or group (its model or group limits), or its user is disabled: check the key's settings in the console, or use another key.",
    doc: {
      condition: "403 with an empty code",
      action:
        "The key may not use this model or group (the key's model or group limits in the console), or its user is disabled: change the key's settings or use another key.",
    },
  },
  {
    // The contract does not show /embeddings: a deployment may simply not offer it.
    match: { status: [404], surface: "hosted", api: "embeddings" },
    cls: errors.InvalidURLError,
    summary: "The service offers no embeddings at this URL{message}.",
    hint: "Check `baseURL` (the host root or …/inference/v1); if it is right, this deployment does not serve /embeddings: ask its operator for an embedding model, or embed with another provider.",
    doc: {
      condition: "404, embeddings",
      action:
        "Check `baseURL`; if it is right, the deployment offers no embeddings ([embeddings](embeddings.md#errors)).",
    },
  },
  {
    // Nor /rerank: a deployment may offer embeddings and no reranker, or neither.
    match: { status: [404], surface: "hosted", api: "rerank" },
    cls: errors.InvalidURLError,
    summary: "The service offers no rerank at this URL{message}.",
    hint: "Check `baseURL` (the host root or …/inference/v1); if it is right, this deployment does not serve /rerank: ask its operator for a rerank model, or rerank with another provider.",
    doc: {
      condition: "404, rerank",
      action:
        "Check `baseURL`; if it is right, the deployment offers no rerank ([rerank](rerank.md#errors)).",
    },
  },
  {
    // Stateless calls keep nothing on the service: an item sent back by its ID alone is unknown.
    match: { status: [404], surface: "hosted", api: "responses", param: "input" },
    cls: errors.BadRequestError,
    summary: "The service does not know an item the request refers to by its ID{message}.",
    hint: "Send reasoning items back whole, with their `encrypted_content` (as this package does), not by ID: calls through the gateway keep nothing on the service (`store: false`); retrying will not help.",
    doc: {
      condition: '404 with `param` "input", Responses API',
      action:
        "An input item sent by ID alone: send reasoning items back with their `encrypted_content` ([responses](responses.md#stateless-by-default)).",
    },
  },
  {
    // The gateway has no Responses route for this model's channel, or the deployment none at all.
    match: { status: [404], surface: "hosted", api: "responses" },
    cls: errors.InvalidURLError,
    summary: "The service offers no Responses API at this URL{message}.",
    hint: 'Check `baseURL` (the host root or …/inference/v1); if it is right, this deployment does not serve /responses: leave `useResponsesApi` out (Chat Completions) or set it to "auto".',
    doc: {
      condition: "404, Responses API",
      action:
        'Check `baseURL`; if it is right, the deployment does not serve /responses: use Chat Completions, or `useResponsesApi: "auto"` ([responses](responses.md#auto)).',
    },
  },
  {
    match: { status: [404], surface: "dedicated" },
    cls: errors.ServiceNameError,
    summary: 'No deployment answers to Service-Name "{serviceName}".',
    hint: "Service-Name must be <TENANT_ID>.<JOB_ALIAS_NAME>: the tenant ID from the console sidebar, one dot, the endpoint's job alias.",
    doc: {
      condition: "404, dedicated surface",
      action:
        "Fix `Service-Name`: `<TENANT_ID>.<JOB_ALIAS_NAME>` ([dedicated endpoints, rule 2](service-contract.md#dedicated-endpoints), [errors, rule 7](service-contract.md#errors)).",
    },
  },
  {
    match: { status: [404] },
    cls: errors.InvalidURLError,
    summary: "The service does not serve the path it was sent{url}{message}.",
    hint: "Set `baseURL` to the host root or …/inference/v1 (not …/chat/completions, and the path is plural: /chat/completions).",
    doc: {
      condition: "404, hosted surface",
      action:
        "Fix `baseURL` / the path. The message shows the path the service saw, e.g. `Invalid URL (POST /v1/chat/completion)` (singular) or `/v1/chat/completions/chat/completions` (a base ending in `/chat/completions`, [hosted models, rule 1](service-contract.md#hosted-models)).",
    },
  },
  {
    match: { status: [429] },
    cls: errors.RateLimitError,
    summary: "The service is rate-limiting requests ({how}){message}.",
    hint: "Slow down or retry after the time the service asks for.",
    doc: {
      condition: "429, any body (a message in Chinese, an empty code, no body at all)",
      action:
        "Retried automatically after `Retry-After` (up to `retry.maxRetryAfterMs`, default 30 s; a longer wait fails at once). With a `rateLimiter`, every call of the limit also pauses and the rate is cut ([usage.md](usage.md#rate-limits-ratelimiter)).",
    },
  },
  {
    match: { status: [413] },
    cls: errors.BadRequestError,
    summary: "The service rejected the request as invalid ({how}){message}.",
    hint: "Send a smaller request (shorter prompt or fewer messages).",
    doc: { condition: "413 without a code below", action: "Send a smaller request." },
  },
  {
    // OpenAI's newest models refuse function tools with a reasoning effort on Chat Completions
    // and send the caller to /v1/responses (no code; `param` reasoning_effort).
    match: { status: [400], param: "reasoning_effort", says: /\/responses\b/ },
    cls: errors.BadRequestError,
    code: "responses_api_required",
    summary:
      "The model takes function tools with a reasoning effort only through the Responses API{message}.",
    hint: 'Set `useResponsesApi: true` on the model (or "auto", for a list of models of which only some need it), or drop the reasoning effort when the call has tools.',
    doc: {
      condition: '400 with `param` "reasoning_effort" that names /v1/responses',
      action:
        "Call the model through the Responses API: `useResponsesApi` ([responses](responses.md)); code `responses_api_required`.",
    },
  },
  {
    match: { status: [400, 422] },
    cls: errors.BadRequestError,
    summary: "The service rejected the request as invalid ({how}){message}.",
    hint: "Fix the request parameters named in the message.",
    doc: { condition: "400, 422 without a code below", action: BAD_REQUEST_ACTION },
  },
  {
    match: { status: [408, 409] },
    cls: errors.ServiceUnavailableError,
    summary: "The service failed to answer ({how}){message}.",
    hint: TRANSIENT_HINT,
    doc: {
      condition: "408, 409",
      action: "Retried automatically; if it persists, try later.",
    },
  },
  {
    match: { status: { from: 500, to: Number.POSITIVE_INFINITY } },
    cls: errors.ServiceUnavailableError,
    summary: "The service failed to answer ({how}){message}.",
    hint: TRANSIENT_HINT,
    doc: {
      condition: "5xx without a code below",
      action: "Retried automatically; if it persists, try later.",
    },
  },
  {
    match: { status: { from: 400, to: 499 } },
    cls: errors.BadRequestError,
    summary: "The service rejected the request ({how}){message}.",
    hint: "Check the request and the key; retrying will not help.",
    doc: { condition: "other 4xx without a code below", action: BAD_REQUEST_ACTION },
  },
  {
    match: { status: { from: Number.NEGATIVE_INFINITY, to: Number.POSITIVE_INFINITY } },
    cls: errors.MalformedResponseError,
    summary: "The service answered with an unexpected HTTP {status}.",
    hint: "Check that `baseURL` points at the inference service.",
    doc: {
      condition: "any other status (1xx, 3xx that is not a redirect)",
      action: "Check that `baseURL` points at the service; report the request ID.",
    },
  },
];

/** What a failure shows a row's `match`. */
export interface StatusFacts {
  status: number;
  surface: errors.Surface;
  api?: HostedApi;
  hasCode: boolean;
  param?: string;
  message?: string;
}

/** Whether `row` is about the failure `facts` describes. */
export function matchesStatus({ match }: StatusRow, facts: StatusFacts): boolean {
  const { status } = match;
  const inStatus = Array.isArray(status)
    ? status.includes(facts.status)
    : facts.status >= (status as { from: number }).from &&
      facts.status <= (status as { to: number }).to;
  return (
    inStatus &&
    (match.surface === undefined || match.surface === facts.surface) &&
    (match.api === undefined || match.api === facts.api) &&
    (match.hasCode === undefined || match.hasCode === facts.hasCode) &&
    (match.param === undefined || match.param === facts.param) &&
    (match.says === undefined || match.says.test(facts.message ?? ""))
  );
}

/** The first row of `STATUS_ROWS` (before the codes, or after them) that matches. */
export function statusRow(facts: StatusFacts, beforeCodes: boolean): StatusRow | undefined {
  return STATUS_ROWS.find(
    (row) => (row.beforeCodes === true) === beforeCodes && matchesStatus(row, facts),
  );
}

/** Fills a template's `{…}` parts; a part without a value reads as nothing. */
export function fillParts(template: string, parts: Readonly<Record<string, string | undefined>>) {
  return template.replace(/\{(\w+)\}/g, (_all, key: string) => parts[key] ?? "");
}
