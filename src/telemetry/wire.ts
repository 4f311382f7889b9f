/**
 * @module What a call's span reads off the wire: the request's parameters that were set, and the
 * answer's (or the stream's chunks') ID, model, finish reasons and usage. Read from the
 * OpenAI-style bodies every API of the service shares, so a new API is read without code of its own.
 */
import {
  promptCacheFromWire,
  reasoningTokensFromWire,
  tokenUsageFromWire,
} from "../spend/usage.js";
import { bounded } from "./limits.js";
import { ATTR } from "./names.js";
import type { Attributes } from "./otel.js";

const num = (value: unknown): value is number =>
  typeof value === "number" && Number.isFinite(value);
const str = (value: unknown): value is string => typeof value === "string";

/**
 * The longest list the wire numbers its items in (an answer's choices by `index`, a reply's tool
 * calls) that is read by those numbers: the most `n` of OpenAI-style servers. Past it, or not a
 * whole number, an item goes at its place in the list instead, so that an `index` of 1e9 cannot
 * make a list a billion long.
 */
const MAX_INDEX = 128;

/** Where the `i`-th item of a list goes whose items carry an `index` from the wire. */
export function wireIndex(index: unknown, i: number): number {
  return Number.isInteger(index) && (index as number) >= 0 && (index as number) < MAX_INDEX
    ? (index as number)
    : i;
}

/**
 * The request parameters `body` sets, added to `into` under the conventions' names. Read by name,
 * not by walking the body's keys: a chat body carries two dozen keys, most of them undefined, and
 * a walk through them measured ten times slower (600 ns against 64).
 */
export function addRequestAttributes(body: Record<string, unknown>, into: Attributes): void {
  const maxTokens = body.max_tokens ?? body.max_completion_tokens ?? body.max_output_tokens;
  if (num(maxTokens)) into[ATTR.maxTokens] = maxTokens;
  if (num(body.temperature)) into[ATTR.temperature] = body.temperature;
  if (num(body.top_p)) into[ATTR.topP] = body.top_p;
  if (num(body.top_k)) into[ATTR.topK] = body.top_k;
  if (num(body.frequency_penalty)) into[ATTR.frequencyPenalty] = body.frequency_penalty;
  if (num(body.presence_penalty)) into[ATTR.presencePenalty] = body.presence_penalty;
  if (num(body.seed)) into[ATTR.seed] = body.seed;
  if (num(body.n) && body.n !== 1) into[ATTR.choiceCount] = body.n;
  const { stop } = body;
  if (str(stop)) into[ATTR.stopSequences] = [bounded(stop)];
  else if (Array.isArray(stop) && stop.length > 0) {
    into[ATTR.stopSequences] = stop.filter(str).map(bounded);
  }
  const format = (
    (body.response_format ?? (body.text as { format?: unknown } | undefined)?.format) as
      | { type?: unknown }
      | undefined
  )?.type;
  if (format === "json_object" || format === "json_schema") into[ATTR.outputType] = "json";
  else if (format === "text") into[ATTR.outputType] = "text";
  if (str(body.encoding_format)) into[ATTR.encodingFormats] = [bounded(body.encoding_format)];
  if (num(body.dimensions)) into[ATTR.dimensions] = body.dimensions;
}

/**
 * What the answer of one call said about itself, gathered from its body or its chunks; its
 * strings come from the wire, so each is kept bounded (`limits.ts`).
 */
export class AnswerFacts {
  id?: string;
  model?: string;
  /** By choice index. */
  readonly finishReasons: string[] = [];
  inputTokens?: number;
  outputTokens?: number;
  cachedInputTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;

  /**
   * Reads an answer's body, or one chunk of a stream; an event that carries the whole answer in
   * its `response` (the Responses API's first and last events) is read as that answer.
   */
  read(data: unknown): void {
    if (typeof data !== "object" || data === null) return;
    const outer = data as Record<string, unknown>;
    const body =
      typeof outer.response === "object" && outer.response !== null
        ? (outer.response as Record<string, unknown>)
        : outer;
    if (this.id === undefined && str(body.id)) this.id = bounded(body.id);
    if (this.model === undefined && str(body.model)) this.model = bounded(body.model);
    const { choices } = body;
    if (Array.isArray(choices)) {
      // An index loop: this runs on every chunk of every traced stream.
      for (let i = 0; i < choices.length; i++) {
        const choice = choices[i] as Record<string, unknown> | null | undefined;
        const reason = choice?.finish_reason;
        if (str(reason)) this.finishReasons[wireIndex(choice?.index, i)] = bounded(reason);
      }
    }
    if (body.usage != null) this.#usage(body.usage);
  }

  #usage(usage: unknown): void {
    const counts = tokenUsageFromWire(usage);
    if (counts === undefined) return;
    this.inputTokens = counts.promptTokens;
    this.outputTokens = counts.completionTokens;
    const cache = promptCacheFromWire(usage);
    this.cachedInputTokens = cache.read;
    if (cache.written !== undefined) this.cacheWriteTokens = cache.written;
    const reasoning = reasoningTokensFromWire(usage);
    if (reasoning !== undefined) this.reasoningTokens = reasoning;
  }

  /** The facts as span attributes, added to `into`. */
  addTo(into: Attributes): void {
    if (this.id !== undefined) into[ATTR.responseId] = this.id;
    if (this.model !== undefined) into[ATTR.responseModel] = this.model;
    const reasons = this.finishReasons.filter(str);
    if (reasons.length > 0) into[ATTR.finishReasons] = reasons;
    if (this.inputTokens !== undefined) into[ATTR.inputTokens] = this.inputTokens;
    if (this.outputTokens !== undefined) into[ATTR.outputTokens] = this.outputTokens;
    if (this.cachedInputTokens !== undefined) into[ATTR.cachedInputTokens] = this.cachedInputTokens;
    if (this.cacheWriteTokens !== undefined) into[ATTR.cacheWriteTokens] = this.cacheWriteTokens;
    if (this.reasoningTokens !== undefined) into[ATTR.reasoningTokens] = this.reasoningTokens;
  }
}
