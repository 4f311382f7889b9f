/**
 * @module The deterministic model: fixed rules, not a language model, that turn a request into a
 * reply so chains, agents and RAG pipelines do something recognisable. Same input, same output.
 */

import { isRecord } from "../validate.js";
import { answerFromContext } from "./context.js";
import { schemaFromPrompt, withoutJsonObjects } from "./prompt_schema.js";
import type { ChatMessage, ChatRequest } from "./requests.js";
import { instanceOf } from "./schema.js";
import { firstWords } from "./text.js";
import { isFinalAnswerTool, planToolCalls } from "./tool_plan.js";
import { callTool, type ToolCall, type ToolSpec } from "./tools.js";

/** What the model says: optional reasoning, then text or tool calls. */
export interface ModelReply {
  /** Set when the model thinks (by default, a model whose ID contains "reason"). */
  reasoning: string | undefined;
  content: string;
  toolCalls: ToolCall[];
}

/** Which rule produced a reply; it also picks the emulated "thinking" text. */
type Rule = "tool" | "final" | "tool-results" | "context" | "json" | "echo";

const PLANS: Readonly<Record<Rule, string>> = {
  tool: "It matches an offered tool, so I will call it.",
  final: "The answer goes into the structured response tool.",
  "tool-results": "The tool results are in, so I will answer with them.",
  context: "The context has a sentence on this, so I will answer with it.",
  json: "A JSON reply matching the requested format is expected.",
  echo: "No tool, context or schema applies, so I will reply directly.",
};

/** Models whose ID contains "reason" think (and write `reasoning_content`) unless configured otherwise. */
export function isReasoningModel(modelId: string): boolean {
  return modelId.includes("reason");
}

/**
 * The reply to a chat request (with reasoning when the model `thinks`), by the first rule that applies:
 * 1. `tool_choice` forcing a function: call that tool;
 * 2. a final-answer tool offered (an agent's structured-response tool, see
 *    {@link isFinalAnswerTool}) and the other tools' results are in: call it, its arguments
 *    built from the question and the results;
 * 3. tools offered (and `tool_choice` not `"none"`) and the last turn is the user's, or
 *    `tool_choice` is `"required"`: one call per thing the message asks for (parallel calls,
 *    unless `parallel_tool_calls` is false); failing that the final-answer tool, or with
 *    `"required"` the best-matching tool;
 * 4. `response_format` json_schema: a valid JSON instance; json_object: an instance of the schema
 *    the prompt describes, else `{"answer": …}`;
 * 5. the last turns are tool results: an answer quoting them;
 * 6. context passages: the sentence most relevant to the question;
 * 7. otherwise `Emulated reply to: "<first words>"`.
 */
export function replyToChat(
  request: ChatRequest,
  thinks = isReasoningModel(request.model),
): ModelReply {
  const { messages, toolChoice } = request;
  const userText = lastUserText(messages);
  const tools = toolChoice.mode === "none" ? [] : request.tools;
  const seed = `${messages.length}:${userText}`;
  const reply = (rule: Rule, content: string, toolCalls: ToolCall[] = []): ModelReply => ({
    reasoning: thinks ? `Thinking about "${firstWords(userText)}". ${PLANS[rule]}` : undefined,
    content,
    toolCalls,
  });

  const toolResults = trailingToolResults(messages);
  // The text answer, built only by the paths that use it (tool calls return before it).
  let answered: { answer: string | undefined; text: string } | undefined;
  const answerOf = () => {
    if (answered === undefined) {
      const answer = toolResults ?? contextAnswer(messages, userText);
      answered = { answer, text: answer ?? `Emulated reply to: "${firstWords(userText)}"` };
    }
    return answered;
  };
  // What a structured answer is filled from: the question and whatever the tools returned.
  const filled = (schema: unknown, question = userText) =>
    instanceOf(schema, `${question}\n${toolResults ?? ""}`, answerOf().text);

  if (toolChoice.mode === "function") {
    return reply("tool", "", [callTool(forcedTool(tools, toolChoice.name), userText, seed)]);
  }
  const final = tools.find(isFinalAnswerTool);
  if (final && toolResults !== undefined) {
    return reply("final", "", [finalCall(final, filled(final.parameters), seed)]);
  }
  const mustCall = toolChoice.mode === "required";
  if (tools.length > 0 && (mustCall || messages.at(-1)?.role === "user")) {
    const lookups = tools.filter((tool) => tool !== final);
    const calls = planToolCalls(lookups, userText, {
      parallel: request.parallelToolCalls,
      mustCall: mustCall && !final,
      seed,
    });
    if (calls.length > 0) return reply("tool", "", calls);
    if (final) return reply("final", "", [finalCall(final, filled(final.parameters), seed)]);
  }

  const format = request.responseFormat;
  if (format.type === "json_schema") return reply("json", JSON.stringify(filled(format.schema)));
  if (format.type === "json_object") {
    const described = schemaFromPrompt(promptTexts(messages));
    const value = described
      ? filled(described, withoutJsonObjects(userText))
      : { answer: answerOf().text };
    return reply("json", JSON.stringify(value));
  }
  if (toolResults !== undefined) return reply("tool-results", toolResults);
  const { answer, text } = answerOf();
  return reply(answer === undefined ? "echo" : "context", text);
}

/** The completion of a dedicated-endpoint prompt: the context rule, else an echo of its start. */
export function completePrompt(prompt: string): string {
  return answerFromContext([], prompt) ?? `Emulated completion of: "${firstWords(prompt)}"`;
}

/**
 * The tool `tool_choice` names: `parseChatRequest` refuses a request naming one not offered, so
 * only a caller that builds its own `ChatRequest` gets the fallback (a call with no arguments).
 */
function forcedTool(tools: readonly ToolSpec[], name: string): ToolSpec {
  return tools.find((tool) => tool.name === name) ?? { name, description: "", parameters: {} };
}

/** A call of the final-answer tool with the structured value as its arguments. */
function finalCall(tool: ToolSpec, value: unknown, seed: string): ToolCall {
  return callTool(tool, "", seed, isRecord(value) ? value : {});
}

/** The system, developer and user turns: where a JSON-mode prompt describes its schema. */
function promptTexts(messages: readonly ChatMessage[]): string[] {
  return messages
    .filter((m) => m.role === "system" || m.role === "developer" || m.role === "user")
    .map((m) => m.content);
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
