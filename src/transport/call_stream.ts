/**
 * @module `CallStream`: a model's stream as its channel hands it out — opened when it is first
 * read, metered and traced — and the one place a stream's end is settled, however it ends: read
 * to its end, failed, left (`break`, `return`) or stopped by its signal (at once, even when
 * nobody reads it again). The meter settles the attempt that answered (`CallMeter.endStream`),
 * then the request's span ends (`CallTrace.end`).
 */
import type { FailureContext } from "../errors/mapper.js";
import type { CallMeter, MeteredAttempt, StreamEnd } from "../spend/call_meter.js";
import { StreamReading } from "../spend/estimate.js";
import type { CallTrace } from "../telemetry/call_trace.js";
import { abortError } from "../utils/sleep.js";

/** What a stream's response says of itself once its first event has arrived. */
export interface StreamHead {
  /** The request ID of the response (`X-Gateway-Request-Id`). */
  requestId?: string;
  response: Response;
  /** What the stream's failures are typed with, for a check of its own events. */
  ctx: FailureContext;
}

/** A stream opened: what it hands out, and the attempt that answered it. */
export interface OpenedItems<U> {
  items: AsyncIterable<U>;
  attempt?: MeteredAttempt;
  head: StreamHead;
}

/** What a stream is started with, when it is first read or opened. */
export interface StreamStart<U> {
  signal?: AbortSignal;
  /** The call's meter, if it has trackers or a rate limiter. */
  meter?: CallMeter;
  /** Resolves once the stream's first event has arrived (sent, retried, typed by the channel). */
  opened: Promise<OpenedItems<U>>;
}

/** How a {@link CallStream} is set up by its channel. */
export interface CallStreamSetup<U> {
  /** Sends the request: called once, when the stream is first read or opened. */
  start(): StreamStart<U>;
  /** What one item adds to the meter's reading (output text, usage). */
  count?: (reading: StreamReading, item: U) => void;
  /** The request's telemetry; undefined when nothing is traced. */
  trace?: CallTrace;
}

/**
 * A stream passed through unchanged, settled once however it ends (see the module's comment).
 * A plain iterator, not an async generator: it sits on every item of every stream.
 */
export class CallStream<U> implements AsyncGenerator<U> {
  readonly #setup: CallStreamSetup<U>;
  readonly #trace?: CallTrace;
  #signal?: AbortSignal;
  #meter?: CallMeter;
  #reading?: StreamReading;
  #opening?: Promise<OpenedItems<U>>;
  #items?: AsyncIterator<U>;
  #attempt?: MeteredAttempt;
  #ended?: Promise<void>;
  /** Left before it was first read: it never opens. */
  #closed = false;
  readonly #onAbort = () => {
    const signal = this.#signal!;
    void this.#end("aborted", abortError(signal));
  };

  constructor(setup: CallStreamSetup<U>) {
    this.#setup = setup;
    this.#trace = setup.trace;
  }

  [Symbol.asyncIterator](): AsyncGenerator<U> {
    return this;
  }

  /**
   * Sends the request (once) and resolves with the response's head when its first event has
   * arrived; rejects with the typed error of a stream that could not be opened.
   */
  async open(): Promise<StreamHead> {
    return (await this.#open()).head;
  }

  #open(): Promise<OpenedItems<U>> {
    if (this.#opening !== undefined) return this.#opening;
    let start: StreamStart<U>;
    try {
      start = this.#setup.start();
    } catch (error) {
      this.#opening = this.#end("failed", error).then(() => Promise.reject(error));
      return this.#opening;
    }
    const { signal, meter } = start;
    this.#signal = signal;
    this.#meter = meter;
    if (meter !== undefined && this.#setup.count !== undefined) this.#reading = new StreamReading();
    // Taken off when the stream is settled, whichever ending comes first (a signal fires once).
    signal?.addEventListener("abort", this.#onAbort);
    this.#opening = start.opened.then(
      (opened) => {
        this.#attempt = opened.attempt;
        this.#items = opened.items[Symbol.asyncIterator]();
        return opened;
      },
      async (error: unknown) => {
        await this.#end(signal?.aborted ? "aborted" : "failed", error);
        throw error;
      },
    );
    return this.#opening;
  }

  /**
   * The next item, counted; the end or a failure settles the stream. Once open, a promise chain
   * rather than an async method: it runs on every item, and an async frame of its own costs more.
   */
  next(): Promise<IteratorResult<U>> {
    const items = this.#items;
    if (items === undefined) return this.#openAndNext();
    let result: Promise<IteratorResult<U>>;
    try {
      result = items.next();
    } catch (error) {
      return this.#failed(error);
    }
    return result.then(this.#read, this.#failed);
  }

  /** The first read: opens the stream (once), then reads on. */
  async #openAndNext(): Promise<IteratorResult<U>> {
    if (this.#closed) return { done: true, value: undefined };
    this.#items ??= (await this.#open()).items[Symbol.asyncIterator]();
    return this.next();
  }

  /** Counts an item, or settles the stream at its end. */
  readonly #read = (result: IteratorResult<U>): IteratorResult<U> | Promise<IteratorResult<U>> => {
    if (result.done) return this.#end("ended").then(() => result);
    if (this.#reading !== undefined) this.#setup.count!(this.#reading, result.value);
    return result;
  };

  /** A read failed: the stream is settled, then the error passes on. */
  readonly #failed = async (error: unknown): Promise<never> => {
    await this.#end(this.#signal?.aborted ? "aborted" : "failed", error);
    throw error;
  };

  /** Left before its end (`break`, `return`): the source is told, then the stream is settled. */
  async return(value?: unknown): Promise<IteratorResult<U>> {
    const items = this.#items;
    if (items === undefined) {
      // Never read: nothing was sent, nothing to settle.
      if (this.#opening === undefined) this.#closed = true;
      else
        await this.#opening.then(
          () => this.return(value),
          () => undefined,
        );
      return { done: true, value: undefined };
    }
    try {
      await items.return?.(value);
    } finally {
      const signal = this.#signal;
      if (signal?.aborted) await this.#end("aborted", abortError(signal));
      else await this.#end("left");
    }
    return { done: true, value: undefined };
  }

  async throw(error: unknown): Promise<IteratorResult<U>> {
    await this.#end("failed", error);
    const items = this.#items;
    if (items?.throw) return items.throw(error);
    throw error;
  }

  /** Settles the stream's attempt, then ends its span: once, whichever ending comes first. */
  #end(how: StreamEnd, error?: unknown): Promise<void> {
    this.#ended ??= this.#settle(how, error);
    return this.#ended;
  }

  async #settle(how: StreamEnd, error: unknown): Promise<void> {
    this.#signal?.removeEventListener("abort", this.#onAbort);
    try {
      await this.#meter?.endStream(this.#reading ?? new StreamReading(), how, this.#attempt);
    } finally {
      this.#trace?.end(error, how);
    }
  }
}
