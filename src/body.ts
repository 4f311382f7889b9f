/**
 * @module Reading a response body without trusting it: every read waits at most `idleMs` for the
 * next chunk, an error body is read up to a bound (never buffered whole), and a 2xx JSON or SSE
 * body is handed on chunk by chunk while the failures hidden in it — an error object sent with
 * a 200, an HTML page labelled JSON, a JSON error labelled SSE, an empty or cut body, a stall —
 * become typed errors that keep the response's request ID.
 */
import { isAbortError } from "./abort.js";
import { type Failure, type FailureContext, toServiceError } from "./error_mapper.js";
import { InferenceServiceError } from "./errors.js";

/** The most of an error body that is read (64 KiB); the rest is discarded unread. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

const MAX_TIMER_MS = 2_147_483_647;

/** A read waited `ms` without a chunk. Internal: callers turn it into a typed timeout. */
class Stalled extends Error {
  constructor(readonly ms: number) {
    super(`no data for ${ms} ms`);
  }
}

/**
 * Reads a body chunk by chunk; a read that waits longer than `idleMs` cancels the body (closing
 * the connection) and rejects with `Stalled`. Only time spent waiting on the network counts: a
 * consumer that takes its time between reads never trips it. One timer serves many reads.
 */
class IdleReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #idleMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
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
    if (this.#timer === undefined) this.#arm(this.#idleMs);
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
    }
  }

  cancel(reason?: unknown): Promise<void> {
    this.#stop();
    return this.#reader.cancel(reason).catch(() => undefined);
  }

  #arm(ms: number): void {
    // Timers overflow past 2^31 − 1 ms and would fire at once; a longer wait re-arms on check.
    this.#timer = setTimeout(() => this.#check(), Math.min(ms, MAX_TIMER_MS));
  }

  #check(): void {
    this.#timer = undefined;
    if (!this.#waiting) return;
    const waited = Date.now() - this.#waitingSince;
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
  /** Milliseconds a read may wait for the next chunk. */
  idleMs: number;
  /** The context errors are typed in (surface, secrets). */
  ctx: FailureContext;
  /** Whether the caller cancelled the request: its abort then passes through as it is. */
  aborted: () => boolean;
}

/** What reading up to a bound got: the text, and whether the body ended within the bound. */
interface BoundedText {
  text: string;
  complete: boolean;
}

/**
 * Reads at most `limit` bytes (after `prefix`), then cancels the rest. A stall or a cut ends the
 * read with what had arrived: an error body is worth its first bytes, never a hang.
 */
async function readBounded(
  reader: IdleReader,
  prefix: Uint8Array[] = [],
  limit = MAX_ERROR_BODY_BYTES,
): Promise<BoundedText> {
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
  if (!complete || size > limit) {
    complete = false;
    await reader.cancel();
  }
  const bytes = new Uint8Array(Math.min(size, limit));
  let at = 0;
  for (const chunk of chunks) {
    if (at >= bytes.length) break;
    const part = chunk.subarray(0, bytes.length - at);
    bytes.set(part, at);
    at += part.byteLength;
  }
  return { text: new TextDecoder().decode(bytes), complete };
}

/**
 * The text of an error response, at most {@link MAX_ERROR_BODY_BYTES}, each read bounded by
 * `idleMs`. Never throws: a failing body gives what had arrived.
 */
export async function readErrorBody(response: Response, idleMs: number): Promise<string> {
  if (!response.body) return "";
  return (await readBounded(new IdleReader(response.body, idleMs))).text;
}

