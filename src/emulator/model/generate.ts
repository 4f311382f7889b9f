/** @module Runs the deterministic model under the request's limits (max_tokens, stop) and counts usage. */

import type { ReasoningFormat } from "../options.js";
import type { PromptPart } from "../state/prompt_cache.js";
import { completePrompt, isReasoningModel, replyToChat } from "./model.js";
import type { ChatMessage, ChatRequest, CompletionRequest, GenerationOptions } from "./requests.js";
import { countTokens, truncateToTokens } from "./tokens.js";
import type { ToolCall } from "./tools.js";

/**
 * Token usage in the OpenAI shape, with the gateway's fields for a Claude model's cache writes;
 * the details only when there is something to detail.
 */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number; cached_creation_tokens?: number };
  completion_tokens_details?: { reasoning_tokens: number };
  /** Of the cache writes, those that live five minutes (the gateway's name for them). */
  claude_cache_creation_5_m_tokens?: number;
  /** Of the cache writes, those that live an hour. */
  claude_cache_creation_1_h_tokens?: number;
}

/** What the prompt cache did for a call: tokens read, and written (for an hour, of those). */
export interface CacheUse {
  read: number;
  written: number;
  writtenForAnHour: number;
}

/** What the handler decides about a chat call before its reply is generated. */
export interface ChatSetup {
  /** Where the reply's reasoning goes; undefined when the model does not think (this time). */
  reasoning?: ReasoningFormat;
  /** The prompt as the model reads it (see {@link promptParts}); by default, without reasoning sent back. */
  parts?: PromptPart[];
  /** Prompt tokens read from the prompt cache. */
  cachedTokens?: number;
  /**
   * A Claude model's cache at breakpoints: its reads and writes, reported in the gateway's
   * fields (instead of `cachedTokens`).
   */
  cacheWrites?: CacheUse;
}

export type FinishReason = "stop" | "length" | "tool_calls";

/** The reply of a chat call: one choice, answered `n` times (the model is deterministic). */
export interface ChatOutput {
  /** How many choices the answer holds, each this same reply. */
  n: number;
  reasoning: string | undefined;
  /** Where `reasoning` goes in the body or the stream. */
  reasoningFormat: ReasoningFormat;
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

/** How a model thinks when the handler says nothing: by the "reason" in its ID. */
function defaultSetup(request: ChatRequest): ChatSetup {
  return isReasoningModel(request.model) ? { reasoning: "reasoning_content" } : {};
}

/**
 * The chat reply with `max_tokens` and `stop` applied (tool calls are never cut), and its usage:
 * the prompt once, the completion once per choice (`n`), as OpenAI counts them.
 */
export function generateChat(
  request: ChatRequest,
  setup: ChatSetup = defaultSetup(request),
): ChatOutput {
  const reply = replyToChat(request, setup.reasoning !== undefined);
  const toolTokens = reply.toolCalls.reduce(
    (sum, call) => sum + countTokens(call.function.name) + countTokens(call.function.arguments),
    0,
  );
  const text =
    reply.toolCalls.length > 0
      ? { reasoning: reply.reasoning, content: "", finishReason: "tool_calls" as const }
      : limitText(reply.reasoning, reply.content, request);
  const { n } = request;
  const reasoningTokens = n * countTokens(text.reasoning ?? "");
  const completionTokens = reasoningTokens + n * (countTokens(text.content) + toolTokens);
  const parts = setup.parts ?? promptParts(request);
  const promptTokens = parts.reduce((sum, part) => sum + part.tokens, 0);
  const counted = usage(promptTokens, completionTokens);
  if (setup.cachedTokens) counted.prompt_tokens_details = { cached_tokens: setup.cachedTokens };
  const cache = setup.cacheWrites;
  if (cache) {
    // As the gateway writes a Claude model's usage: the prompt counts its reads and writes.
    counted.prompt_tokens_details = {
      cached_tokens: cache.read,
      ...(cache.written > 0 ? { cached_creation_tokens: cache.written } : {}),
    };
    counted.claude_cache_creation_5_m_tokens = cache.written - cache.writtenForAnHour;
    counted.claude_cache_creation_1_h_tokens = cache.writtenForAnHour;
  }
  if (text.reasoning !== undefined) {
    counted.completion_tokens_details = { reasoning_tokens: reasoningTokens };
  }
  return {
    n,
    reasoning: text.reasoning,
    reasoningFormat: setup.reasoning ?? "reasoning_content",
    content: reply.toolCalls.length > 0 ? null : text.content,
    toolCalls: reply.toolCalls,
    finishReason: text.finishReason,
    usage: counted,
  };
}

/**
 * `n` completions per prompt (the completions API takes several prompts), in OpenAI's order:
 * prompt by prompt, so choice `i` answers prompt `floor(i / n)`. Usage: each prompt once, each
 * choice's completion.
 */
export function generateCompletion(request: CompletionRequest): CompletionOutput {
  let promptTokens = 0;
  let completionTokens = 0;
  const choices: TextChoice[] = [];
  for (const prompt of request.prompts) {
    const { content, finishReason } = limitText(undefined, completePrompt(prompt), request);
    promptTokens += countTokens(prompt);
    completionTokens += request.n * countTokens(content);
    for (let i = 0; i < request.n; i++) choices.push({ text: content, finishReason });
  }
  return { choices, usage: usage(promptTokens, completionTokens) };
}

/**
 * The prompt the model reads, in the parts a prompt cache tells apart: first the tool definitions
 * and response schema (and the reply's priming), then each message. Their tokens add up to
 * `prompt_tokens`. With `readsReasoning`, the reasoning sent back in a message is read too.
 */
export function promptParts(request: ChatRequest, readsReasoning = false): PromptPart[] {
  // Tool definitions and a response schema are part of the prompt the model reads.
  const schema =
    request.responseFormat.type === "json_schema"
      ? JSON.stringify(request.responseFormat.schema)
      : "";
  const parts: PromptPart[] = [
    {
      key: () => `${request.toolsJson}\u0000${schema}`,
      tokens: REPLY_PRIMING_TOKENS + countTokens(request.toolsJson) + countTokens(schema),
    },
  ];
  for (const message of request.messages) {
    parts.push({
      key: () => messageKey(message, readsReasoning),
      tokens: messageTokens(message, readsReasoning),
    });
  }
  return parts;
}

function messageTokens(message: ChatMessage, readsReasoning: boolean): number {
  let tokens = TOKENS_PER_MESSAGE + countTokens(message.role) + countTokens(message.content);
  tokens += message.media?.tokens ?? 0;
  if (message.name !== undefined) tokens += 1 + countTokens(message.name);
  for (const call of message.toolCalls)
    tokens += countTokens(call.name) + countTokens(call.arguments);
  if (readsReasoning && message.reasoning !== undefined) tokens += countTokens(message.reasoning);
  return tokens;
}

function messageKey(message: ChatMessage, readsReasoning: boolean): string {
  const { reasoning: _sentBack, ...rest } = message;
  return JSON.stringify(readsReasoning ? message : rest);
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
