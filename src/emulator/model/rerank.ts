/**
 * @module The emulator's rerank model: a lexical relevance score — BM25 over the topic words that
 * `terms.ts` reads (stemmed, so "volcanoes" meets "volcanic") — so that the document answering a
 * plain question comes first, and the answer's shape and usage as rerank servers send them.
 */

import { isRecord } from "../validate.js";
import { InvalidBodyError, parseObject } from "./requests.js";
import { terms } from "./terms.js";
import { countTokens } from "./tokens.js";

/** BM25's usual constants: how fast repeats of a word stop adding, and how much length counts. */
const K1 = 1.2;
const B = 0.75;
/** Where the relevance is one half: a score worth half of "each query word once". */
const HALF_AT = 0.5;

/**
 * The relevance of each document to `query`, in the documents' order, from 0 (no topic word in
 * common) towards 1. BM25 over the documents given (their own IDF and average length), divided by
 * the query words' summed IDF — 1 for a document holding each query word once at average length
 * — then mapped by x / (x + 0.5) into [0, 1), so no two scores tie where BM25 does not.
 *
 * @example
 * relevanceScores("What do volcanoes release?", [
 *   "A cat purrs when it is content.",
 *   "Volcanic eruptions released lava and ash.",
 * ]); // [0, 0.6…]
 */
export function relevanceScores(query: string, documents: readonly string[]): number[] {
  const queryTerms = [...new Set(terms(query))];
  const counted = documents.map(termCounts);
  const averageLength =
    counted.reduce((sum, document) => sum + document.length, 0) / Math.max(1, counted.length) || 1;
  const idf = queryTerms.map((term) => {
    const holding = counted.reduce((n, document) => n + (document.counts.has(term) ? 1 : 0), 0);
    return Math.log(1 + (counted.length - holding + 0.5) / (holding + 0.5));
  });
  const idfSum = idf.reduce((sum, x) => sum + x, 0);
  return counted.map(({ counts, length }) => {
    if (idfSum === 0) return 0;
    let score = 0;
    queryTerms.forEach((term, i) => {
      const tf = counts.get(term) ?? 0;
      if (tf > 0) {
        score += (idf[i]! * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / averageLength));
      }
    });
    const x = score / idfSum;
    return x / (x + HALF_AT);
  });
}

/** How often each topic word occurs in `text`, and how many topic words it has. */
function termCounts(text: string): { counts: Map<string, number>; length: number } {
  const all = terms(text);
  const counts = new Map<string, number>();
  for (const term of all) counts.set(term, (counts.get(term) ?? 0) + 1);
  return { counts, length: all.length };
}

/** One result of a rerank answer. */
export interface RerankResult {
  index: number;
  relevance_score: number;
  document?: { text: string };
}

/**
 * The results, best first (ties in the documents' order), at most `topN`, each with its
 * document's text when `returnDocuments`.
 */
export function rankedResults(
  scores: readonly number[],
  documents: readonly string[],
  topN: number | undefined,
  returnDocuments: boolean,
): RerankResult[] {
  const order = [...scores.keys()].sort((a, b) => scores[b]! - scores[a]! || a - b);
  return order.slice(0, topN ?? order.length).map((index) => ({
    index,
    relevance_score: scores[index]!,
    ...(returnDocuments ? { document: { text: documents[index]! } } : {}),
  }));
}

/**
 * The tokens of each document read together with the query, as a cross-encoder reads them: the
 * call's prompt tokens are their sum (the query counts once per document), and a model's
 * `maxInputTokens` bounds each.
 */
export function pairTokens(query: string, documents: readonly string[]): number[] {
  const queryTokens = countTokens(query);
  return documents.map((document) => queryTokens + countTokens(document));
}

/** The answer body: `{ id, model, results, usage: { prompt_tokens, total_tokens } }`. */
export function rerankBody(
  id: string,
  model: string,
  results: readonly RerankResult[],
  promptTokens: number,
): object {
  return { id, model, results, usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } };
}

/** A `POST /rerank` body (the Jina and Cohere shape the gateway relays). */
export interface RerankRequest {
  model: string;
  query: string;
  /** The documents' texts, in the order sent (given as strings or `{ text }` objects). */
  documents: string[];
  /** `top_n`: how many results to answer with, the best first; undefined for all of them. */
  topN: number | undefined;
  /** `return_documents`: whether each result carries its document's text. Default false. */
  returnDocuments: boolean;
}

/**
 * Reads a `POST /rerank` body: `query` a non-empty string, `documents` a non-empty array of
 * strings or `{ text }` objects, `top_n` a whole number ≥ 1, `return_documents` a boolean.
 */
export function parseRerankRequest(body: string): RerankRequest {
  const json = parseObject(body);
  if (typeof json.model !== "string") throw new InvalidBodyError("model must be a string");
  if (typeof json.query !== "string" || json.query === "") {
    throw new InvalidBodyError("query must be a non-empty string", "query");
  }
  if (!Array.isArray(json.documents) || json.documents.length === 0) {
    throw new InvalidBodyError("documents must be a non-empty array", "documents");
  }
  const documents = json.documents.map((document: unknown, i) => {
    if (typeof document === "string") return document;
    if (isRecord(document) && typeof document.text === "string") return document.text;
    throw new InvalidBodyError(
      `documents[${i}] must be a string or an object with a string "text"`,
      "documents",
    );
  });
  const topN = json.top_n ?? undefined;
  if (topN !== undefined && !(Number.isInteger(topN) && (topN as number) >= 1)) {
    throw new InvalidBodyError("top_n must be a whole number ≥ 1", "top_n");
  }
  const returnDocuments = json.return_documents ?? false;
  if (typeof returnDocuments !== "boolean") {
    throw new InvalidBodyError("return_documents must be true or false", "return_documents");
  }
  return {
    model: json.model,
    query: json.query,
    documents,
    topN: topN as number | undefined,
    returnDocuments,
  };
}
