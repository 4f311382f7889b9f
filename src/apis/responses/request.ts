/**
 * @module The body of a `POST …/responses` call, from the fields the chat model writes for Chat
 * Completions (`invocationParams`, so every `ChatOpenAI` option and call option reads the same on
 * both APIs) and the call's input items: each field in the Responses API's shape, stateless by
 * default (`store: false`, the reasoning sent back whole; docs/responses.md#stateless-by-default).
 */
import type { OpenAI } from "openai";
import { ConfigurationError } from "../../errors/errors.js";

type Fields = Record<string, unknown>;
/** The request body of the Responses API, as the openai SDK types it. */
export type ResponsesBody = OpenAI.Responses.ResponseCreateParams & Fields;

/** What the call adds to the chat fields. */
export interface ResponsesRequest {
  /** The call's input items (`input.ts`). */
  input: OpenAI.Responses.ResponseInput;
  stream: boolean;
  /** The call option of that name, as `ChatOpenAI` has it; undefined keeps the call stateless. */
  previousResponseId?: string;
  /** A summary of the reasoning, asked for when the model reasons (`reasoning.summary`). */
  summary?: OpenAI.Reasoning["summary"];
  /** Whether the model is known to reason (its profile's `reasoningOutput`). */
  reasons?: boolean;
}

/**
 * Chat Completions fields the Responses API does not take. Sent, OpenAI answers 400 "Unsupported
 * parameter"; refused here instead, before any request, naming the option that set them.
 */
const CHAT_ONLY: Readonly<Record<string, string>> = {
  stop: "`stop`",
  n: "`n`",
  logprobs: "`logprobs`",
  top_logprobs: "`topLogprobs`",
  logit_bias: "`logitBias`",
  frequency_penalty: "`frequencyPenalty`",
  presence_penalty: "`presencePenalty`",
  seed: "`seed`",
  audio: "`audio`",
  modalities: "`modalities`",
  functions: "`functions`",
  function_call: "`function_call`",
};

/** Chat Completions fields that have another name, or no place, in a Responses body. */
const RENAMED = new Set([
  "messages",
  "max_tokens",
  "max_completion_tokens",
  "reasoning_effort",
  "response_format",
  "stream_options",
  "tools",
  "tool_choice",
  "verbosity",
  "stream",
  ...Object.keys(CHAT_ONLY),
]);

/**
 * The Responses body of one call: the chat fields (`params`) renamed, the input items, and the
 * stateless defaults — `store: false`, and, when the model reasons, `include:
 * ["reasoning.encrypted_content"]` and `reasoning.summary` "auto" — which `modelKwargs` may
 * override (they are among `params`, written last).
 */
export function responsesBody(params: Fields, request: ResponsesRequest): ResponsesBody {
  refuseChatOnly(params);
  // Written field by field, in the order a spread of each part would give (a later field keeps
  // an earlier one's place): no conditional objects spread on every call.
  const body: Fields = { store: false };
  const maxTokens = params.max_completion_tokens ?? params.max_tokens;
  const effort = params.reasoning_effort;
  const reasons =
    (typeof effort === "string" && effort !== "none") || request.reasons || request.summary != null;
  if (reasons) body.include = ["reasoning.encrypted_content"];
  if (request.previousResponseId) body.previous_response_id = request.previousResponseId;
  for (const key in params) {
    if (!RENAMED.has(key) && params[key] !== undefined) body[key] = params[key];
  }
  body.model = params.model as string;
  body.input = request.input;
  if (typeof maxTokens === "number" && maxTokens >= 0) body.max_output_tokens = maxTokens;
  if (effort != null || reasons) {
    const reasoning: Fields = {};
    if (effort != null) reasoning.effort = effort;
    if (reasons) reasoning.summary = request.summary ?? "auto";
    body.reasoning = reasoning;
  }
  const text = textOf(params);
  if (text) body.text = text;
  Object.assign(body, toolsOf(params));
  body.stream = request.stream;
  return body as ResponsesBody;
}

/** A field only Chat Completions takes, set by an option or a call: a `ConfigurationError`. */
function refuseChatOnly(params: Fields): void {
  for (const key in CHAT_ONLY) {
    const value = params[key];
    if (value == null || (key === "n" && value === 1)) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    throw new ConfigurationError(
      key,
      `${CHAT_ONLY[key]} is a Chat Completions option the Responses API does not take (\`useResponsesApi\` is on): leave it out, or call this model without \`useResponsesApi\`.`,
    );
  }
}

/** `text`: the format asked for (`response_format`) and the verbosity, in the Responses shape. */
function textOf(params: Fields): Fields | undefined {
  const format = params.response_format as Fields | undefined;
  const text: Fields = {};
  if (format?.type === "json_schema") {
    const spec = (format.json_schema ?? {}) as Fields;
    text.format = { type: "json_schema", ...spec };
  } else if (format?.type === "json_object") text.format = { type: "json_object" };
  if (params.verbosity != null) text.verbosity = params.verbosity;
  return Object.keys(text).length > 0 ? text : undefined;
}

/**
 * `tools` and `tool_choice` in the Responses shape: a function tool's fields one level up
 * (`strict` false unless asked, as Chat Completions reads it), any other tool as given; a forced
 * function as `{ type: "function", name }`.
 */
function toolsOf(params: Fields): Fields {
  const out: Fields = {};
  if (Array.isArray(params.tools) && params.tools.length > 0) {
    out.tools = params.tools.map((tool: Fields) => {
      if (tool?.type !== "function" || typeof tool.function !== "object") return tool;
      const { name, description, parameters, strict } = tool.function as Fields;
      return { type: "function", name, description, parameters, strict: strict ?? false };
    });
  }
  const choice = params.tool_choice as Fields | string | undefined;
  if (typeof choice === "string") out.tool_choice = choice;
  else if (choice?.type === "function" && typeof choice.function === "object") {
    out.tool_choice = { type: "function", name: (choice.function as Fields).name };
  } else if (choice != null) out.tool_choice = choice;
  return out;
}
