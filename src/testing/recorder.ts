/**
 * @module The recording proxy: a `node:http` server on loopback that forwards every call under
 * `/inference/v1` to the real service and streams each answer back as its bytes arrive, while
 * writing the exchange to a cassette once it has finished. In `record-new` mode it first replays
 * what the cassette holds; in `replay` mode it only replays.
 */
import {
  type Agent,
  createServer,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import {
  type Cassette,
  CassetteError,
  emptyCassette,
  readCassette,
  replaceableCassette,
} from "../cassette/cassette.js";
import { bodyText, EventSplitter, type Exchange, entryOf } from "../cassette/entry.js";
import { apiPath } from "../cassette/matcher.js";
import { Replayer } from "../cassette/replayer.js";
import { CassetteWriter } from "../cassette/writer.js";
import { normalizeBaseURL } from "../config/base_url.js";
import { API_PREFIX } from "../constants.js";
import { type EmulatorReply, jsonReply } from "../emulator/reply.js";
import { createRequestIdGenerator } from "../emulator/routes/request_id.js";
import { listen, writeReply } from "../emulator/server/node_server.js";
import { missReply, replyOf } from "../emulator/server/replay.js";
import { type NetworkCause, networkCause } from "../errors/network_cause.js";
import { type RecorderOptions, type RecordMode, validateRecorderOptions } from "./options.js";

/** A running recording proxy. */
export interface RunningRecorder {
  /** `http://127.0.0.1:<port>/inference/v1`: what clients use as base URL. */
  baseURL: string;
  url: string;
  port: number;
  mode: RecordMode;
  /** The upstream's `…/inference/v1` (undefined in `replay` mode). */
  upstream: string | undefined;
  cassette: string;
  /** Exchanges the cassette holds now. */
  readonly size: number;
  /** Exchanges this recorder has recorded so far (0 in `replay` mode). */
  readonly recorded: number;
  /**
   * Stops listening, lets the exchanges under way finish (up to `graceMs`, default 5 s), and
   * resolves once the cassette on disk holds every finished exchange.
   */
  close(graceMs?: number): Promise<void>;
}

/** Request headers that belong to one hop, not to the request. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "host",
  "content-length",
  "accept-encoding",
]);

/**
 * Starts the proxy.
 *
 * @example
 * const recorder = await startRecorder({ upstream: "https://host.example/inference/v1", cassette: "test/cassettes/chat.har" });
 * // point the app at recorder.baseURL with the real key, run it, then:
 * await recorder.close();
 */
export async function startRecorder(options: RecorderOptions): Promise<RunningRecorder> {
  const checked = validateRecorderOptions(options);
  const { cassette: file, mode, port, host } = checked;
  const recorder = new Recorder(checked);
  const server = createServer((request, response) => recorder.handle(request, response));
  await listen(server, port, host);
  const actualPort = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${actualPort}`;
  return {
    baseURL: `${url}${API_PREFIX}`,
    url,
    port: actualPort,
    mode,
    upstream: recorder.upstream,
    cassette: file,
    get size() {
      return recorder.size;
    },
    get recorded() {
      return recorder.recorded;
    },
    close: (graceMs = 5_000) => recorder.close(server, graceMs),
  };
}

/** What the proxy does with each call: replay it from the cassette, or forward and record it. */
class Recorder {
  /** The upstream's `…/inference/v1` (none in `replay` mode). */
  readonly upstream?: string;
  readonly #file: string;
  readonly #redact: readonly string[];
  readonly #maxBodyBytes: number;
  readonly #replayer?: Replayer;
  /** What the cassette starts with: nothing (`all`), or what it held (`new`). */
  readonly #base?: Cassette;
  /** The entries of the file there before, when there was one (recording modes). */
  readonly #existing?: number;
  /**
   * Created with the first exchange to write: until then the file is left as it was, so a
   * recording whose upstream never answers replaces nothing.
   */
  #writer?: CassetteWriter;
  readonly #agent?: Agent;
  readonly #nextRequestId = createRequestIdGenerator();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #underWay = new Set<Promise<void>>();
  /** Calls the upstream never answered (it could not be reached), by the cause's words. */
  readonly #unreachable = new Map<string, number>();
  /** Answers too large to keep a copy of: relayed, not recorded. */
  #tooLarge = 0;
  /**
   * Set once closing has waited for the exchanges under way: any that end later were cut by the
   * close itself, and are not written after the cassette was declared complete.
   */
  #closed = false;

  constructor(checked: ReturnType<typeof validateRecorderOptions>) {
    const { cassette: file, mode, ignore, redact, timing, maxBodyBytes } = checked;
    this.#file = file;
    this.#redact = redact;
    this.#maxBodyBytes = maxBodyBytes;
    if (mode === "replay") {
      this.#replayer = new Replayer(readCassette(file), file, { ignore, redact, timing });
      return;
    }
    this.upstream = upstreamOf(checked.upstream, file);
    // Refuses to record over a file that is not a cassette (a mistyped package.json, a folder).
    this.#existing = replaceableCassette(file);
    this.#base =
      mode === "record-new" && this.#existing !== undefined ? readCassette(file) : emptyCassette();
    if (mode === "record-new") {
      this.#replayer = new Replayer(this.#base, file, { ignore, redact, timing });
    }
    this.#agent = this.upstream.startsWith("https:")
      ? new HttpsAgent({ keepAlive: true })
      : new HttpAgent({ keepAlive: true });
  }

  /** Exchanges the cassette holds now. */
  get size(): number {
    return this.#writer?.size ?? this.#replayer?.size ?? this.#existing ?? 0;
  }

  /** Exchanges this recorder has recorded. */
  get recorded(): number {
    return this.#writer ? this.#writer.size - this.#base!.log.entries.length : 0;
  }

  /** Reads the call's body (up to the limit: a larger one gets 413), then answers it. */
  handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    let size = 0;
    // A client that hangs up mid-exchange is its own business; it must not crash the proxy.
    request.on("error", ignoreError);
    response.on("error", ignoreError);
    const tooLarge = () => {
      request.removeAllListeners("data");
      request.removeAllListeners("end");
      request.pause();
      response.once("finish", () => request.socket.destroySoon());
      this.#replay(bodyTooLarge(this.#maxBodyBytes, this.#nextRequestId()), request, response);
    };
    if (Number(request.headers["content-length"] ?? 0) > this.#maxBodyBytes) {
      tooLarge();
      return;
    }
    request.on("data", (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > this.#maxBodyBytes) tooLarge();
      else chunks.push(chunk);
    });
    request.on("end", () => this.#answer(request, response, Buffer.concat(chunks)));
  }

  /** A path outside the API gets a 404; a recorded call its recording; any other is recorded. */
  #answer(request: IncomingMessage, response: ServerResponse, body: Buffer): void {
    const path = request.url ?? "/";
    const bare = path.split("?")[0]!;
    if (bare !== API_PREFIX && !bare.startsWith(`${API_PREFIX}/`)) {
      this.#replay(notProxied(path, this.#nextRequestId()), request, response);
      return;
    }
    if (this.#replayer) {
      const shape = bodyText(body);
      const answer = this.#replayer.answer({
        method: request.method ?? "GET",
        path,
        body: shape.text,
        ...(shape.encoding ? { encoding: shape.encoding } : {}),
        headers: request.headers,
      });
      if ("hit" in answer) {
        this.#replay(replyOf(answer.hit), request, response);
        return;
      }
      if (!this.upstream) {
        this.#replay(missReply(answer.miss, this.#nextRequestId()), request, response);
        return;
      }
    }
    this.#record(request, response, body);
  }

  /** Forwards the call upstream, and writes the exchange once it has finished. */
  #record(request: IncomingMessage, response: ServerResponse, body: Buffer): void {
    const upstream = this.upstream!;
    const exchange = forward(request, response, body, upstream, this.#agent!, {
      maxBodyBytes: this.#maxBodyBytes,
      unreachable: (cause) => {
        this.#unreachable.set(cause.words, (this.#unreachable.get(cause.words) ?? 0) + 1);
        return unreachableReply(upstream, cause, this.#nextRequestId());
      },
    }).then((seen) => {
      if (this.#closed || seen === undefined) return;
      if (seen === "too large") this.#tooLarge++;
      else this.#writerNow().add(entryOf(seen, this.#redact));
    }, ignoreError);
    this.#underWay.add(exchange);
    void exchange.finally(() => this.#underWay.delete(exchange));
  }

  /** The writer, created (the file written whole, replacing what was there) on first use. */
  #writerNow(): CassetteWriter {
    this.#writer ??= new CassetteWriter(this.#file, this.#base!);
    return this.#writer;
  }

  #replay(reply: EmulatorReply, request: IncomingMessage, response: ServerResponse): void {
    const send = () => {
      if (reply.kind === "drop") request.socket.destroy();
      else writeReply(reply, response, 0, (ms, run) => this.#later(ms, run));
    };
    if (reply.delayMs > 0) this.#later(reply.delayMs, send);
    else send();
  }

  #later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      run();
    }, ms);
    this.#timers.add(timer);
  }

  /**
   * Stops listening, lets the exchanges under way finish (up to `graceMs`), and resolves once the
   * cassette on disk holds every finished exchange. Rejects with a CassetteError when calls could
   * not be recorded: the upstream could not be reached (if it never answered, the cassette is
   * left as it was), or an answer was too large to keep.
   */
  async close(server: Server, graceMs: number): Promise<void> {
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([...this.#underWay]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
    this.#closed = true;
    for (const pending of this.#timers) clearTimeout(pending);
    server.closeAllConnections();
    this.#agent?.destroy();
    await stopped;
    const failed = [...this.#unreachable.values()].reduce((sum, n) => sum + n, 0);
    // A recording that reached the upstream and wrote nothing (no call) still leaves a cassette,
    // empty, where there was none.
    if (this.upstream && failed === 0 && this.#existing === undefined) this.#writerNow();
    await this.#writer?.flush();
    if (failed > 0) {
      const causes = [...this.#unreachable.keys()].join("; ");
      const calls = `${failed} call${failed === 1 ? "" : "s"}`;
      throw new CassetteError(
        this.#file,
        this.#writer
          ? `${calls} could not reach the upstream ${this.upstream} (${causes}): they are not in the cassette, which holds the ${this.#writer.size} exchanges that did. Record again once the upstream answers every call`
          : `no call reached the upstream ${this.upstream}: ${calls} failed (${causes}), so ${this.#existing === undefined ? "no cassette was written" : "the cassette was left as it was"}. Start the service there, or record against the right one (--upstream, or INFERENCE_SERVICE_BASE_URL), then record again`,
      );
    }
    if (this.#tooLarge > 0) {
      throw new CassetteError(
        this.#file,
        `${this.#tooLarge} answer${this.#tooLarge === 1 ? " was" : "s were"} larger than maxBodyBytes (${this.#maxBodyBytes} bytes) and ${this.#tooLarge === 1 ? "is" : "are"} not in the cassette (the app got ${this.#tooLarge === 1 ? "it" : "them"} whole). Raise maxBodyBytes and record again`,
      );
    }
  }
}

