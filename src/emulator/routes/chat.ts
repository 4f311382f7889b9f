/**
 * @module `POST /chat/completions` on the hosted surface (docs/service-contract.md#hosted-models):
 * a chat model's answer, JSON or streamed.
 */
import { chatCompletionBody } from "../model/completions.js";
import { generateChat, promptParts } from "../model/generate.js";
import { reasoningFormatFor, reasoningInputProblem } from "../model/reasoning.js";
import { parseChatRequest } from "../model/requests.js";
import { chatCompletionEvents } from "../model/sse.js";
import {
  type EmulatorReply,
  type EmulatorRequest,
  jsonReply,
  PROMPT_CACHE_HEADER,
  streamReply,
} from "../reply.js";
import { openHosted } from "./call.js";
import { modelServerBadRequest } from "./errors.js";
import type { HandlerContext } from "./handler_context.js";
import { promptCacheHeader, promptCacheUse } from "./prompt_cache.js";

/** `POST /chat/completions` (docs/service-contract.md#hosted-models); an embedding or rerank model is refused with 400. */
export function hosted(
  context: HandlerContext,
  request: EmulatorRequest,
  requestId: string,
): EmulatorReply {
  const opened = openHosted(context, request, requestId, parseChatRequest, "chat");
  if ("reply" in opened) return opened.reply;
  const { call, model } = opened;
  const { state } = context;
  // A channel that does not read `response_format` never shows it to the model: prose comes back.
  const ignored = model.ignoresResponseFormat || call.fault === "ignore-response-format";
  const body = ignored
    ? { ...opened.body, responseFormat: { type: "text" as const } }
    : opened.body;
  // The model server's own checks, which the gateway relays: the reasoning sent back.
  const reasoning = reasoningFormatFor(model, body);
  const problem = reasoningInputProblem(model, body, reasoning !== undefined);
  if (problem) return call.finish(modelServerBadRequest(requestId, problem));
  const parts = promptParts(body, model.reasoning?.input === "require");
  const controls = body.promptCache;
  const cache = promptCacheUse(state, model, parts, controls);
  const output = generateChat(body, { reasoning, parts, ...cache });
  const identity = call.identity("chatcmpl", body.model);
  const reply = body.stream
    ? streamReply(chatCompletionEvents(identity, output, body.includeUsage), requestId)
    : jsonReply(200, chatCompletionBody(identity, output), requestId);
  const shown = promptCacheHeader(controls);
  if (shown !== undefined) reply.headers[PROMPT_CACHE_HEADER] = shown;
  return call.deliver(reply, output.usage, model.prices);
}
