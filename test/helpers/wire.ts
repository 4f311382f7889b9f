/** @module Test helpers: record what reaches a nock interceptor, and build service replies. */
import nock from "nock";

export const BASE = "https://svc.test";
export const KEY = "sk-test-key-0001";

/** One request as the server saw it. */
export interface Recorded {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/** A reply nock sends: status, body, headers. */
export type Reply = [number, string | Record<string, unknown>, Record<string, string>?];

/** An error class as the table tests name it: a brand check and a name. */
export type Cls = { isInstance(x: unknown): boolean; name: string };

/**
 * Intercepts POSTs to `path` (any number of times) and records each one. `replies` are used in
 * order; the last one repeats.
 */
export function intercept(path: string, ...replies: Reply[]): Recorded[] {
  const seen: Recorded[] = [];
  nock(BASE)
    .post(path)
    .times(1000)
    .reply(function (uri, body) {
      seen.push({
        path: uri,
        headers: { ...this.req.headers },
        body: (typeof body === "string" ? JSON.parse(body) : body) as Record<string, unknown>,
      });
      const reply = replies[Math.min(seen.length - 1, replies.length - 1)]!;
      return [reply[0], reply[1], reply[2] ?? {}];
    });
  return seen;
}

/** A chat.completion body with one assistant message. */
export function chatCompletion(
  message: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "test-model",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: "stop" }],
    usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 },
    ...extra,
  };
}

/** One `chat.completion.chunk` of a stream, with `delta` in its only choice. */
export function chatChunk(
  delta: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: "chatcmpl-s",
    object: "chat.completion.chunk",
    created: 1,
    model: "test-model",
    choices: [{ index: 0, delta, finish_reason: null }],
    ...extra,
  };
}

/** An SSE body from event payloads, ending with `[DONE]` unless `done` is false. */
export function sse(events: unknown[], done = true): string {
  return (
    events.map((e) => `data: ${typeof e === "string" ? e : JSON.stringify(e)}\n\n`).join("") +
    (done ? "data: [DONE]\n\n" : "")
  );
}

export const SSE_HEADERS = { "Content-Type": "text/event-stream" };
export const JSON_HEADERS = {
  "Content-Type": "application/json",
  "X-Gateway-Request-Id": "req-ok-1",
};

/**
 * A streamed 200 reply: the role chunk, one chunk per delta, a chunk finishing with `stop` and,
 * when `usage` is given, the usage chunk.
 */
export function streamedReply(
  deltas: Array<Record<string, unknown>>,
  usage?: Record<string, number>,
): Reply {
  return [
    200,
    sse([
      chatChunk({ role: "assistant", content: "" }),
      ...deltas.map((delta) => chatChunk(delta)),
      chatChunk({}, { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
      ...(usage ? [chatChunk({}, { choices: [], usage })] : []),
    ]),
    SSE_HEADERS,
  ];
}
