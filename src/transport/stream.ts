/**
 * @module Mid-stream failures: the one pass-through every model stream is read through, which
 * turns a failure while reading (an `{"error": …}` event, a cut or stalled connection) into a
 * typed error that keeps the output received so far and the request ID, and opens a stream
 * inside a retried attempt.
 */

import { asServiceError, type FailureContext, toServiceError } from "../errors/mapper.js";
import { abortError } from "../utils/sleep.js";
import { carriesAnswer, type RawChoice, textOfChoice } from "./answer.js";
import { sawDoneEvent } from "./body.js";

/**
 * How a stream's events tell their answer, for the API that sent them: the choices of chat and
 * completions chunks by default ({@link choicesWatch}); an API whose events are of another shape
 * (the Responses API's typed events) passes its own with its request. One object per stream,
 * told each event in order; it sits on every event, so it keeps state rather than allocating.
 */
export interface StreamWatch<T> {
  /**
   * Reads one event. Returns the error payload (`{ error: { code, message, … } }`) of an event
   * that says the answer failed, typed then as an error event in the middle of the stream; else
   * undefined.
   */
  see(event: T): unknown;
  /** The output text read so far: what a failure in the middle keeps as `partialOutput`. */
  readonly partialOutput: string;
  /** Whether some event said the answer is complete (a finish reason, a terminal event). */
  readonly finished: boolean;
  /** Why the stream, ended now, carries no answer; undefined when it carries one. */
  unanswered(): string | undefined;
}

/** The watch of chat and completions chunks: their choices carry the answer. */
class ChoicesWatch<T extends object> implements StreamWatch<T> {
  partialOutput = "";
  finished = false;
  #choices = false;
  #answered = false;

  see(chunk: T): undefined {
    const choice = (chunk as { choices?: RawChoice[] }).choices?.[0];
    if (choice === undefined) return;
    this.#choices = true;
    this.#answered ||= carriesAnswer(choice, "delta");
    this.finished ||= typeof choice.finish_reason === "string";
    const text = textOfChoice(choice, "delta");
    if (text) this.partialOutput += text;
  }

  unanswered(): string | undefined {
    if (this.#answered) return undefined;
    return this.#choices
      ? "the stream's choices carried no content, tool calls, reasoning or finish reason"
      : "the stream ended without any choice";
  }
}

/** A watch of chat and completions chunks, the default of every stream. */
export function choicesWatch<T extends object>(): StreamWatch<T> {
  return new ChoicesWatch<T>();
}

/**
 * A stream passed through unchanged, watched as it is read (by its API's {@link StreamWatch}). A
 * plain iterator, not an async generator: it sits on every chunk of every stream. An event the
 * watch reads as a failure is that error, keeping the output so far. A stream that ends without
 * an answer (for chat: without any choice, or with choices that never carry content, tool calls,
 * reasoning or a finish reason, {@link carriesAnswer}) is a `MalformedResponseError`, as a 200
 * without a usable choice is on invoke (docs/service-contract.md#errors, rule 4). One that ends
 * with neither a finish reason (a terminal event) nor `[DONE]` (`sawDone` says false) was cut, however cleanly its connection closed: a
 * `ServiceConnectionError` keeping what arrived, as a cut JSON body is — unless the caller's
 * `signal` stopped it: a cancelled stream ends with the signal's own error, whatever reading it
 * then threw or however quietly it ended (the openai SDK ends a stream whose fetch was aborted
 * without a word).
 */
class WatchedStream<T extends object> implements AsyncIterableIterator<T> {
  readonly #source: AsyncIterator<T>;
  readonly #ctx: FailureContext;
  readonly #status: number;
  readonly #sawDone: () => boolean | undefined;
  readonly #signal: AbortSignal | undefined;
  /** Sees each event as it is handed out (the request's telemetry). */
  readonly #observe: ((event: T) => void) | undefined;
  /** The first event, read before the stream was handed out (see {@link openStream}). */
  #head: IteratorResult<T> | undefined;
  readonly #watch: StreamWatch<T>;

  constructor(
    source: AsyncIterator<T>,
    ctx: FailureContext,
    status: number,
    sawDone: () => boolean | undefined,
    signal: AbortSignal | undefined,
    head?: IteratorResult<T>,
    observe?: (event: T) => void,
    watch: StreamWatch<T> = new ChoicesWatch<T>(),
  ) {
    this.#watch = watch;
    this.#source = source;
    this.#ctx = ctx;
    this.#status = status;
    this.#sawDone = sawDone;
    this.#signal = signal;
    this.#head = head;
    this.#observe = observe;
  }

