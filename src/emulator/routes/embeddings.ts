/**
 * @module `POST /embeddings` on the hosted surface (a route the contract does not show; the gateway
 * relays it): an embedding model's vectors, prompt tokens only.
 */
import {
  embed,
  embeddingListBody,
  inputTokens,
  parseEmbeddingRequest,
  shuffledOrder,
  toBase64,
} from "../model/embeddings.js";
import { type EmulatorReply, type EmulatorRequest, jsonReply } from "../reply.js";
import { deliverPromptOnly, openHosted, overInputLimit } from "./call.js";
import { badRequest } from "./errors.js";
import type { HandlerContext } from "./handler_context.js";

/**
 * `POST /embeddings` on the hosted surface, OpenAI's shape (the service contract does not show
 * this route; the gateway relays it), checked in the chat route's order; then a model that is
 * not an embedding model, a `dimensions` over the model's, or an input over its
 * `maxInputTokens` is a 400. Metered and debited like a chat call, prompt tokens only.
 */
export function embeddings(
  context: HandlerContext,
  request: EmulatorRequest,
  requestId: string,
): EmulatorReply {
  const opened = openHosted(context, request, requestId, parseEmbeddingRequest, "embedding");
  if ("reply" in opened) return opened.reply;
  const { call, body, model } = opened;
  const native = model.embedding!.dimensions;
  const dimensions = body.dimensions ?? native;
  if (dimensions > native) {
    return call.finish(
      badRequest(requestId, `dimensions must be at most ${native} for model ${body.model}`),
    );
  }
  const tokens = inputTokens(body.inputs);
  const tooLong = overInputLimit(model, tokens, "input", requestId);
  if (tooLong) return call.finish(tooLong);
  const vectors = body.inputs.map((input) => {
    const vector = embed(input, dimensions);
    return body.encodingFormat === "base64" ? toBase64(vector) : vector;
  });
  const count = body.inputs.length;
  const order = call.fault === "shuffle" ? shuffledOrder(count) : [...vectors.keys()];
  const promptTokens = tokens.reduce((sum, n) => sum + n, 0);
  const reply = jsonReply(
    200,
    embeddingListBody(body.model, vectors, promptTokens, order),
    requestId,
  );
  return deliverPromptOnly(call, reply, model, promptTokens);
}
