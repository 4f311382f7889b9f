/** @module Reading the JSON bodies of the inference routes into the fields the emulator uses. */

import { isRecord } from "../validate.js";
import { mediaOfContent } from "./media.js";
import type { ToolSpec } from "./tools.js";

/** A body the emulator cannot serve; the handler answers 400 with this message and `param`. */
export class InvalidBodyError extends Error {
  override readonly name = "InvalidBodyError";

  /** The request field at fault, as OpenAI-compatible servers name it in `error.param`. */
  readonly param: string;

  constructor(message: string, param = "") {
    super(message);
    this.param = param;
  }
}

/** One conversation turn, with its content flattened to text. */
export interface ChatMessage {
  role: string;
  content: string;
  name?: string;
  /** Tool calls of an assistant turn. */
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  /** The call a `tool` turn answers. */
  toolCallId?: string;
  /** `reasoning_content` sent back with an assistant turn. */
  reasoning?: string;
  /** Its images and files: the tokens they are billed, and what tells them apart. */
  media?: { tokens: number; key: string };
}

export type ToolChoice =
  | { mode: "auto" | "none" | "required" }
  | { mode: "function"; name: string };

export type ResponseFormat =
  | { type: "text" }
  | { type: "json_object" }
  | { type: "json_schema"; schema: unknown };

/** Options both routes share. */
export interface GenerationOptions {
  /** `max_completion_tokens` or `max_tokens`. */
  maxTokens: number | undefined;
  stop: string[];
  stream: boolean;
  /** `stream_options.include_usage`; the emulator sends the usage chunk unless this is `false`. */
  includeUsage: boolean;
  /** `n`: how many choices to answer with (per prompt on the completions route). Default 1. */
  n: number;
}

/** The most choices a request may ask for (`n`), as OpenAI's API allows. */
export const MAX_CHOICES = 128;

export interface ChatRequest extends GenerationOptions {
  model: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  /** The `tools` array as sent, for counting prompt tokens. */
  toolsJson: string;
  toolChoice: ToolChoice;
  /** `parallel_tool_calls`: false limits a reply to one tool call. Default true, as in OpenAI's API. */
  parallelToolCalls: boolean;
  responseFormat: ResponseFormat;
  /**
   * A provider's switch for thinking, whichever is sent: `thinking: { type: "enabled" |
   * "disabled" }` (DeepSeek, GLM), `enable_thinking` (Qwen3 on DashScope),
   * `chat_template_kwargs.enable_thinking` or `.thinking` (vLLM, SGLang); undefined when none is.
   */
  thinking: boolean | undefined;
  /** What the request asks of the prompt cache. */
  promptCache: PromptCacheControls;
}

/**
 * A request's prompt-cache controls: OpenAI's `prompt_cache_key` and `prompt_cache_retention`,
 * and the `cache_control` breakpoints of Anthropic's content blocks (and tools), which the
 * gateway passes to a Claude model.
 */
export interface PromptCacheControls {
  key?: string;
  retention?: string;
  /**
   * Each breakpoint, by the part of the prompt it closes (0: the tools and response schema; i + 1:
   * message i, see `promptParts`), with how long what it caches lives.
   */
  breakpoints: Array<{ part: number; ttl: "5m" | "1h" }>;
}

export interface CompletionRequest extends GenerationOptions {
  /** `prompt` as a list: the completions API accepts one string or several. */
  prompts: string[];
}

export function parseObject(body: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new InvalidBodyError("Request body is not valid JSON");
  }
  if (!isRecord(parsed)) throw new InvalidBodyError("Request body must be a JSON object");
  return parsed;
}

/** Reads a `POST /chat/completions` body (docs/service-contract.md#hosted-models), tolerating the fields OpenAI SDKs add. */
export function parseChatRequest(body: string): ChatRequest {
  const json = parseObject(body);
  if (typeof json.model !== "string") throw new InvalidBodyError("model must be a string");
  if (!Array.isArray(json.messages) || json.messages.length === 0) {
    throw new InvalidBodyError("messages must be a non-empty array");
  }
  const tools = Array.isArray(json.tools) ? json.tools.map(parseTool) : [];
  return {
    model: json.model,
    messages: json.messages.map(parseMessage),
    tools,
    toolsJson: tools.length > 0 ? JSON.stringify(json.tools) : "",
    toolChoice: offeredChoice(parseToolChoice(json.tool_choice), tools),
    parallelToolCalls: json.parallel_tool_calls !== false,
    responseFormat: parseResponseFormat(json.response_format),
    thinking: parseThinking(json),
    promptCache: parsePromptCache(json),
    ...parseGenerationOptions(json),
  };
}

function parsePromptCache(json: Record<string, unknown>): PromptCacheControls {
  const breakpoints: PromptCacheControls["breakpoints"] = [];
  const add = (part: number, control: unknown) => {
    if (isRecord(control)) breakpoints.push({ part, ttl: control.ttl === "1h" ? "1h" : "5m" });
  };
  if (Array.isArray(json.tools)) {
    for (const tool of json.tools) if (isRecord(tool)) add(0, tool.cache_control);
  }
  (json.messages as unknown[]).forEach((message, index) => {
    const content = isRecord(message) ? message.content : undefined;
    if (!Array.isArray(content)) return;
    for (const block of content) if (isRecord(block)) add(index + 1, block.cache_control);
  });
  return { ...promptCacheKeyOf(json), breakpoints };
}

/** OpenAI's prompt-cache controls, which chat completions and the Responses API share. */
export function promptCacheKeyOf(
  json: Record<string, unknown>,
): Omit<PromptCacheControls, "breakpoints"> {
  const { prompt_cache_key: key, prompt_cache_retention: retention } = json;
  return {
    ...(typeof key === "string" && key !== "" ? { key } : {}),
    ...(typeof retention === "string" && retention !== "" ? { retention } : {}),
  };
}

