/**
 * @module `POST /rerank` on the hosted surface (a route the contract does not show; the gateway
 * relays it): the documents ranked by a rerank model, prompt tokens only.
 */

import {
  pairTokens,
  parseRerankRequest,
  rankedResults,
  relevanceScores,
  rerankBody,
} from "../model/rerank.js";
import { type EmulatorReply, type EmulatorRequest, jsonReply } from "../reply.js";
import { deliverPromptOnly, openHosted, overInputLimit } from "./call.js";
import type { HandlerContext } from "./handler_context.js";

/**
 * `POST /rerank` on the hosted surface, the Jina and Cohere shape (the service contract does not
 * show this route; the gateway relays it), checked in the chat route's order; then a model that
 * is not a rerank model, or a document that with the query passes the model's `maxInputTokens`,
 * is a 400. The results come best first (see `rerank.ts`); metered and debited like a chat call,
 * prompt tokens only.
 */
export function rerank(
  context: HandlerContext,
  request: EmulatorRequest,
  requestId: string,
): EmulatorReply {
  const opened = openHosted(context, request, requestId, parseRerankRequest, "rerank");
  if ("reply" in opened) return opened.reply;
  const { call, body, model } = opened;
  const tokens = pairTokens(body.query, body.documents);
  const tooLong = overInputLimit(model, tokens, "documents", requestId);
  if (tooLong) return call.finish(tooLong);
  const scores = relevanceScores(body.query, body.documents);
  const results = rankedResults(scores, body.documents, body.topN, body.returnDocuments);
  const promptTokens = tokens.reduce((sum, n) => sum + n, 0);
  const { id } = call.identity("rerank", body.model);
  const reply = jsonReply(200, rerankBody(id, body.model, results, promptTokens), requestId);
  return deliverPromptOnly(call, reply, model, promptTokens);
}
