/**
 * @module What every other failure means — no response, a response cut or stalled, a redirect, a
 * body that is not the API's — as one table: the first row that matches the failure's kind and
 * circumstances gives the class, this package's `code` where it sets one, the summary and the
 * hint. Rows marked `byStatus` hand the failure on to the status (`status_rows.ts`) and the
 * gateway's code (`gateway_codes.ts`). The mapper reads it; docs/errors.md's "Without a
 * response, or after one began" table is generated from it (`npm run docs:errors`).
 */
// The table names many classes of errors.ts: the module is imported whole.
import * as errors from "./errors.js";
import { type ErrorClass, TRANSIENT_HINT } from "./gateway_codes.js";

/** The kinds of failure the mapper is given (see `Failure` in `mapper.ts`). */
export type FailureKind =
  | "http"
  | "stream-error"
  | "network"
  | "timeout"
  | "redirect"
  | "still-pending"
  | "empty"
  | "non-json"
  | "malformed";

/** Which failures a row is about; every field given must match. */
export interface FailureMatch {
  kind: FailureKind;
  surface?: errors.Surface;
  /** The failure came while a 200 stream was being read. */
  midStream?: boolean;
  /** The connection failed after the response had begun. */
  afterResponse?: boolean;
  /** A network failure whose code means nothing listens or the peer hung up (a Pending endpoint). */
  notReady?: boolean;
  /** A timeout waiting for the next event of a body, not for the response to begin. */
  idle?: boolean;
  /** The response's headers had arrived. */
  began?: boolean;
  /** A redirect to another origin. */
  crossOrigin?: boolean;
}

/**
 * One row. In `summary` and `hint`: `{subject}` is `model "<id>"` or `dedicated endpoint
 * "<Service-Name>"`; `{at}` / `{to}` ` at <URL>` / ` to <URL>` when known; `{cause}` why a
 * connection failed, in words, and `{fix}` what to check; `{causeCode}` ` (<its code>)`;
 * `{idleMs}`, `{after}` (` after <ms> ms`), `{hops}`, `{origin}`, `{lastTo}` (`, last to <URL>`),
 * `{waitedMs}`, `{limitMs}`;
 * `{source}` the URL or "The service", `{status}`, `{what}` (an HTML page, a content type),
 * `{preview}` the start of a body; `{detail}` what is wrong with an answer and `{bodyStart}`
 * ` (body starts: …)`.
 */
export interface FailureRow {
  match: FailureMatch;
  /** Typed by the status and the service's code instead (`statusRow`, `gatewayCode`). */
  byStatus?: true;
  cls?: ErrorClass;
  /** The `code` this package sets, where the service sent none. */
  code?: string;
  summary?: string;
  hint?: string;
  /** The row as docs/errors.md shows it: when it applies, and what a program should do. */
  doc: { condition: string; action: string };
}

/** The hint of an endpoint that is not serving yet. */
export const PENDING_HINT =
  "Wait until the endpoint's Scaling in the console shows every replica running (e.g. 1/1), then call again; or set `waitForReady` to let calls wait for it.";

const CUT = "The connection{to} was cut before the response was complete{causeCode}.";
const BASE_URL_HINT = "Check that `baseURL` points at the inference service.";

