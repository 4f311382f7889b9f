/**
 * @module One finished exchange as a cassette entry: what the recorder saw on the wire, with the
 * headers kept that a client reads, a stream cut into its events, and every secret redacted.
 */
import type { CassetteEntry, NameValue, StreamEvent } from "./cassette.js";
import {
  type RawHeaders,
  recordedRequestHeaders,
  recordedResponseHeaders,
  scrub,
  secretsOf,
} from "./redaction.js";

/** An exchange as the recorder saw it. */
export interface Exchange {
  /** Epoch milliseconds when the request arrived. */
  startedAt: number;
  method: string;
  /** The upstream URL the request went to. */
  url: string;
  requestHeaders: RawHeaders;
  requestBody: Uint8Array;
  /** 0 when no response came (see `error`). */
  status: number;
  statusText: string;
  responseHeaders: RawHeaders;
  /** The whole body, or a stream's events with their times. */
  responseBody: Uint8Array | StreamEvent[];
  /** A connection error code, when the exchange did not end normally. */
  error?: string;
  /** Milliseconds to the response's headers, and to its end. */
  waitMs: number;
  totalMs: number;
}

const strictUTF8 = new TextDecoder("utf-8", { fatal: true });

/** `bytes` as UTF-8 text, or base64 when they are not UTF-8. */
export function bodyText(bytes: Uint8Array): { text: string; encoding?: "base64" } {
  try {
    return { text: strictUTF8.decode(bytes) };
  } catch {
    return { text: Buffer.from(bytes).toString("base64"), encoding: "base64" };
  }
}

/** The entry for `exchange`, without any secret of its request nor any of `redact`. */
export function entryOf(exchange: Exchange, redact: readonly string[] = []): CassetteEntry {
  const secrets = secretsOf(exchange.requestHeaders, redact);
  const hide = (text: string) => scrub(text, secrets);
  const url = new URL(hide(exchange.url));
  const requestHeaders = recordedRequestHeaders(exchange.requestHeaders, secrets);
  const responseHeaders = recordedResponseHeaders(exchange.responseHeaders, secrets);
  const request = bodyText(exchange.requestBody);
  const { responseBody } = exchange;
  const events = Array.isArray(responseBody)
    ? responseBody.map((event) => ({ time: round(event.time), text: hide(event.text) }))
    : undefined;
  const whole = Array.isArray(responseBody) ? undefined : bodyText(responseBody);
  const text = events
    ? events.map((event) => event.text).join("")
    : whole!.encoding
      ? whole!.text
      : hide(whole!.text);
  return {
    startedDateTime: new Date(exchange.startedAt).toISOString(),
    time: round(exchange.totalMs),
    request: {
      method: exchange.method,
      url: url.href,
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: requestHeaders,
      queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
      ...(exchange.requestBody.byteLength > 0
        ? {
            postData: {
              mimeType: headerOf(requestHeaders, "content-type") ?? "",
              text: request.encoding ? request.text : hide(request.text),
              ...(request.encoding ? { _encoding: request.encoding } : {}),
            },
          }
        : {}),
      headersSize: -1,
      bodySize: exchange.requestBody.byteLength,
    },
    response: {
      status: exchange.status,
      statusText: exchange.statusText,
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: responseHeaders,
      content: {
        size: Array.isArray(responseBody)
          ? Buffer.byteLength(text, "utf8")
          : responseBody.byteLength,
        mimeType: headerOf(responseHeaders, "content-type") ?? "",
        ...(exchange.status === 0 ? {} : { text }),
        ...(whole?.encoding ? { encoding: whole.encoding } : {}),
        ...(events ? { _events: events } : {}),
      },
      redirectURL: "",
      headersSize: -1,
      bodySize:
        exchange.status === 0 ? -1 : Buffer.byteLength(text, whole?.encoding ? "base64" : "utf8"),
      ...(exchange.error === undefined ? {} : { _error: exchange.error }),
    },
    cache: {},
    timings: {
      send: 0,
      wait: round(exchange.waitMs),
      receive: round(Math.max(0, exchange.totalMs - exchange.waitMs)),
    },
  };
}

function headerOf(headers: readonly NameValue[], name: string): string | undefined {
  return headers.find((header) => header.name === name)?.value;
}

/** Milliseconds to a tenth: finer is noise, and every digit is a diff. */
function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/**
 * Cuts a stream into its events as the bytes arrive: an event ends with its blank line (`\n\n`,
 * `\r\n\r\n` or `\r\r`), and takes the time at which that line arrived. What is left at the end
 * (a stream cut mid-event) is one last event.
 */
export class EventSplitter {
  readonly events: StreamEvent[] = [];
  readonly #decoder = new TextDecoder();
  #pending = "";

  /** Adds a chunk received `time` ms after the headers. */
  push(chunk: Uint8Array, time: number): void {
    this.#pending += this.#decoder.decode(chunk, { stream: true });
    const boundary = /\r\n\r\n|\n\n|\r\r/g;
    let start = 0;
    for (let match = boundary.exec(this.#pending); match; match = boundary.exec(this.#pending)) {
      const end = match.index + match[0].length;
      this.events.push({ time, text: this.#pending.slice(start, end) });
      start = end;
    }
    this.#pending = this.#pending.slice(start);
  }

  /** Ends the stream at `time`; returns every event. */
  end(time: number): StreamEvent[] {
    this.#pending += this.#decoder.decode();
    if (this.#pending !== "") this.events.push({ time, text: this.#pending });
    this.#pending = "";
    return this.events;
  }
}