/** The upstream's `…/inference/v1`, or a CassetteError saying what to give. */
function upstreamOf(upstream: string | undefined, file: string): string {
  if (upstream === undefined || upstream.trim() === "") {
    throw new CassetteError(
      file,
      "recording needs the upstream: the real service's base URL (…/inference/v1)",
    );
  }
  return normalizeBaseURL(upstream, "upstream");
}

/** What an exchange records of its request, and when it began. */
type ExchangeStart = Pick<
  Exchange,
  "startedAt" | "method" | "url" | "requestHeaders" | "requestBody"
> & { start: number };

/** How `forward` bounds its copy, and answers a call whose upstream cannot be reached. */
interface ForwardOptions {
  maxBodyBytes: number;
  /** The reply for the client when the upstream cannot be reached (nothing is recorded). */
  unreachable: (cause: NetworkCause) => EmulatorReply;
}

/**
 * Failures to reach the upstream at all (nothing listening, no such host, no route, a TLS
 * certificate refused): the recording's surroundings, not the service's behaviour, so they are
 * answered with a 502 naming the upstream and not recorded. A connection the upstream accepted and
 * closed without answering (a Pending endpoint's empty response) is the service's, and recorded.
 */
const UNREACHABLE =
  /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EAI_FAIL|EAI_NONAME|EAI_NODATA|ETIMEDOUT|EHOSTUNREACH|EHOSTDOWN|ENETUNREACH|ENETDOWN|EADDRNOTAVAIL|EPROTO|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|ERR_TLS_|ERR_SSL_)/;

