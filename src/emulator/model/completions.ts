/** @module Non-streamed success bodies: OpenAI's chat.completion and text_completion shapes. */

import type { ChatOutput, CompletionOutput } from "./generate.js";
import { placeReasoning } from "./reasoning.js";

/** Fields every success body and chunk starts with. */
export interface CompletionIdentity {
  id: string;
  /** Unix seconds. */
  created: number;
  /** The model ID (hosted) or the Service-Name (dedicated). */
  model: string;
}

/**
 * `chat.completion`; reasoning only when the model thought (in a field of its own or in tags, as
 * its format says), `tool_calls` only when calling.
 */
export function chatCompletionBody(
  { id, created, model }: CompletionIdentity,
  output: ChatOutput,
): object {
  const placed = placeReasoning(output.reasoningFormat, output.reasoning, output.content);
  const message: Record<string, unknown> = { role: "assistant", content: placed.content };
  if (placed.field) message[placed.field] = placed.reasoning;
  if (output.toolCalls.length > 0) message.tool_calls = output.toolCalls;
  return {
    id,
    object: "chat.completion",
    created,
    model,
    choices: Array.from({ length: output.n }, (_, index) => ({
      index,
      message,
      logprobs: null,
      finish_reason: output.finishReason,
    })),
    usage: output.usage,
  };
}

/**
 * `text_completion`. docs/service-contract.md#dedicated-endpoints leaves the dedicated response body "not shown"; the emulator uses
 * OpenAI's completions shape, which `choices[].text` parsers expect.
 */
export function textCompletionBody(
  { id, created, model }: CompletionIdentity,
  output: CompletionOutput,
): object {
  return {
    id,
    object: "text_completion",
    created,
    model,
    choices: output.choices.map((choice, index) => ({
      index,
      text: choice.text,
      logprobs: null,
      finish_reason: choice.finishReason,
    })),
    usage: output.usage,
  };
}
