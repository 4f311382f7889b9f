/**
 * @module The deterministic model: fixed rules, not a language model, that turn a request into a
 * reply so chains, agents and RAG pipelines do something recognisable. Same input, same output.
 */

import { answerFromContext } from "./context.js";
import type { ChatMessage, ChatRequest } from "./requests.js";
import { instanceOf } from "./schema.js";
import { firstWords } from "./text.js";
import { bestTool, callTool, type ToolCall, type ToolSpec } from "./tools.js";

/** What the model says: optional reasoning, then text or tool calls. */
export interface ModelReply {
  /** Set for reasoning models (ID containing "reason"). */
  reasoning: string | undefined;
  content: string;
  toolCalls: ToolCall[];
}

/** Which rule produced a reply; it also picks the emulated "thinking" text. */
type Rule = "tool" | "tool-results" | "context" | "json" | "echo";

const PLANS: Readonly<Record<Rule, string>> = {
  tool: "It matches an offered tool, so I will call it.",
  "tool-results": "The tool results are in, so I will answer with them.",
  context: "The context has a sentence on this, so I will answer with it.",
  json: "A JSON reply matching the requested format is expected.",
  echo: "No tool, context or schema applies, so I will reply directly.",
};

/** Models whose ID contains "reason" return `reasoning_content` before their answer. */
export function isReasoningModel(modelId: string): boolean {
  return modelId.includes("reason");
}

/**
 * The reply to a chat request, by the first rule that applies:
 * 1. `tool_choice` forcing a function, or `"required"`: call that tool (or the best match);
 * 2. tools offered (and `tool_choice` not `"none"`) and the last turn is the user's: call the
 *    tool that best matches it, if any shares a word with it;
 * 3. `response_format` json_schema / json_object: a valid JSON instance;
 * 4. the last turns are tool results: an answer quoting them;
 * 5. context passages: the sentence most relevant to the question;
 * 6. otherwise `Emulated reply to: "<first words>"`.
 */
export function replyToChat(request: ChatRequest): ModelReply {
  const { messages, toolChoice } = request;
  const userText = lastUserText(messages);
  const tools = toolChoice.mode === "none" ? [] : request.tools;
  const seed = `${messages.length}:${userText}`;
  const reply = (rule: Rule, content: string, toolCalls: ToolCall[] = []): ModelReply => ({
    reasoning: isReasoningModel(request.model)
      ? `Thinking about "${firstWords(userText)}". ${PLANS[rule]}`
      : undefined,
    content,
    toolCalls,
  });

  const forced = forcedTool(request, tools, userText);
  if (forced) return reply("tool", "", [callTool(forced, userText, seed)]);
  if (tools.length > 0 && messages.at(-1)?.role === "user") {
    const tool = bestTool(tools, userText, false);
    if (tool) return reply("tool", "", [callTool(tool, userText, seed)]);
  }

  const toolResults = trailingToolResults(messages);
  const answer = toolResults ?? contextAnswer(messages, userText);
  const text = answer ?? `Emulated reply to: "${firstWords(userText)}"`;
  const format = request.responseFormat;
  if (format.type === "json_schema") {
    return reply(
      "json",
      JSON.stringify(instanceOf(format.schema, `${userText}\n${toolResults ?? ""}`, text)),
    );
  }
  if (format.type === "json_object") return reply("json", JSON.stringify({ answer: text }));
  if (toolResults !== undefined) return reply("tool-results", toolResults);
  return reply(answer === undefined ? "echo" : "context", text);
}

/** The completion of a dedicated-endpoint prompt: the context rule, else an echo of its start. */
export function completePrompt(prompt: string): string {
  return answerFromContext([], prompt) ?? `Emulated completion of: "${firstWords(prompt)}"`;
}

function forcedTool(
  request: ChatRequest,
  tools: readonly ToolSpec[],
  userText: string,
): ToolSpec | undefined {
  const choice = request.toolChoice;
  if (choice.mode === "function") {
    // A forced name that was not offered is still called, with no arguments to guess from.
    return (
      tools.find((tool) => tool.name === choice.name) ?? {
        name: choice.name,
        description: "",
        parameters: {},
      }
    );
  }
  return choice.mode === "required" && tools.length > 0
    ? bestTool(tools, userText, true)
    : undefined;
}

function lastUserText(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--)
    if (messages[i]!.role === "user") return messages[i]!.content;
  return messages.at(-1)?.content ?? "";
}

/** "get_weather returned: Sunny, 21°C" for each tool turn after the last assistant turn. */
function trailingToolResults(messages: readonly ChatMessage[]): string | undefined {
  const results: ChatMessage[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === "tool"; i--)
    results.unshift(messages[i]!);
  if (results.length === 0) return undefined;
  const names = new Map(
    messages.flatMap((m) => m.toolCalls.map((call) => [call.id, call.name] as const)),
  );
  return results
    .map(
      (result) =>
        `${names.get(result.toolCallId ?? "") ?? result.name ?? "The tool"} returned: ${result.content}`,
    )
    .join("\n");
}

function contextAnswer(messages: readonly ChatMessage[], userText: string): string | undefined {
  const instructions = messages
    .filter((m) => m.role === "system" || m.role === "developer")
    .map((m) => m.content);
  return answerFromContext(instructions, userText);
}
