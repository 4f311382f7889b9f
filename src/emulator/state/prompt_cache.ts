/**
 * @module The emulated prompt cache: which prompt prefixes each model has read, so that a prompt
 * starting as an earlier one did counts those tokens as cached, as DeepSeek's API and vLLM's
 * prefix caching report them.
 */

import { createHash } from "node:crypto";

/** One part of a prompt as the cache tells parts apart: what identifies it, and its tokens. */
export interface PromptPart {
  /** Its identity, made only when a cache reads the part (most models have none). */
  key: () => string;
  tokens: number;
}

/** Cached tokens are counted in whole blocks of this many, as DeepSeek's cache counts them. */
export const CACHE_BLOCK_TOKENS = 64;

/** Prefixes remembered before the cache starts over (a long-running emulator stays bounded). */
const LIMIT = 10_000;

/** The prefixes read so far, by model; emptied by the state's `reset()`. */
export class PromptCache {
  readonly #seen = new Set<string>();

  /**
   * The tokens of the longest run of leading `parts` this model has read before, in whole
   * blocks; remembers every prefix of `parts` for later prompts.
   *
   * @example
   * cache.read("m", [system, question]); // 0: never seen
   * cache.read("m", [system, question, answer, followUp]); // tokens of system + question, in blocks of 64
   */
  read(model: string, parts: readonly PromptPart[]): number {
    let prefix = model;
    let tokens = 0;
    let cached = 0;
    let hit = true;
    for (const part of parts) {
      prefix = createHash("sha1").update(prefix).update("\u0000").update(part.key()).digest("hex");
      tokens += part.tokens;
      hit &&= this.#seen.has(prefix);
      if (hit) cached = tokens;
      if (this.#seen.size >= LIMIT) this.#seen.clear();
      this.#seen.add(prefix);
    }
    return Math.floor(cached / CACHE_BLOCK_TOKENS) * CACHE_BLOCK_TOKENS;
  }

  clear(): void {
    this.#seen.clear();
  }
}
