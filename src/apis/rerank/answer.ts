/**
 * @module The results of a 2xx `/rerank` answer (the Jina and Cohere shape; a route the contract
 * does not show), checked: each a position of the documents, once, with a finite score.
 */
import type { FailureContext } from "../../errors/mapper.js";
import { failure, isFields } from "../../transport/answer.js";

/** One result of a rerank answer: a document's position among those sent, and its relevance. */
export interface RerankResult {
  index: number;
  relevanceScore: number;
}

/**
 * The results of a 2xx `/rerank` answer (the Jina and Cohere shape), in the service's order —
 * best first; the order is the service's to decide and is kept. `results` must hold exactly
 * `expected` items (`top_n` of the `count` documents, or one per document), each with an `index`
 * that is a position of the documents, no index twice, and a `relevance_score` that is a finite
 * number; anything else is a `MalformedResponseError`, never a document dropped or placed twice,
 * and an `{"error": …}` body is that error.
 */
export function readRerank(
  data: unknown,
  headers: Headers,
  ctx: FailureContext,
  count: number,
  expected: number,
): RerankResult[] {
  const items = (data as { results?: unknown } | null | undefined)?.results;
  const fail = failure(data, headers, ctx);
  if (!Array.isArray(items)) return fail("the JSON body has no `results` array");
  if (items.length !== expected) {
    const asked =
      expected === count ? `${count} documents` : `top_n ${expected} of ${count} documents`;
    return fail(`\`results\` holds ${items.length} results for ${asked}`);
  }
  const seen = new Set<number>();
  return items.map((item: unknown, position) => {
    const { index, relevance_score: score } = isFields(item) ? item : {};
    if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= count) {
      fail(`\`results[${position}].index\` is not a position of the documents (0 to ${count - 1})`);
    }
    if (seen.has(index as number)) fail(`two results have the index ${index as number}`);
    seen.add(index as number);
    if (typeof score !== "number" || !Number.isFinite(score)) {
      fail(`\`results[${position}].relevance_score\` is not a finite number`);
    }
    return { index: index as number, relevanceScore: score as number };
  });
}
