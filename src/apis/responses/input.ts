/**
 * @module LangChain messages as the Responses API's `input` items, by `@langchain/openai`'s
 * public converter, with the reasoning a reply carried sent back whole: each reasoning item of an
 * assistant turn, `encrypted_content` and summary as the service wrote them, in the place it had
 * in the reply (before the `function_call` it led to). Stateless calls keep nothing on the
 * service, so an item is never sent by its ID alone: a reasoning item without
 * `encrypted_content` is left out, and the IDs of messages and function calls are not sent
 * (docs/responses.md#stateless-by-default).
 */
import { AIMessage, type BaseMessage, isAIMessage } from "@langchain/core/messages";
import { convertMessagesToResponsesInput } from "@langchain/openai";
import type { OpenAI } from "openai";
import { withoutUndefined } from "../../utils/without_undefined.js";

type Item = OpenAI.Responses.ResponseInputItem;
type Fields = Record<string, unknown>;

const isFields = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The items of the reply a message came from (`response_metadata.output`), else undefined. */
export function outputItemsOf(message: BaseMessage): Fields[] | undefined {
  const output = (message.response_metadata as Fields | undefined)?.output;
  return Array.isArray(output) && output.length > 0 && output.every(isFields)
    ? (output as Fields[])
    : undefined;
}

/**
 * The reasoning items of an assistant message: those of its reply's output, else
 * `additional_kwargs.reasoning` (where `ChatOpenAI` keeps one); when `stateless`, only those with
 * `encrypted_content`.
 */
export function reasoningItemsOf(message: BaseMessage, stateless: boolean): Fields[] {
  const output = outputItemsOf(message);
  const kept = additional(message);
  const items = output
    ? output.filter((item) => item.type === "reasoning")
    : isFields(kept)
      ? [{ type: "reasoning", ...kept }]
      : [];
  return items.filter((item) => !stateless || isEncrypted(item));
}

function additional(message: BaseMessage): unknown {
  return message.additional_kwargs?.reasoning;
}

function isEncrypted(item: Fields): boolean {
  return typeof item.encrypted_content === "string" && item.encrypted_content !== "";
}

/** A reasoning item as the API takes it back: as the reply wrote it, less what only a reply carries. */
function sentBack(item: Fields): Item {
  const { status: _status, ...rest } = item;
  const summary = Array.isArray(rest.summary)
    ? rest.summary.map((part) => {
        if (!isFields(part)) return part;
        const { index: _index, ...text } = part;
        return text;
      })
    : [];
  return { ...rest, summary } as unknown as Item;
}

/**
 * The `input` of a call: every message converted, an assistant turn's reasoning items sent back
 * whole in their place. `model` picks the system role (`developer` for OpenAI's reasoning models,
 * as `ChatOpenAI` does).
 */
export function toInputItems(
  messages: readonly BaseMessage[],
  model: string,
  stateless: boolean,
): OpenAI.Responses.ResponseInput {
  const items: Item[] = [];
  for (const message of messages) {
    if (!isAIMessage(message)) {
      items.push(...convert(message, model, stateless));
      continue;
    }
    items.push(...assistantItems(message, model, stateless));
  }
  return items;
}

function convert(message: BaseMessage, model: string, stateless: boolean): Item[] {
  return convertMessagesToResponsesInput({
    messages: [withInputFiles(message)],
    zdrEnabled: stateless,
    model,
  }) as Item[];
}

/**
 * The message with its Chat Completions `file` parts (`{ type: "file", file: { file_data |
 * file_id, filename } }`) as the Responses API's `input_file` parts: `@langchain/openai`'s
 * converter drops them, and the model would answer without the file it was given.
 */
function withInputFiles(message: BaseMessage): BaseMessage {
  const { content } = message;
  if (!Array.isArray(content) || !content.some(isChatFile)) return message;
  const parts = content.map((part) => {
    if (!isChatFile(part)) return part;
    const { file_data, file_id, filename } = part.file as Fields;
    return withoutUndefined({ type: "input_file", file_data, file_id, filename });
  });
  // A copy of the same class with the parts replaced: the caller's message stays as it was.
  const copy = Object.assign(Object.create(Object.getPrototypeOf(message)), message);
  copy.content = parts;
  return copy as BaseMessage;
}

function isChatFile(part: unknown): part is { type: "file"; file: Fields } {
  return isFields(part) && part.type === "file" && isFields(part.file);
}

/**
 * An assistant turn: its text and tool calls as the message holds them now (a middleware may
 * have changed them), its reasoning items where its reply had them — each before the item that
 * followed it in the reply — and without IDs when stateless.
 */
function assistantItems(message: AIMessage, model: string, stateless: boolean): Item[] {
  const stripped = (item: Item) => (stateless ? withoutId(item) : item);
  if (message.response_metadata?.output_version === "v1") {
    // LangChain's v1 content holds the reasoning as blocks (with `encrypted_content`), in order.
    return convert(message, model, stateless)
      .filter((item) => !isReasoning(item) || !stateless || isEncrypted(item as unknown as Fields))
      .map(stripped);
  }
  const reasoning = reasoningItemsOf(message, stateless).map(sentBack);
  // Converted without the reply's items, which the converter would send as they were.
  const { output: _output, ...metadata } = message.response_metadata ?? {};
  const { reasoning: _kept, ...kwargs } = message.additional_kwargs ?? {};
  const plain = new AIMessage({
    content: message.content,
    tool_calls: message.tool_calls,
    invalid_tool_calls: message.invalid_tool_calls,
    id: message.id,
    name: message.name,
    additional_kwargs: kwargs,
    response_metadata: metadata,
  });
  // A turn of tool calls alone has no text: no empty message item for it.
  const own = convert(plain, model, stateless)
    .filter((item) => !isEmptyText(item))
    .map(stripped);
  const output = outputItemsOf(message);
  if (!output || reasoning.length === 0) return [...reasoning, ...own];
  return inReplyOrder(output, reasoning, own);
}

function isEmptyText(item: Item): boolean {
  const { type, content } = item as unknown as Fields;
  return type === "message" && (content === "" || (Array.isArray(content) && content.length === 0));
}

function isReasoning(item: Item): boolean {
  return (item as unknown as Fields).type === "reasoning";
}

function withoutId(item: Item): Item {
  const fields = item as unknown as Fields;
  if ((fields.type !== "message" && fields.type !== "function_call") || !("id" in fields)) {
    return item;
  }
  const { id: _id, ...rest } = fields;
  return rest as unknown as Item;
}

/**
 * The reasoning items and the turn's own items in the order of the reply: each reasoning item
 * goes before the first own item that followed it there (a function call by its `call_id`, the
 * text by its message); own items the reply did not have go last.
 */
function inReplyOrder(output: readonly Fields[], reasoning: Item[], own: Item[]): Item[] {
  const ordered: Item[] = [];
  const left = [...own];
  const pending = new Map(reasoning.map((item) => [(item as unknown as Fields).id, item]));
  const take = (match: (item: Fields) => boolean) => {
    const at = left.findIndex((item) => match(item as unknown as Fields));
    if (at >= 0) ordered.push(...left.splice(at, 1));
  };
  for (const item of output) {
    if (item.type === "reasoning") {
      const sent = pending.get(item.id);
      if (sent) ordered.push(sent);
      pending.delete(item.id);
    } else if (item.type === "function_call") {
      take((own) => own.type === "function_call" && own.call_id === item.call_id);
    } else if (item.type === "message") take((own) => own.type === "message");
  }
  return [...ordered, ...pending.values(), ...left];
}
