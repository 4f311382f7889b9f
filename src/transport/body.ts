/**
 * @module Reading a response body without trusting it: a stream waits at most `idleMs` for its
 * next complete event, an error body is read up to a bound (never buffered whole), and a 2xx JSON or
 * SSE body is handed on (a stream chunk by chunk) while the failures hidden in it — an error
 * object sent with a 200, an HTML page labelled JSON, a JSON error labelled SSE, an empty or cut
 * body, a stall — become typed errors that keep the response's request ID.
 */
import { isAbortError } from "../errors/abort.js";
import {
  errorObjectFailure,
  type Failure,
  type FailureContext,
  UntypedFailure,
} from "../errors/mapper.js";
import { MAX_TIMER_MS } from "../utils/sleep.js";
import { completionAsChunks } from "./answer.js";
import { EventBoundaries } from "./event_boundaries.js";

/** The most of an error body that is read (64 KiB); the rest is discarded unread. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** A read waited `ms` without a chunk. Internal: callers turn it into a typed timeout. */
class Stalled extends Error {
  constructor(readonly ms: number) {
    super(`no data for ${ms} ms`);
  }
}

/**
 * Reads a body chunk by chunk, and fails it once the reads have waited `idleMs` in all since the
 * last {@link IdleReader.progress} (or the start): it cancels the body (closing the connection)
 * and the read rejects with `Stalled`. What counts as progress is the caller's: the end of an
 * event for a stream, nothing for a document, which must then arrive whole within `idleMs`. Only
 * time spent waiting on the network counts: a consumer that takes its time between reads never
 * trips it. One timer serves many reads.
 */
class IdleReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #idleMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Milliseconds the finished reads waited since the last progress. */
  #idle = 0;
  #waitingSince = 0;
  #waiting = false;
  #stalled = false;

  constructor(body: ReadableStream<Uint8Array>, idleMs: number) {
    this.#reader = body.getReader();
    this.#idleMs = idleMs;
  }

  async read(): Promise<ReadableStreamReadResult<Uint8Array>> {
    this.#waitingSince = Date.now();
    this.#waiting = true;
    if (this.#timer === undefined) this.#arm(this.#idleMs - this.#idle);
    try {
      const result = await this.#reader.read();
      if (this.#stalled) throw new Stalled(this.#idleMs);
      if (result.done) this.#stop();
      return result;
    } catch (error) {
      this.#stop();
      throw this.#stalled ? new Stalled(this.#idleMs) : error;
    } finally {
      this.#waiting = false;
      this.#idle += Date.now() - this.#waitingSince;
    }
  }

  /** What was read completes a unit (an event): the wait for the next one starts from zero. */
  progress(): void {
    this.#idle = 0;
  }

  cancel(reason?: unknown): Promise<void> {
    this.#stop();
    return this.#reader.cancel(reason).catch(() => undefined);
  }

  #arm(ms: number): void {
    // Timers overflow past 2^31 − 1 ms and would fire at once; a longer wait re-arms on check.
    this.#timer = setTimeout(() => this.#check(), Math.min(Math.max(0, ms), MAX_TIMER_MS));
  }

  #check(): void {
    this.#timer = undefined;
    if (!this.#waiting) return;
    const waited = this.#idle + Date.now() - this.#waitingSince;
    if (waited < this.#idleMs) {
      this.#arm(this.#idleMs - waited);
      return;
    }
    // Cancelling resolves the pending read (as done), which then reports the stall.
    this.#stalled = true;
    this.#reader.cancel(new Stalled(this.#idleMs)).catch(() => undefined);
  }

  #stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/** What the body readers need to type a failure. */
export interface BodyContext {
  /** Milliseconds a stream may wait for its next event, or a document for the whole of it. */
  idleMs: number;
  /** The context errors are typed in (surface, secrets); built only when one is. */
  ctx: () => FailureContext;
  /** Whether the caller cancelled the request: its abort then passes through as it is. */
  aborted: () => boolean;
}

/**
 * Reads at most `limit` bytes (after `prefix`), then cancels the rest. A stall or a cut ends the
 * read with what had arrived: an error body is worth its first bytes, never a hang.
 */
async function readBounded(
  reader: IdleReader,
  prefix: Uint8Array[] = [],
  limit = MAX_ERROR_BODY_BYTES,
): Promise<string> {
  const chunks = [...prefix];
  let size = chunks.reduce((n, c) => n + c.byteLength, 0);
  let complete = false;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) {
        complete = true;
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // Keep what arrived.
  }
  // Ended within the bound means `size < limit`: the loop reads only below it.
  if (!complete) await reader.cancel();
  return decode(chunks, Math.min(size, limit));
}

