/**
 * @module What a Responses API answer counts, read by the package's shared usage readers
 * (`spend/usage.ts`, which read both APIs' names): its `usage` as LangChain's `usage_metadata`
 * (cached and reasoning details included), and what a stream's events or chunks add to the
 * call's meter when the service reports no usage.
 */
import type { AIMessageChunk, UsageMetadata } from "@langchain/core/messages";
import type { ChatGenerationChunk } from "@langchain/core/outputs";
import { countUsageMetadata, tokenCountFromWire } from "../../spend/call_meter.js";
import type { StreamReading } from "../../spend/estimate.js";
import {
  cacheTokenDetails,
  promptCacheFromWire,
  reasoningTokensFromWire,
  tokenUsageFromWire,
} from "../../spend/usage.js";
import type { ResponseEvent } from "./answer.js";

/**
 * A response's `usage` as LangChain's `usage_metadata`: `input_tokens`, `output_tokens`, the
 * prompt cache's reads (`input_tokens_details.cached_tokens`) and writes (`cache_write_tokens`,
 * `cached_creation_tokens`, and their split by lifetime when the usage gives one) in
 * `input_token_details`, as on Chat Completions, and `output_tokens_details.reasoning_tokens`;
 * undefined when it holds no count.
 */
export function usageMetadataOf(usage: unknown): UsageMetadata | undefined {
  const counts = tokenUsageFromWire(usage);
  if (counts === undefined) return undefined;
  const input = counts.promptTokens ?? 0;
  const output = counts.completionTokens ?? 0;
  const cache = cacheTokenDetails(promptCacheFromWire(usage));
  const reasoning = reasoningTokensFromWire(usage);
  const metadata: UsageMetadata = {
    input_tokens: input,
    output_tokens: output,
    total_tokens: counts.totalTokens ?? input + output,
  };
  // Set one by one, not spread from conditional objects: on every answer.
  if (Object.keys(cache).length > 0) metadata.input_token_details = cache;
  if (reasoning !== undefined) metadata.output_token_details = { reasoning };
  return metadata;
}

/** The usage of the event that ends a stream, if it is one and reports any. */
export function usageOfEvent(event: ResponseEvent): unknown {
  const type = (event as { type?: unknown }).type;
  if (type !== "response.completed" && type !== "response.incomplete") return undefined;
  return (event as { response?: { usage?: unknown } }).response?.usage;
}

/** Counts one raw event's output text (text, reasoning, arguments) and the stream's usage. */
export function countEvent(reading: StreamReading, event: ResponseEvent): void {
  const delta = (event as { delta?: unknown }).delta;
  if (typeof delta === "string") reading.addText(delta);
  const usage = tokenCountFromWire(usageOfEvent(event));
  if (usage !== undefined) reading.usage = usage;
}

/** Counts what one LangChain chunk adds to the output (text, reasoning, arguments) and its usage. */
export function countChunk(reading: StreamReading, chunk: ChatGenerationChunk): void {
  const message = chunk.message as AIMessageChunk;
  const { content } = message;
  if (typeof content === "string") reading.addText(content);
  else {
    for (const part of content) {
      const block = part as { text?: unknown; reasoning?: unknown };
      if (typeof block.text === "string") reading.addText(block.text);
      if (typeof block.reasoning === "string") reading.addText(block.reasoning);
    }
  }
  for (const call of message.tool_call_chunks ?? []) reading.addText(call.args);
  if (message.usage_metadata !== undefined) {
    reading.usage = countUsageMetadata(message.usage_metadata);
  }
}
