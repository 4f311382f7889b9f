/**
 * @module The vectors of a 2xx `/embeddings` answer (a route the contract does not show), read
 * tolerantly and checked: each placed by its index, every one finite and of one length.
 */
import type { FailureContext } from "../../errors/mapper.js";
import { failure } from "../../transport/answer.js";
import { decodeFloat32 } from "../../utils/float32.js";

/** One item of an embeddings answer's `data`, as OpenAI-style servers write it. */
interface RawEmbedding {
  index?: unknown;
  embedding?: unknown;
}

/** The length every vector of an embeddings answer must have, and where it comes from. */
export interface VectorLength {
  length: number;
  /** Ends "… where" in the error: "`dimensions` asked for", "the call's earlier vectors have". */
  source: string;
}

/**
 * The vectors of a 2xx `/embeddings` answer, placed by each item's `index` — never by the order
 * the items arrive in, which a server is free to change. Each `embedding` may be an array of
 * numbers or a base64 string of float32 little-endian values, whatever `encoding_format` asked,
 * and either is checked the same way: at least one number, every one finite. Items without any
 * `index` are taken in their order (a server that leaves the field out); anything else — not
 * `count` items, an index missing, repeated or out of range, a vector that is not numbers, empty
 * or holds NaN or ±Infinity, vectors of different lengths or not of `expected.length` (the
 * `dimensions` asked for, the length of the call's earlier batches) — is a
 * `MalformedResponseError`, and an `{"error": …}` body is that error.
 */
export function readEmbeddings(
  data: unknown,
  headers: Headers,
  ctx: FailureContext,
  count: number,
  expected?: VectorLength,
): number[][] {
  const items = (data as { data?: unknown } | null | undefined)?.data;
  const fail = failure(data, headers, ctx);
  if (!Array.isArray(items)) return fail("the JSON body has no `data` array of embeddings");
  if (items.length !== count) {
    return fail(`\`data\` holds ${items.length} embeddings for ${count} inputs`);
  }
  const indexed = items.some((item: RawEmbedding) => item?.index !== undefined);
  const vectors = new Array<number[] | undefined>(count);
  let first: number | undefined;
  for (const [position, item] of (items as RawEmbedding[]).entries()) {
    const index = indexed ? item?.index : position;
    if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= count) {
      fail(`\`data[${position}].index\` is not a position of the inputs (0 to ${count - 1})`);
    }
    if (vectors[index as number] !== undefined) {
      fail(`two items of \`data\` have the index ${index as number}`);
    }
    const vector = vectorOf(item?.embedding);
    if (typeof vector === "string") return fail(`\`data[${position}].embedding\` ${vector}`);
    if (expected !== undefined && vector.length !== expected.length) {
      fail(
        `\`data[${position}].embedding\` has ${vector.length} dimensions where ${expected.source} ${expected.length}`,
      );
    }
    if (first !== undefined && vector.length !== first) {
      fail("the embeddings are not all of one length");
    }
    first = vector.length;
    vectors[index as number] = vector;
  }
  return vectors as number[][];
}

/** The numbers of one `embedding`, in either encoding, or what is wrong with it. */
function vectorOf(embedding: unknown): number[] | string {
  const numbers = typeof embedding === "string" ? decodeFloat32(embedding) : embedding;
  if (!Array.isArray(numbers) || !numbers.every((x) => typeof x === "number")) {
    return "is neither numbers nor base64 float32";
  }
  if (numbers.length === 0) return "is empty";
  if (!numbers.every(Number.isFinite)) return "holds NaN or ±Infinity";
  return numbers as number[];
}
