/**
 * @module A minimal fixed-response `node:http` server on 127.0.0.1: the floor the emulator is
 * compared with. Every reply is precomputed (or, for long streams, generated incrementally from
 * one precomputed event) and chosen by the first path segment, so a client selects it through its
 * base URL: `http://127.0.0.1:<port>/<route>/inference/v1`.
 *
 * Routes: `json` (a `chat.completion`), `sse-<events>-<chars>` (a chat stream of `<events>`
 * content events of `<chars>` characters each, written with back-pressure), `e401`, `e403`,
 * `e404`, `e503` (the service contract's docs/service-contract.md#errors bodies), `html` (a 200 `text/html` page),
 * `g-<fault>` (the gateway reply the emulator's fault of that name sends, e.g. `g-access_denied`),
 * `loop` (a 307 back to the same path, for ever).
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { GATEWAY_FAULTS } from "../../src/emulator/faults/gateway_faults.js";
import type { EmulatorResponse } from "../../src/emulator/reply.js";

export const FIXED_MODEL = "bench-model";
const REQUEST_ID = "20250101000000000123456700000001";
const CREATED = 1_735_689_600;

/** A content string of `chars` characters made of short words (`"tok "` for one token). */
function contentOf(chars: number): string {
  return "tok ".repeat(Math.ceil(chars / 4)).slice(0, chars);
}

