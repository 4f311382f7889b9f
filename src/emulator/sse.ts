/** @module Server-sent events of streamed calls: one `data: {chunk}` per token, a usage chunk, `data: [DONE]`. */

import type { CompletionIdentity } from "./completions.js";
import type { ChatOutput, CompletionOutput, Usage } from "./generate.js";
import { placeReasoning } from "./reasoning.js";
import { tokenPieces } from "./tokens.js";

export const SSE_DONE = "data: [DONE]\n\n";

export function sseEvent(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/**
 * `chat.completion.chunk` events: the role, reasoning pieces (in their field, or as tags in the
 * content), content pieces (about one token each), each tool call (id and name, then its arguments in pieces), the finish reason, the usage
 * chunk (`choices: []`) unless `includeUsage` is false, and `[DONE]`.
 */
export function chatCompletionEvents(
  identity: CompletionIdentity,
  output: ChatOutput,
  includeUsage: boolean,
): string[] {
  const head = {
    id: identity.id,
    object: "chat.completion.chunk",
    created: identity.created,
    model: identity.model,
  };
  const chunk = (delta: object, finishReason: string | null = null) =>
    sseEvent({
      ...head,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    });
  const events = [chunk({ role: "assistant", content: "" })];
  const placed = placeReasoning(output.reasoningFormat, output.reasoning, output.content);
  const field = placed.field;
  if (field)
    for (const piece of tokenPieces(placed.reasoning ?? "")) events.push(chunk({ [field]: piece }));
  for (const piece of tokenPieces(placed.content ?? "")) events.push(chunk({ content: piece }));
  output.toolCalls.forEach((call, index) => {
    const { name, arguments: args } = call.function;
    events.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: "function", function: { name, arguments: "" } }],
      }),
    );
    for (const piece of tokenPieces(args))
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  events.push(chunk({}, output.finishReason));
  return finish(events, head, output.usage, includeUsage);
}

/** `text_completion` events: text pieces per prompt, a final chunk per prompt, usage, `[DONE]`. */
export function textCompletionEvents(
  identity: CompletionIdentity,
  output: CompletionOutput,
  includeUsage: boolean,
): string[] {
  const head = {
    id: identity.id,
    object: "text_completion",
    created: identity.created,
    model: identity.model,
  };
  const chunk = (index: number, text: string, finishReason: string | null = null) =>
    sseEvent({ ...head, choices: [{ index, text, logprobs: null, finish_reason: finishReason }] });
  const events: string[] = [];
  output.choices.forEach((choice, index) => {
    for (const piece of tokenPieces(choice.text)) events.push(chunk(index, piece));
  });
  output.choices.forEach((choice, index) => {
    events.push(chunk(index, "", choice.finishReason));
  });
  return finish(events, head, output.usage, includeUsage);
}

function finish(events: string[], head: object, usage: Usage, includeUsage: boolean): string[] {
  if (includeUsage) events.push(sseEvent({ ...head, choices: [], usage }));
  events.push(SSE_DONE);
  return events;
}
