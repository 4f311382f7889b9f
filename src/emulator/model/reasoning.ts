/**
 * @module How an emulated model thinks: whether it thinks for a request, where its reasoning goes
 * in the reply, and what it makes of reasoning sent back to it — as DeepSeek's thinking mode,
 * R1, vLLM and a server without a reasoning parser each do.
 */

import type { ReasoningFormat } from "../options.js";
import type { HostedModel } from "../state/state_records.js";
import { isReasoningModel } from "./model.js";
import type { ChatRequest } from "./requests.js";

/** DeepSeek's thinking mode, to a tool call of the current turn sent back without its reasoning. */
export const REASONING_REQUIRED =
  "The reasoning_content in the thinking mode must be passed back to the API.";

/** An R1-style model, to any input message that carries reasoning. */
export const REASONING_REFUSED =
  "reasoning_content is for display only and is not accepted in input messages; remove it from the messages you send.";

/**
 * Where the reply to `request` puts its reasoning; undefined when the model does not think, or
 * the request switched thinking off.
 */
export function reasoningFormatFor(
  model: HostedModel,
  request: ChatRequest,
): ReasoningFormat | undefined {
  const format =
    model.reasoning?.format ?? (isReasoningModel(model.id) ? "reasoning_content" : undefined);
  return request.thinking === false ? undefined : format;
}

/**
 * What the model answers 400 to in the reasoning sent back with `request`'s messages (its
 * `reasoning.input` rule); undefined when the messages suit it. Only a model that thinks for this
 * request needs its reasoning back.
 */
export function reasoningInputProblem(
  model: HostedModel,
  request: ChatRequest,
  thinks: boolean,
): string | undefined {
  const rule = model.reasoning?.input ?? "ignore";
  const { messages } = request;
  if (rule === "refuse" && messages.some((message) => message.reasoning !== undefined)) {
    return REASONING_REFUSED;
  }
  if (rule === "require" && thinks) {
    let turn = messages.length;
    while (turn > 0 && messages[turn - 1]!.role !== "user") turn--;
    const missing = messages
      .slice(turn)
      .some((m) => m.role === "assistant" && m.toolCalls.length > 0 && !m.reasoning);
    if (missing) return REASONING_REQUIRED;
  }
  return undefined;
}

/** A reply's reasoning and content as `format` writes them: a field of its own, or tags in the content. */
export interface PlacedReasoning {
  /** The field the reasoning goes in, when it has one. */
  field?: "reasoning_content" | "reasoning";
  reasoning?: string;
  /** The content, with the reasoning in tags when the format says so; null for tool calls only. */
  content: string | null;
}

export function placeReasoning(
  format: ReasoningFormat,
  reasoning: string | undefined,
  content: string | null,
): PlacedReasoning {
  if (reasoning === undefined) return { content };
  if (format === "tags") return { content: `<think>\n${reasoning}\n</think>\n\n${content ?? ""}` };
  if (format === "opened-tags") return { content: `${reasoning}\n</think>\n\n${content ?? ""}` };
  return { field: format, reasoning, content };
}
