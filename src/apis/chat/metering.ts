/**
 * @module What a chat answer's output counts for the call's meter when the service reports no
 * usage (a stream cut short, a server without usage): every text the model wrote — content,
 * reasoning and tool-call arguments — by the package's one estimate.
 */
import type { AIMessageChunk, MessageContent } from "@langchain/core/messages";
import type { ChatGenerationChunk } from "@langchain/core/outputs";
import type { OpenAI } from "openai";
import { countUsageMetadata, tokenCountFromWire } from "../../spend/call_meter.js";
import type { StreamReading } from "../../spend/estimate.js";

/** Counts what one LangChain chunk adds to the output (content, reasoning, tool-call arguments) and its usage. */
export function countGenerationChunk(reading: StreamReading, chunk: ChatGenerationChunk): void {
  const message = chunk.message as AIMessageChunk;
  reading.addText(chunk.text);
  const reasoning = message.additional_kwargs?.reasoning_content;
  if (typeof reasoning === "string") reading.addText(reasoning);
  for (const call of message.tool_call_chunks ?? []) reading.addText(call.args);
  if (message.usage_metadata !== undefined) {
    reading.usage = countUsageMetadata(message.usage_metadata);
  }
}

/** Counts one raw stream chunk's output (every choice's content, reasoning, tool-call arguments) and usage. */
export function countChunk(
  reading: StreamReading,
  data: OpenAI.Chat.Completions.ChatCompletionChunk,
): void {
  for (const choice of data.choices ?? []) {
    const delta = choice.delta as { content?: unknown; reasoning_content?: unknown } | undefined;
    if (typeof delta?.content === "string") reading.addText(delta.content);
    if (typeof delta?.reasoning_content === "string") reading.addText(delta.reasoning_content);
    for (const call of choice.delta?.tool_calls ?? []) reading.addText(call.function?.arguments);
  }
  const usage = tokenCountFromWire(data.usage);
  if (usage !== undefined) reading.usage = usage;
}

/** A non-streamed reply's output (reasoning, text, tool calls) as text, for an estimate when the service reports no usage. */
export function replyText(completion: OpenAI.Chat.Completions.ChatCompletion): string {
  return completion.choices
    .map((choice) => {
      const message = choice.message as {
        content?: unknown;
        reasoning_content?: unknown;
        tool_calls?: unknown;
      };
      const reasoning =
        typeof message?.reasoning_content === "string" ? message.reasoning_content : "";
      const content = reasoning + (typeof message?.content === "string" ? message.content : "");
      return message?.tool_calls ? content + JSON.stringify(message.tool_calls) : content;
    })
    .join("");
}

/** The text of a message's content: a string, or its text parts joined. */
export function contentText(content: MessageContent): string {
  if (typeof content === "string") return content;
  return content
    .map((part) => (typeof part === "string" ? part : ((part as { text?: string }).text ?? "")))
    .join("");
}