/** Reads a document to its end (after `prefix`); a stall or a cut rejects as the read does. */
async function readWhole(reader: IdleReader, prefix: Uint8Array[]): Promise<string> {
  const chunks = [...prefix];
  let size = chunks.reduce((n, c) => n + c.byteLength, 0);
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    chunks.push(read.value);
    size += read.value.byteLength;
  }
  return decode(chunks, size);
}

/** The text of the first `size` bytes of `chunks`. */
function decode(chunks: readonly Uint8Array[], size: number): string {
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    if (at >= bytes.length) break;
    const part = chunk.subarray(0, bytes.length - at);
    bytes.set(part, at);
    at += part.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/**
 * The text of an error response, at most {@link MAX_ERROR_BODY_BYTES}, all of it within
 * `idleMs` (it is one document). Never throws: a failing body gives what had arrived.
 */
export async function readErrorBody(response: Response, idleMs: number): Promise<string> {
  if (!response.body) return "";
  return readBounded(new IdleReader(response.body, idleMs));
}

// JSON whitespace, as bytes or as char codes (the same values).
const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
const ERROR_OBJECT = /^\s*\{\s*"error"\s*:/;

/** The first byte that is not whitespace, or undefined. */
function firstSignificant(chunk: Uint8Array): number | undefined {
  for (const byte of chunk) if (!isSpace(byte)) return byte;
  return undefined;
}

/** The failure a 2xx body's text holds as an `{"error": …}` object, or undefined. */
function errorFailureIn(text: string, status: number, headers: Headers): Failure | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  return errorObjectFailure(parsed, status, headers);
}

/** An HTML page (or other non-JSON text) where JSON or events were expected. */
function nonJson(text: string, status: number, headers: Headers): Failure {
  const contentType = (headers.get("content-type") ?? "").split(";")[0] ?? "";
  return { kind: "non-json", status, body: text, contentType, headers };
}

/**
 * A 2xx JSON (`kind` "json") or SSE (`kind` "sse") response, returned as the same object with its
 * body checked as it is read (an SSE body through {@link IdleReader}); the failures a body can
 * hide become typed errors with the response's status and request ID —
 *
 * - no bytes at all: the `empty` failure (a Pending endpoint on the dedicated surface);
 * - JSON that starts with `<`: an HTML page labelled JSON (docs/service-contract.md#hosted-models, rule 2);
 * - JSON that opens with an `"error"` key, or SSE that is a JSON document instead of events: the
 *   error object it holds, mapped by its code like an HTTP error;
 * - SSE that is a whole completion instead of events: passed on as the events of one chunk;
 * - JSON that ends before its closing bracket: a cut connection (retryable), read as JSON or as
 *   a stream alike;
 * - a stream that waits longer than `idleMs` for its next complete event (a JSON document read
 *   as a stream is one event), or a connection that breaks: a retryable timeout or connection
 *   error.
 *
 * The response object is kept, and given an own `text` (JSON) or `body` (SSE) in place of the
 * prototype's: building a new `Response` costs more than the rest of this layer together. A
 * stream request answered with JSON is guarded as `sse`, so its error object is typed too.
 */
export function guardBody(response: Response, kind: "json" | "sse", body: BodyContext): Response {
  const { status, headers } = response;
  // Typed by the attempt or the stream's reader, which know what this layer does not.
  const fail = failIn(body);
  if (!response.body) {
    const error = fail({ kind: "empty", status, headers });
    return kind === "json"
      ? withText(response, () => Promise.reject(error))
      : bodyless(response, error);
  }
  if (kind === "json") {
    // Read natively, in one go: the openai SDK bounds the read of a JSON body by what is left of
    // the attempt's `timeout`, so no idle timer is needed here.
    const text = Response.prototype.text;
    // The native read's promise with handlers, not an async wrapper: no extra hops per answer.
    // A failure checkJSON reports is already the error to pass on.
    return withText(response, () =>
      text.call(response).then(
        (read) => checkJSON(read, response, fail),
        (error: unknown) => {
          throw typed(error, body, fail, headers);
        },
      ),
    );
  }
  const reader = new IdleReader(response.body, body.idleMs);
  Object.defineProperty(response, "body", { value: guardedEvents(response, reader, body, fail) });
  return response;
}

/** How a guarded body reports a failure: untyped, in the request's context (built then). */
function failIn(body: BodyContext): (failure: Failure) => UntypedFailure {
  return (failure) => new UntypedFailure(failure, body.ctx());
}

/** The text of a JSON body, or the typed error it holds. */
function checkJSON(text: string, response: Response, fail: (failure: Failure) => unknown): string {
  const { status, headers } = response;
  // Index scans, not trimmed copies: this runs on every answer.
  let first = 0;
  while (first < text.length && isSpace(text.charCodeAt(first))) first++;
  if (first === text.length) throw fail({ kind: "empty", status, headers });
  const opening = text[first];
  if (opening === "<") throw fail(nonJson(text, status, headers));
  if (opening === "{" && ERROR_OBJECT.test(text.slice(first, first + 32))) {
    // `"error": null` opens some success bodies: only an error object is one.
    const failure = errorFailureIn(text, status, headers);
    if (failure) throw fail(failure);
  }
  let last = text.length - 1;
  while (last > first && isSpace(text.charCodeAt(last))) last--;
  const closer = opening === "{" ? "}" : opening === "[" ? "]" : undefined;
  if (closer !== undefined && text[last] !== closer) {
    // The connection closed early: a passing fault, retried like a reset.
    const cause = new Error("the JSON body ended before its closing bracket");
    throw fail({ kind: "network", cause, afterResponse: true, headers });
  }
  return text;
}

/**
 * The response with its own `text()` reading its body once, through `read` (the openai SDK reads
 * a JSON body with `text()`; `json()` and `body` stay the prototype's). One plain assignment: an
 * own property costs a few µs of every later access to the response, more with descriptors.
 */
function withText(response: Response, read: () => Promise<string>): Response {
  let text: Promise<string> | undefined;
  (response as { text: () => Promise<string> }).text = () => {
    text ??= read();
    return text;
  };
  return response;
}

/**
 * An SSE body passed on chunk by chunk as it came in, unless it is empty, an HTML page, or a JSON
 * document: an error object written after the stream's headers were set is that error, and a
 * whole completion (a gateway that ignores `stream: true`) is passed on as the events a stream
 * would have carried. The idle timeout counts complete events: comments and partial events do
 * not restart it, and a JSON document counts as one event, so all of it must arrive in time.
 */
function guardedEvents(
  response: Response,
  reader: IdleReader,
  body: BodyContext,
  fail: (failure: Failure) => unknown,
): ReadableStream<Uint8Array> {
  const { status, headers } = response;
  const boundaries = new EventBoundaries();
  eventsOf.set(response, boundaries);
  let started = false;
  let probed = false;

  /** Decides from the start of the body; returns the chunks to hand on, or throws the error it holds. */
  const probe = async (first: Uint8Array): Promise<Uint8Array[]> => {
    const opening = firstSignificant(first);
    if (opening === undefined) return [first];
    probed = true;
    if (opening === 0x3c /* < */) {
      // An HTML page where events or JSON were expected (a console page, a proxy's).
      throw fail(nonJson(await readBounded(reader, [first]), status, headers));
    }
    if (opening !== 0x7b /* { */) return [first];
    // Checked as a non-streamed answer is: a cut is a retryable cut, an error object that error.
    const text = checkJSON(await readWhole(reader, [first]), response, fail);
    return [documentEvents(text, status, headers, fail)];
  };

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            if (!started) throw fail({ kind: "empty", status, headers });
            controller.close();
            return;
          }
          started = true;
          for (const chunk of probed ? [value] : await probe(value)) {
            if (boundaries.feed(chunk)) reader.progress();
            controller.enqueue(chunk);
          }
        } catch (error) {
          controller.error(typed(error, body, fail, headers));
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * The events of a JSON document sent where a stream was asked for: the error it holds, or the
 * chunks of a whole completion ({@link completionAsChunks}) as SSE, ending with `[DONE]`.
 */
function documentEvents(
  text: string,
  status: number,
  headers: Headers,
  fail: (failure: Failure) => unknown,
): Uint8Array {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const failure = errorObjectFailure(parsed, status, headers);
  if (failure) throw fail(failure);
  const chunks = completionAsChunks(parsed);
  if (chunks === undefined) {
    throw fail({
      kind: "malformed",
      detail: "the event stream holds a JSON document instead of events",
      body: text,
      headers,
    });
  }
  const events = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("");
  return new TextEncoder().encode(`${events}data: [DONE]\n\n`);
}

/** The event scanner of each guarded stream, by response. */
const eventsOf = new WeakMap<object, EventBoundaries>();

/**
 * Whether a guarded stream's body has carried `data: [DONE]`, the event that says it is
 * complete; undefined for a response this layer did not guard (nothing is known).
 */
export function sawDoneEvent(response: object): boolean | undefined {
  return eventsOf.get(response)?.sawDone;
}

/** A read failure as the error the consumer should see. */
function typed(
  error: unknown,
  body: BodyContext,
  fail: (failure: Failure) => unknown,
  headers: Headers,
): unknown {
  if (error instanceof Stalled) {
    return fail({ kind: "timeout", phase: "idle", ms: error.ms, headers });
  }
  // A cancellation, or a failure already reported (an empty, cut or error-holding body).
  if (body.aborted() || isAbortError(error) || error instanceof UntypedFailure) return error;
  return fail({ kind: "network", cause: error, afterResponse: true, headers });
}

/** The response with a body that, once read, fails with `error`. */
function bodyless(response: Response, error: unknown): Response {
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.error(error);
    },
  });
  Object.defineProperty(response, "body", { value: stream });
  return response;
}
