/** @module `InferenceServiceEmbeddings`: LangChain embeddings from the hosted surface's `/embeddings`, on the same key as the chat model. */
import type { CallbackManagerForLLMRun, Callbacks } from "@langchain/core/callbacks/manager";
import { Embeddings } from "@langchain/core/embeddings";
import type { TokenUsage } from "@langchain/core/language_models/base";
import type { Serialized } from "@langchain/core/load/serializable";
import type { OpenAI } from "openai";
import { ENV, LC_NAMESPACE } from "../../constants.js";
import { ContextLengthExceededError } from "../../errors/errors.js";
import { headerRequestId } from "../../errors/mapper.js";
import { type MeteredRun, tokenCountOf } from "../../spend/call_meter.js";
import { estimateTokens } from "../../spend/estimate.js";
import type { RateLimiter } from "../../spend/rate_limiter.js";
import { sumTokenUsage, tokenUsageFromWire } from "../../spend/usage.js";
import { ServiceChannel } from "../../transport/channel.js";
import { checkEmbedDocuments, checkEmbedQuery } from "../call_options.js";
import { constructorFields, modelIdFrom } from "../options.js";
import { startCallRun } from "../run_start.js";
import { readEmbeddings, type VectorLength } from "./answer.js";
import { estimateEmbeddingRequest } from "./estimate.js";
import { type InferenceServiceEmbeddingsOptions, validateEmbeddingsOptions } from "./options.js";

/** Options of {@link InferenceServiceEmbeddings}, each documented where its schema declares it. */
export type InferenceServiceEmbeddingsFields = InferenceServiceEmbeddingsOptions;

/** What callbacks see of the class: the name a run is traced under (no constructor arguments). */
const SERIALIZED: Serialized = {
  lc: 1,
  type: "not_implemented",
  id: [LC_NAMESPACE, "embeddings", "InferenceServiceEmbeddings"],
};

/**
 * One `embedDocuments` or `embedQuery` call: its run, what stops its batches, and the length
 * all its vectors share. Each batch gets a signal of its own (one shared signal would collect a
 * listener per queued batch, and Node warns past ten); `stop` aborts them all and every batch
 * after.
 */
interface Call {
  run?: MeteredRun;
  signals: Set<AbortController>;
  stopped: boolean;
  /** `dimensions` when asked, else the length of the first batch read: every vector's length. */
  length?: VectorLength;
}

function batchSignal(call: Call): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  if (call.stopped) controller.abort();
  call.signals.add(controller);
  return { signal: controller.signal, done: () => call.signals.delete(controller) };
}

function stopCall(call: Call): void {
  call.stopped = true;
  for (const controller of call.signals) controller.abort();
  call.signals.clear();
}

/** What one request brought back. */
interface Batch {
  vectors: number[][];
  usage?: TokenUsage;
  requestId?: string;
}

/**
 * Embeddings from the inference service's hosted embedding models — `POST …/inference/v1/embeddings`
 * with the same key, base URL, fetch layer, retries, timeouts and typed errors as
 * `ChatInferenceService`. The service contract does not show this route, so whether a deployment
 * offers embedding models is not known in advance: where it does not, the first call fails at
 * once with a typed error that says so.
 *
 * ## Setup
 * ```bash
 * npm install langchain-inference-service @langchain/core
 * export INFERENCE_SERVICE_BASE_URL="https://your-host/inference/v1"
 * export INFERENCE_SERVICE_API_KEY="sk-…"
 * export INFERENCE_SERVICE_EMBEDDING_MODEL="your-embedding-model"   # or pass the model ID
 * ```
 *
 * ## Instantiate
 * ```ts
 * import { InferenceServiceEmbeddings } from "langchain-inference-service";
 * const embeddings = new InferenceServiceEmbeddings("emulator-embedding", { batchSize: 256 });
 * ```
 *
 * ## Embed
 * ```ts
 * const vectors = await embeddings.embedDocuments(["Hosted models are paid per token", "Service-Name routes a call"]);
 * const query = await embeddings.embedQuery("How are hosted models paid?");
 * console.log(vectors.length, query.length);
 * // 2 256
 * ```
 * `embedDocuments` sends its texts `batchSize` at a time, `maxConcurrency` requests at once, and
 * returns one vector per text, in the order of the texts: each vector is placed by the `index`
 * the service gives it, never by the order the items arrive in. No texts, no request.
 *
 * ## In a vector store
 * ```ts
 * import { MemoryVectorStore } from "@langchain/classic/vectorstores/memory";
 * const store = await MemoryVectorStore.fromTexts(texts, metadatas, embeddings);
 * const [best] = await store.similaritySearch("How are hosted models paid?", 1);
 * ```
 *
 * ## Usage
 * LangChain's `Embeddings` have no callbacks of their own, so this class runs each call as an
 * LLM run of its `callbacks` (and, where LangChain's async context is on, of the run it is made
 * in): a `UsageTracker` there records the call's prompt tokens, cost and request ID, and each
 * request reserves its cost against the tracker's budget before it is sent.
 * ```ts
 * const usage = new UsageTracker({ prices: { "emulator-embedding": { input: 0.02, output: 0 } } });
 * const embeddings = new InferenceServiceEmbeddings("emulator-embedding", { callbacks: [usage] });
 * await embeddings.embedDocuments(texts);
 * console.log(usage.records[0]); // { model: 'emulator-embedding', inputTokens: 37, outputTokens: 0, requestId: '…', cost: … }
 * ```
 *
 * ## Errors
 * Every failure is an `InferenceServiceError` subclass, as for the chat model: 401
 * `AuthenticationError`, 403 `InsufficientCreditError`, 503 `ModelNotFoundError` (its hint names
 * the models the service lists), a 404 `InvalidURLError` that says the service offers no
 * embeddings at this URL. An input the model finds too long is a `ContextLengthExceededError`
 * whose `inputIndex` is its position among the texts.
 */
