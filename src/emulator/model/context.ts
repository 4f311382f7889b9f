/** @module The retrieval rule of the deterministic model: answer with the context sentence closest to the question. */

import { keywords, overlap } from "./terms.js";
import { sentences } from "./text.js";

// "Context:", "Documents:", "Sources:"... the labels RAG prompt templates put before passages.
const CONTEXT_MARKER = /\b(?:context|documents?|sources?|passages?)\s*:/i;
const QUESTION_MARKER = /\bquestion\s*:/i;

/** Said when a prompt has passages but none shares a word with the question. */
export const NO_ANSWER_IN_CONTEXT = "The provided context does not answer that question.";

/**
 * The passage sentence sharing the most words with the question, or undefined when the prompt
 * has no passages. Passages are the text after a `Context:`-style label in any of `texts` (the
 * question itself may follow a `Question:` label), or else the other sentences of the user
 * message when it has at least two besides the question.
 */
export function answerFromContext(texts: readonly string[], userText: string): string | undefined {
  const { question, rest } = splitQuestion(userText);
  const sources = [...texts, rest];
  const labelled = sources.filter((text) => CONTEXT_MARKER.test(text));
  const passages = labelled.length > 0 ? labelled.flatMap(afterMarker) : sentences(rest);
  if (labelled.length === 0 && passages.length < 2) return undefined;
  const query = keywords(question);
  let best: string | undefined;
  let bestScore = 0;
  for (const passage of passages) {
    const score = overlap(query, keywords(passage));
    if (score > bestScore) {
      best = passage;
      bestScore = score;
    }
  }
  return best ?? (labelled.length > 0 ? NO_ANSWER_IN_CONTEXT : undefined);
}

/** The question (after `Question:`, else the last sentence) and the text before it. */
function splitQuestion(userText: string): { question: string; rest: string } {
  const marker = QUESTION_MARKER.exec(userText);
  if (marker) {
    return {
      question: userText.slice(marker.index + marker[0].length),
      rest: userText.slice(0, marker.index),
    };
  }
  const all = sentences(userText);
  const question = all.at(-1) ?? "";
  return { question, rest: all.slice(0, -1).join("\n") };
}

function afterMarker(text: string): string[] {
  const marker = CONTEXT_MARKER.exec(text);
  const body = marker ? text.slice(marker.index + marker[0].length) : text;
  const question = QUESTION_MARKER.exec(body);
  return sentences(question ? body.slice(0, question.index) : body);
}