  [Symbol.asyncIterator]() {
    return this;
  }

  /**
   * The next event, watched. A promise chain rather than an async method: it runs on every
   * event, and an async frame of its own costs more.
   */
  next(): Promise<IteratorResult<T>> {
    const head = this.#head;
    if (head !== undefined) {
      this.#head = undefined;
      try {
        return Promise.resolve(this.#see(head));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    let result: Promise<IteratorResult<T>>;
    try {
      result = this.#source.next();
    } catch (error) {
      return Promise.reject(this.#readFailure(error));
    }
    return result.then(this.#see, this.#failed);
  }

  /** Watches what a read gave: an event, or the end. */
  readonly #see = (result: IteratorResult<T>): IteratorResult<T> => {
    if (!result.done) {
      this.#watchEvent(result.value);
      this.#observe?.(result.value);
    } else if (this.#signal?.aborted) throw abortError(this.#signal);
    else this.#checkEnd();
    return result;
  };

  readonly #failed = (error: unknown): never => {
    throw this.#readFailure(error);
  };

  /** A read that failed, as the error to pass on: the signal's own, or typed with the output so far. */
  #readFailure(error: unknown): unknown {
    if (this.#signal?.aborted) return abortError(this.#signal);
    const ctx = { ...this.#ctx, partialOutput: this.#watch.partialOutput, midStream: true };
    return asServiceError(error, ctx);
  }

  async return(value?: unknown): Promise<IteratorResult<T>> {
    this.#head = undefined;
    await this.#source.return?.(value);
    return { done: true, value: undefined };
  }

  #watchEvent(event: T): void {
    const failed = this.#watch.see(event);
    if (failed === undefined) return;
    const { partialOutput } = this.#watch;
    const headers = this.#ctx.responseHeaders;
    throw toServiceError(
      { kind: "stream-error", payload: failed, headers, partialOutput },
      { ...this.#ctx, partialOutput, midStream: true },
    );
  }

  #checkEnd(): void {
    const ctx = this.#ctx;
    const headers = ctx.responseHeaders;
    const watch = this.#watch;
    const detail = watch.unanswered();
    if (detail !== undefined) {
      throw toServiceError({ kind: "malformed", detail, headers, status: this.#status }, ctx);
    }
    if (!watch.finished && this.#sawDone() === false) {
      const cause = new Error("the event stream ended without a finish reason or [DONE]");
      throw toServiceError(
        { kind: "network", cause, afterResponse: true, headers },
        { ...ctx, partialOutput: watch.partialOutput, midStream: true },
      );
    }
  }
}

/** Passes a stream through unchanged, watched as {@link WatchedStream} says. */
export function tagStream<T extends object>(
  stream: AsyncIterable<T>,
  headers: Headers,
  ctx: FailureContext,
  status = 200,
  sawDone: () => boolean | undefined = () => undefined,
  signal?: AbortSignal,
): AsyncIterableIterator<T> {
  const source = stream[Symbol.asyncIterator]();
  return new WatchedStream(source, { ...ctx, responseHeaders: headers }, status, sawDone, signal);
}

/**
 * A stream whose first event has arrived: call it inside a retried attempt, so that a stream that
 * fails, stalls or ends before its first event is retried like a failed request (nothing has been
 * handed out yet); later events are never retried. A stream with no event at all is the empty
 * response of `status` (a Pending endpoint on the dedicated surface, docs/service-contract.md#endpoint-states);
 * one the caller's `signal` stopped ends with the signal's own error. `observe` sees each event as
 * it is handed out, the first included.
 */
export async function openStream<T extends object>(
  stream: AsyncIterable<T>,
  response: Pick<Response, "headers" | "status">,
  ctx: FailureContext,
  signal?: AbortSignal,
  observe?: (event: T) => void,
  watch?: StreamWatch<T>,
): Promise<AsyncIterableIterator<T>> {
  const { headers, status } = response;
  const source = stream[Symbol.asyncIterator]();
  let first: IteratorResult<T>;
  try {
    first = await source.next();
  } catch (error) {
    if (signal?.aborted) throw abortError(signal);
    throw asServiceError(error, { ...ctx, responseHeaders: headers });
  }
  if (signal?.aborted) throw abortError(signal);
  if (first.done) throw toServiceError({ kind: "empty", status, headers }, ctx);
  const watched = { ...ctx, responseHeaders: headers };
  const sawDone = () => sawDoneEvent(response);
  return new WatchedStream(source, watched, status, sawDone, signal, first, observe, watch);
}
