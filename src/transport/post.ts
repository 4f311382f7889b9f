/**
 * @module A JSON request sent straight through the fetch layer, for the APIs the openai SDK has
 * no method for (rerank): there its `post` adds only its own headers, a timer and a promise
 * chain, which on a fast server cost a fifth of the call (bench 12). What it must keep, this
 * keeps: the key in `Authorization`, one `timeout` over the request and the reading of its
 * answer, the caller's cancellation, and an answer shaped as `withResponse()` gives it.
 */
import type { Answer } from "./attempt.js";
import { DEFAULT_IDLE_TIMEOUT_MS, type Fetch } from "./fetch.js";

/** Where and how a channel's direct requests go. */
export interface DirectTarget {
  /** The full URL: the base URL and the API's path. */
  url: string;
  apiKey: string;
  /** The channel's fetch layer (`createServiceFetch`), which types every failure. */
  fetch: Fetch;
  /** Milliseconds for the request and the reading of its answer. @default 600000 (as the SDK) */
  timeout?: number;
}

/** One direct request. */
export interface DirectRequest {
  body: Record<string, unknown>;
  signal?: AbortSignal;
  /** This request's headers, over the target's; `null` removes one. */
  headers?: Record<string, string | null>;
}

/**
 * Sends `request` and reads its JSON answer. A timeout aborts it with a `TimeoutError` (typed by
 * the error mapper as a retryable `ServiceTimeoutError`); the caller's abort with its own reason.
 */
export async function postJSON(
  target: DirectTarget,
  request: DirectRequest,
): Promise<Answer<unknown>> {
  const { signal } = request;
  const deadline = new AbortController();
  const onAbort = () => deadline.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(
    () => deadline.abort(new DOMException("The request timed out.", "TimeoutError")),
    target.timeout ?? DEFAULT_IDLE_TIMEOUT_MS,
  );
  try {
    const response = await target.fetch(target.url, {
      method: "POST",
      headers: headersOf(target.apiKey, request.headers),
      body: JSON.stringify(request.body),
      signal: deadline.signal,
    });
    // The fetch layer let only a 2xx JSON answer through, and reads it checked.
    const data: unknown = JSON.parse(await response.text());
    return { data, response };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

function headersOf(
  apiKey: string,
  extra: Record<string, string | null> | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${apiKey}`,
    "content-type": "application/json",
    accept: "application/json",
  };
  if (extra === undefined) return headers;
  for (const [name, value] of Object.entries(extra)) {
    const key = name.toLowerCase();
    if (value === null) delete headers[key];
    else headers[key] = value;
  }
  return headers;
}
