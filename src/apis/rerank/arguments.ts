/**
 * @module What one call of `InferenceServiceRerank` is given — `rerank`'s and
 * `compressDocuments`'s arguments — checked where the call enters (see `apis/call_options.ts`).
 */
import { z } from "zod";
import { parseOptions } from "../../config/options.js";
import { modelCallOptions } from "../call_options.js";

/** A rerank call's options (its `topN` is checked with the instance's, as `topN`). */
const RERANK_CALL = z.looseObject({
  signal: modelCallOptions.signal,
  callbacks: modelCallOptions.callbacks,
});

const RANKED = {
  documents: z
    .array(z.unknown())
    .describe(
      "an array of strings, LangChain Documents or `{ text }` objects (the documents to rank)",
    ),
  query: z
    .string()
    .min(1)
    .describe("a non-empty string: the text the documents are ranked against"),
};

const RERANK_ARGUMENTS = z.object({ ...RANKED, options: RERANK_CALL.optional() });

const COMPRESS_ARGUMENTS = z.object({ ...RANKED, callbacks: modelCallOptions.callbacks });

/** `rerank(documents, query, options)`'s arguments (each document is checked as it is read). */
export function checkRerankArguments(documents: unknown, query: unknown, options: unknown): void {
  parseOptions({ owner: "rerank", schema: RERANK_ARGUMENTS }, { documents, query, options });
}

/** `compressDocuments(documents, query, callbacks)`'s arguments. */
export function checkCompressArguments(
  documents: unknown,
  query: unknown,
  callbacks: unknown,
): void {
  parseOptions(
    { owner: "compressDocuments", schema: COMPRESS_ARGUMENTS },
    { documents, query, callbacks },
  );
}
