/**
 * @module Which tool calls the deterministic model makes for a message: one call per thing asked
 * ("weather in Paris and Tokyo" → two), and the final-answer tool agents use for structured output.
 */

import { extractValues, type MessageValues } from "./text.js";
import { bestTool, callTool, type ToolCall, type ToolSpec } from "./tools.js";

/**
 * LangChain's agent names its `responseFormat` tools `extract-<n>` (or the schema's title) and
 * describes them as "Tool for extracting structured output…"; other agent frameworks call theirs
 * `final_answer`, `respond` or `structured_response`.
 */
const FINAL_NAME =
  /^extract(?:[-_]\d+)?$|final[\s_-]?(?:answer|response|output)|structured[\s_-]?(?:output|response)|response[\s_-]?format|^respond$|^(?:submit|return)[\s_-]?(?:answer|response)$/i;
const FINAL_DESCRIPTION = /structured (?:output|response)|final (?:answer|response)/i;

/** Whether a tool is an agent's way of ending with a (structured) answer rather than a lookup. */
export function isFinalAnswerTool(tool: ToolSpec): boolean {
  return FINAL_NAME.test(tool.name) || FINAL_DESCRIPTION.test(tool.description);
}

/** A part of the message that asks for one thing, with where it starts and ends in the message. */
interface Ask {
  text: string;
  start: number;
  end: number;
}

/** One planned call: its tool, the text its arguments come from, and what that text names. */
interface PlannedCall {
  tool: ToolSpec;
  text: string;
  mentions: string[];
}

// Where one ask ends and the next begins: sentence ends, semicolons, "and", "&", "as well as",
// and commas of a list that ends with "and" ("Paris, Tokyo and Rome").
const ASK_BREAK =
  /[.!?]+\s+|\n+|\s*;\s*|\s+(?:and|&|as well as|plus also)\s+|,\s*(?=[^.!?\n]*\band\b)/gi;
const LEADING_JOINER = /^(?:and|also|then|plus)\s+/i;

/**
 * The asks of a message. Quoted text is never split ("search for 'cats and dogs'"): it is masked
 * with spaces of the same length first, so indices stay those of the message.
 */
function splitAsks(message: string): Ask[] {
  const masked = message.replace(/"[^"]*"|“[^”]*”|'[^'\n]*'/g, (quote) => " ".repeat(quote.length));
  const asks: Ask[] = [];
  let start = 0;
  const push = (end: number) => {
    const raw = message.slice(start, end);
    const lead = raw.length - raw.trimStart().length;
    const text = raw.trim().replace(LEADING_JOINER, "");
    if (/[\p{L}\p{N}]/u.test(text)) asks.push({ text, start: start + lead, end });
  };
  for (const match of masked.matchAll(ASK_BREAK)) {
    push(match.index);
    start = match.index + match[0].length;
  }
  push(message.length);
  return asks;
}

/**
 * The calls a message asks for, among `tools` (final-answer tools excluded by the caller):
 *
 * - each ask is matched to its best tool on its own words (`bestTool`), so "the weather and the
 *   time in Tokyo" calls both a weather and a time tool;
 * - an ask that matches no tool but names something new repeats the previous ask's tool for it,
 *   so "weather in Paris and Tokyo" calls the weather tool twice; one that names nothing new
 *   ("add 3 and 4") belongs to the previous ask;
 * - an ask that matches a tool already called, and names nothing new, adds no call;
 * - arguments come from the ask's own text when it names something, else from the whole message.
 *
 * With `parallel` false only the first call is made. With `mustCall`, a message that matches no
 * tool still calls the first one (`tool_choice: "required"`).
 */
export function planToolCalls(
  tools: readonly ToolSpec[],
  message: string,
  options: { parallel: boolean; mustCall: boolean; seed: string },
): ToolCall[] {
  if (tools.length === 0) return [];
  const { mentions } = extractValues(message);
  const planned: PlannedCall[] = [];
  for (const ask of splitAsks(message)) {
    const named = namedIn(mentions, ask);
    const tool = bestTool(tools, ask.text, false);
    const previous = tool ? planned.filter((call) => call.tool === tool) : planned.slice(-1);
    const base = previous.at(-1);
    if (!base) {
      if (tool) planned.push({ tool, text: ask.text, mentions: named });
      continue;
    }
    const known = new Set(previous.flatMap((call) => call.mentions));
    const fresh = named.filter((name) => !known.has(name));
    if (fresh.length === 0 || base.mentions.length === 0) {
      // Nothing new to look up: the ask adds detail (or its names) to the call it continues.
      if (!tool || fresh.length > 0) base.text = `${base.text} and ${ask.text}`;
      // One by one: a spread of a message's every name could overflow the call stack.
      for (const name of fresh) base.mentions.push(name);
      continue;
    }
    for (const name of fresh) {
      // "weather in Paris" + "Tokyo" → "weather in Tokyo": the other details of the ask stay.
      const text = tool ? ask.text : base.text.replace(base.mentions[0]!, name);
      planned.push({ tool: base.tool, text, mentions: [name] });
    }
  }
  const calls = dedupe(
    planned.map((call) =>
      callTool(call.tool, call.mentions.length > 0 ? call.text : message, options.seed),
    ),
  );
  if (calls.length === 0) {
    // Asks too short to match on their own: the whole message may still match (or must call).
    const tool = bestTool(tools, message, options.mustCall);
    if (tool) calls.push(callTool(tool, message, options.seed));
  }
  return options.parallel ? calls : calls.slice(0, 1);
}

function namedIn(mentions: MessageValues["mentions"], ask: Ask): string[] {
  return mentions
    .filter((mention) => mention.index >= ask.start && mention.index < ask.end)
    .map((mention) => mention.value);
}

/** The same tool with the same arguments is one call, however many asks led to it. */
function dedupe(calls: ToolCall[]): ToolCall[] {
  const seen = new Set<string>();
  return calls.filter((call) => {
    const key = `${call.function.name}\u0000${call.function.arguments}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
