/**
 * @module Reasoning sent back: the `reasoning_content` a thinking model needs on the assistant
 * messages that called tools, taken from the messages themselves (`additional_kwargs` or v1
 * `reasoning` blocks), so it survives a checkpointer or any other serialisation of the history.
 */
import { AIMessage, type BaseMessage, ChatMessage } from "@langchain/core/messages";
import type { OpenAI } from "openai";
import type { ReasoningSettings } from "../../../config/profiles.js";

type RoundTrip = ReasoningSettings["reasoningRoundTrip"];

/**
 * The reasoning of each assistant message that called tools, in the order of the messages; an
 * entry is undefined where nothing is to be sent. Undefined as a whole when nothing is.
 */
export type SentReasoning = ReadonlyArray<string | undefined>;

/**
 * What goes back with the messages' tool-calling assistant turns, by `roundTrip`: those after
 * the last user message (`"turn"`), all (`"always"`) or none (`"never"`).
 *
 * @example
 * // [user, ai(tool call, reasoning "r1"), tool, ai(tool call, reasoning "r2"), tool]
 * reasoningToSendBack(messages, "turn"); // ["r1", "r2"]
 */
export function reasoningToSendBack(
  messages: readonly BaseMessage[],
  roundTrip: RoundTrip,
): SentReasoning | undefined {
  if (roundTrip === "never") return undefined;
  const from = roundTrip === "always" ? 0 : lastUserTurn(messages) + 1;
  const sent: Array<string | undefined> = [];
  let any = false;
  messages.forEach((message, index) => {
    if (!callsTools(message)) return;
    const reasoning = index >= from ? reasoningOf(message) : undefined;
    any ||= reasoning !== undefined;
    sent.push(reasoning);
  });
  return any ? sent : undefined;
}

/**
 * The request with `reasoning_content` on its tool-calling assistant messages, as `sent` lists
 * it. `@langchain/openai` writes one such message for each message that called tools, in order;
 * if the counts ever differ, nothing is added rather than reasoning put on the wrong turn.
 */
export function withReasoningSentBack<T extends { messages: OpenAI.ChatCompletionMessageParam[] }>(
  request: T,
  sent: SentReasoning | undefined,
): T {
  if (sent === undefined) return request;
  const calling = request.messages.filter(isToolCallTurn);
  if (calling.length !== sent.length) return request;
  let next = 0;
  const messages = request.messages.map((param) => {
    if (!isToolCallTurn(param)) return param;
    const reasoning = sent[next++];
    return reasoning === undefined ? param : { ...param, reasoning_content: reasoning };
  });
  return { ...request, messages };
}

/** An assistant message that called tools, as `@langchain/openai` decides it when it converts one. */
function callsTools(message: BaseMessage): boolean {
  const assistant =
    AIMessage.isInstance(message) ||
    (ChatMessage.isInstance(message) && message.role === "assistant");
  if (!assistant) return false;
  return (
    (AIMessage.isInstance(message) && (message.tool_calls?.length ?? 0) > 0) ||
    message.additional_kwargs?.tool_calls != null
  );
}

function isToolCallTurn(param: OpenAI.ChatCompletionMessageParam): boolean {
  return param.role === "assistant" && param.tool_calls != null;
}

/** Index of the last user message; -1 when there is none. */
function lastUserTurn(messages: readonly BaseMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.getType() === "human") return i;
    if (ChatMessage.isInstance(message) && message.role === "user") return i;
  }
  return -1;
}

/** A message's reasoning: `additional_kwargs.reasoning_content`, else its v1 `reasoning` blocks. */
function reasoningOf(message: BaseMessage): string | undefined {
  const kept = message.additional_kwargs?.reasoning_content;
  if (typeof kept === "string" && kept !== "") return kept;
  if (!Array.isArray(message.content)) return undefined;
  const blocks = message.content
    .map((block) =>
      (block as { type?: unknown }).type === "reasoning"
        ? (block as { reasoning?: unknown }).reasoning
        : undefined,
    )
    .filter((text): text is string => typeof text === "string" && text !== "");
  return blocks.length > 0 ? blocks.join("") : undefined;
}
