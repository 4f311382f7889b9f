/**
 * @module `POST /responses` on the hosted surface (the route the gateway relays to the channels
 * that serve OpenAI's Responses API, docs/responses.md): a chat model's answer as a `response`
 * object or its stream of typed events, checked in the chat route's order, then the reasoning
 * items sent back; metered and debited like a chat call.
 */
import { generateChat, promptParts } from "../model/generate.js";
import { reasoningFormatFor } from "../model/reasoning.js";
import {
  parseResponsesRequest,
  reasoningItemProblem,
  responseBody,
  responseEvents,
} from "../model/responses.js";
import {
  type EmulatorReply,
  type EmulatorRequest,
  jsonReply,
  PROMPT_CACHE_HEADER,
  streamReply,
} from "../reply.js";
import { openHosted } from "./call.js";
import type { HandlerContext } from "./handler_context.js";
import { promptCacheHeader, promptCacheUse } from "./prompt_cache.js";

/** The endpoint type a model must list to be served here (new-api's name). */
const SERVED = "openai-response";

/**
 * `POST /responses`: key, faults, body, model and credit as on `/chat/completions`; a model whose
 * `endpointTypes` lack "openai-response" gets new-api's 500 `convert_request_failed` ("not
 * implemented"); a reasoning item sent back by ID alone gets 404, a tampered one 400
 * `invalid_encrypted_content`, as OpenAI answers them.
 */
export function responses(
  context: HandlerContext,
  request: EmulatorRequest,
  requestId: string,
): EmulatorReply {
  const opened = openHosted(context, request, requestId, parseResponsesRequest, "chat");
  if ("reply" in opened) return opened.reply;
  const { call, body, model } = opened;
  if (!model.endpointTypes.includes(SERVED)) {
    const error = {
      code: "convert_request_failed",
      message: `not implemented (request id: ${requestId})`,
      type: "new_api_error",
    };
    return call.finish(jsonReply(500, { error }, requestId));
  }
  const problem = reasoningItemProblem(body.responses.reasoningItems);
  if (problem) {
    const { status, code, message } = problem;
    const error = { message, type: "invalid_request_error", param: "input", code };
    return call.finish(jsonReply(status, { error }, requestId));
  }
  const { state } = context;
  const reasoning = reasoningFormatFor(model, body);
  const parts = promptParts(body, true);
  // The prompt cache as on chat completions: reads kept apart by `prompt_cache_key`, a Claude
  // model's reads and writes at `cache_control` breakpoints.
  const controls = body.promptCache;
  const cache = promptCacheUse(state, model, parts, controls);
  const output = generateChat(body, { reasoning, parts, ...cache });
  const identity = call.identity("resp", body.model);
  const reply = body.stream
    ? streamReply(responseEvents(identity, output, body.responses), requestId)
    : jsonReply(200, responseBody(identity, output, body.responses), requestId);
  const shown = promptCacheHeader(controls);
  if (shown !== undefined) reply.headers[PROMPT_CACHE_HEADER] = shown;
  return call.deliver(reply, output.usage, model.prices);
}
