/**
 * @module `POST /chat/completions` on the hosted surface (docs/service-contract.md#hosted-models):
 * a chat model's answer, JSON or streamed.
 */
import { chatCompletionBody } from "../model/completions.js";
import { generateChat, promptParts } from "../model/generate.js";
import { reasoningFormatFor, reasoningInputProblem } from "../model/reasoning.js";
import { type PromptCacheControls, parseChatRequest } from "../model/requests.js";
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
  // OpenAI's `prompt_cache_key` keeps the prompts it names apart from others in the cache.
  const cacheName = controls.key === undefined ? model.id : `${model.id}\u0000${controls.key}`;
  const cachedTokens = model.promptCache === true ? state.readPromptCache(cacheName, parts) : 0;
  const cacheWrites =
    model.promptCache === "breakpoints"
      ? state.writePromptCache(model.id, parts, controls.breakpoints)
      : undefined;
  const output = generateChat(body, { reasoning, parts, cachedTokens, cacheWrites });
  const identity = call.identity("chatcmpl", body.model);
  const reply = body.stream
    ? streamReply(chatCompletionEvents(identity, output, body.includeUsage), requestId)
    : jsonReply(200, chatCompletionBody(identity, output), requestId);
  const shown = promptCacheHeader(controls);
  if (shown !== undefined) reply.headers[PROMPT_CACHE_HEADER] = shown;
  return call.deliver(reply, output.usage, model.prices);
}

/**
 * Says which prompt-cache controls arrived, so a client can see that they passed through: e.g.
 * `key=support-v1; retention=24h; breakpoints=2 (1h, 5m)`. Undefined when none did.
 */
function promptCacheHeader(controls: PromptCacheControls): string | undefined {
  const said: string[] = [];
  if (controls.key !== undefined) said.push(`key=${encodeURIComponent(controls.key)}`);
  if (controls.retention !== undefined) {
    said.push(`retention=${encodeURIComponent(controls.retention)}`);
  }
  const { breakpoints } = controls;
  if (breakpoints.length > 0) {
    said.push(`breakpoints=${breakpoints.length} (${breakpoints.map((b) => b.ttl).join(", ")})`);
  }
  return said.length > 0 ? said.join("; ") : undefined;
}
