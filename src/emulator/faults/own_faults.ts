/**
 * @module The emulator's own faults, by the name `X-Emulator-Fault` takes: transient statuses, a
 * reset connection, a redirect loop, and the ways an answer can arrive broken (cut, stalled,
 * empty, without choices, an error inside a stream).
 */

import {
  dropReply,
  type EmulatorResponse,
  jsonReply,
  REQUEST_ID_HEADER,
  sseEvent,
} from "../reply.js";
import type { FaultDefinition } from "./fault.js";

/** Injected 429 (docs/service-contract.md#errors, rule 9 leaves open whether the service sends one; users' retry code needs it). */
function rateLimited(requestId: string, retryAfterSeconds: number): EmulatorResponse {
  return jsonReply(
    429,
    {
      error: {
        code: "rate_limit_exceeded",
        message: `Rate limit exceeded, please retry later (request id: ${requestId})`,
        type: "new_api_error",
      },
    },
    requestId,
    { "Retry-After": String(retryAfterSeconds) },
  );
}

const UPSTREAM_MESSAGES = {
  500: "Internal server error",
  502: "Bad gateway: the upstream model server did not answer",
  503: "Service temporarily unavailable",
} as const;

/** Injected 500/502/503: transient, so never `model_not_found` (that 503 must not be retried). */
function upstreamError(requestId: string, status: 500 | 502 | 503): EmulatorResponse {
  return jsonReply(status, upstreamErrorBody(requestId, UPSTREAM_MESSAGES[status]), requestId);
}

/** The body of an upstream failure, also sent as an SSE event by the `stream-error` fault. */
function upstreamErrorBody(requestId: string, message: string): object {
  return {
    error: {
      code: "upstream_error",
      message: `${message} (request id: ${requestId})`,
      type: "new_api_error",
    },
  };
}

const upstream = (status: 500 | 502 | 503, summary: string): FaultDefinition => ({
  summary,
  answer: ({ requestId }) => upstreamError(requestId, status),
});

/** Half a JSON body, or the first half of a stream's events (at least one, never [DONE]). */
function half(body: EmulatorResponse["body"]): EmulatorResponse["body"] {
  return typeof body === "string"
    ? body.slice(0, body.length >> 1)
    : body.slice(0, Math.max(1, body.length >> 1));
}

/** No body at all: an empty JSON body, or a stream without events. */
function none(body: EmulatorResponse["body"]): EmulatorResponse["body"] {
  return typeof body === "string" ? "" : [];
}

/** The answer with nothing in it: no `choices` (no `output`), events of the answer left out. */
function withoutChoices(reply: EmulatorResponse): EmulatorResponse {
  const { body } = reply;
  if (typeof body === "string") {
    const answer = JSON.parse(body);
    // A typed-events API's answer is its `output`; a chat or completions answer its `choices`.
    const emptied = "output" in answer ? { ...answer, output: [] } : { ...answer, choices: [] };
    return { ...reply, body: JSON.stringify(emptied) };
  }
  // The usage chunk (`choices: []`) and [DONE] stay; typed events keep their start and end.
  return { ...reply, body: body.flatMap(withoutAnswer) };
}

/**
 * One event of a stream without the answer it carries: a chat chunk with a choice, or a typed
 * event of an output item, is dropped; the event that ends a typed stream keeps no output.
 */
function withoutAnswer(event: string): string[] {
  if (
    /"choices":\[\{/.test(event) ||
    /^event: response\.(output_|content_part|function_call|reasoning)/.test(event)
  ) {
    return [];
  }
  const terminal = /^event: (response\.(completed|incomplete))\ndata: (.*)\n\n$/s.exec(event);
  if (!terminal) return [event];
  const data = JSON.parse(terminal[3]!);
  return [
    `event: ${terminal[1]}\ndata: ${JSON.stringify({ ...data, response: { ...data.response, output: [] } })}\n\n`,
  ];
}

/** The faults of the emulator's own, in the order of their table. */
export const OWN_FAULTS = {
  "429": {
    summary:
      "429 `rate_limit_exceeded` with `Retry-After: <retryAfterSeconds>`: a rate limit, to retry after the wait",
    answer: ({ requestId, retryAfterSeconds }) => rateLimited(requestId, retryAfterSeconds),
  },
  "500": upstream(500, "500 `upstream_error`: a transient server error, which clients may retry"),
  "502": upstream(502, "502 `upstream_error`: a transient server error, which clients may retry"),
  "503": upstream(
    503,
    "503 `upstream_error` (never `model_not_found`): a transient server error, which clients may retry",
  ),
  reset: {
    summary:
      'The connection is reset with no response (in-process: `TypeError("fetch failed")`, cause `ECONNRESET`)',
    answer: () => dropReply(true),
  },
  truncate: {
    summary:
      "The reply stops halfway and the connection dies: half a stream's events (no `[DONE]`), or half a JSON body",
    // Half the events (never [DONE]) or half the JSON, then the connection dies.
    damage: (reply) => ({ ...reply, body: half(reply.body), abort: true }),
  },
  "stream-error": {
    summary:
      "A stream sends two chunks, then an SSE `error` event, and ends without `[DONE]`; a call not streamed gets 500 `upstream_error`",
    damage: (reply, requestId) => {
      const { body } = reply;
      if (typeof body === "string") return upstreamError(requestId, 500);
      const error = sseEvent(upstreamErrorBody(requestId, "Upstream stream interrupted"));
      return { ...reply, body: [...body.slice(0, 2), error] };
    },
  },
  stall: {
    summary: "The status and headers, then nothing, never ending: only a client's timeout ends it",
    damage: (reply) => ({ ...reply, body: none(reply.body), stall: true }),
  },
  "stall-mid": {
    summary: "Half the events (or half the JSON), then nothing, never ending",
    damage: (reply) => ({ ...reply, body: half(reply.body), stall: true }),
  },
  empty: {
    summary: "200 with no body at all: a stream with no event, not even `[DONE]`",
    damage: (reply) => ({ ...reply, body: none(reply.body) }),
  },
  "no-choices": {
    summary:
      "200 with no `choices` (no `output` on /responses); a stream sends only its usage or its first and last events",
    damage: withoutChoices,
  },
  "redirect-loop": {
    summary: "307 with `Location` set to the request's own path, for ever",
    // A client that follows it never gets an answer.
    answer: ({ requestId, url }) => ({
      kind: "response",
      status: 307,
      headers: { Location: url, [REQUEST_ID_HEADER]: requestId },
      body: "",
      abort: false,
      delayMs: 0,
    }),
  },
  shuffle: {
    summary:
      "An embeddings answer lists its items out of order, each keeping its `index`; other routes answer as usual",
  },
  "ignore-response-format": {
    summary:
      "A chat answer ignores `response_format` and comes in prose, a billed 200, as from a channel that does not read the field",
  },
} as const satisfies Readonly<Record<string, FaultDefinition>>;
