/** @module The clients compared: ours, a hand-configured `ChatOpenAI`, the raw `openai` SDK and raw `fetch`. */

import { ChatOpenAI, ChatOpenAICompletions, type ChatOpenAIFields } from "@langchain/openai";
import { OpenAI } from "openai";
import { ChatInferenceService, type ChatInferenceServiceFields } from "../../src/index.js";
import type { Fetch } from "../../src/transport/fetch.js";

/** One server a benchmark calls, as every contender is configured for it. */
export interface Target {
  /** `emulator` or `fixed server`, as shown in the tables. */
  label: string;
  /** The `…/inference/v1` URL; the same path for every contender. */
  baseURL: string;
  apiKey: string;
  model: string;
  /** A fetch both LangChain contenders use instead of the global one (a rewriting proxy). */
  fetch?: Fetch;
}

export const PROMPT = "What is the capital of France?";

/** `ChatInferenceService` with its defaults, pointed at the target. */
export function ours(
  target: Target,
  fields: Omit<ChatInferenceServiceFields, "model" | "apiKey" | "baseURL"> = {},
): ChatInferenceService {
  return new ChatInferenceService({
    model: target.model,
    apiKey: target.apiKey,
    baseURL: target.baseURL,
    ...(target.fetch ? { fetch: target.fetch } : {}),
    ...fields,
  });
}

/** `ChatOpenAI` as a user would configure it by hand, forced onto chat completions. */
export function chatOpenAI(target: Target, fields: Partial<ChatOpenAIFields> = {}): ChatOpenAI {
  return new ChatOpenAI({
    model: target.model,
    apiKey: target.apiKey,
    useResponsesApi: false,
    configuration: { baseURL: target.baseURL, ...(target.fetch ? { fetch: target.fetch } : {}) },
    ...fields,
  });
}

/**
 * `ChatOpenAICompletions`, the class ours extends, configured by hand: the baseline of the
 * per-call overhead (`ChatOpenAI` wraps it and adds its own cost on top).
 */
export function chatOpenAICompletions(
  target: Target,
  fields: Partial<ChatOpenAIFields> = {},
): ChatOpenAICompletions {
  return new ChatOpenAICompletions({
    model: target.model,
    apiKey: target.apiKey,
    configuration: { baseURL: target.baseURL, ...(target.fetch ? { fetch: target.fetch } : {}) },
    ...fields,
  });
}

/** The raw openai SDK with its retries off (they never fire on a 200 anyway). */
export function sdk(target: Target): OpenAI {
  return new OpenAI({ apiKey: target.apiKey, baseURL: target.baseURL, maxRetries: 0 });
}

/** One chat completion through the SDK; returns the reply text. */
export async function sdkCall(client: OpenAI, target: Target): Promise<string> {
  const completion = await client.chat.completions.create({
    model: target.model,
    messages: [{ role: "user", content: PROMPT }],
  });
  return completion.choices[0]?.message.content ?? "";
}

/** One chat completion with nothing but `fetch` and `JSON.parse`; returns the reply text. */
export async function fetchCall(target: Target): Promise<string> {
  const response = await fetch(`${target.baseURL}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${target.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: target.model, messages: [{ role: "user", content: PROMPT }] }),
  });
  const body = (await response.json()) as { choices?: Array<{ message?: { content?: string } }> };
  if (!response.ok) throw new Error(`raw fetch got ${response.status}`);
  return body.choices?.[0]?.message?.content ?? "";
}
