/** @module `InferenceServiceRerank`: a LangChain document compressor from the hosted surface's `/rerank`, on the same key as the chat model. */
import type { CallbackManagerForLLMRun, Callbacks } from "@langchain/core/callbacks/manager";
import { Document, type DocumentInterface } from "@langchain/core/documents";
import type { Serialized } from "@langchain/core/load/serializable";
import { BaseDocumentCompressor } from "@langchain/core/retrievers/document_compressors";
import { ENV, LC_NAMESPACE } from "../../constants.js";
import { ConfigurationError } from "../../errors/errors.js";
import { headerRequestId } from "../../errors/mapper.js";
import { tokenCountOf } from "../../spend/call_meter.js";
import type { RateLimiter } from "../../spend/rate_limiter.js";
import { promptUsageFromWire } from "../../spend/usage.js";
import { ServiceChannel } from "../../transport/channel.js";
import { constructorFields, countOrInfinity, modelIdFrom } from "../options.js";
import { startCallRun } from "../run_start.js";
import { type RerankResult, readRerank } from "./answer.js";
import { checkCompressArguments, checkRerankArguments } from "./arguments.js";
import { estimateRerankRequest } from "./estimate.js";
import { type InferenceServiceRerankOptions, validateRerankOptions } from "./options.js";

/** Options of {@link InferenceServiceRerank}, each documented where its schema declares it. */
export type InferenceServiceRerankFields = InferenceServiceRerankOptions;

/** A document `rerank` takes: a string, a LangChain document (its `pageContent`), or `{ text }`. */
export type RerankDocument = string | DocumentInterface | { text: string };

/** What one `rerank` call may set. */
export interface RerankCallOptions {
  /** How many results to return, the most relevant first; the instance's `topN` when undefined. */
  topN?: number;
  /** Stops the call: the request, its retries and every wait. */
  signal?: AbortSignal;
  /** Handlers that see this call's run, besides the instance's `callbacks`. */
  callbacks?: Callbacks;
}

export type { RerankResult };

/** What callbacks see of the class: the name a run is traced under (no constructor arguments). */
const SERIALIZED: Serialized = {
  lc: 1,
  type: "not_implemented",
  id: [LC_NAMESPACE, "rerank", "InferenceServiceRerank"],
};

/**
 * A reranker from the inference service's hosted rerank models — `POST …/inference/v1/rerank`
 * (the Jina and Cohere shape) with the same key, base URL, fetch layer, retries, timeouts and
 * typed errors as `ChatInferenceService`. It is a LangChain document compressor, shaped like
 * `@langchain/cohere`'s `CohereRerank`: put it behind a retriever with LangChain's
 * `ContextualCompressionRetriever`. The service contract does not show this route, so whether
 * a deployment offers rerank models is not known in advance: where it does not, the first call
 * fails at once with a typed error that says so.
 *
 * ## Setup
 * ```bash
 * npm install langchain-inference-service @langchain/core
 * export INFERENCE_SERVICE_BASE_URL="https://your-host/inference/v1"
 * export INFERENCE_SERVICE_API_KEY="sk-…"
 * export INFERENCE_SERVICE_RERANK_MODEL="your-rerank-model"   # or pass the model ID
 * ```
 *
 * ## Instantiate
 * ```ts
 * import { InferenceServiceRerank } from "langchain-inference-service";
 * const reranker = new InferenceServiceRerank("emulator-rerank", { topN: 2 });
 * ```
 *
 * ## Rerank
 * ```ts
 * const results = await reranker.rerank(
 *   ["A cat purrs.", "Volcanic eruptions released lava and ash."],
 *   "What do volcanoes release?",
 * );
 * console.log(results);
 * // [ { index: 1, relevanceScore: 0.62… }, { index: 0, relevanceScore: 0 } ]
 * ```
 * `rerank` takes strings, LangChain documents or `{ text }` objects and returns their positions
 * with their scores, in the service's order (the most relevant first), at most `topN` of them.
 * `compressDocuments(documents, query)` returns the documents themselves in that order, each
 * with its own metadata and `metadata.relevanceScore`. No documents, no request.
 *
 * ## In a retriever
 * ```ts
 * import { ContextualCompressionRetriever } from "@langchain/classic/retrievers/contextual_compression";
 * const retriever = new ContextualCompressionRetriever({
 *   baseCompressor: reranker,
 *   baseRetriever: store.asRetriever({ k: 10 }),
 * });
 * const best = await retriever.invoke("What do volcanoes release?");
 * ```
 *
 * ## Usage
 * LangChain's document compressors have no callbacks of their own, so this class runs each call
 * as an LLM run of its `callbacks`, of the handlers `compressDocuments` is given (a retriever's
 * run) and, where LangChain's async context is on, of the run it is made in: a `UsageTracker`
 * there records the call's prompt tokens, cost and request ID, and the request reserves its cost
 * against the tracker's budget before it is sent.
 *
 * ## Errors
 * Every failure is an `InferenceServiceError` subclass, as for the chat model: 401
 * `AuthenticationError`, 403 `InsufficientCreditError`, 503 `ModelNotFoundError` (its hint names
 * the models the service lists), a 404 `InvalidURLError` that says the service offers no rerank
 * at this URL. An answer that drops, repeats or invents a document, or scores one with something
 * other than a finite number, is a `MalformedResponseError`.
 */
