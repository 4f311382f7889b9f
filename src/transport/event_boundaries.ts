/**
 * @module Where the events of a server-sent event stream end, found byte by byte as the chunks
 * arrive: what the idle timeout of a stream counts, so a server that keeps the connection busy
 * with comments or a slow trickle of one event cannot hold a call open.
 */

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
/** `data`, the one field that makes an event: a block without it is never dispatched. */
const DATA = [0x64, 0x61, 0x74, 0x61];
const SPACE = 0x20;
/** `[DONE]`, the data of the event OpenAI-style streams end with. */
const DONE = [0x5b, 0x44, 0x4f, 0x4e, 0x45, 0x5d];
/** `data: [DONE]`'s length: past it, a line has nothing more to tell but where it ends. */
const TELLING = DATA.length + 2 + DONE.length;

/**
 * Where the line that goes on at `from` ends in `chunk` (its length when it goes on past it),
 * given `nextCR`, the first CR at or after some earlier position (the chunk's length when none).
 * Returns that end and the first CR at or after `from`: the next search starts from it, so a
 * chunk is scanned for CRs once in all (most streams have none), not once a line.
 */
function lineEnd(chunk: Uint8Array, from: number, nextCR: number): [end: number, nextCR: number] {
  let cr = nextCR;
  if (cr < from) {
    cr = chunk.indexOf(CR, from);
    if (cr < 0) cr = chunk.length;
  }
  const lf = chunk.indexOf(LF, from);
  return [lf < 0 ? cr : Math.min(lf, cr), cr];
}

/**
 * Scans an SSE body for complete events: a block of lines ended by an empty line that holds a
 * `data` field. Comments (`: ping`), other fields alone and partial lines are not events. Line
 * ends are LF, CR or CRLF, as the SSE format allows, also when split across chunks.
 *
 * @example
 * const boundaries = new EventBoundaries();
 * boundaries.feed(encode(": ping\n\n")); // false
 * boundaries.feed(encode('data: {"id":1}\n')); // false: the event is not over yet
 * boundaries.feed(encode("\n")); // true
 */
export class EventBoundaries {
  /** Bytes of the current line so far. */
  #lineLength = 0;
  /** Whether the current line, so far, may be a `data` field. */
  #dataLine = true;
  /** Whether the current block has had a `data` field. */
  #blockHasData = false;
  /** The previous byte was a CR: an LF right after it ends no second line. */
  #afterCR = false;
  /** Bytes of the current `data` line's value that match `[DONE]` so far; -1 once one does not. */
  #doneMatched = 0;
  #sawDone = false;

  /** Whether a `data: [DONE]` line has been read: the stream says it is complete. */
  get sawDone(): boolean {
    return this.#sawDone;
  }

  /** Reads one chunk; true when at least one event ended in it. */
  feed(chunk: Uint8Array): boolean {
    let ended = false;
    // Below 0: not searched yet in this chunk (see lineEnd).
    let nextCR = -1;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (byte === LF || byte === CR) {
        if (byte === LF && this.#afterCR) {
          this.#afterCR = false;
          continue;
        }
        this.#afterCR = byte === CR;
        if (this.#lineLength === 0) {
          ended ||= this.#blockHasData;
          this.#blockHasData = false;
        } else if (this.#dataLine && this.#lineLength >= DATA.length) {
          this.#blockHasData = true;
          if (this.#doneMatched === DONE.length) this.#sawDone = true;
        }
        this.#lineLength = 0;
        this.#dataLine = true;
        this.#doneMatched = 0;
        continue;
      }
      this.#afterCR = false;
      if (this.#lineLength >= TELLING) {
        // The rest of a long line (an event's JSON) is skipped natively, not byte by byte.
        const [end, cr] = lineEnd(chunk, i, nextCR);
        nextCR = cr;
        this.#lineLength += end - i;
        this.#doneMatched = -1;
        i = end - 1;
        continue;
      }
      const at = this.#lineLength++;
      if (!this.#dataLine) continue;
      // `data` then a colon, or `data` alone on its line (a field with an empty value).
      if (at < DATA.length ? byte !== DATA[at] : at === DATA.length && byte !== COLON) {
        this.#dataLine = false;
      } else if (at > DATA.length) this.#matchDone(byte, at === DATA.length + 1);
    }
    return ended;
  }

  /** Follows a `data` line's value against `[DONE]` (after the one space the format allows). */
  #matchDone(byte: number, first: boolean): void {
    if (this.#doneMatched < 0 || (first && byte === SPACE)) return;
    this.#doneMatched =
      this.#doneMatched < DONE.length && byte === DONE[this.#doneMatched]
        ? this.#doneMatched + 1
        : -1;
  }
}
