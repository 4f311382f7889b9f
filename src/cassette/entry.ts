/**
 * @module One finished exchange as a cassette entry: what the recorder saw on the wire, with the
 * headers kept that a client reads, a stream cut into its events, and every secret redacted.
 */
import type { CassetteEntry, NameValue, StreamEvent } from "./cassette.js";
import {
  type RawHeaders,
  REDACTED,
  Redactor,
  recordedRequestHeaders,
  recordedResponseHeaders,
  redactEntry,
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

/**
 * The entry for `exchange`, without any credential of its request (headers, query, the URL's
 * user info) nor any value of `redact`, in any form (docs/testing.md#secrets).
 */
export function entryOf(exchange: Exchange, redact: readonly string[] = []): CassetteEntry {
  const secrets = secretsOf({
    headers: exchange.requestHeaders,
    url: exchange.url,
    named: redact,
  });
  return redactEntry(rawEntryOf(exchange), new Redactor(secrets));
}

/** The entry as seen, before redaction. */
function rawEntryOf(exchange: Exchange): CassetteEntry {
  const url = new URL(exchange.url);
  // The upstream's user and password (`https://user:key@host`) are credentials, whatever they are.
  if (url.username !== "") url.username = REDACTED;
  if (url.password !== "") url.password = REDACTED;
  const requestHeaders = recordedRequestHeaders(exchange.requestHeaders);
  const responseHeaders = recordedResponseHeaders(exchange.responseHeaders);
  const request = bodyText(exchange.requestBody);
  const { responseBody } = exchange;
  const events = Array.isArray(responseBody)
    ? responseBody.map((event) => ({ time: round(event.time), text: event.text }))
    : undefined;
  const whole = Array.isArray(responseBody) ? undefined : bodyText(responseBody);
  const text = events ? events.map((event) => event.text).join("") : whole!.text;
  const size = Buffer.byteLength(text, whole?.encoding ? "base64" : "utf8");
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
              text: request.text,
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
        size: exchange.status === 0 ? 0 : size,
        mimeType: headerOf(responseHeaders, "content-type") ?? "",
        ...(exchange.status === 0 ? {} : { text }),
        ...(whole?.encoding ? { encoding: whole.encoding } : {}),
        ...(events ? { _events: events } : {}),
      },
      redirectURL: "",
      headersSize: -1,
      bodySize: exchange.status === 0 ? -1 : size,
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
