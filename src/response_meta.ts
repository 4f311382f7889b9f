/** @module Request ID and model of each response, carried from the HTTP layer to the messages. */
import { asServiceError, type FailureContext, headerRequestId } from "./error_mapper.js";

/** What the models copy into `response_metadata` for one response. */
export interface RequestMeta {
  /** From the `X-Gateway-Request-Id` header (§7 rule 5). */
  requestId?: string;
  model?: string;
  /** Streams: set once the first chunk has carried the fields. */
  announced: boolean;
}

// Keyed by the SDK's own objects, so nothing is added to what the SDK returns.
const metaByResponse = new WeakMap<object, RequestMeta>();

/** The metadata recorded for a parsed response or stream chunk, if any. */
export function requestMetaOf(raw: unknown): RequestMeta | undefined {
  return typeof raw === "object" && raw !== null ? metaByResponse.get(raw) : undefined;
}

/** Records the request ID and model of a non-streamed response. */
export function tagResponse<T extends object>(data: T, headers: Headers): T {
  const model = (data as { model?: unknown }).model;
  metaByResponse.set(data, {
    requestId: headerRequestId(headers),
    model: typeof model === "string" ? model : undefined,
    announced: false,
  });
  return data;
}

interface StreamChunk {
  model?: unknown;
  choices?: Array<{ text?: unknown; delta?: { content?: unknown } }>;
}

function textOf(chunk: StreamChunk): string {
  const choice = chunk.choices?.[0];
  const text = choice?.delta?.content ?? choice?.text;
  return typeof text === "string" ? text : "";
}

/**
 * Passes a stream through unchanged, recording the request metadata on its first chunks, and
 * turns a failure while reading it (an `{"error": …}` event, a cut connection) into a typed error
 * that keeps the output received so far. A plain iterator, not an async generator: it sits on
 * every chunk of every stream.
 */
export function tagStream<T extends object>(
  stream: AsyncIterable<T>,
  headers: Headers,
  ctx: FailureContext,
): AsyncIterableIterator<T> {
  const meta: RequestMeta = { requestId: headerRequestId(headers), announced: false };
  const source = stream[Symbol.asyncIterator]();
  let partialOutput = "";
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      let result: IteratorResult<T>;
      try {
        result = await source.next();
      } catch (error) {
        throw asServiceError(error, { ...ctx, partialOutput, midStream: true });
      }
      if (!result.done) {
        const chunk = result.value as T & StreamChunk;
        // Until a model has copied the metadata onto a message chunk (chunks without a choice
        // are skipped there), so only the first few chunks pay for it.
        if (!meta.announced) {
          if (meta.model === undefined && typeof chunk.model === "string") meta.model = chunk.model;
          metaByResponse.set(chunk, meta);
        }
        partialOutput += textOf(chunk);
      }
      return result;
    },
    async return(value?: unknown) {
      await source.return?.(value);
      return { done: true, value: undefined };
    },
  };
}
