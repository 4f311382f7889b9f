/**
 * @module Prompts and replies as the GenAI conventions record them (`gen_ai.input.messages`,
 * `gen_ai.output.messages`: messages of typed parts, as JSON) — only when the user asks for them
 * (`captureContent`, or the conventions' environment variable). Media parts are named by their
 * type, never copied: an image's data URL could be megabytes.
 */

import { readEnv } from "../config/env.js";
import { ENV } from "../constants.js";
import { wireIndex } from "./wire.js";

/** One part of a message, as the conventions' JSON schema has it. */
type Part = Record<string, unknown> & { type: string };

/** One message: its role, its parts and, for a reply, why it ended. */
interface Message {
  role: string;
  parts: Part[];
  finish_reason?: string;
}

/**
 * Whether content is captured: the option when given, else the conventions' variable
 * (`true`, or the capture modes `span_only` and `span_and_event`; anything else is off). Read
 * once, when a model is built.
 */
export function resolveCaptureContent(option: boolean | undefined): boolean {
  if (option !== undefined) return option;
  const value = readEnv(ENV.captureContent)?.toLowerCase();
  return value === "true" || value === "span_only" || value === "span_and_event";
}

const str = (value: unknown): value is string => typeof value === "string";

/** The parts of a message's `content`: a string, or an array of content parts. */
function contentParts(content: unknown): Part[] {
  if (str(content)) return content === "" ? [] : [{ type: "text", content }];
  if (!Array.isArray(content)) return [];
  return content.map((part: { type?: unknown; text?: unknown }) =>
    part?.type === "text" && str(part.text)
      ? { type: "text", content: part.text }
      : { type: str(part?.type) ? part.type : "unknown" },
  );
}

/** A tool call of a message or choice as a `tool_call` part. */
function toolCallPart(call: {
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}): Part {
  return {
    type: "tool_call",
    ...(str(call.id) ? { id: call.id } : {}),
    name: call.function?.name,
    arguments: call.function?.arguments,
  };
}

/** The messages (chat) or prompt (completions) a request sends, as JSON; undefined for other APIs. */
export function inputMessages(body: Record<string, unknown>): string | undefined {
  const { messages, prompt } = body;
  if (Array.isArray(messages)) {
    return JSON.stringify(
      messages.map((m: Record<string, unknown>): Message => {
        if (m.role === "tool") {
          const response = { type: "tool_call_response", id: m.tool_call_id, response: m.content };
          return { role: "tool", parts: [response] };
        }
        const parts: Part[] = [];
        if (str(m.reasoning_content))
          parts.push({ type: "reasoning", content: m.reasoning_content });
        parts.push(...contentParts(m.content));
        for (const call of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
          parts.push(toolCallPart(call));
        }
        return { role: str(m.role) ? m.role : "user", parts };
      }),
    );
  }
  const prompts = str(prompt) ? [prompt] : Array.isArray(prompt) ? prompt.filter(str) : [];
  if (prompts.length === 0) return undefined;
  return JSON.stringify(
    prompts.map((content): Message => ({ role: "user", parts: [{ type: "text", content }] })),
  );
}

/** What one choice of a reply carries, gathered from an answer or from a stream's deltas. */
class Choice {
  reasoning = "";
  text = "";
  readonly calls: { id?: string; name?: string; arguments: string }[] = [];
  finish?: string;

  /** Adds a message (JSON answer) or a delta (stream chunk) of this choice. */
  add(piece: Record<string, unknown> | undefined, text: unknown): void {
    if (str(text)) this.text += text;
    if (typeof piece !== "object" || piece === null) return;
    if (str(piece.reasoning_content)) this.reasoning += piece.reasoning_content;
    if (str(piece.content)) this.text += piece.content;
    if (!Array.isArray(piece.tool_calls)) return;
    for (const [i, call] of (piece.tool_calls as Record<string, unknown>[]).entries()) {
      const at = wireIndex(call?.index, i);
      const fn = call?.function as { name?: unknown; arguments?: unknown } | undefined;
      this.calls[at] ??= { arguments: "" };
      const known = this.calls[at];
      if (str(call?.id)) known.id = call.id;
      if (str(fn?.name)) known.name = fn.name;
      if (str(fn?.arguments)) known.arguments += fn.arguments;
    }
  }

  message(): Message {
    const parts: Part[] = [];
    if (this.reasoning) parts.push({ type: "reasoning", content: this.reasoning });
    if (this.text) parts.push({ type: "text", content: this.text });
    for (const call of this.calls) {
      if (call) parts.push(toolCallPart({ id: call.id, function: call }));
    }
    return { role: "assistant", parts, ...(this.finish ? { finish_reason: this.finish } : {}) };
  }
}

/** The replies of one call, choice by choice: from its answer, or chunk by chunk from its stream. */
export class ReplyContent {
  readonly #choices: Choice[] = [];

  /** Reads the choices of an answer or of a stream chunk. */
  read(data: unknown, stream: boolean): void {
    const choices = (data as { choices?: unknown } | undefined)?.choices;
    if (!Array.isArray(choices)) return;
    for (const [i, raw] of (choices as Record<string, unknown>[]).entries()) {
      const at = wireIndex(raw?.index, i);
      this.#choices[at] ??= new Choice();
      const choice = this.#choices[at];
      const piece = (stream ? raw?.delta : raw?.message) as Record<string, unknown> | undefined;
      choice.add(piece, raw?.text);
      if (str(raw?.finish_reason)) choice.finish = raw.finish_reason;
    }
  }

  /** The replies as JSON; undefined before any choice arrived. */
  json(): string | undefined {
    const messages = this.#choices.filter(Boolean).map((choice) => choice.message());
    return messages.length === 0 ? undefined : JSON.stringify(messages);
  }
}
