/** @module Sentence-level text helpers of the deterministic model: sentences, first words and values found in a message. */

import { isStopword } from "./terms.js";

// Request verbs that start a sentence without naming anything ("Find Paris" → "Paris").
const LEADING_VERBS = new Set(
  (
    "tell find show give get call use look search calculate compute book send create list check " +
    "convert translate summarize summarise explain describe write what who where when why how " +
    "which please hi hello hey"
  ).split(" "),
);

/** Lines and sentences of `text`, with list markers and `Label:` prefixes removed. */
export function sentences(text: string): string[] {
  return text
    .split(/\n+/)
    .flatMap((line) => line.split(/(?<=[.!?])\s+/))
    .map((sentence) =>
      sentence
        .trim()
        .replace(/^(?:[-*•]|\d+[.)])\s+/, "")
        .replace(/^\[?(?:context|source|document|doc|passage)\s*\d*\]?\s*:\s*/i, "")
        .trim(),
    )
    .filter((sentence) => /[\p{L}\p{N}]/u.test(sentence));
}

/** The first `count` words of `text`, with "…" when there were more. */
export function firstWords(text: string, count = 8): string {
  const all = text.trim().split(/\s+/);
  const head = all.slice(0, count).join(" ");
  return all.length > count ? `${head}…` : head;
}

/** Values a message mentions, in order of appearance, for filling tool arguments and JSON fields. */
export interface MessageValues {
  /** The whole message. */
  text: string;
  numbers: number[];
  /** Text between double quotes, curly quotes or free-standing single quotes. */
  quoted: string[];
  /** Runs of capitalised words ("Ada Lovelace", "New York"), sentence-initial verbs removed. */
  names: string[];
  /** Names right after in/at/to/from/near/of: the likely places. */
  places: string[];
  /**
   * The names and places with the index where each starts, for telling apart the things a message
   * asks about ("weather in Paris and Tokyo"). Words in capitals (ALWAYS, USD) are left out: they
   * are emphasis or codes, not things to look up one by one.
   */
  mentions: Array<{ value: string; index: number }>;
}

const QUOTED = /"([^"]+)"|“([^”]+)”|(?<=^|\s)'([^']+)'(?=[\s.,;:!?)]|$)/g;
const NUMBER = /(?<![\p{L}\d.])-?\d+(?:\.\d+)?(?![\p{L}\d])/gu;
const CAPITALISED_RUN = /\p{Lu}[\p{L}'’-]*(?:\s+\p{Lu}[\p{L}'’-]*)*/gu;
const SENTENCE_START = /(?:[.!?:]\s+|\n\s*)$/;
const PLACE_PREPOSITION = /\b(?:in|at|to|from|near|of)\s+$/i;

export function extractValues(text: string): MessageValues {
  const quoted = [...text.matchAll(QUOTED)].map((m) => (m[1] ?? m[2] ?? m[3] ?? "").trim());
  const numbers = [...text.matchAll(NUMBER)].map((m) => Number(m[0]));
  const names: string[] = [];
  const places: string[] = [];
  const mentions: MessageValues["mentions"] = [];
  for (const match of text.matchAll(CAPITALISED_RUN)) {
    const runWords = match[0].split(/\s+/);
    // Only the few characters before the run matter; slicing from 0 would be quadratic.
    const before = text.slice(Math.max(0, match.index - 12), match.index);
    const atSentenceStart = match.index === 0 || SENTENCE_START.test(before);
    // A capitalised first word of a sentence is usually a verb, a question word or a greeting:
    // alone it is no name ("Good morning"), but "Ada Lovelace" at the start still is.
    while (
      runWords.length > 0 &&
      (LEADING_VERBS.has(runWords[0]!.toLowerCase()) || isStopword(runWords[0]!))
    ) {
      runWords.shift();
    }
    if (runWords.length === 0 || (atSentenceStart && match[0].split(/\s+/).length === 1)) continue;
    const name = runWords.join(" ").replace(/['’]s$/, "");
    names.push(name);
    if (PLACE_PREPOSITION.test(before)) places.push(name);
    if (/\p{Ll}/u.test(name)) mentions.push({ value: name, index: match.index });
  }
  return { text, numbers, quoted, names, places, mentions };
}
