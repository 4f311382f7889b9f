/**
 * @module The Responses API as the emulator serves it: a `POST /responses` body read into the
 * chat request the deterministic model answers, and that answer written back as a `response`
 * object or as its stream of typed events. Reasoning items carry an `encrypted_content` the
 * emulator signs, and checks when it comes back: a tampered one is refused, and a reasoning item
 * sent back by its ID alone is unknown, as a stateless call (`store: false`) leaves nothing on the
 * service.
 */
import { createHmac } from "node:crypto";
import { isRecord } from "../validate.js";
import type { CompletionIdentity } from "./completions.js";
import type { ChatOutput, Usage } from "./generate.js";
import { mediaOfContent } from "./media.js";
import {
  type ChatMessage,
  type ChatRequest,
  contentText,
  InvalidBodyError,
  promptCacheKeyOf,
} from "./requests.js";
import { tokenPieces } from "./tokens.js";
import { hashHex, type ToolSpec } from "./tools.js";

/** What the Responses API asks besides the chat request. */
export interface ResponsesExtras {
  /** `reasoning.summary` was asked for: the reasoning item's summary holds the reasoning. */
  summary: boolean;
  /** `include` holds `reasoning.encrypted_content`. */
  encrypted: boolean;
  /** The reasoning items sent back, to check (see {@link reasoningItemProblem}). */
  reasoningItems: Array<Record<string, unknown>>;
  /** The request's fields echoed in the response (`tools`, `text`, `reasoning`, …). */
  echo: Record<string, unknown>;
}

const SECRET = "emulator-reasoning";

/** The signed `encrypted_content` of a reasoning item: its ID and text, sealed for the emulator. */
export function sealReasoning(id: string, text: string): string {
  const payload = Buffer.from(JSON.stringify({ id, text })).toString("base64url");
  const mac = createHmac("sha256", SECRET).update(payload).digest("base64url");
  return `${payload}.${mac}`;
}

/** The text a reasoning item's `encrypted_content` seals, or undefined when it was not sealed for `id` here. */
export function openReasoning(id: unknown, sealed: string): string | undefined {
  const [payload, mac, extra] = sealed.split(".");
  if (!payload || !mac || extra !== undefined) return undefined;
  if (createHmac("sha256", SECRET).update(payload).digest("base64url") !== mac) return undefined;
  try {
    const opened = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<
      string,
      unknown
    >;
    if (id !== undefined && opened.id !== id) return undefined;
    return typeof opened.text === "string" ? opened.text : undefined;
  } catch {
    return undefined;
  }
}

/** A refusal of an input item, as the model server behind the gateway answers it. */
export interface InputItemProblem {
  status: 400 | 404;
  code: string | null;
  message: string;
}

/**
 * Why a reasoning item sent back cannot be used, as OpenAI answers it: one without
 * `encrypted_content` is looked up by its ID (404: a stateless call stored nothing), one whose
 * content the emulator did not seal for that ID is refused (400 `invalid_encrypted_content`).
 * Undefined when every item is usable.
 */
