/** @module The emulator over real HTTP: a `node:http` server on loopback that speaks the handler's replies. */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { warmUpTokenizer } from "../model/tokens.js";
import { checkEmulatorOptions, type StartEmulatorOptions } from "../options.js";
import type { EmulatorReply, EmulatorResponse } from "../reply.js";
import type { EmulatorState } from "../state/state.js";
import { createCore, type EmulatorCore } from "./core.js";
import type { ReplaySession } from "./replay.js";
import { wirePlan } from "./wire.js";

/** A running emulator server. */
export interface RunningEmulator {
  /** `http://127.0.0.1:<port>/inference/v1`: what clients use as base URL. */
  baseURL: string;
  /** `http://127.0.0.1:<port>`: the host root (HTML page, admin API under `/_emulator/`). */
  url: string;
  port: number;
  /** The demo key (`sk-emulator-demo` unless the options replaced the keys). */
  apiKey: string;
  state: EmulatorState;
  /** With the `replay` option: the cassette, the recordings not served yet, and `rewind()` to serve them again. */
  replay?: ReplaySession;
  /** Stops listening and closes every connection, keep-alive ones included, so the process can exit. */
  close(): Promise<void>;
}

/**
 * Starts the emulator on `options.port` (default 0: a free port) on 127.0.0.1.
 *
 * @example
 * const emulator = await startEmulator();
 * process.env.INFERENCE_SERVICE_BASE_URL = emulator.baseURL;
 * process.env.INFERENCE_SERVICE_API_KEY = emulator.apiKey;
 * // ... run the app or the tests ...
 * await emulator.close();
 */
export async function startEmulator(options: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  // Before the spread below, which would turn a string into options "0", "1", …
  checkEmulatorOptions(options);
  const { port = 0, host = "127.0.0.1" } = options;
  const core = createCore({ ...options, host });
  // The tokenizer takes most of a second to build: pay it before the first request, not during.
  warmUpTokenizer();
  const timers = new Timers();
  const server = createServer(requestListener(core, timers));
  await listen(server, port, host);
  return running(server, host, core, timers);
}

/** The timers of delayed replies and streamed chunks, all cleared when the server closes. */
class Timers {
  readonly #pending = new Set<NodeJS.Timeout>();

  /** Runs `run` after `ms`, unless the server closes first. */
  later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.#pending.delete(timer);
      run();
    }, ms);
    this.#pending.add(timer);
  }

  clear(): void {
    for (const timer of this.#pending) clearTimeout(timer);
    this.#pending.clear();
  }
}

/**
 * Reads each request's body up to the core's limit (a larger one gets 413 without being read),
 * hands it to the handler, and writes the reply after its delay.
 */
function requestListener(
  core: EmulatorCore,
  timers: Timers,
): (request: IncomingMessage, response: ServerResponse) => void {
  const limit = core.context.maxBodyBytes;
  return (request, response) => {
    const answer = (body: string, bodyTooLarge: boolean) => {
      const reply = core.handle({
        method: request.method ?? "GET",
        url: request.url ?? "/",
        headers: request.headers,
        body,
        bodyTooLarge,
      });
      const send = () => sendReply(reply, request, response, core.streamChunkDelayMs, timers);
      if (reply.delayMs > 0) timers.later(reply.delayMs, send);
      else send();
    };
    // A client that hangs up mid-request is its own business; it must not crash the server.
    request.on("error", ignore);
    readBody(request, response, limit, answer);
  };
}

/** Calls `answer` with the body, or with `bodyTooLarge` as soon as it passes `limit` bytes. */
function readBody(
  request: IncomingMessage,
  response: ServerResponse,
  limit: number,
  answer: (body: string, bodyTooLarge: boolean) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const tooLarge = () => {
    // Stop reading: the rest of the body is never buffered, and the socket closes once the
    // 413 is out (its `Connection: close` says so to the client).
    request.removeListener("data", onData);
    request.removeListener("end", onEnd);
    request.pause();
    response.once("finish", () => request.socket.destroySoon());
    answer("", true);
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) tooLarge();
    else chunks.push(chunk);
  };
  const onEnd = () =>
    answer(
      chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8"),
      false,
    );
  if (Number(request.headers["content-length"] ?? 0) > limit) {
    tooLarge();
    return;
  }
  request.on("data", onData);
  request.on("end", onEnd);
}

