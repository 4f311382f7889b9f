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

  /**
   * A prompt cached at breakpoints, as Anthropic's cache works: reads the longest prefix of
   * `parts` written before, then writes the prompt up to each breakpoint past it — what the
   * first breakpoint adds for its lifetime, what each later one adds for its own. Tokens are
   * counted exactly, not in blocks.
   *
   * @example
   * cache.write("m", [tools, system, question], [{ part: 1, ttl: "1h" }]); // { read: 0, written: tools + system, writtenForAnHour: the same }
   * cache.write("m", [tools, system, other], [{ part: 1, ttl: "1h" }]); // { read: tools + system, written: 0, writtenForAnHour: 0 }
   */
  write(
    model: string,
    parts: readonly PromptPart[],
    breakpoints: ReadonlyArray<{ part: number; ttl: "5m" | "1h" }>,
  ): { read: number; written: number; writtenForAnHour: number } {
    const prefixes: string[] = [];
    const ends: number[] = [];
    let prefix = `breakpoints\u0000${model}`;
    let tokens = 0;
    for (const part of parts) {
      prefix = createHash("sha1").update(prefix).update("\u0000").update(part.key()).digest("hex");
      tokens += part.tokens;
      prefixes.push(prefix);
      ends.push(tokens);
    }
    let read = 0;
    prefixes.forEach((key, i) => {
      if (this.#seen.has(key)) read = ends[i]!;
    });
    let covered = read;
    let written = 0;
    let writtenForAnHour = 0;
    for (const { part, ttl } of breakpoints) {
      const end = ends[part];
      if (end === undefined || end <= covered) continue;
      written += end - covered;
      if (ttl === "1h") writtenForAnHour += end - covered;
      covered = end;
      if (this.#seen.size >= LIMIT) this.#seen.clear();
      this.#seen.add(prefixes[part]!);
    }
    return { read, written, writtenForAnHour };
  }

  clear(): void {
    this.#seen.clear();
  }
}
