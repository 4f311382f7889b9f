/** @module Server-sent events of streamed calls: one `data: {chunk}` per token, a usage chunk, `data: [DONE]`. */

import { sseEvent } from "../reply.js";
import type { CompletionIdentity } from "./completions.js";
import type { ChatOutput, CompletionOutput, Usage } from "./generate.js";
import { placeReasoning } from "./reasoning.js";
import { countTokens, tokenPieces } from "./tokens.js";

export const SSE_DONE = "data: [DONE]\n\n";

/**
 * `chat.completion.chunk` events: for each choice the role, reasoning pieces (in their field, or
 * as tags in the content), content pieces (about one token each), each tool call (id and name,
 * then its arguments in pieces) and the finish reason, the choices' events taking turns as a
 * server streams them; then the usage chunk (`choices: []`) unless `includeUsage` is false, and
 * `[DONE]`.
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
  const deltas = chatDeltas(output);
  const perChoice = Array.from({ length: output.n }, (_, index) =>
    deltas.map(({ delta, finishReason }) =>
      sseEvent({
        ...head,
        choices: [{ index, delta, logprobs: null, finish_reason: finishReason }],
      }),
    ),
  );
  return finish(takingTurns(perChoice), head, output.usage, includeUsage);
}

/** The deltas of one choice of a streamed chat reply, in order, the last with its finish reason. */
function chatDeltas(output: ChatOutput): Array<{ delta: object; finishReason: string | null }> {
  const deltas: object[] = [{ role: "assistant", content: "" }];
  const placed = placeReasoning(output.reasoningFormat, output.reasoning, output.content);
  const field = placed.field;
  if (field)
    for (const piece of tokenPieces(placed.reasoning ?? "")) deltas.push({ [field]: piece });
  for (const piece of tokenPieces(placed.content ?? "")) deltas.push({ content: piece });
  output.toolCalls.forEach((call, index) => {
    const { name, arguments: args } = call.function;
    deltas.push({
      tool_calls: [{ index, id: call.id, type: "function", function: { name, arguments: "" } }],
    });
    for (const piece of tokenPieces(args)) {
      deltas.push({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
  });
  return [
    ...deltas.map((delta) => ({ delta, finishReason: null })),
    { delta: {}, finishReason: output.finishReason },
  ];
}

/**
 * `text_completion` events: each choice's text pieces and its final chunk, the choices taking
 * turns; then usage and `[DONE]`.
 */
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
  const perChoice = output.choices.map((choice, index) => [
    ...tokenPieces(choice.text).map((piece) => chunk(index, piece)),
    chunk(index, "", choice.finishReason),
  ]);
  return finish(takingTurns(perChoice), head, output.usage, includeUsage);
}

/** One event of each list in turn (a, b, a, b, …), the longer lists going on alone at the end. */
function takingTurns(lists: readonly string[][]): string[] {
  if (lists.length === 1) return lists[0]!;
  const events: string[] = [];
  const longest = lists.reduce((max, list) => Math.max(max, list.length), 0);
  for (let i = 0; i < longest; i++) {
    for (const list of lists) if (i < list.length) events.push(list[i]!);
  }
  return events;
}

function finish(events: string[], head: object, usage: Usage, includeUsage: boolean): string[] {
  if (includeUsage) events.push(sseEvent({ ...head, choices: [], usage }));
  events.push(SSE_DONE);
  return events;
}

/**
 * The text a chat or completions chunk carries (content, reasoning, tool-call arguments, text),
 * or a typed event's delta (text, reasoning summary, arguments).
 */
function chunkText(chunk: unknown): string {
  const delta = (chunk as { delta?: unknown } | null)?.delta;
  if (typeof delta === "string") return delta;
  const choices = (chunk as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices)) return "";
  let text = "";
  for (const choice of choices as Array<Record<string, unknown>>) {
    if (typeof choice.text === "string") text += choice.text;
    const delta = choice.delta as Record<string, unknown> | undefined;
    if (!delta) continue;
    for (const field of ["reasoning_content", "reasoning", "content"]) {
      if (typeof delta[field] === "string") text += delta[field];
    }
    for (const call of (delta.tool_calls ?? []) as Array<{ function?: { arguments?: unknown } }>) {
      if (typeof call.function?.arguments === "string") text += call.function.arguments;
    }
  }
  return text;
}

/** The output tokens `events` carried, as a gateway counts the text it relayed of a stream. */
export function relayedTokens(events: readonly string[]): number {
  let text = "";
  for (const event of events) {
    // A typed event names itself on an `event:` line before its data.
    const at = event.startsWith("data: {") ? 0 : event.indexOf("\ndata: {") + 1;
    if (at < 0 || (at === 0 && !event.startsWith("data: {"))) continue;
    text += chunkText(JSON.parse(event.slice(at + "data: ".length)));
  }
  return countTokens(text);
}
