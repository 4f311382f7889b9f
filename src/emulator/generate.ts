/** @module Runs the deterministic model under the request's limits (max_tokens, stop) and counts usage. */

import { completePrompt, replyToChat } from "./model.js";
import type { ChatRequest, CompletionRequest, GenerationOptions } from "./requests.js";
import { countTokens, truncateToTokens } from "./tokens.js";
import type { ToolCall } from "./tools.js";

/** Token usage in the OpenAI shape. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export type FinishReason = "stop" | "length" | "tool_calls";

export interface ChatOutput {
  reasoning: string | undefined;
  /** null when the reply is tool calls, as in OpenAI's API. */
  content: string | null;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage: Usage;
}

export interface TextChoice {
  text: string;
  finishReason: "stop" | "length";
}

export interface CompletionOutput {
  choices: TextChoice[];
  usage: Usage;
}

// OpenAI-style message framing: each turn costs a few tokens besides its text, and the reply is primed.
const TOKENS_PER_MESSAGE = 3;
const REPLY_PRIMING_TOKENS = 3;

/** The chat reply with `max_tokens` and `stop` applied (tool calls are never cut), and its usage. */
export function generateChat(request: ChatRequest): ChatOutput {
  const reply = replyToChat(request);
  const toolTokens = reply.toolCalls.reduce(
    (sum, call) => sum + countTokens(call.function.name) + countTokens(call.function.arguments),
    0,
  );
  const text =
    reply.toolCalls.length > 0
      ? { reasoning: reply.reasoning, content: "", finishReason: "tool_calls" as const }
      : limitText(reply.reasoning, reply.content, request);
  const completionTokens =
    countTokens(text.reasoning ?? "") + countTokens(text.content) + toolTokens;
  return {
    reasoning: text.reasoning,
    content: reply.toolCalls.length > 0 ? null : text.content,
    toolCalls: reply.toolCalls,
    finishReason: text.finishReason,
    usage: usage(chatPromptTokens(request), completionTokens),
  };
}

/** One completion per prompt (the completions API takes several), with summed usage. */
export function generateCompletion(request: CompletionRequest): CompletionOutput {
  let promptTokens = 0;
  let completionTokens = 0;
  const choices = request.prompts.map((prompt) => {
    const { content, finishReason } = limitText(undefined, completePrompt(prompt), request);
    promptTokens += countTokens(prompt);
    completionTokens += countTokens(content);
    return { text: content, finishReason };
  });
  return { choices, usage: usage(promptTokens, completionTokens) };
}

function chatPromptTokens(request: ChatRequest): number {
  let tokens = REPLY_PRIMING_TOKENS;
  for (const message of request.messages) {
    tokens += TOKENS_PER_MESSAGE + countTokens(message.role) + countTokens(message.content);
    if (message.name !== undefined) tokens += 1 + countTokens(message.name);
    for (const call of message.toolCalls)
      tokens += countTokens(call.name) + countTokens(call.arguments);
  }
  // Tool definitions and a response schema are part of the prompt the model reads.
  tokens += countTokens(request.toolsJson);
  if (request.responseFormat.type === "json_schema")
    tokens += countTokens(JSON.stringify(request.responseFormat.schema));
  return tokens;
}

/** Cuts at the first stop sequence, then to `max_tokens` (reasoning first, then content). */
function limitText(
  reasoning: string | undefined,
  content: string,
  { maxTokens, stop }: GenerationOptions,
): { reasoning: string | undefined; content: string; finishReason: "stop" | "length" } {
  let text = content;
  for (const sequence of stop) {
    const at = text.indexOf(sequence);
    if (at >= 0) text = text.slice(0, at);
  }
  if (maxTokens === undefined) return { reasoning, content: text, finishReason: "stop" };
  const reasoningTokens = countTokens(reasoning ?? "");
  if (reasoning !== undefined && reasoningTokens >= maxTokens) {
    const cut = truncateToTokens(reasoning, maxTokens);
    return {
      reasoning: cut,
      content: "",
      finishReason: text === "" && cut === reasoning ? "stop" : "length",
    };
  }
  const budget = maxTokens - reasoningTokens;
  if (countTokens(text) <= budget) return { reasoning, content: text, finishReason: "stop" };
  return { reasoning, content: truncateToTokens(text, budget), finishReason: "length" };
}

function usage(promptTokens: number, completionTokens: number): Usage {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
}
