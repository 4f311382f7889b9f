/**
 * @module The options of `InferenceServiceEmbeddings`, declared once: a zod schema whose fields give
 * each option's type, check, wording, JSDoc and default.
 */
import { z } from "zod";
import { callbacks, checkedOnResolve, optionsSchema, parseOptions } from "../../config/options.js";
import {
  connectionOnly,
  countOrInfinity,
  type SharedModelOptions,
  sharedModelOptions,
  unserialised,
} from "../options.js";

/** The options of `InferenceServiceEmbeddings` (it serialises nothing: LangChain's embeddings are not serialisable). */
export const inferenceServiceEmbeddingsOptions = optionsSchema({
  /**
   * Model ID of the embedding model, sent as `model`; outer spaces are trimmed. Whether a
   * deployment offers embedding models at all is not known in advance.
   * @default env `INFERENCE_SERVICE_EMBEDDING_MODEL` (required: the first argument, `model` or the variable)
   */
  model: checkedOnResolve<string>().optional(),
  ...sharedModelOptions,
  /**
   * Requests in flight at once, across the batches of every call. As in `OpenAIEmbeddings`, so
   * that a corpus split into many batches does not flood the service; raise it (with a
   * `rateLimiter` if need be) for faster ingestion. @default 2
   */
  maxConcurrency: countOrInfinity.default(2),
  /**
   * Where `OpenAIEmbeddings` users put the key and the URL: `apiKey` and `baseURL` here are read
   * as the options of the same name (a `ConfigurationError` when they disagree). No other client
   * option is taken. @default `{}`
   */
  configuration: connectionOnly,
  /**
   * Texts per request: `embedDocuments` splits its texts into batches of this many, sends them
   * `maxConcurrency` at a time and returns the vectors in the order of the texts. @default 512
   */
  batchSize: z.number().int().min(1).describe("a whole number ≥ 1").default(512),
  /** `dimensions`: the length of the vectors, for models that can shorten them. @default the model's own */
  dimensions: z.number().int().min(1).describe("a whole number ≥ 1").optional(),
  /**
   * `encoding_format` asked for: `"base64"` (float32 little-endian: a quarter of the bytes of
   * JSON numbers, and what the openai SDK sends by default) or `"float"` (for a server that
   * refuses base64). Either answer is read, whatever was asked. @default "base64"
   */
  encodingFormat: z.enum(["base64", "float"]).describe('"base64" or "float"').default("base64"),
  /**
   * LangChain callback handlers that see each `embedDocuments` and `embedQuery` call as an LLM
   * run: a `UsageTracker` here counts their tokens and cost, and reserves each request against
   * its budget before it is sent. The handlers of the run the call is made in (a chain's
   * `callbacks`, `withUsage`) are added where LangChain's async context is on. @default none
   */
  callbacks: unserialised(callbacks.optional()),
});

/** The options of `InferenceServiceEmbeddings`, as a caller writes them. */
export interface InferenceServiceEmbeddingsOptions
  extends SharedModelOptions,
    Omit<z.input<typeof inferenceServiceEmbeddingsOptions>, keyof SharedModelOptions> {}

const EMBEDDINGS_SPEC = {
  owner: "InferenceServiceEmbeddings",
  schema: inferenceServiceEmbeddingsOptions.strict(),
};

/** Checks the options of `InferenceServiceEmbeddings` (the key, URL and model are checked where they are resolved). */
export function validateEmbeddingsOptions(
  fields: unknown,
): z.output<typeof inferenceServiceEmbeddingsOptions> {
  return parseOptions(EMBEDDINGS_SPEC, fields);
}