/** The rows, in the order they are tried. */
export const FAILURE_ROWS: readonly FailureRow[] = [
  {
    match: { kind: "http" },
    byStatus: true,
    doc: {
      condition:
        'an HTTP error status, or a 200 whose JSON is an `{"error": …}` object (invoke or stream; also a JSON error sent as `text/event-stream`)',
      action:
        "By its code (see the table above), else its status; an error object in a 200 by the status it implies — a 429 for `rate_limit_exceeded`, a 400 for type `invalid_request_error`, else a retried 500. Never a silent empty answer.",
    },
  },
  {
    match: { kind: "stream-error" },
    byStatus: true,
    doc: {
      condition: 'an `{"error": …}` event inside a 200 stream',
      action:
        "The class its code or status maps to; `midStream: true`, `partialOutput` holds what had arrived. Not retried once events were handed out; retried like its row says when it is the first event.",
    },
  },
  {
    match: { kind: "network", midStream: true },
    cls: errors.ServiceConnectionError,
    summary: CUT,
    hint: "The output received so far is in `partialOutput`; call again for the whole answer.",
    doc: {
      condition:
        "the connection cut in the middle of a stream, or a stream that ends — however cleanly — with neither a finish reason nor `data: [DONE]`",
      action: "`midStream`, `partialOutput` and the request ID kept; call again.",
    },
  },
  {
    match: { kind: "network", afterResponse: true },
    cls: errors.ServiceConnectionError,
    summary: CUT,
    hint: TRANSIENT_HINT,
    doc: {
      condition:
        "the connection cut after the headers (a cut JSON body, a cut JSON answer to a stream request)",
      action: "Retried automatically; the request ID of the response is kept.",
    },
  },
  {
    match: { kind: "network", surface: "dedicated", notReady: true },
    cls: errors.EndpointNotReadyError,
    summary: "The {subject}{at} is not serving yet (still Pending): {cause}.",
    hint: PENDING_HINT,
    doc: {
      condition: "refused or closed connection, dedicated surface",
      action:
        "The endpoint is still Pending ([endpoint states](service-contract.md#endpoint-states)): wait until Scaling shows `1/1`, or set `waitForReady`.",
    },
  },
  {
    match: { kind: "network" },
    cls: errors.ServiceConnectionError,
    summary: "Could not reach the inference service{at}: {cause}.",
    hint: "{fix}; connection failures are retried automatically.",
    doc: {
      condition: "network failure before a response",
      action:
        "Retried automatically; the message says why (refused, DNS, TLS, timeout) and what to check.",
    },
  },
  {
    match: { kind: "timeout", idle: true, midStream: true },
    cls: errors.ServiceTimeoutError,
    code: "idle_timeout",
    summary:
      "The response stalled: no complete event arrived for {idleMs} ms in the middle of the stream.",
    hint: "The output received so far is in `partialOutput`; call again, or raise `idleTimeout` (default: `timeout`) if the model pauses this long.",
    doc: {
      condition:
        "a stream that stalls after its first event: no complete event for `idleTimeout` (default `timeout`), however many comments or bytes of an unfinished event arrive",
      action:
        "`midStream`, `partialOutput` kept; call again. Raise `idleTimeout` if the model pauses that long.",
    },
  },
  {
    match: { kind: "timeout", idle: true },
    cls: errors.ServiceTimeoutError,
    code: "idle_timeout",
    summary: "The response stalled: no complete event arrived for {idleMs} ms.",
    hint: "It is retried automatically; raise `idleTimeout` (default: `timeout`) if the model pauses this long before answering.",
    doc: {
      condition:
        "a response that stalls before its first event (or a JSON answer to a stream request that does not arrive whole) within `idleTimeout`",
      action: "Retried like a failed request.",
    },
  },
  {
    match: { kind: "timeout", began: true },
    cls: errors.ServiceTimeoutError,
    code: "timeout",
    summary: "The response began but did not finish before the timeout{after}.",
    hint: "Raise `timeout`, or retry; timeouts are retried automatically.",
    doc: {
      condition: "a non-streamed answer that has not arrived whole within `timeout`",
      action: "Retried automatically; the request ID of the response is kept.",
    },
  },
  {
    match: { kind: "timeout" },
    cls: errors.ServiceTimeoutError,
    code: "timeout",
    summary: "The service did not answer before the timeout{after}.",
    hint: "Raise `timeout`, or retry; timeouts are retried automatically.",
    doc: {
      condition: "no response within `timeout` (per attempt)",
      action: "Retried automatically; raise `timeout` if the service is slow to answer.",
    },
  },
  {
    match: { kind: "redirect", crossOrigin: true },
    cls: errors.BaseURLError,
    code: "cross_origin_redirect",
    summary:
      "The service redirected the call to another origin ({origin}); the key is never sent there.",
    hint: "Set `baseURL` to the URL the service redirects to, if you trust it.",
    doc: {
      condition: "a redirect to another origin (never followed: the key stays on the service)",
      action: "Set `baseURL` to where it redirects, if you trust it.",
    },
  },
  {
    match: { kind: "redirect" },
    cls: errors.BaseURLError,
    code: "too_many_redirects",
    summary:
      "The service redirected the call {hops} times without answering (a redirect loop{lastTo}).",
    hint: "Set `baseURL` to the service's own …/inference/v1 URL, not one that redirects (a proxy or load balancer may be misconfigured).",
    doc: {
      condition: "more than 5 redirects",
      action: "Set `baseURL` to the service's own URL, not one that redirects.",
    },
  },
  {
    match: { kind: "still-pending" },
    cls: errors.EndpointNotReadyError,
    summary:
      "The {subject} was still not ready after waiting {waitedMs} ms (`waitForReady`: {limitMs} ms).",
    hint: "Check in the console that the endpoint's Scaling shows every replica running (e.g. 1/1), then call again, or raise `waitForReady`.",
    doc: {
      condition: "a dedicated endpoint still Pending when `waitForReady` runs out",
      action: "Check the endpoint's Scaling in the console, or raise `waitForReady`.",
    },
  },
  {
    match: { kind: "empty", surface: "dedicated" },
    cls: errors.EndpointNotReadyError,
    summary:
      "The {subject} answered with an empty response: it is not serving yet (still Pending).",
    hint: PENDING_HINT,
    doc: {
      condition: "an empty response (or a stream with no event), dedicated surface",
      action:
        "The endpoint is still Pending ([endpoint states](service-contract.md#endpoint-states)): wait until Scaling shows `1/1`, or set `waitForReady`.",
    },
  },
  {
    match: { kind: "empty" },
    cls: errors.MalformedResponseError,
    summary: "The service answered HTTP 200 with an empty body.",
    hint: BASE_URL_HINT,
    doc: {
      condition: "an empty 200, hosted surface",
      action: "Check that `baseURL` points at the service; report the request ID.",
    },
  },
  {
    match: { kind: "non-json" },
    cls: errors.BaseURLError,
    summary:
      '{source} answered HTTP {status} with {what} instead of the API\'s JSON ("{preview}").',
    hint: "That URL is not the inference service's API (a console page, or a wrong path prefix): set `baseURL` to the service's host root or its …/inference/v1 URL.",
    doc: {
      condition: "200 with HTML or other non-JSON, also when labelled `application/json`",
      action:
        "The base URL misses `/v1` ([hosted models, rule 2](service-contract.md#hosted-models), [errors, rule 4](service-contract.md#errors)).",
    },
  },
  {
    match: { kind: "malformed" },
    cls: errors.MalformedResponseError,
    summary: "The service's answer is not usable: {detail}{bodyStart}.",
    hint: "Check that `baseURL` points at the inference service; if it does, report the request ID.",
    doc: {
      condition:
        "200 JSON without a non-empty `choices`, or with a choice that carries nothing (`choices: [{}]`, `message: null`, a message with no content, tool calls, reasoning or finish reason), or a stream whose choices never carry any of those (both surfaces; a tool-call-only message with `content: null` is an answer)",
      action:
        "Check that `baseURL` points at the service; report the request ID ([errors, rule 4](service-contract.md#errors)). `stream()` raises the same error as `invoke()`.",
    },
  },
];

/** What a failure shows a row's `match`. */
export type FailureFacts = Required<Omit<FailureMatch, "surface">> & {
  surface: errors.Surface;
};

/** The first row that matches the failure `facts` describes (the table ends with one per kind). */
export function failureRow(facts: FailureFacts): FailureRow {
  const row = FAILURE_ROWS.find(({ match }) =>
    (Object.keys(match) as Array<keyof FailureMatch>).every((key) => match[key] === facts[key]),
  );
  if (row === undefined) throw new Error(`no row for a failure of kind ${facts.kind}`);
  return row;
}