// JSON whitespace, as bytes.
const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
const ERROR_OBJECT = /^\s*\{\s*"error"\s*:/;
/** Bytes enough to see whether a JSON body opens with an `"error"` key. */
const PROBE_BYTES = 64;

/** The first byte that is not whitespace, or undefined. */
function firstSignificant(chunk: Uint8Array): number | undefined {
  for (const byte of chunk) if (!isSpace(byte)) return byte;
  return undefined;
}

function lastSignificant(chunk: Uint8Array): number | undefined {
  for (let i = chunk.length - 1; i >= 0; i--) if (!isSpace(chunk[i]!)) return chunk[i];
  return undefined;
}

/** The `{"error": …}` object a text holds, or undefined when it holds none. */
function errorObjectIn(text: string): unknown {
  try {
    const parsed = JSON.parse(text) as { error?: unknown } | null;
    const error = parsed?.error;
    return (typeof error === "object" && error !== null) || typeof error === "string"
      ? error
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A 2xx JSON (`kind` "json") or SSE (`kind` "sse") response whose body is read through
 * {@link IdleReader} and checked as it passes, without buffering it: the chunks come out as they
 * came in unless the body turns out to be one of these, each typed with the response's status
 * and request ID —
 *
 * - no bytes at all: the `empty` failure (a Pending endpoint on the dedicated surface);
 * - JSON that starts with `<`: an HTML page labelled JSON (§4.2 rule 2);
 * - JSON that opens with an `"error"` key, or SSE that is a JSON document instead of events: the
 *   error object it holds, mapped by its code like an HTTP error;
 * - JSON that ends before its closing bracket: a cut connection (retryable);
 * - a read that waits longer than `idleMs`, or a connection that breaks: a retryable timeout or
 *   connection error.
 */
export function guardBody(response: Response, kind: "json" | "sse", body: BodyContext): Response {
  const { status, headers } = response;
  const contentType = (headers.get("content-type") ?? "").split(";")[0] ?? "";
  const fail = (failure: Failure) => toServiceError(failure, body.ctx);
  if (!response.body) return bodyless(response, fail({ kind: "empty", status, headers }));
  const reader = new IdleReader(response.body, body.idleMs);
  let started = false;
  let probed = false;
  /** The closing byte the body must end with: `}` or `]` for an object or array, else none. */
  let closer: number | undefined;
  let last: number | undefined;

  /** Decides from the start of the body; returns the chunks to hand on, or throws the error it holds. */
  const probe = async (first: Uint8Array): Promise<Uint8Array[]> => {
    const opening = firstSignificant(first);
    if (opening === undefined) return [first];
    probed = true;
    closer = opening === 0x7b ? 0x7d : opening === 0x5b ? 0x5d : undefined;
    if (kind === "json" && opening === 0x3c /* < */) {
      const { text } = await readBounded(reader, [first]);
      throw fail({ kind: "non-json", status, body: text, contentType, headers });
    }
    if (opening !== 0x7b /* { */) return [first];
    const chunks = [first];
    if (kind === "json") {
      // Enough of the start to see the first key; a success body opens with another one.
      let size = first.byteLength;
      while (size < PROBE_BYTES) {
        const next = await reader.read();
        if (next.done) break;
        chunks.push(next.value);
        size += next.value.byteLength;
      }
      const start = new TextDecoder().decode(concat(chunks).subarray(0, PROBE_BYTES));
      if (!ERROR_OBJECT.test(start)) return chunks;
    }
    const { text, complete } = await readBounded(reader, chunks);
    const error = errorObjectIn(text);
    if (error !== undefined || (kind === "json" && !complete)) {
      // An error object, or one too large to read whole: mapped like an HTTP error body.
      throw fail({
        kind: "http",
        status,
        body: error === undefined ? text : JSON.stringify({ error }),
        headers,
      });
    }
    if (kind === "sse") {
      throw fail({
        kind: "malformed",
        detail: "the event stream holds a JSON document instead of events",
        body: text,
        headers,
      });
    }
    // An `"error"` key without an error object (`"error": null`): an ordinary body after all.
    return [new TextEncoder().encode(text)];
  };

  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            if (!started) throw fail({ kind: "empty", status, headers });
            if (kind === "json" && closer !== undefined && last !== closer) {
              // The connection closed early: a passing fault, retried like a reset.
              const cause = new Error("the JSON body ended before its closing bracket");
              throw fail({ kind: "network", cause, afterResponse: true, headers });
            }
            controller.close();
            return;
          }
          started = true;
          const chunks = probed ? [value] : await probe(value);
          for (const chunk of chunks) {
            last = lastSignificant(chunk) ?? last;
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
  return new Response(stream, { status, statusText: response.statusText, headers });
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
  // A cancellation, or a failure already typed (an empty, cut or error-holding body).
  if (body.aborted() || isAbortError(error) || InferenceServiceError.isInstance(error))
    return error;
  return fail({ kind: "network", cause: error, afterResponse: true, headers });
}

/** A response whose body, once read, fails with `error`. */
function bodyless(response: Response, error: unknown): Response {
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.error(error);
    },
  });
  const { status, statusText, headers } = response;
  return new Response(stream, { status, statusText, headers });
}

function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