export class InferenceServiceRerank extends BaseDocumentCompressor {
  /** The rerank model's ID, sent as `model`. */
  readonly model: string;
  /** The normalised `…/inference/v1` URL requests go to. */
  readonly baseURL: string;
  /** How many results a call returns, unless it sets its own. */
  readonly topN: number;
  /** The client-side rate limit of this class's requests, if one was given. */
  readonly rateLimiter?: RateLimiter;
  /** The handlers every call reports to (see the class's Usage section). */
  readonly callbacks?: Callbacks;
  /** How requests travel; ES-private, so the key never shows up in `console.log` or `JSON.stringify`. */
  readonly #channel: ServiceChannel;

  constructor(model: string, fields?: Omit<InferenceServiceRerankFields, "model">);
  constructor(fields?: InferenceServiceRerankFields);
  constructor(
    modelOrFields?: string | InferenceServiceRerankFields,
    maybeFields?: Omit<InferenceServiceRerankFields, "model">,
  ) {
    super();
    const fields = constructorFields(
      modelOrFields,
      maybeFields,
      'new InferenceServiceRerank("my-rerank-model", { topN: 2 })',
    );
    const options = validateRerankOptions(fields);
    const model = modelIdFrom(options.model, {
      env: ENV.rerankModel,
      kind: "rerank",
      example: 'new InferenceServiceRerank("my-rerank-model")',
    });
    // A rerank answer is one JSON body, read whole within `timeout`.
    const channel = new ServiceChannel("rerank", options, { model });
    this.model = model;
    this.baseURL = channel.baseURL;
    this.topN = options.topN;
    this.rateLimiter = options.rateLimiter;
    this.callbacks = options.callbacks;
    this.#channel = channel;
  }

  /**
   * The documents most relevant to `query`, the most relevant first, at most `topN`: each a new
   * document with the same `pageContent`, `id` and metadata, and `metadata.relevanceScore`.
   * What LangChain's `ContextualCompressionRetriever` calls, with its run's `callbacks`.
   */
  override async compressDocuments(
    documents: DocumentInterface[],
    query: string,
    callbacks?: Callbacks,
  ): Promise<DocumentInterface[]> {
    checkCompressArguments(documents, query, callbacks);
    const results = await this.rerank(documents, query, { callbacks });
    return results.map(({ index, relevanceScore }) => {
      const { pageContent, metadata, id } = documents[index]!;
      return new Document({ pageContent, id, metadata: { ...metadata, relevanceScore } });
    });
  }

  /**
   * The positions of `documents` with their relevance to `query`, in the service's order (the
   * most relevant first), at most `topN` of them: one request. An empty list sends nothing.
   */
  async rerank(
    documents: RerankDocument[],
    query: string,
    options: RerankCallOptions = {},
  ): Promise<RerankResult[]> {
    // A JavaScript caller may pass anything: each argument is named in the error.
    checkRerankArguments(documents, query, options);
    const topN = checkTopN(options.topN ?? this.topN);
    const texts = documents.map(textOf);
    if (texts.length === 0) return [];
    // Never more than the documents: a server may refuse a larger `top_n`.
    const expected = Math.min(topN, texts.length);
    const body = {
      model: this.model,
      query,
      documents: texts,
      top_n: expected,
      // The texts are here already; Jina's servers send them back unless told not to.
      return_documents: false,
    };
    const run = await this.#startRun(body, options.callbacks);
    try {
      const answer = await this.#channel.request(
        {
          body,
          signal: options.signal,
          run,
          estimate: () => estimateRerankRequest(body, this.model),
        },
        ({ data, response }, ctx) => {
          const results = readRerank(data, response.headers, ctx, texts.length, expected);
          const usage = promptUsageFromWire((data as { usage?: unknown }).usage);
          const result = { results, usage, requestId: headerRequestId(response.headers) };
          // A reranker writes nothing: the prompt is the whole cost.
          return { result, cost: () => ({ usage: tokenCountOf(usage) }) };
        },
      );
      await run?.handleLLMEnd({
        generations: [],
        llmOutput: { tokenUsage: answer.usage ?? {}, requestId: answer.requestId },
      });
      return answer.results;
    } catch (error) {
      await run?.handleLLMError(error);
      throw error;
    }
  }

  /**
   * The call as an LLM run of this class's callbacks, of those it was given and of the run it is
   * made in (LangChain's document compressors have no callbacks of their own); undefined when
   * nobody listens.
   */
  #startRun(
    body: { query: string; documents: string[]; top_n: number },
    given: Callbacks | undefined,
  ): Promise<CallbackManagerForLLMRun | undefined> {
    return startCallRun({
      serialized: SERIALIZED,
      name: "InferenceServiceRerank",
      model: this.model,
      prompt: () => [body.query, ...body.documents].join("\n\n"),
      extraParams: {
        invocation_params: { model: this.model, top_n: body.top_n },
        documents: body.documents.length,
      },
      own: this.callbacks,
      given,
    });
  }
}

/** A call's `topN`, checked as the option is. */
function checkTopN(topN: unknown): number {
  const checked = countOrInfinity.safeParse(topN);
  if (checked.success) return checked.data;
  throw new ConfigurationError("topN", `\`topN\` must be ${countOrInfinity.description}.`);
}

/** The text sent for one document: a string, a document's `pageContent`, or a `text`. */
function textOf(document: unknown, i: number): string {
  if (typeof document === "string") return document;
  if (typeof document === "object" && document !== null) {
    const { pageContent, text } = document as { pageContent?: unknown; text?: unknown };
    if (typeof pageContent === "string") return pageContent;
    if (typeof text === "string") return text;
  }
  throw new ConfigurationError(
    `documents[${i}]`,
    `\`documents[${i}]\` must be a string, a LangChain Document or an object with a string \`text\`.`,
  );
}
