/**
 * @module LangChain v1 standard content blocks of the service's replies: OpenAI's chat-completions
 * blocks, with `reasoning_content` as a leading `reasoning` block.
 */
import { type AIMessage, AIMessageChunk, type ContentBlock } from "@langchain/core/messages";
import { LS_PROVIDER } from "../../constants.js";

interface Translator {
  translateContent(message: AIMessage): ContentBlock.Standard[];
  translateContentChunk(chunk: AIMessageChunk): ContentBlock.Standard[];
}

type Registry = Map<string, Translator>;

/**
 * Registers the translator of the replies' `response_metadata.model_provider` ({@link LS_PROVIDER})
 * with @langchain/core, once per process: `AIMessage.contentBlocks`, and so `outputVersion: "v1"`,
 * looks its translator up by that name.
 *
 * Core keeps its translators in a Map on `globalThis` (so that two copies of core share one) and
 * exports no function to add one; the Map exists as soon as `@langchain/core/messages` is loaded,
 * which every importer of this package has done. Without the Map (a future core), replies fall
 * back to core's generic blocks: text and tool calls, no `reasoning`.
 */
export function registerContentBlockTranslator(): void {
  const registry = (globalThis as { lc_block_translators_registry?: unknown })
    .lc_block_translators_registry;
  if (!(registry instanceof Map) || registry.has(LS_PROVIDER)) return;
  const openai = (registry as Registry).get("openai");
  if (!openai) return;
  // Core asks `translateContent` for chunks too, so the translation tells a chunk apart itself.
  const translate = (message: AIMessage | AIMessageChunk): ContentBlock.Standard[] =>
    AIMessageChunk.isInstance(message)
      ? (textDeltaBlocks(message) ?? chunkBlocks(message, openai.translateContentChunk(message)))
      : [...reasoningBlocks(message), ...openai.translateContent(message)];
  (registry as Registry).set(LS_PROVIDER, {
    translateContent: translate,
    translateContentChunk: translate,
  });
}

/**
 * The blocks of a chunk that holds a text delta and nothing else (nearly every chunk of a
 * reply), built directly: what `chunkBlocks` makes of OpenAI's translation of it, for a fraction
 * of the cost — a consumer reads `chunk.text` through here on every chunk. Undefined for any
 * other chunk (tool calls, reasoning, a refusal, annotations, output items…), which takes the
 * general path.
 */
function textDeltaBlocks(chunk: AIMessageChunk): ContentBlock.Standard[] | undefined {
  if (chunk.tool_call_chunks?.length || chunk.tool_calls?.length) return undefined;
  const kwargs = chunk.additional_kwargs;
  if (kwargs !== undefined) for (const _ in kwargs) return undefined;
  const content = chunk.content;
  // Chat Completions: the delta's text as a string.
  if (typeof content === "string") {
    return content.length > 0 ? [{ type: "text", text: content, index: "text" }] : [];
  }
  // The Responses API: one text part, as `deltaChunk` builds it, and no output items.
  if (content.length !== 1 || Array.isArray(chunk.response_metadata?.output)) return undefined;
  const block = content[0] as Record<string, unknown>;
  if (block.type !== "text" || typeof block.text !== "string") return undefined;
  let keys = 0;
  for (const key in block) {
    if (key !== "type" && key !== "text" && key !== "index") return undefined;
    keys++;
  }
  // The keys in the order the general path gives them (an `index` right after `type`).
  return keys === 3
    ? [{ type: "text", index: "text", text: block.text }]
    : [{ type: "text", text: block.text, index: "text" }];
}

/**
 * The blocks of a chunk, shaped so that concatenating the chunks of an `outputVersion: "v1"`
 * stream (core merges list items by `index`) gives one block each, as `invoke` would:
 * - reasoning and text carry a fixed `index`, instead of one block per token;
 * - a tool call still arriving is a `tool_call_chunk` with its `index`, whose `args` text
 *   concatenates; OpenAI's translation would make it a `tool_call` with `args: {}` from the
 *   first delta. A complete call (ID, name, arguments that parse) stays a `tool_call`.
 */
function chunkBlocks(
  chunk: AIMessageChunk,
  translated: ContentBlock.Standard[],
): ContentBlock.Standard[] {
  const calls = chunk.tool_call_chunks ?? [];
  const blocks = [...reasoningBlocks(chunk), ...translated]
    .filter((block) => calls.length === 0 || block.type !== "tool_call")
    .map((block) =>
      block.type === "reasoning" || block.type === "text" ? { ...block, index: block.type } : block,
    );
  for (const call of calls) {
    const args = parsedArgs(call.args);
    blocks.push(
      call.id && call.name && args
        ? { type: "tool_call", id: call.id, name: call.name, args }
        : {
            type: "tool_call_chunk",
            id: call.id,
            name: call.name,
            args: call.args,
            index: call.index,
          },
    );
  }
  return blocks;
}

/** The arguments of a finished tool call: a JSON object, else undefined (still streaming). */
function parsedArgs(text: string | undefined): Record<string, unknown> | undefined {
  if (!text) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** `additional_kwargs.reasoning_content` as a `reasoning` block; none when absent or empty. */
function reasoningBlocks(message: AIMessage | AIMessageChunk): ContentBlock.Reasoning[] {
  const reasoning = message.additional_kwargs?.reasoning_content;
  return typeof reasoning === "string" && reasoning.length > 0
    ? [{ type: "reasoning", reasoning }]
    : [];
}
