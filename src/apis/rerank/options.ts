/**
 * @module The options of `InferenceServiceRerank`, declared once: a zod schema whose fields give each
 * option's type, check, wording, JSDoc and default.
 */
import type { z } from "zod";
import { callbacks, checkedOnResolve, optionsSchema, parseOptions } from "../../config/options.js";
import {
  connectionOnly,
  countOrInfinity,
  type SharedModelOptions,
  sharedModelOptions,
  unserialised,
} from "../options.js";

/** The options of `InferenceServiceRerank` (it serialises nothing: LangChain's document compressors are not serialisable). */
export const inferenceServiceRerankOptions = optionsSchema({
  /**
   * Model ID of the rerank model, sent as `model`; outer spaces are trimmed. Whether a
   * deployment offers rerank models at all is not known in advance.
   * @default env `INFERENCE_SERVICE_RERANK_MODEL` (required: the first argument, `model` or the variable)
   */
  model: checkedOnResolve<string>().optional(),
  ...sharedModelOptions,
  /** Most rerank requests in flight at once, across calls (each call is one request). @default Infinity */
  maxConcurrency: countOrInfinity.optional(),
  /**
   * Where `OpenAI`-style clients put the key and the URL: `apiKey` and `baseURL` here are read as
   * the options of the same name (a `ConfigurationError` when they disagree). No other client
   * option is taken. @default `{}`
   */
  configuration: connectionOnly,
  /**
   * How many documents a call returns, the most relevant first: sent as `top_n` (never more than
   * the documents given). `Infinity` returns every document, reordered. A `rerank` call's own
   * `topN` overrides it. @default 3 (as `CohereRerank`)
   */
  topN: countOrInfinity.default(3),
  /**
   * LangChain callback handlers that see each call as an LLM run: a `UsageTracker` here counts
   * its tokens and cost, and reserves the request against its budget before it is sent. The
   * handlers `compressDocuments` is given (a retriever's run) and those of the run the call is
   * made in (a chain's `callbacks`, `withUsage`) are added. @default none
   */
  callbacks: unserialised(callbacks.optional()),
});

/** The options of `InferenceServiceRerank`, as a caller writes them. */
export interface InferenceServiceRerankOptions
  extends SharedModelOptions,
    Omit<z.input<typeof inferenceServiceRerankOptions>, keyof SharedModelOptions> {}

const RERANK_SPEC = {
  owner: "InferenceServiceRerank",
  schema: inferenceServiceRerankOptions.strict(),
};

/** Checks the options of `InferenceServiceRerank` (the key, URL and model are checked where they are resolved). */
export function validateRerankOptions(
  fields: unknown,
): z.output<typeof inferenceServiceRerankOptions> {
  return parseOptions(RERANK_SPEC, fields);
}