function sendReply(
  reply: EmulatorReply,
  request: IncomingMessage,
  response: ServerResponse,
  chunkDelayMs: number,
  timers: Timers,
): void {
  if (reply.kind === "drop") {
    // docs/service-contract.md#endpoint-states Pending: an orderly close with nothing written is "an empty response"; the reset
    // fault sends RST instead, like a crashed upstream.
    if (reply.reset) request.socket.resetAndDestroy();
    else request.socket.destroy();
    return;
  }
  writeReply(reply, response, chunkDelayMs, (ms, run) => timers.later(ms, run));
}

/** Listens on `host:port`, rejecting with the server's error (a port in use) instead of throwing it. */
export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** The handle of a listening server: its URLs, key and state, and how to stop it. */
function running(
  server: Server,
  host: string,
  core: EmulatorCore,
  timers: Timers,
): RunningEmulator {
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  return {
    baseURL: `${url}/inference/v1`,
    url,
    port,
    apiKey: core.apiKey,
    state: core.context.state,
    ...(core.replay ? { replay: core.replay } : {}),
    close: () =>
      new Promise<void>((resolve) => {
        timers.clear();
        server.close(() => resolve());
        // Keep-alive sockets would hold the server (and the process) open until they time out.
        server.closeAllConnections();
      }),
  };
}

/** Writes a reply to `response` (exported for the recording proxy, which replays through it). */
export function writeReply(
  reply: EmulatorResponse,
  response: ServerResponse,
  delayMs: number,
  later: (ms: number, run: () => void) => void,
): void {
  if (response.destroyed) return;
  const plan = wirePlan(reply, delayMs);
  try {
    response.writeHead(plan.status, plan.headers);
  } catch (error) {
    // A status or header Node refuses (a hand-edited cassette's) throws here, from a callback no
    // caller could catch: answer that instead of ending the process hosting the server.
    unsendable(response, error as Error);
    return;
  }
  if (plan.whole !== undefined) {
    response.end(plan.whole);
    return;
  }
  const { pieces, waits, ending } = plan;
  if (ending === "hold") {
    // The headers (and any partial body) go out now; then nothing until the client hangs up.
    response.flushHeaders();
    for (const piece of pieces) response.write(piece);
    return;
  }
  if (pieces.length === 0) {
    // A stream of no events (the `empty` fault): the headers, then the end.
    response.end();
    return;
  }
  const write = (index: number) => {
    const last = index === pieces.length - 1;
    // Kill the socket only once the partial body has reached it, so the client sees the cut.
    if (ending === "cut" && last) response.write(pieces[index]!, () => response.destroy());
    else response.write(pieces[index]!);
    if (ending === "end" && last) response.end();
  };
  // Billed by what was written: all of it at the end, as far as it went when the client left.
  let written = 0;
  response.once("close", () => plan.relayed(written));
  if (plan.instant) {
    response.socket?.cork();
    for (; written < pieces.length; written++) write(written);
    response.socket?.uncork();
    return;
  }
  const writeNext = () => {
    if (response.destroyed) return;
    write(written++);
    if (written < pieces.length) later(waits[written]!, writeNext);
  };
  if (waits[0]! > 0) {
    // Replay with recorded timing: the headers now, the first event when it came.
    response.flushHeaders();
    later(waits[0]!, writeNext);
  } else writeNext();
}

/** A 500 saying why the reply could not be sent (its headers were refused, so none went out). */
function unsendable(response: ServerResponse, error: Error): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(500, { "Content-Type": "application/json; charset=utf-8" });
  response.end(
    JSON.stringify({
      error: {
        code: "emulator_error",
        message: `Emulator failure: the reply could not be sent (${error.message})`,
        type: "emulator_error",
      },
    }),
  );
}

function ignore(): void {}
