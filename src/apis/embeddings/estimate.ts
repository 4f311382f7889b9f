/** @module The worst case of a `POST …/embeddings` body, before it is sent, by the package's one estimate (`spend/estimate.ts`). */
import { type RequestEstimate, textsTokens } from "../../spend/estimate.js";

/**
 * The estimate of an `/embeddings` body: the tokens of its `input` (one string or several), and
 * no output — an embedding model writes no tokens, so a request reserves its prompt only.
 */
export function estimateEmbeddingRequest(
  body: Record<string, unknown>,
  model: string,
): RequestEstimate {
  return { model, inputTokens: textsTokens(body.input), maxOutputTokens: 0, choices: 1 };
}