/**
 * Sends the request upstream and streams the answer back chunk by chunk as it arrives, keeping a
 * copy; resolves with the exchange once it has ended (normally, cut, or closed without an answer),
 * with `"too large"` when the answer passed `maxBodyBytes` (relayed whole, no copy kept), or with
 * undefined when the upstream could not be reached.
 */
function forward(
  request: IncomingMessage,
  response: ServerResponse,
  body: Buffer,
  upstream: string,
  agent: Agent,
  options: ForwardOptions,
): Promise<Exchange | "too large" | undefined> {
  const target = new URL(upstream + apiPath(request.url ?? "/"));
  const base: ExchangeStart = {
    startedAt: Date.now(),
    start: performance.now(),
    method: request.method ?? "GET",
    url: target.href,
    requestHeaders: request.headers,
    requestBody: body,
  };
  return new Promise((resolve) => {
    const send = target.protocol === "https:" ? httpsRequest : httpRequest;
    const headers = upstreamHeaders(request, body);
    const outgoing = send(target, { method: base.method, headers, agent });
    let answered = false;
    outgoing.on("error", (error: NodeJS.ErrnoException) => {
      if (answered) return;
      answered = true;
      if (error.code !== undefined && UNREACHABLE.test(error.code)) {
        // The client is told which upstream failed: dropped, its error would name the recorder.
        const reply = options.unreachable(networkCause(error));
        if (reply.kind === "response")
          writeReply(reply, response, 0, (ms, run) => setTimeout(run, ms));
        resolve(undefined);
        return;
      }
      // No response at all: close the client's connection without one, as the upstream did (a
      // typed connection error, retried like the failure itself).
      request.socket.destroy();
      resolve(refused(base, error));
    });
    outgoing.on("response", (incoming) => {
      answered = true;
      relay(base, incoming, response, outgoing, options.maxBodyBytes).then(resolve);
    });
    outgoing.end(body);
  });
}

