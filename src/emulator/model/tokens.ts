/** @module Token counting and splitting with js-tiktoken's bundled o200k_base ranks (nothing downloaded). */

import { O200kEncoder } from "./o200k.js";

let encoder: O200kEncoder | undefined;

/** Builds the encoder once; it takes a few tenths of a second, so it is done on first use, not at import. */
function getEncoder(): O200kEncoder {
  encoder ??= new O200kEncoder();
  return encoder;
}

/** Pays the encoder's start-up cost now (the server does so before listening). */
export function warmUpTokenizer(): void {
  getEncoder();
}

function encode(text: string): number[] {
  // Special-token text such as "<|endoftext|>" is ordinary user text here: never throw on it.
  return getEncoder().encode(text);
}

// Prompts repeat (system prompts, few-shot examples, benchmarks): counting is the costliest step
// of a non-streamed call, so counts of short strings are remembered. Cleared whole when full.
const COUNT_CACHE_LIMIT = 10_000;
const CACHEABLE_LENGTH = 8_192;
const counts = new Map<string, number>();

/** Number of o200k_base tokens in `text`. */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  const cached = counts.get(text);
  if (cached !== undefined) return cached;
  const count = encode(text).length;
  if (text.length <= CACHEABLE_LENGTH) {
    if (counts.size >= COUNT_CACHE_LIMIT) counts.clear();
    counts.set(text, count);
  }
  return count;
}

/**
 * Splits `text` into pieces of about one token each, for streaming. A token that ends inside a
 * multi-byte character (emoji, CJK) is joined with the next, so every piece is valid text.
 */
export function tokenPieces(text: string): string[] {
  if (text.length === 0) return [];
  const pieces: string[] = [];
  let pending: number[] = [];
  for (const token of encode(text)) {
    pending.push(token);
    const piece = getEncoder().decode(pending);
    if (piece.endsWith("\uFFFD") && pending.length < 4) continue;
    pieces.push(piece);
    pending = [];
  }
  if (pending.length > 0) pieces.push(getEncoder().decode(pending));
  return pieces;
}

/** The longest prefix of `text` with at most `max` tokens. */
export function truncateToTokens(text: string, max: number): string {
  const tokens = encode(text);
  if (tokens.length <= max) return text;
  return getEncoder()
    .decode(tokens.slice(0, Math.max(0, max)))
    .replace(/\uFFFD+$/, "");
}