function parseThinking(json: Record<string, unknown>): boolean | undefined {
  const { thinking, enable_thinking: enable, chat_template_kwargs: template } = json;
  if (isRecord(thinking) && (thinking.type === "enabled" || thinking.type === "disabled")) {
    return thinking.type === "enabled";
  }
  if (typeof enable === "boolean") return enable;
  if (isRecord(template)) {
    const flag = template.enable_thinking ?? template.thinking;
    if (typeof flag === "boolean") return flag;
  }
  return undefined;
}

/** A field the API takes as one string or a non-empty array of strings, as a list; else a 400. */
export function stringOrStrings(value: unknown, field: string): string[] {
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || list.length === 0 || !list.every((v) => typeof v === "string")) {
    throw new InvalidBodyError(`${field} must be a string or a non-empty array of strings`);
  }
  return list;
}

/** Reads a `POST /completions` body (docs/service-contract.md#dedicated-endpoints): `prompt` is a string or an array of strings. */
export function parseCompletionRequest(body: string): CompletionRequest {
  const json = parseObject(body);
  const prompts = stringOrStrings(json.prompt, "prompt");
  return { prompts, ...parseGenerationOptions(json) };
}

function parseGenerationOptions(json: Record<string, unknown>): GenerationOptions {
  const maxTokens = json.max_completion_tokens ?? json.max_tokens;
  if (maxTokens != null && !(Number.isInteger(maxTokens) && (maxTokens as number) >= 1)) {
    throw new InvalidBodyError("max_tokens must be a positive integer");
  }
  const { stop } = json;
  const n = json.n ?? 1;
  if (!(Number.isInteger(n) && (n as number) >= 1 && (n as number) <= MAX_CHOICES)) {
    throw new InvalidBodyError(`n must be a whole number from 1 to ${MAX_CHOICES}`, "n");
  }
  return {
    maxTokens: maxTokens == null ? undefined : (maxTokens as number),
    stop:
      typeof stop === "string"
        ? [stop]
        : Array.isArray(stop)
          ? stop.filter((s) => typeof s === "string" && s !== "")
          : [],
    stream: json.stream === true,
    includeUsage: !(isRecord(json.stream_options) && json.stream_options.include_usage === false),
    n: n as number,
  };
}

function parseMessage(value: unknown, index: number): ChatMessage {
  if (!isRecord(value) || typeof value.role !== "string") {
    throw new InvalidBodyError(`messages[${index}] must be an object with a string role`);
  }
  const toolCalls = Array.isArray(value.tool_calls) ? value.tool_calls.filter(isRecord) : [];
  return {
    role: value.role,
    content: contentText(value.content),
    ...(typeof value.name === "string" ? { name: value.name } : {}),
    toolCalls: toolCalls.map((call) => {
      const fn = isRecord(call.function) ? call.function : {};
      return {
        id: String(call.id ?? ""),
        name: String(fn.name ?? ""),
        arguments:
          typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments ?? {}),
      };
    }),
    ...(typeof value.tool_call_id === "string" ? { toolCallId: value.tool_call_id } : {}),
    ...(typeof value.reasoning_content === "string" ? { reasoning: value.reasoning_content } : {}),
    ...withMedia(mediaOfContent(value.content)),
  };
}

function withMedia(media: ChatMessage["media"]): Pick<ChatMessage, "media"> {
  return media ? { media } : {};
}

/** Message content is a string, null (assistant tool calls) or an array of parts; text parts count. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => (isRecord(part) && typeof part.text === "string" ? part.text : ""))
    .filter((text) => text !== "")
    .join("\n");
}

function parseTool(value: unknown, index: number): ToolSpec {
  const fn = isRecord(value) && isRecord(value.function) ? value.function : undefined;
  if (!fn || typeof fn.name !== "string") {
    throw new InvalidBodyError(
      `tools[${index}] must be {"type":"function","function":{"name":...}}`,
    );
  }
  return {
    name: fn.name,
    description: typeof fn.description === "string" ? fn.description : "",
    parameters: fn.parameters ?? { type: "object", properties: {} },
  };
}

function parseToolChoice(value: unknown): ToolChoice {
  if (value === "none" || value === "auto") return { mode: value };
  // "any" is how some LangChain providers spell "required".
  if (value === "required" || value === "any") return { mode: "required" };
  if (typeof value === "string" && value !== "") return { mode: "function", name: value };
  if (isRecord(value) && isRecord(value.function) && typeof value.function.name === "string") {
    return { mode: "function", name: value.function.name };
  }
  return { mode: "auto" };
}

/**
 * A `tool_choice` that names a function must name one of `tools`: OpenAI-compatible servers
 * answer 400 otherwise, rather than calling a tool the caller cannot run.
 */
function offeredChoice(choice: ToolChoice, tools: readonly ToolSpec[]): ToolChoice {
  if (choice.mode !== "function" || tools.some((tool) => tool.name === choice.name)) return choice;
  const offered = tools.length === 0 ? "none" : tools.map((tool) => tool.name).join(", ");
  throw new InvalidBodyError(
    `tool_choice names the function "${choice.name}", which is not in tools (offered: ${offered})`,
    "tool_choice",
  );
}

function parseResponseFormat(value: unknown): ResponseFormat {
  if (!isRecord(value)) return { type: "text" };
  if (value.type === "json_object") return { type: "json_object" };
  if (value.type === "json_schema") {
    const spec = isRecord(value.json_schema) ? value.json_schema : {};
    return { type: "json_schema", schema: spec.schema ?? { type: "object", properties: {} } };
  }
  return { type: "text" };
}
