/**
 * @module Every way a model server writes reasoning, read into the one field the rest of the
 * package (and `@langchain/openai`) reads: `reasoning_content`, as DeepSeek's API writes it; vLLM's
 * `reasoning`; and `<think>` tags at the start of the answer, from a server without a reasoning
 * parser. It also reads DeepSeek's count of cached prompt tokens into the standard field.
 */
import type { OpenAI } from "openai";
import type { ReasoningSettings } from "../../../config/profiles.js";
import { type SplitText, splitThinkTags, ThinkTagSplitter } from "./think_tags.js";

type Tags = ReasoningSettings["reasoningTags"];

/** A reply message or a stream delta, with the fields model servers add. */
interface RawReply {
  content?: unknown;
  reasoning_content?: unknown;
  reasoning?: unknown;
}

type Completion = OpenAI.Chat.Completions.ChatCompletion;
type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;

/**
 * Rewrites a non-streamed completion in place: each choice's reasoning in `reasoning_content`,
 * its answer in `content` without `<think>` tags, and cached prompt tokens in
 * `usage.prompt_tokens_details.cached_tokens`. Returns the same object.
 */
export function readCompletionReasoning<T extends Completion>(completion: T, tags: Tags): T {
  for (const choice of completion.choices ?? []) {
    const message = choice?.message as RawReply | undefined;
    if (!message) continue;
    if (moveReasoningField(message) || tags === "off") continue;
    if (typeof message.content !== "string" || message.content === "") continue;
    const split = splitThinkTags(message.content, tags);
    if (split.reasoning === "" && split.text === message.content) continue;
    message.content = split.text;
    addReasoning(message, split.reasoning);
  }
  readCachedTokens(completion.usage);
  return completion;
}

/** Per choice of a stream: its tag splitter while tags may still come. */
interface ChoiceReading {
  split?: ThinkTagSplitter;
}

/**
 * A stream's chunks rewritten as {@link readCompletionReasoning} rewrites a completion, one by
 * one as they are read. Tags split across chunks at any character are found; a chunk's text is
 * held back only while it may be part of a tag (the rest of the chunk goes out at once), and what
 * is held when a choice finishes goes out with its finishing chunk, or, if the stream ends
 * without one, in a chunk of its own ({@link end}).
 */
export class StreamReasoning<T extends Chunk> {
  readonly #tags: Tags;
  readonly #choices = new Map<number, ChoiceReading>();
  #last: T | undefined;

  constructor(tags: Tags) {
    this.#tags = tags;
  }

  /** Rewrites one chunk in place. */
  read(chunk: T): void {
    this.#last = chunk;
    for (const choice of chunk.choices ?? []) {
      const delta = choice?.delta as RawReply | undefined;
      if (!delta) continue;
      const state = this.#reading(choice.index ?? 0);
      // Reasoning in a field: the server parsed it, so the answer holds no tags to read.
      if (moveReasoningField(delta)) state.split = undefined;
      const split = state.split;
      if (split === undefined) continue;
      if (typeof delta.content === "string" && delta.content !== "") {
        apply(delta, split.push(delta.content));
        if (split.settled) state.split = undefined;
      }
      if (choice.finish_reason != null && state.split !== undefined) {
        apply(delta, state.split.end());
        state.split = undefined;
      }
    }
    readCachedTokens(chunk.usage);
  }

  /** The stream ended: what is still held back, one chunk per choice that holds some. */
  end(): T[] {
    const held: T[] = [];
    for (const [index, choice] of this.#choices) {
      const flushed = choice.split?.end();
      choice.split = undefined;
      if (this.#last && flushed && (flushed.text !== "" || flushed.reasoning !== "")) {
        held.push(chunkWith(this.#last, index, flushed));
      }
    }
    return held;
  }

  #reading(index: number): ChoiceReading {
    let found = this.#choices.get(index);
    if (found === undefined) {
      found = this.#tags === "off" ? {} : { split: new ThinkTagSplitter(this.#tags) };
      this.#choices.set(index, found);
    }
    return found;
  }
}

/**
 * A stream read through {@link StreamReasoning}. A plain iterator, like the stream layer below
 * it: it sits on every chunk.
 */
export function readStreamReasoning<T extends Chunk>(
  stream: AsyncIterable<T>,
  tags: Tags,
): AsyncIterableIterator<T> {
  const source = stream[Symbol.asyncIterator]();
  const reader = new StreamReasoning<T>(tags);
  let held: T[] | undefined;
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      if (held === undefined) {
        const result = await source.next();
        if (!result.done) {
          reader.read(result.value);
          return result;
        }
        held = reader.end();
      }
      const next = held.shift();
      return next !== undefined ? { done: false, value: next } : { done: true, value: undefined };
    },
    async return(value?: unknown) {
      await source.return?.(value);
      return { done: true, value: undefined };
    },
  };
}

/**
 * Moves vLLM's `reasoning` into `reasoning_content` (unless that is already set); true when the
 * reply or delta carries reasoning in either field.
 */
function moveReasoningField(reply: RawReply): boolean {
  const { reasoning } = reply;
  if (reasoning !== undefined) {
    delete reply.reasoning;
    if (typeof reasoning === "string" && !isText(reply.reasoning_content)) {
      reply.reasoning_content = reasoning;
    }
  }
  return isText(reply.reasoning_content);
}

/** Puts a split piece into a delta: its text as the content, its reasoning added to the field. */
function apply(delta: RawReply, split: SplitText): void {
  delta.content = split.text;
  addReasoning(delta, split.reasoning);
}

function addReasoning(reply: RawReply, reasoning: string): void {
  if (reasoning === "") return;
  reply.reasoning_content =
    typeof reply.reasoning_content === "string" ? reply.reasoning_content + reasoning : reasoning;
}

/** A chunk like `template` whose only choice, `index`, carries what was held back. */
function chunkWith<T extends Chunk>(template: T, index: number, split: SplitText): T {
  const delta: RawReply = { content: split.text };
  addReasoning(delta, split.reasoning);
  const { usage: _usage, ...head } = template;
  return { ...head, choices: [{ index, delta, finish_reason: null, logprobs: null }] } as T;
}

/**
 * DeepSeek's API counts cached prompt tokens as `prompt_cache_hit_tokens`; the standard field,
 * which LangChain reads into `usage_metadata.input_token_details.cache_read`, is
 * `prompt_tokens_details.cached_tokens`. Copies the one into the other when only the first is set.
 */
function readCachedTokens(usage: unknown): void {
  if (typeof usage !== "object" || usage === null) return;
  const u = usage as {
    prompt_cache_hit_tokens?: unknown;
    prompt_tokens_details?: { cached_tokens?: unknown } | null;
  };
  const hit = u.prompt_cache_hit_tokens;
  if (typeof hit !== "number" || u.prompt_tokens_details?.cached_tokens != null) return;
  u.prompt_tokens_details = { ...u.prompt_tokens_details, cached_tokens: hit };
}

function isText(value: unknown): value is string {
  return typeof value === "string" && value !== "";
}
