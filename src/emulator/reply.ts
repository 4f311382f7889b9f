/** @module The transport-neutral request and reply the handler speaks, shared by node:http and the in-process fetch. */

/** The request as the handler sees it; both transports fill it without building a Web `Request`. */
export interface EmulatorRequest {
  method: string;
  /** Path and query as sent, e.g. `/inference/v1/chat/completions`. */
  url: string;
  /** Header values by lower-case name (the shape of `IncomingMessage.headers`). */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: string;
  /** Set by a transport that stopped reading a body over the limit (`body` is then empty): 413. */
  bodyTooLarge?: boolean;
}

/** An HTTP response. A `string[]` body is a stream: each item is written as it comes (SSE events). */
export interface EmulatorResponse {
  kind: "response";
  status: number;
  headers: Record<string, string>;
  body: string | readonly string[];
  /** Kill the connection after writing `body` instead of finishing the response (truncation faults). */
  abort: boolean;
  /** Leave the response open after writing `body`, sending nothing more (stall faults). */
  stall?: boolean;
  /** Wait this long before answering (latency fault). */
  delayMs: number;
  /**
   * A stream is billed by what the gateway relayed before it noticed the client gone, as new-api
   * bills it: the transport calls this once, with how many items of `body` it wrote — all of
   * them when the stream ran to its end or went out at once (no delay between events), fewer
   * when a paced stream's client went away first.
   */
  delivered?: (items: number) => void;
  /** Replay with recorded timing: the wait before each item of a stream body (default: the stream delay). */
  chunkDelaysMs?: readonly number[];
}

/** Close the connection without any response (docs/service-contract.md#endpoint-states Pending endpoint, reset fault). */
export interface EmulatorDrop {
  kind: "drop";
  /** true: reset (RST, like a crashed peer); false: orderly close (an empty response). */
  reset: boolean;
  delayMs: number;
}

export type EmulatorReply = EmulatorResponse | EmulatorDrop;

/**
 * The emulator's own answer header: which prompt-cache controls a chat request carried
 * (`prompt_cache_key`, `prompt_cache_retention`, `cache_control` breakpoints), when it carried any.
 */
export const PROMPT_CACHE_HEADER = "X-Emulator-Prompt-Cache";

/** Every response carries it (docs/service-contract.md#errors, rule 5); the middle word is the emulator's neutral choice. */
export const REQUEST_ID_HEADER = "X-Gateway-Request-Id";

const JSON_TYPE = "application/json; charset=utf-8";

export function jsonReply(
  status: number,
  body: unknown,
  requestId: string,
  extraHeaders?: Record<string, string>,
): EmulatorResponse {
  return {
    kind: "response",
    status,
    headers: { "Content-Type": JSON_TYPE, [REQUEST_ID_HEADER]: requestId, ...extraHeaders },
    body: JSON.stringify(body),
    abort: false,
    delayMs: 0,
  };
}

export function streamReply(events: readonly string[], requestId: string): EmulatorResponse {
  return {
    kind: "response",
    status: 200,
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache",
      [REQUEST_ID_HEADER]: requestId,
    },
    body: events,
    abort: false,
    delayMs: 0,
  };
}

export function dropReply(reset: boolean): EmulatorDrop {
  return { kind: "drop", reset, delayMs: 0 };
}

/** One server-sent event of a stream body: `data: <json>` and a blank line. */
export function sseEvent(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/** First value of a header, by lower-case name. */
export function headerValue(request: EmulatorRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