export function reasoningItemProblem(
  items: ReadonlyArray<Record<string, unknown>>,
): InputItemProblem | undefined {
  for (const item of items) {
    const sealed = item.encrypted_content;
    if (typeof sealed !== "string" || sealed === "") {
      return {
        status: 404,
        code: null,
        message: `Item with id '${String(item.id)}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
      };
    }
    if (openReasoning(item.id, sealed) === undefined) {
      return {
        status: 400,
        code: "invalid_encrypted_content",
        message: `The encrypted content for item ${String(item.id)} could not be verified.`,
      };
    }
  }
  return undefined;
}

/** A breakpoint of the prompt cache, by the message it closes (see `PromptCacheControls`). */
type Breakpoint = { message: number; ttl: "5m" | "1h" };

/**
 * The input items as chat messages: function calls join the assistant turn they belong to, a
 * message's images and files are billed as on chat completions (see `mediaOfContent`), and the
 * `cache_control` of a content part marks a breakpoint at its message in `breakpoints`.
 */
function messagesOf(
  input: unknown,
  reasoningItems: Array<Record<string, unknown>>,
  breakpoints: Breakpoint[] = [],
): ChatMessage[] {
  const items = typeof input === "string" ? [{ role: "user", content: input }] : input;
  if (!Array.isArray(items) || items.length === 0) {
    throw new InvalidBodyError("input must be a string or a non-empty array of items", "input");
  }
  const messages: ChatMessage[] = [];
  let reasoning: string | undefined;
  const assistant = (): ChatMessage => {
    const last = messages.at(-1);
    if (last?.role === "assistant") return last;
    const turn: ChatMessage = { role: "assistant", content: "", toolCalls: [] };
    if (reasoning !== undefined) turn.reasoning = reasoning;
    reasoning = undefined;
    messages.push(turn);
    return turn;
  };
  items.forEach((item: unknown, index) => {
    if (!isRecord(item)) throw new InvalidBodyError(`input[${index}] must be an object`, "input");
    const type = item.type ?? "message";
    if (type === "reasoning") {
      const sealed = item.encrypted_content;
      reasoning = typeof sealed === "string" ? openReasoning(item.id, sealed) : undefined;
      reasoningItems.push(item);
    } else if (type === "function_call") {
      assistant().toolCalls.push({
        id: String(item.call_id ?? ""),
        name: String(item.name ?? ""),
        arguments: typeof item.arguments === "string" ? item.arguments : "{}",
      });
    } else if (type === "function_call_output") {
      const output = typeof item.output === "string" ? item.output : contentText(item.output);
      messages.push({
        role: "tool",
        content: output,
        toolCalls: [],
        toolCallId: String(item.call_id ?? ""),
      });
    } else if (type === "message" && typeof item.role === "string") {
      const content = contentText(item.content);
      const media = mediaOfContent(item.content);
      if (item.role === "assistant") assistant().content += content;
      else messages.push({ role: item.role, content, toolCalls: [], ...(media ? { media } : {}) });
      for (const ttl of cacheControlsOf(item.content)) {
        breakpoints.push({ message: messages.length - 1, ttl });
      }
    } else {
      throw new InvalidBodyError(
        `input[${index}] has a type this server does not serve: ${String(type)}`,
        "input",
      );
    }
  });
  return messages;
}

/** The lifetimes of the `cache_control` breakpoints on a message's content parts. */
function cacheControlsOf(content: unknown): Array<"5m" | "1h"> {
  if (!Array.isArray(content)) return [];
  return content
    .filter((part) => isRecord(part) && isRecord(part.cache_control))
    .map((part) => ((part.cache_control as Record<string, unknown>).ttl === "1h" ? "1h" : "5m"));
}

function toolsOf(tools: unknown): ToolSpec[] {
  if (!Array.isArray(tools)) return [];
  return tools.map((tool: unknown, index) => {
    if (!isRecord(tool) || tool.type !== "function" || typeof tool.name !== "string") {
      throw new InvalidBodyError(
        `tools[${index}] must be {"type":"function","name":...}: this server serves no built-in tools`,
        "tools",
      );
    }
    return {
      name: tool.name,
      description: typeof tool.description === "string" ? tool.description : "",
      parameters: tool.parameters ?? { type: "object", properties: {} },
    };
  });
}

function toolChoiceOf(value: unknown, tools: readonly ToolSpec[]): ChatRequest["toolChoice"] {
  if (value === "none" || value === "auto") return { mode: value };
  if (value === "required") return { mode: "required" };
  if (isRecord(value) && value.type === "function" && typeof value.name === "string") {
    if (!tools.some((tool) => tool.name === value.name)) {
      throw new InvalidBodyError(
        `tool_choice names the function "${value.name}", which is not in tools`,
        "tool_choice",
      );
    }
    return { mode: "function", name: value.name };
  }
  return { mode: "auto" };
}

function formatOf(text: unknown): ChatRequest["responseFormat"] {
  const format = isRecord(text) && isRecord(text.format) ? text.format : undefined;
  if (format?.type === "json_object") return { type: "json_object" };
  if (format?.type === "json_schema") {
    return { type: "json_schema", schema: format.schema ?? { type: "object", properties: {} } };
  }
  return { type: "text" };
}

/** Reads a `POST /responses` body into the chat request the model answers, and what the Responses API adds. */
export function parseResponsesRequest(body: string): ChatRequest & { responses: ResponsesExtras } {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new InvalidBodyError("Request body is not valid JSON");
  }
  if (!isRecord(json)) throw new InvalidBodyError("Request body must be a JSON object");
  if (typeof json.model !== "string") throw new InvalidBodyError("model must be a string", "model");
  if (typeof json.previous_response_id === "string") {
    // Stateless: the emulator stores no response to continue.
    throw new InvalidBodyError(
      `Previous response with id '${json.previous_response_id}' not found.`,
      "previous_response_id",
    );
  }
  const max = json.max_output_tokens;
  if (max != null && !(Number.isInteger(max) && (max as number) >= 1)) {
    throw new InvalidBodyError("max_output_tokens must be a positive integer", "max_output_tokens");
  }
  const reasoningItems: Array<Record<string, unknown>> = [];
  const marks: Breakpoint[] = [];
  const messages = messagesOf(json.input, reasoningItems, marks);
  const instructions = typeof json.instructions === "string";
  if (instructions) {
    messages.unshift({ role: "system", content: json.instructions as string, toolCalls: [] });
  }
  // Part 0 of the prompt is the tools and format; message i is part i + 1 (see `promptParts`).
  const first = instructions ? 2 : 1;
  const breakpoints = [
    ...cacheControlsOf(json.tools)
      .map((ttl) => ({ part: 0, ttl }))
      .slice(-1),
    ...marks.map(({ message, ttl }) => ({ part: message + first, ttl })),
  ];
  const tools = toolsOf(json.tools);
  const reasoning = isRecord(json.reasoning) ? json.reasoning : {};
  const include = Array.isArray(json.include) ? json.include : [];
  const { tools: _t, input: _i, stream: _s, ...echo } = json;
  return {
    model: json.model,
    messages,
    tools,
    toolsJson: tools.length > 0 ? JSON.stringify(json.tools) : "",
    toolChoice: toolChoiceOf(json.tool_choice, tools),
    parallelToolCalls: json.parallel_tool_calls !== false,
    responseFormat: formatOf(json.text),
    thinking: undefined,
    maxTokens: max == null ? undefined : (max as number),
    stop: [],
    stream: json.stream === true,
    includeUsage: true,
    // OpenAI's controls, and the `cache_control` breakpoints of content parts that a Claude
    // model behind the gateway reads as on chat completions.
    promptCache: { ...promptCacheKeyOf(json), breakpoints },
    n: 1,
    responses: {
      summary: typeof reasoning.summary === "string",
      encrypted: include.includes("reasoning.encrypted_content"),
      reasoningItems,
      echo: { ...echo, tools: json.tools ?? [] },
    },
  };
}

/**
 * The response's `usage`, in the Responses API's names: cache reads in
 * `input_tokens_details.cached_tokens`, writes in `cache_write_tokens` (OpenAI's name, which the
 * gateway reads on this API), and a Claude model's split of its writes by lifetime in the same
 * top-level fields as on chat completions.
 */
export function responsesUsage(usage: Usage): Record<string, unknown> {
  const written = usage.prompt_tokens_details?.cached_creation_tokens;
  const {
    claude_cache_creation_5_m_tokens: fiveMinutes,
    claude_cache_creation_1_h_tokens: anHour,
  } = usage;
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: {
      cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
      ...(written ? { cache_write_tokens: written } : {}),
    },
    output_tokens: usage.completion_tokens,
    output_tokens_details: {
      reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0,
    },
    total_tokens: usage.total_tokens,
    ...(fiveMinutes !== undefined ? { claude_cache_creation_5_m_tokens: fiveMinutes } : {}),
    ...(anHour !== undefined ? { claude_cache_creation_1_h_tokens: anHour } : {}),
  };
}

type Item = Record<string, unknown>;

/** The output items of an answer: its reasoning, then its text or its function calls. */
export function outputItems(
  identity: CompletionIdentity,
  output: ChatOutput,
  extras: ResponsesExtras,
): Item[] {
  const items: Item[] = [];
  const seed = `${identity.id}\u0000`;
  if (output.reasoning !== undefined) {
    const id = `rs_${hashHex(`${seed}reasoning`)}`;
    items.push({
      id,
      type: "reasoning",
      summary: extras.summary ? [{ type: "summary_text", text: output.reasoning }] : [],
      ...(extras.encrypted ? { encrypted_content: sealReasoning(id, output.reasoning) } : {}),
    });
  }
  if (output.toolCalls.length === 0) {
    items.push({
      id: `msg_${hashHex(`${seed}message`)}`,
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: output.content ?? "", annotations: [] }],
    });
  }
  for (const call of output.toolCalls) {
    items.push({
      id: `fc_${hashHex(`${seed}${call.id}`)}`,
      type: "function_call",
      status: "completed",
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    });
  }
  return items;
}

/** The `response` object of an answer (`status` "incomplete" when `max_output_tokens` cut it). */
export function responseBody(
  identity: CompletionIdentity,
  output: ChatOutput,
  extras: ResponsesExtras,
  status: "in_progress" | "completed" = "completed",
): Item {
  const cut = output.finishReason === "length";
  const done = status === "completed";
  return {
    id: identity.id,
    object: "response",
    created_at: identity.created,
    status: done ? (cut ? "incomplete" : "completed") : status,
    error: null,
    incomplete_details: done && cut ? { reason: "max_output_tokens" } : null,
    model: identity.model,
    output: done ? outputItems(identity, output, extras) : [],
    ...extras.echo,
    store: extras.echo.store ?? true,
    usage: done ? responsesUsage(output.usage) : null,
  };
}

/** One event as the gateway relays it: its type as the SSE `event`, its JSON as `data`. */
function event(type: string, data: Item): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/**
 * The answer as its stream of typed events, without `[DONE]`: `response.created`, each output
 * item added, its deltas (reasoning summary, text, arguments, about a token each) and done — a
 * reasoning item's `encrypted_content` only when it is done, as OpenAI sends it — then
 * `response.completed` (or `response.incomplete`) with the whole response.
 */
export function responseEvents(
  identity: CompletionIdentity,
  output: ChatOutput,
  extras: ResponsesExtras,
): string[] {
  let sequence = 0;
  const events: string[] = [];
  const push = (type: string, data: Item) =>
    events.push(event(type, { ...data, sequence_number: sequence++ }));
  const pending = responseBody(identity, output, extras, "in_progress");
  push("response.created", { response: pending });
  push("response.in_progress", { response: pending });
  outputItems(identity, output, extras).forEach((item, output_index) => {
    const at = { output_index, item_id: item.id };
    if (item.type === "reasoning") {
      const { encrypted_content: _sealed, ...open } = item;
      push("response.output_item.added", { output_index, item: { ...open, summary: [] } });
      for (const [summary_index, part] of (item.summary as Item[]).entries()) {
        const text = String(part.text);
        push("response.reasoning_summary_part.added", {
          ...at,
          summary_index,
          part: { type: "summary_text", text: "" },
        });
        for (const delta of tokenPieces(text)) {
          push("response.reasoning_summary_text.delta", { ...at, summary_index, delta });
        }
        push("response.reasoning_summary_text.done", { ...at, summary_index, text });
        push("response.reasoning_summary_part.done", { ...at, summary_index, part });
      }
    } else if (item.type === "message") {
      const text = String(((item.content as Item[])[0] as Item).text);
      push("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", content: [] },
      });
      const part = { type: "output_text", text: "", annotations: [] };
      push("response.content_part.added", { ...at, content_index: 0, part });
      for (const delta of tokenPieces(text)) {
        push("response.output_text.delta", { ...at, content_index: 0, delta, logprobs: [] });
      }
      push("response.output_text.done", { ...at, content_index: 0, text, logprobs: [] });
      push("response.content_part.done", { ...at, content_index: 0, part: { ...part, text } });
    } else {
      const args = String(item.arguments);
      push("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", arguments: "" },
      });
      for (const delta of tokenPieces(args))
        push("response.function_call_arguments.delta", { ...at, delta });
      push("response.function_call_arguments.done", { ...at, arguments: args });
    }
    push("response.output_item.done", { output_index, item });
  });
  const final = responseBody(identity, output, extras);
  push(final.status === "incomplete" ? "response.incomplete" : "response.completed", {
    response: final,
  });
  return events;
}