export class InferenceServiceEmbeddings extends Embeddings {
  /** The embedding model's ID, sent as `model`. */
  readonly model: string;
  /** The normalised `…/inference/v1` URL requests go to. */
  readonly baseURL: string;
  /** Texts per request. */
  readonly batchSize: number;
  /** `dimensions` sent with every request, if any. */
  readonly dimensions?: number;
  /** The `encoding_format` asked for. */
  readonly encodingFormat: "base64" | "float";
  /** The client-side rate limit of this class's requests, if one was given. */
  readonly rateLimiter?: RateLimiter;
  /** The handlers every call reports to (see the class's Usage section). */
  readonly callbacks?: Callbacks;
  /** How requests travel; ES-private, so the key never shows up in `console.log` or `JSON.stringify`. */
  readonly #channel: ServiceChannel;

  constructor(model: string, fields?: Omit<InferenceServiceEmbeddingsFields, "model">);
  constructor(fields?: InferenceServiceEmbeddingsFields);
  constructor(
    modelOrFields?: string | InferenceServiceEmbeddingsFields,
    maybeFields?: Omit<InferenceServiceEmbeddingsFields, "model">,
  ) {
    const fields = constructorFields(
      modelOrFields,
      maybeFields,
      'new InferenceServiceEmbeddings("my-embedding-model", { batchSize: 256 })',
    );
    const options = validateEmbeddingsOptions(fields);
    const model = modelIdFrom(options.model, {
      env: ENV.embeddingModel,
      kind: "embedding",
      example: 'new InferenceServiceEmbeddings("my-embedding-model")',
    });
    // An embeddings answer is one JSON body, read whole within `timeout`.
    const channel = new ServiceChannel("embeddings", options, { model });
    super({ maxRetries: options.maxRetries, maxConcurrency: options.maxConcurrency });
    this.model = model;
    this.baseURL = channel.baseURL;
    this.batchSize = options.batchSize;
    this.dimensions = options.dimensions;
    this.encodingFormat = options.encodingFormat;
    this.rateLimiter = options.rateLimiter;
    this.callbacks = options.callbacks;
    this.#channel = channel;
    this.caller = channel.caller;
  }

  /**
   * One vector per text, in the order of `texts`: batches of `batchSize`, at most
   * `maxConcurrency` requests at once. The first failure stops the batches not yet sent and is
   * thrown; an empty list sends nothing.
   */
  override async embedDocuments(texts: string[]): Promise<number[][]> {
    checkEmbedDocuments(texts);
    if (texts.length === 0) return [];
    return this.#embed(texts);
  }

  /** The vector of one text: one request. */
  override async embedQuery(text: string): Promise<number[]> {
    checkEmbedQuery(text);
    const [vector] = await this.#embed([text]);
    return vector!;
  }

  /** The body fields of every request but `input` (also what callbacks see of a call). */
  invocationParams(): Record<string, unknown> {
    return {
      model: this.model,
      encoding_format: this.encodingFormat,
      ...(this.dimensions === undefined ? {} : { dimensions: this.dimensions }),
    };
  }

