/** @module Request ID and model of each response and stream, carried from the HTTP layer to the messages. */
import { headerRequestId } from "../errors/mapper.js";

/** What the models copy into `response_metadata` for one response. */
export interface RequestMeta {
  /** From the `X-Gateway-Request-Id` header (docs/service-contract.md#errors, rule 5). */
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

/** The metadata of one stream, from its headers; its model is read from the first chunks. */
export function streamMeta(headers: Headers): RequestMeta {
  return { requestId: headerRequestId(headers), announced: false };
}

/**
 * Records `meta` for a stream chunk, until a model has copied it onto a message chunk (chunks
 * without a choice are skipped there), so only the first few chunks pay for it.
 */
export function tagChunk(meta: RequestMeta, chunk: object): void {
  const model = (chunk as { model?: unknown }).model;
  if (meta.model === undefined && typeof model === "string") meta.model = model;
  metaByResponse.set(chunk, meta);
}