/** The request's headers for the upstream: not the hop's own, bodies asked uncompressed. */
function upstreamHeaders(
  request: IncomingMessage,
  body: Buffer,
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  }
  // Bodies are kept as sent: ask for them uncompressed, so the cassette is readable text.
  headers["accept-encoding"] = "identity";
  if (body.byteLength > 0 || request.method === "POST")
    headers["content-length"] = String(body.byteLength);
  return headers;
}

/** The exchange of a request the upstream never answered (its connection refused or failed). */
function refused(base: ExchangeStart, error: NodeJS.ErrnoException): Exchange {
  const { start, ...recorded } = base;
  const ms = performance.now() - start;
  return {
    ...recorded,
    status: 0,
    statusText: "",
    responseHeaders: {},
    responseBody: new Uint8Array(),
    error: error.code ?? "ECONNREFUSED",
    waitMs: ms,
    totalMs: ms,
  };
}

/**
 * Streams the upstream's answer to the client as its bytes arrive, keeping a copy (a stream as
 * its events, with their times); resolves with the exchange once the answer has ended, was cut,
 * or the client hung up first.
 */
function relay(
  base: ExchangeStart,
  incoming: IncomingMessage,
  response: ServerResponse,
  outgoing: { destroy(): void },
  maxBodyBytes: number,
): Promise<Exchange | "too large"> {
  const { start, ...recorded } = base;
  const waitMs = performance.now() - start;
  const status = incoming.statusCode ?? 502;
  response.writeHead(status, incoming.statusMessage, forwardedHeaders(incoming));
  // The headers go out with the first chunk when it came with them (one write: a separate one
  // for the headers delays the client's first event by milliseconds), else at once, so a client
  // sees them exactly when the upstream sent them.
  setImmediate(() => {
    if (!response.headersSent && !response.destroyed) response.flushHeaders();
  });
  const stream = /text\/event-stream/i.test(String(incoming.headers["content-type"] ?? ""));
  const splitter = stream ? new EventSplitter() : undefined;
  const whole: Buffer[] = [];
  let kept = 0;
  return new Promise((resolve) => {
    let ended = false;
    const finish = (error?: string) => {
      if (ended) return;
      ended = true;
      if (kept > maxBodyBytes) {
        resolve("too large");
        return;
      }
      const now = performance.now();
      resolve({
        ...recorded,
        status,
        statusText: incoming.statusMessage ?? "",
        responseHeaders: incoming.headers,
        responseBody: splitter ? splitter.end(now - start - waitMs) : Buffer.concat(whole),
        ...(error === undefined ? {} : { error }),
        waitMs,
        totalMs: now - start,
      });
    };
    incoming.on("data", (chunk: Buffer) => {
      kept += chunk.byteLength;
      // Past the limit the answer is still relayed whole, but no copy is kept (nor recorded).
      if (kept > maxBodyBytes) whole.length = 0;
      else if (splitter) splitter.push(chunk, performance.now() - start - waitMs);
      else whole.push(chunk);
      if (!response.write(chunk)) {
        incoming.pause();
        response.once("drain", () => incoming.resume());
      }
    });
    incoming.on("end", () => {
      response.end();
      finish();
    });
    incoming.on("error", (error: NodeJS.ErrnoException) => {
      // The upstream cut the answer: cut the client's too, after what it already has.
      response.destroy();
      finish(error.code ?? "ECONNRESET");
    });
    response.on("close", () => {
      if (incoming.complete) return;
      // The client hung up first (an abandoned stream): stop the upstream, keep what came.
      outgoing.destroy();
      finish("ECONNRESET");
    });
  });
}

