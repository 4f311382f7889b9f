/** @module Request ID and model of each response, carried from the HTTP layer to the messages. */
import { asServiceError, type FailureContext } from "./error_mapper.js";

/** What the models copy into `response_metadata` for one response. */
export interface RequestMeta {
  /** From the `X-Gateway-Request-Id` header (§7 rule 5). */
  requestId?: string;
  model?: string;
  /** Streams: set once the first chunk has carried the fields. */
  announced: boolean;
}

const REQUEST_ID_HEADER = "x-gateway-request-id";
// Keyed by the SDK's own objects, so nothing is added to what the SDK returns.
const metaByResponse = new WeakMap<object, RequestMeta>();

/** The metadata recorded for a parsed response or stream chunk, if any. */
export function requestMetaOf(raw: unknown): RequestMeta | undefined {
  return typeof raw === "object" && raw !== null ? metaByResponse.get(raw) : undefined;
}

function requestIdOf(headers: Headers): string | undefined {
  return headers.get(REQUEST_ID_HEADER) ?? undefined;
}

/** Records the request ID and model of a non-streamed response. */
export function tagResponse<T extends object>(data: T, headers: Headers): T {
  const model = (data as { model?: unknown }).model;
  metaByResponse.set(data, {
    requestId: requestIdOf(headers),
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
 * Passes a stream through unchanged, recording each chunk's request metadata, and turns a
 * failure while reading it (an `{"error": …}` event, a cut connection) into a typed error that
 * keeps the output received so far.
 */
export async function* tagStream<T extends object>(
  stream: AsyncIterable<T>,
  headers: Headers,
  ctx: FailureContext,
): AsyncGenerator<T> {
  const meta: RequestMeta = { requestId: requestIdOf(headers), announced: false };
  let partialOutput = "";
  try {
    for await (const chunk of stream) {
      const model = (chunk as StreamChunk).model;
      if (meta.model === undefined && typeof model === "string") meta.model = model;
      metaByResponse.set(chunk, meta);
      partialOutput += textOf(chunk as StreamChunk);
      yield chunk;
    }
  } catch (error) {
    throw asServiceError(error, { ...ctx, partialOutput, midStream: true });
  }
}
