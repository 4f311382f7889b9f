/**
 * @module `<think>` tags in an answer, for models served without a reasoning parser: the text
 * split into reasoning and answer as it streams, holding back nothing but what may still turn out
 * to be a tag.
 */

const OPEN = "<think>";
const CLOSE = "</think>";

/**
 * The most whitespace a `<think>` that opens the answer may follow (templates write a newline or
 * two, if any). Past it no tag can open the answer, so the whitespace is known to be the answer's
 * own and goes out at once, and what a split holds back stays bounded: a long run of whitespace
 * is read once, never again with each piece that follows.
 */
export const MAX_SPACE_BEFORE_TAG = 32;

/** Where tags are read: a `<think>…</think>` that opens the answer, or an answer that starts inside one. */
export type TagMode = "leading" | "opened";

/** What one piece of text turned out to be. */
export interface SplitText {
  reasoning: string;
  text: string;
}

/**
 * The states of a split: before the answer's first visible character (`start`), inside the
 * reasoning, just after `</think>` (whitespace there is dropped), and in the answer for good.
 */
type State = "start" | "reasoning" | "closed" | "answer";

/**
 * Splits one answer, piece by piece, into reasoning and text. Tags are read only where they
 * cannot be text: at the very start of the answer (after at most {@link MAX_SPACE_BEFORE_TAG}
 * whitespace characters), and the first `</think>` after it; a `<think>` written later is text.
 * What is held back between pieces is at most a prefix of a tag (and the whitespace before the
 * answer's first tag): `"<thi"`, `"</thin"`.
 *
 * @example
 * const split = new ThinkTagSplitter("leading");
 * split.push("<thi"); // { reasoning: "", text: "" } — may be a tag, held back
 * split.push("nk>Let me see</th"); // { reasoning: "Let me see", text: "" }
 * split.push("ink>\n\n42"); // { reasoning: "", text: "42" }
 * split.end(); // { reasoning: "", text: "" }
 */
export class ThinkTagSplitter {
  #state: State = "start";
  readonly #mode: TagMode;
  /** Text held back: a possible tag, or whitespace whose place is not known yet. */
  #held = "";
  /** Reasoning emitted so far, to drop the whitespace that opens it. */
  #thought = false;

  constructor(mode: TagMode) {
    this.#mode = mode;
  }

  /** True once the rest of the answer is text: a caller may pass pieces on without splitting. */
  get settled(): boolean {
    return this.#state === "answer" && this.#held === "";
  }

  /** Characters held back now: a partial tag (with the whitespace before the answer's first tag). */
  get held(): number {
    return this.#held.length;
  }

  /** The reasoning and the text that `piece` completes. */
  push(piece: string): SplitText {
    const out: SplitText = { reasoning: "", text: "" };
    let rest = this.#held + piece;
    this.#held = "";
    // Each pass consumes the state's part of `rest` and leaves what follows a tag.
    while (rest !== "") {
      if (this.#state === "answer") {
        out.text += rest;
        break;
      }
      if (this.#state === "start") {
        const lead = leadingSpace(rest, MAX_SPACE_BEFORE_TAG + 1);
        const after = rest.slice(lead);
        if (lead > MAX_SPACE_BEFORE_TAG) {
          // Too far from the start for a tag: the answer (or, opened, the reasoning) begins.
          this.#state = this.#mode === "opened" ? "reasoning" : "answer";
        } else if (after.startsWith(OPEN)) {
          this.#state = "reasoning";
          rest = after.slice(OPEN.length);
        } else if (OPEN.startsWith(after)) {
          // Whitespace, or whitespace and a prefix of `<think>`: not known yet.
          this.#held = rest;
          break;
        } else if (this.#mode === "opened") {
          this.#state = "reasoning";
        } else {
          this.#state = "answer";
        }
        continue;
      }
      if (this.#state === "reasoning") {
        const at = rest.indexOf(CLOSE);
        if (at >= 0) {
          this.#think(out, rest.slice(0, at));
          this.#state = "closed";
          rest = rest.slice(at + CLOSE.length);
          continue;
        }
        const keep = partialTagAtEnd(rest, CLOSE);
        this.#think(out, rest.slice(0, rest.length - keep));
        this.#held = rest.slice(rest.length - keep);
        break;
      }
      // closed: the whitespace between `</think>` and the answer belongs to neither.
      const lead = leadingSpace(rest);
      if (lead === rest.length) break;
      this.#state = "answer";
      rest = rest.slice(lead);
    }
    return out;
  }

  /** The answer ended: what was held back, as what it can only be now. */
  end(): SplitText {
    const held = this.#held;
    this.#held = "";
    if (held === "") return { reasoning: "", text: "" };
    if (this.#state === "reasoning") {
      // An answer cut off while thinking (e.g. at max_tokens) is reasoning to its end.
      const out = { reasoning: "", text: "" };
      this.#think(out, held);
      return out;
    }
    if (this.#state === "start" && this.#mode === "opened") {
      this.#state = "reasoning";
      const out = { reasoning: "", text: "" };
      this.#think(out, held);
      return out;
    }
    // Whitespace or a partial `<think>` that never completed, at the start: plain text.
    return this.#state === "start" ? { reasoning: "", text: held } : { reasoning: "", text: "" };
  }

  /** Adds reasoning text, without the whitespace that opens the reasoning. */
  #think(out: SplitText, text: string): void {
    const kept = this.#thought ? text : text.slice(leadingSpace(text));
    if (kept === "") return;
    this.#thought = true;
    out.reasoning += kept;
  }
}

/** Splits a whole answer: the same rules as a stream, so invoke and stream agree. */
export function splitThinkTags(text: string, mode: TagMode): SplitText {
  // Most answers have no tag: in "leading" mode only one at the start counts, so the answer is
  // known at once, without a splitter or a copy of the text (a call pays for this on every reply).
  const lead = leadingSpace(text, MAX_SPACE_BEFORE_TAG + 1);
  if (mode === "leading" && (lead > MAX_SPACE_BEFORE_TAG || !text.startsWith(OPEN, lead))) {
    return { reasoning: "", text };
  }
  const split = new ThinkTagSplitter(mode);
  const first = split.push(text);
  const last = split.end();
  return { reasoning: first.reasoning + last.reasoning, text: first.text + last.text };
}

/** How many whitespace characters `text` starts with, counted up to `most`. */
function leadingSpace(text: string, most = text.length): number {
  const end = Math.min(most, text.length);
  let i = 0;
  while (i < end && isSpace(text.charCodeAt(i))) i++;
  return i;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/** The length of the longest end of `text` that is a proper prefix of `tag` (0 when none). */
function partialTagAtEnd(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length--) {
    if (tag.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}
