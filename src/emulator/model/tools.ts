/** @module Tool choice of the deterministic model: which offered tool a message asks for, and its arguments. */

import { isRecord } from "../validate.js";
import { instanceOf } from "./schema.js";
import { keywords, overlap } from "./terms.js";

/** A tool as offered in the request (`tools[].function`). */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON schema of the arguments. */
  parameters: unknown;
}

/** A tool call as returned in `choices[0].message.tool_calls`. */
export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/**
 * The tool whose name (counted twice), description and parameter names share the most words with
 * the message; ties go to the tool listed first. With `mustCall` false, a tool that shares no
 * word is not called.
 */
export function bestTool(
  tools: readonly ToolSpec[],
  message: string,
  mustCall: boolean,
): ToolSpec | undefined {
  const query = keywords(message);
  let best: ToolSpec | undefined;
  let bestScore = 0;
  for (const tool of tools) {
    const score = 2 * overlap(query, keywords(tool.name)) + overlap(query, toolVocabulary(tool));
    if (score > bestScore) {
      best = tool;
      bestScore = score;
    }
  }
  return best ?? (mustCall ? tools[0] : undefined);
}

function toolVocabulary(tool: ToolSpec): Set<string> {
  const parameters = tool.parameters as { properties?: Record<string, unknown> } | undefined;
  const propertyNames = Object.keys(parameters?.properties ?? {}).join(" ");
  return keywords(`${tool.description} ${propertyNames}`);
}

/**
 * A call of `tool` with arguments built from its schema and the message's values, or with
 * `value` when the caller built them already.
 */
export function callTool(
  tool: ToolSpec,
  message: string,
  seed: string,
  value: unknown = isRecord(tool.parameters)
    ? instanceOf({ type: "object", ...tool.parameters }, message)
    : {},
): ToolCall {
  // Arguments are always an object, even for a tool declared without parameters.
  const args = JSON.stringify(isRecord(value) ? value : {});
  return {
    id: `call_${hashHex(`${seed}\u0000${tool.name}\u0000${args}`)}`,
    type: "function",
    function: { name: tool.name, arguments: args },
  };
}

/** 24 hex digits of FNV-1a: deterministic IDs, so the same conversation gets the same tool-call ID. */
export function hashHex(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  let c = 0x2545f491;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
    c = Math.imul(c ^ code, 0x27d4eb2d);
  }
  return [a, b, c].map((n) => (n >>> 0).toString(16).padStart(8, "0")).join("");
}
