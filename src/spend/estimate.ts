/**
 * @module Token estimates of a request before it is sent (for budget reservations and token
 * rate limits) and of text streamed before a stream was cut short. An estimate leans high: it
 * decides how much is held back, never what is charged when the service reports usage.
 */
import { z } from "zod";
import { type MediaRates, mediaPartTokens } from "./media_tokens.js";

/** What one request may cost, in tokens, before it is sent. */
export interface RequestEstimate {
  /** Model ID (hosted) or Service-Name (dedicated) the request is for. */
  model: string;
  /** Estimated prompt tokens. */
  inputTokens: number;
  /** `max_tokens` (or `max_completion_tokens`) of the request; absent when it sets none. */
  maxOutputTokens?: number;
  /** Choices asked for (`n`); each may be `maxOutputTokens` long. */
  choices: number;
}

/** A {@link RequestEstimate} as a caller of `RateLimiter.acquire` or `UsageTracker.reserve` gives it. */
export const requestEstimateSchema = z
  .looseObject({
    model: z.string().describe("a string: the model ID or Service-Name the request is for"),
    inputTokens: z.number().nonnegative().describe("a number ≥ 0: the prompt's estimated tokens"),
    maxOutputTokens: z
      .number()
      .nonnegative()
      .describe("a number ≥ 0: the request's `max_tokens`, or undefined")
      .optional(),
    choices: z
      .number()
      .int()
      .positive()
      .describe("a whole number ≥ 1: the choices asked for (`n`)"),
  })
  .describe("an object { model, inputTokens, maxOutputTokens?, choices }");

/** Reply tokens counted for a request that sets no `max_tokens`, by trackers and limiters alike. */
export const DEFAULT_REPLY_TOKENS = 1024;

/** The `defaultReplyTokens` option of trackers and limiters. */
export const defaultReplyTokensSchema = z
  .number()
  .int()
  .nonnegative()
  .describe("a whole number ≥ 0")
  .default(DEFAULT_REPLY_TOKENS);

/** The most output a request may bring: `max_tokens` (else `defaultReplyTokens`) per choice. */
export function worstCaseOutputTokens(
  estimate: RequestEstimate,
  defaultReplyTokens: number,
): number {
  return (estimate.maxOutputTokens ?? defaultReplyTokens) * estimate.choices;
}

/** Tokens counted for each chat message's framing (role, separators). */
export const PER_MESSAGE = 4;
/**
 * Tokens counted once per chat request: the framing that primes the reply (`<|start|>assistant
 * <|message|>` in OpenAI's accounting, which the gateway's counts follow). Without it a short
 * prompt's estimate falls below what the service bills for it.
 */
export const PER_CHAT_REQUEST = 3;

/**
 * An upper-leaning estimate of the tokens of `text`: one per three UTF-8 bytes. English runs
 * about four characters a token, so this is high by a third; CJK text, three bytes a character
 * and about one token each, comes out near exact.
 */
export function estimateTokens(text: string): number {
  return tokensOfBytes(utf8Bytes(text));
}

/** The estimate's one rule: a token per three UTF-8 bytes. */
function tokensOfBytes(bytes: number): number {
  return Math.ceil(bytes / 3);
}

/** Bytes of `text` in UTF-8, counted without encoding it. */
function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code < 0xdc00) {
      // A surrogate pair is one 4-byte character.
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Output read from a stream so far, kept as a byte count (never the text: streams can be long),
 * and the usage chunk once it came.
 */
export class StreamReading {
  #bytes = 0;
  /** The service's usage for the stream (the prompt's cache reads and writes included), once its usage chunk arrived. */
  usage?: {
    inputTokens: number;
    outputTokens: number;
    cachedInputTokens?: number;
    cacheWriteTokens?: number;
    cacheWrite1hTokens?: number;
  };

  /** Counts one chunk's text (content, reasoning, tool-call arguments). */
  addText(text: string | undefined): void {
    if (text) this.#bytes += utf8Bytes(text);
  }

  /** The estimated tokens of everything counted. */
  get outputTokens(): number {
    return tokensOfBytes(this.#bytes);
  }
}

/**
 * The tokens of a message's content: a string, or parts — text (chat completions' `text`, the
 * Responses API's `input_text`), and images, files and audio at what they may be billed (see
 * `mediaPartTokens`; `rates` are the model's profile's).
 */
export function contentTokens(content: unknown, rates?: MediaRates): number {
  if (typeof content === "string") return estimateTokens(content);
  if (!Array.isArray(content)) return 0;
  let tokens = 0;
  for (const part of content) {
    if (typeof part === "string") tokens += estimateTokens(part);
    else if (typeof part?.text === "string") tokens += estimateTokens(part.text);
    else if (part && typeof part === "object") tokens += mediaPartTokens(part, rates) ?? 0;
  }
  return tokens;
}

/** The tokens of a `prompt` or an `input`: one string, or several (anything else counts none). */
export function textsTokens(value: unknown): number {
  const texts = Array.isArray(value) ? value : [value];
  let tokens = 0;
  for (const text of texts) if (typeof text === "string") tokens += estimateTokens(text);
  return tokens;
}

/** Whatever a value holds as JSON (tool definitions, tool-call arguments, schemas). */
export function jsonTokens(value: unknown): number {
  if (value === undefined || value === null) return 0;
  try {
    return estimateTokens(JSON.stringify(value) ?? "");
  } catch {
    return 0;
  }
}

function maxOutputOf(body: Record<string, unknown>): number | undefined {
  const max = body.max_completion_tokens ?? body.max_tokens;
  return typeof max === "number" && Number.isFinite(max) && max >= 0 ? max : undefined;
}

function choicesOf(body: Record<string, unknown>): number {
  const n = body.n;
  return typeof n === "number" && Number.isInteger(n) && n > 1 ? n : 1;
}

/**
 * The estimate of a `/chat/completions` body (docs/service-contract.md#hosted-models): messages
 * (reasoning sent back included; images and files at what they may be billed, at the model's
 * profile's `rates`), tools and response format.
 */
export function estimateChatRequest(
  body: Record<string, unknown>,
  model: string,
  rates?: MediaRates,
): RequestEstimate {
  let inputTokens = PER_CHAT_REQUEST;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (const message of messages as Array<Record<string, unknown>>) {
    inputTokens +=
      PER_MESSAGE +
      contentTokens(message?.content, rates) +
      // Reasoning sent back with a tool call is read by the model too.
      contentTokens(message?.reasoning_content) +
      jsonTokens(message?.tool_calls);
  }
  inputTokens += jsonTokens(body.tools) + jsonTokens(body.functions);
  inputTokens += jsonTokens(body.response_format);
  return { model, inputTokens, maxOutputTokens: maxOutputOf(body), choices: choicesOf(body) };
}

/** The estimate of a `/completions` body (docs/service-contract.md#dedicated-endpoints): its prompt, or each of its prompts. */
export function estimateCompletionRequest(
  body: Record<string, unknown>,
  model: string,
): RequestEstimate {
  const inputTokens = textsTokens(body.prompt);
  return { model, inputTokens, maxOutputTokens: maxOutputOf(body), choices: choicesOf(body) };
}