/** The answer's headers for the client: the body goes on byte for byte, so its length stays true. */
function forwardedHeaders(incoming: IncomingMessage): Record<string, string | string[]> {
  const forwarded: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value !== undefined && (name === "content-length" || !HOP_BY_HOP.has(name))) {
      forwarded[name] = value;
    }
  }
  return forwarded;
}

/** Paths outside `/inference/v1` are not the service's API: a 404 that says so, not forwarded. */
function notProxied(path: string, requestId: string): EmulatorReply {
  return jsonReply(
    404,
    {
      error: {
        code: "not_proxied",
        message: `The recording proxy forwards only paths under ${API_PREFIX}, not ${path.slice(0, 200)}; set the base URL to its …${API_PREFIX} URL.`,
        type: "invalid_request_error",
      },
    },
    requestId,
  );
}

/**
 * The answer to a call whose upstream could not be reached: a 502 that names the upstream and
 * why, so the app's error says what to fix (a dropped connection would name the recorder).
 */
function unreachableReply(upstream: string, cause: NetworkCause, requestId: string): EmulatorReply {
  return jsonReply(
    502,
    {
      error: {
        code: "upstream_unreachable",
        message: `The recording proxy could not reach the upstream ${upstream}: ${cause.words}. Start the service there, or record against the right one (--upstream, or INFERENCE_SERVICE_BASE_URL). The call is not recorded.`,
        type: "recorder_error",
      },
    },
    requestId,
  );
}

/** A request body past `maxBodyBytes`: a 413 that names the limit, neither forwarded nor recorded. */
function bodyTooLarge(maxBodyBytes: number, requestId: string): EmulatorReply {
  return jsonReply(
    413,
    {
      error: {
        code: "request_too_large",
        message: `The recording proxy keeps request bodies of up to ${maxBodyBytes} bytes (maxBodyBytes), and this one is larger; it was neither forwarded nor recorded. Raise maxBodyBytes to record it.`,
        type: "recorder_error",
      },
    },
    requestId,
  );
}

function ignoreError(): void {}