const chunkEvent = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({
    id: `chatcmpl-${REQUEST_ID}`,
    object: "chat.completion.chunk",
    created: CREATED,
    model: FIXED_MODEL,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  })}\n\n`;

/** Bytes on the wire of one content event carrying `chars` characters. */
export function sseEventBytes(chars: number): number {
  return Buffer.byteLength(chunkEvent({ content: contentOf(chars) }));
}

/** The route name of a stream of `events` content events of `chars` characters each. */
export function sseRoute(events: number, chars: number): string {
  return `sse-${events}-${chars}`;
}

/** The `chat.completion` body of the `json` route. */
export const COMPLETION = JSON.stringify({
  id: `chatcmpl-${REQUEST_ID}`,
  object: "chat.completion",
  created: CREATED,
  model: FIXED_MODEL,
  choices: [
    {
      index: 0,
      message: { role: "assistant", content: "Paris is the capital of France.", refusal: null },
      logprobs: null,
      finish_reason: "stop",
    },
  ],
  usage: { prompt_tokens: 15, completion_tokens: 8, total_tokens: 23 },
});

const errorBody = (error: Record<string, string>) => JSON.stringify({ error });
const ERRORS: Record<string, { status: number; body: string }> = {
  e401: {
    status: 401,
    body: errorBody({
      code: "",
      message: `Invalid token (request id: ${REQUEST_ID})`,
      type: "new_api_error",
    }),
  },
  e403: {
    status: 403,
    body: errorBody({
      code: "insufficient_user_quota",
      message: `用户额度不足, 剩余额度: ¥0.000000 (request id: ${REQUEST_ID})`,
      type: "new_api_error",
      param: "",
    }),
  },
  e404: {
    status: 404,
    body: errorBody({
      code: "",
      message: "Invalid URL (POST /v1/chat/completion)",
      type: "invalid_request_error",
      param: "",
    }),
  },
  e503: {
    status: 503,
    body: errorBody({
      code: "model_not_found",
      message: `No available channel for model ${FIXED_MODEL} under group default (request id: ${REQUEST_ID})`,
      type: "new_api_error",
    }),
  },
};
/** The gateway's replies, precomputed once with this server's request ID and model. */
const GATEWAY: Record<string, { status: number; headers: Record<string, string>; body: string }> =
  Object.fromEntries(
    Object.entries(GATEWAY_FAULTS).map(([name, { answer }]) => {
      // A request with every part a reply may be about (a `json_schema` response format).
      const request = { model: FIXED_MODEL, response_format: { type: "json_schema" } };
      const context = {
        requestId: REQUEST_ID,
        body: JSON.stringify(request),
        url: "/",
        retryAfterSeconds: 1,
      };
      const reply = answer!(context) as EmulatorResponse;
      const body = typeof reply.body === "string" ? reply.body : reply.body.join("");
      return [`g-${name}`, { status: reply.status, headers: reply.headers, body }];
    }),
  );

const HTML =
  "<!doctype html><html><head><title>Inference Service Console</title></head>" +
  '<body><div id="root">Loading…</div></body></html>';

const STREAM_HEAD = chunkEvent({ role: "assistant", content: "" });
const STREAM_TAIL =
  chunkEvent({}, "stop") +
  `data: ${JSON.stringify({
    id: `chatcmpl-${REQUEST_ID}`,
    object: "chat.completion.chunk",
    created: CREATED,
    model: FIXED_MODEL,
    choices: [],
    usage: { prompt_tokens: 15, completion_tokens: 1, total_tokens: 16 },
  })}\n\ndata: [DONE]\n\n`;
// About this much is handed to the socket per write.
const WRITE_BYTES = 16 * 1024;

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, {
    "content-type": type,
    "content-length": Buffer.byteLength(body),
    "x-gateway-request-id": REQUEST_ID,
  });
  res.end(body);
}

/** Writes a long stream with back-pressure, never holding more than one batch of events. */
function stream(res: ServerResponse, events: number, chars: number): void {
  const event = Buffer.from(chunkEvent({ content: contentOf(chars) }));
  const perWrite = Math.max(1, Math.floor(WRITE_BYTES / event.length));
  const batch = Buffer.concat(Array.from({ length: perWrite }, () => event));
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "x-gateway-request-id": REQUEST_ID,
  });
  // The head and the first content event go out at once, so time to first token is not batched.
  res.write(STREAM_HEAD);
  let left = events;
  if (left > 0) {
    res.write(event);
    left--;
  }
  const pump = () => {
    while (left > 0 && !res.destroyed) {
      const n = Math.min(left, perWrite);
      left -= n;
      if (!res.write(n === perWrite ? batch : batch.subarray(0, n * event.length))) {
        res.once("drain", pump);
        return;
      }
    }
    if (!res.destroyed) res.end(STREAM_TAIL);
  };
  pump();
}

function reply(route: string, res: ServerResponse, path: string): void {
  const error = ERRORS[route];
  const gateway = GATEWAY[route];
  const sse = /^sse-(\d+)-(\d+)$/.exec(route);
  if (route === "json") send(res, 200, "application/json", COMPLETION);
  else if (route === "html") send(res, 200, "text/html; charset=utf-8", HTML);
  else if (error) send(res, error.status, "application/json", error.body);
  else if (gateway) {
    res.writeHead(gateway.status, {
      ...gateway.headers,
      "content-length": Buffer.byteLength(gateway.body),
    });
    res.end(gateway.body);
  } else if (route === "loop") {
    res.writeHead(307, { location: path, "content-length": 0, "x-gateway-request-id": REQUEST_ID });
    res.end();
  } else if (sse) stream(res, Number(sse[1]), Number(sse[2]));
  else
    send(res, 400, "application/json", errorBody({ code: "bench", message: `no route ${route}` }));
}

/** A running fixed server. */
export interface FixedServer {
  /** `http://127.0.0.1:<port>`; append `/<route>/inference/v1` for a base URL. */
  url: string;
  close(): Promise<void>;
}

/** Starts the fixed server on a free port of 127.0.0.1. */
export async function startFixedServer(): Promise<FixedServer> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const route = (req.url ?? "/").split("/")[1] ?? "";
    req.on("error", () => {});
    res.on("error", () => {});
    // Drain the request body first, so keep-alive connections stay usable.
    req.resume();
    req.on("end", () => reply(route, res, req.url ?? "/"));
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