  async #embed(texts: string[]): Promise<number[][]> {
    const run = await this.#startRun(texts);
    const call: Call = {
      run,
      signals: new Set(),
      stopped: false,
      ...(this.dimensions === undefined
        ? {}
        : { length: { length: this.dimensions, source: "`dimensions` asked for" } }),
    };
    try {
      const batches: Batch[] = await Promise.all(
        chunks(texts, this.batchSize).map((batch, i) =>
          this.#embedBatch(batch, i * this.batchSize, call).catch((error: unknown) => {
            // The first failure is the call's: the batches still queued are not sent.
            stopCall(call);
            throw error;
          }),
        ),
      );
      const requestIds = batches.flatMap((batch) => (batch.requestId ? [batch.requestId] : []));
      await run?.handleLLMEnd({
        generations: [],
        llmOutput: {
          tokenUsage: sumTokenUsage(batches.map((batch) => batch.usage)),
          requestId: requestIds[0],
          requestIds,
        },
      });
      return batches.flatMap((batch) => batch.vectors);
    } catch (error) {
      await run?.handleLLMError(error);
      throw error;
    }
  }

  /**
   * The call as an LLM run of this class's callbacks and of the run it is made in, if any
   * (LangChain's `Embeddings` have no callbacks of their own); undefined when nobody listens.
   */
  #startRun(texts: string[]): Promise<CallbackManagerForLLMRun | undefined> {
    return startCallRun({
      serialized: SERIALIZED,
      name: "InferenceServiceEmbeddings",
      model: this.model,
      prompt: () => texts.join("\n\n"),
      extraParams: { invocation_params: this.invocationParams(), inputs: texts.length },
      own: this.callbacks,
    });
  }

  /**
   * One request through the pipeline (queue, meter, retries, typed errors) for the texts at
   * positions `first`… of the call. A request of several texts refused as too long is followed by
   * the one request that names the input (see {@link #locate}).
   */
  async #embedBatch(texts: string[], first: number, call: Call): Promise<Batch> {
    const body: OpenAI.EmbeddingCreateParams = {
      ...(this.invocationParams() as Omit<OpenAI.EmbeddingCreateParams, "input">),
      input: texts,
    };
    const { signal, done } = batchSignal(call);
    const request = {
      body: body as unknown as Record<string, unknown>,
      signal,
      run: call.run,
      estimate: () =>
        estimateEmbeddingRequest(body as unknown as Record<string, unknown>, this.model),
      context: { inputs: { first, count: texts.length } },
    };
    try {
      return await this.#channel.request(request, ({ data, response }, ctx) => {
        const vectors = readEmbeddings(data, response.headers, ctx, texts.length, call.length);
        // Batches are read one at a time: the first sets the length the others must have.
        call.length ??= { length: vectors[0]!.length, source: "the call's earlier vectors have" };
        const usage = tokenUsageFromWire((data as { usage?: unknown }).usage);
        const result = { vectors, usage, requestId: headerRequestId(response.headers) };
        // An embedding model writes nothing: the prompt is the whole cost.
        return { result, cost: () => ({ usage: tokenCountOf(usage) }) };
      });
    } catch (error) {
      if (texts.length > 1 && ContextLengthExceededError.isInstance(error)) {
        throw await this.#locate(texts, first, call, error);
      }
      throw error;
    } finally {
      done();
    }
  }

  /**
   * Which input a refused request of several was too long for: only the model knows its
   * tokenizer, so the longest of them (by the package's estimate) is sent alone, once. Refused
   * again, its error names its position; accepted (it is charged like any request), the request
   * as a whole was too long and its own error is thrown.
   */
  async #locate(texts: string[], first: number, call: Call, refusal: unknown): Promise<unknown> {
    const longest = indexOfLargest(texts.map(estimateTokens));
    try {
      await this.#embedBatch([texts[longest]!], first + longest, call);
    } catch (alone) {
      if (ContextLengthExceededError.isInstance(alone)) return alone;
    }
    return refusal;
  }
}

/** `items` in consecutive pieces of at most `size`. */
function chunks<T>(items: readonly T[], size: number): T[][] {
  const pieces: T[][] = [];
  for (let i = 0; i < items.length; i += size) pieces.push(items.slice(i, i + size));
  return pieces;
}

/**
 * The position of the largest of `values` (the first of equals); a loop, not `Math.max(...values)`,
 * which overflows the stack past about 125,000 values.
 */
function indexOfLargest(values: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i]! > values[best]!) best = i;
  return best;
}
