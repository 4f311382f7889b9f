/**
 * @module The emulator's embedding model: deterministic vectors in which texts that share words
 * lie near each other, so that a vector store over a few documents retrieves the right one.
 */

import { mulberry32 } from "./faults.js";
import { keywords } from "./text.js";
import { countTokens } from "./tokens.js";

/**
 * The vector of `text`, `dimensions` long and of length 1: a hashed bag of its words. Each topic
 * word — lower-cased, stemmed ("cities" → "city"), function words dropped, as the chat model
 * reads a message — adds +1 or −1 (a second hash picks the sign) to one coordinate (a hash of
 * the word picks it); the sum is normalised. Two texts' cosine similarity is then about the share
 * of topic words they have in common. A text without any topic word gets the vector of the empty
 * word, the same for all of them.
 *
 * @example
 * const a = embed("Hosted models are paid from the Wallet", 256);
 * const b = embed("What happens when the wallet is empty?", 256);
 * dot(a, b) > dot(a, embed("Service-Name routes dedicated endpoints", 256)); // true
 */
export function embed(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const words = keywords(text);
  for (const word of words.size > 0 ? words : [""]) {
    const hash = fnv1a(word);
    // The low bits pick the coordinate, a high bit the sign.
    vector[hash % dimensions]! += hash & 0x80000000 ? -1 : 1;
  }
  // A loop, not Math.hypot(...vector): a spread of a long vector overflows the call stack.
  let sumOfSquares = 0;
  for (const x of vector) sumOfSquares += x * x;
  const norm = Math.sqrt(sumOfSquares);
  // Signs may cancel out (two words, one coordinate): fall back to the first coordinate.
  if (norm === 0) {
    vector[0] = 1;
    return vector;
  }
  return vector.map((x) => x / norm);
}

/** FNV-1a over the UTF-16 code units of `text`, as an unsigned 32-bit number. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A vector as `encoding_format: "base64"` sends it: float32, little-endian, base64. */
export function toBase64(vector: readonly number[]): string {
  const bytes = new DataView(new ArrayBuffer(vector.length * 4));
  for (const [i, x] of vector.entries()) bytes.setFloat32(i * 4, x, true);
  return Buffer.from(bytes.buffer).toString("base64");
}

/** Tokens of each input, as the usage reports them and the input limit counts them. */
export function inputTokens(inputs: readonly string[]): number[] {
  return inputs.map(countTokens);
}

/**
 * The order the `shuffle` fault lists `count` items in: a fixed permutation (seeded by the
 * count) that moves at least one item whenever there are two.
 */
export function shuffledOrder(count: number): number[] {
  const order = Array.from({ length: count }, (_, i) => i);
  const random = mulberry32(count);
  for (let i = count - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order.every((item, i) => item === i) ? order.reverse() : order;
}

/** The `embedding` list body, OpenAI's shape, with the items in `order`. */
export function embeddingListBody(
  model: string,
  vectors: ReadonlyArray<number[] | string>,
  promptTokens: number,
  order: readonly number[],
): object {
  return {
    object: "list",
    data: order.map((index) => ({ object: "embedding", index, embedding: vectors[index] })),
    model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}
