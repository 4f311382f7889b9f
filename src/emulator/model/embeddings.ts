/**
 * @module The emulator's embedding model: deterministic vectors in which texts that share words
 * (or forms of a word) lie near each other, and unrelated texts do not, so that a vector store
 * over a few documents retrieves the right one.
 */

import { mulberry32 } from "../faults/faults.js";
import { InvalidBodyError, parseObject, stringOrStrings } from "./requests.js";
import { keywords } from "./terms.js";
import { countTokens } from "./tokens.js";

/**
 * Coordinates each word adds to: two, with signs of their own, so that one word landing on
 * another's coordinate (a hash collision) makes two texts look alike by half a word, not a whole.
 */
const WORD_COORDINATES = 2;
/**
 * Stems this long or longer also add their first letters, a sub-word feature, hashed as a word:
 * so "energetic" ("energet", prefix "energ") meets "energy" ("energ") on one coordinate.
 */
const PREFIX_FROM = 6;
const PREFIX_LENGTH = 5;
/** Weight of the prefix feature against a whole word's 1. */
const PREFIX_WEIGHT = 0.6;

/**
 * The vector of `text`, `dimensions` long and of length 1: a signed, hashed bag of its topic
 * words. The words are read as the chat model and rerank read them (`terms.ts`): lower-cased,
 * stemmed so that word forms meet ("volcanoes", "volcanic" → "volcan"), function words dropped.
 * Each word adds ±1 to two coordinates (picked, with their signs, by two hashes of the word), and
 * a stem of 6 letters or more adds ±0.6 for its first 5 letters, so related forms the stemmer
 * leaves apart ("photosynthesis", "photosynthetic") still meet; the sum is normalised. Two texts'
 * cosine similarity is then about the share of topic words they have in common, and unrelated
 * texts stay near 0. A text without any topic word gets the vector of the empty word, the same
 * for all of them.
 *
 * @example
 * const a = embed("Hosted models are paid from the Wallet", 256);
 * const b = embed("What happens when the wallet is empty?", 256);
 * dot(a, b) > dot(a, embed("Service-Name routes dedicated endpoints", 256)); // true
 */
export function embed(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  // The coordinates the words touched, each once: the vector is mostly zeros, left as they are.
  const touched = new Touched(dimensions);
  const words = keywords(text);
  for (const word of words.size > 0 ? words : [""]) {
    addFeature(vector, touched, fnv1a(word, word.length, FNV_OFFSET), WORD_COORDINATES, 1);
    if (word.length >= PREFIX_FROM) {
      addFeature(vector, touched, fnv1a(word, PREFIX_LENGTH, FNV_OFFSET), 1, PREFIX_WEIGHT);
    }
  }
  let sumOfSquares = 0;
  for (const i of touched.list) sumOfSquares += vector[i]! * vector[i]!;
  // Signs may cancel out (two words, one coordinate): fall back to the first coordinate.
  if (sumOfSquares === 0) {
    vector.fill(0);
    vector[0] = 1;
    return vector;
  }
  const norm = Math.sqrt(sumOfSquares);
  for (const i of touched.list) vector[i]! /= norm;
  return vector;
}

/**
 * Adds ±`weight` at `count` coordinates of `vector`, each picked (with its sign) by a hash, and
 * notes them in `touched`.
 */
function addFeature(
  vector: number[],
  touched: Touched,
  hash: number,
  count: number,
  weight: number,
): void {
  let h = hash;
  for (let i = 0; ; i++) {
    // The low bits pick the coordinate, the high bit the sign; the next hash is a remix.
    const at = h % vector.length;
    touched.add(at);
    vector[at]! += h & 0x80000000 ? -weight : weight;
    if (i + 1 === count) return;
    h = remix(h + i);
  }
}

const FNV_OFFSET = 0x811c9dc5;

/** The coordinates of a vector that a text touched, in the order first touched, each once. */
class Touched {
  readonly list: number[] = [];
  readonly #seen: Uint8Array;

  constructor(dimensions: number) {
    this.#seen = new Uint8Array(dimensions);
  }

  add(at: number): void {
    if (this.#seen[at] === 0) {
      this.#seen[at] = 1;
      this.list.push(at);
    }
  }
}

/** FNV-1a over the first `length` UTF-16 code units of `text`, as an unsigned 32-bit number. */
function fnv1a(text: string, length: number, seed: number): number {
  let hash = seed;
  for (let i = 0; i < length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** MurmurHash3's finaliser: another well-spread 32-bit number from `h`. */
function remix(h: number): number {
  let x = h >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
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

/** A `POST /embeddings` body (OpenAI's shape; the service contract does not show this route). */
export interface EmbeddingRequest {
  model: string;
  /** `input` as a list: the API accepts one string or several. */
  inputs: string[];
  encodingFormat: "float" | "base64";
  /** Vector length asked for, if any. */
  dimensions: number | undefined;
}

/**
 * Texts one embeddings request may hold, as OpenAI's API allows: the work of a call (texts ×
 * dimensions) stays bounded, whatever the body limit lets through.
 */
export const MAX_EMBEDDING_INPUTS = 2048;

/** Reads a `POST /embeddings` body: `input` is a string or a non-empty array of at most 2048 strings. */
export function parseEmbeddingRequest(body: string): EmbeddingRequest {
  const json = parseObject(body);
  if (typeof json.model !== "string") throw new InvalidBodyError("model must be a string");
  const inputs = stringOrStrings(json.input, "input");
  if (inputs.length > MAX_EMBEDDING_INPUTS) {
    throw new InvalidBodyError(
      `input must hold at most ${MAX_EMBEDDING_INPUTS} texts; send the others in further requests`,
      "input",
    );
  }
  const format = json.encoding_format ?? "float";
  if (format !== "float" && format !== "base64") {
    throw new InvalidBodyError('encoding_format must be "float" or "base64"');
  }
  const { dimensions } = json;
  if (dimensions != null && !(Number.isInteger(dimensions) && (dimensions as number) >= 1)) {
    throw new InvalidBodyError("dimensions must be a positive integer");
  }
  return {
    model: json.model,
    inputs,
    encodingFormat: format,
    dimensions: dimensions == null ? undefined : (dimensions as number),
  };
}
