/** @module The worst case of a `POST …/rerank` body, before it is sent, by the package's one estimate (`spend/estimate.ts`). */
import { type RequestEstimate, textsTokens } from "../../spend/estimate.js";

/**
 * The estimate of a `/rerank` body: each document read with the query, as a cross-encoder reads
 * them (so the query counts once per document — what a reranker that bills tokens bills), and no
 * output. Documents are strings or `{ text }` objects; anything else counts none.
 */
export function estimateRerankRequest(
  body: Record<string, unknown>,
  model: string,
): RequestEstimate {
  const documents = Array.isArray(body.documents) ? body.documents : [];
  const queryTokens = textsTokens(body.query);
  let inputTokens = 0;
  for (const document of documents) {
    const text = typeof document === "string" ? document : (document as { text?: unknown })?.text;
    inputTokens += queryTokens + textsTokens(text);
  }
  return { model, inputTokens, maxOutputTokens: 0, choices: 1 };
}
