/**
 * @module The o200k_base tokenizer, over js-tiktoken's bundled ranks: the same byte-pair encoding
 * as js-tiktoken's `Tiktoken` (special-token text read as ordinary text), built in about a third of
 * its time. `Tiktoken` decodes every one of the 200,000 ranks into bytes and keys them by their
 * joined digits before it can count a word; here a rank is looked up by the ranks' own base64
 * text, so building is one pass over the ranks file — paid by every process that starts an
 * emulator, and every test file that uses one.
 */

import o200kBase from "js-tiktoken/ranks/o200k_base";

/** js-tiktoken's bundled ranks: the split pattern, and `"! <offset> <base64 token> …"` lines. */
interface Ranks {
  pat_str: string;
  bpe_ranks: string;
}

export class O200kEncoder {
  /** Rank of each token, by the base64 of its bytes. */
  readonly #ranks = new Map<string, number>();
  /** The base64 of each rank's bytes, by rank. */
  readonly #tokens: string[] = [];
  readonly #pattern: string;
  readonly #decoder = new TextDecoder();

  constructor(ranks: Ranks = o200kBase) {
    this.#pattern = ranks.pat_str;
    for (const line of ranks.bpe_ranks.split("\n")) {
      if (line === "") continue;
      const [, offsetText, ...tokens] = line.split(" ");
      const offset = Number.parseInt(offsetText!, 10);
      for (let i = 0; i < tokens.length; i++) {
        this.#ranks.set(tokens[i]!, offset + i);
        this.#tokens[offset + i] = tokens[i]!;
      }
    }
  }

  /** The tokens of `text`; text that spells a special token (`<|endoftext|>`) is ordinary text. */
  encode(text: string): number[] {
    const tokens: number[] = [];
    for (const [match] of text.matchAll(new RegExp(this.#pattern, "ug"))) {
      const piece = Buffer.from(match, "utf8");
      const whole = this.#rank(piece, 0, piece.length);
      if (whole !== undefined) tokens.push(whole);
      else tokens.push(...this.#bytePairEncode(piece));
    }
    return tokens;
  }

  /** The text of `tokens`; bytes that end inside a character decode to U+FFFD. */
  decode(tokens: readonly number[]): string {
    const bytes = tokens.map((token) => Buffer.from(this.#tokens[token] ?? "", "base64"));
    return this.#decoder.decode(Buffer.concat(bytes));
  }

  #rank(piece: Buffer, start: number, end: number): number | undefined {
    return this.#ranks.get(piece.toString("base64", start, end));
  }

  /** Merges the lowest-ranked adjacent pair until none has a rank, as tiktoken does. */
  #bytePairEncode(piece: Buffer): number[] {
    const parts = Array.from({ length: piece.length }, (_, i) => ({ start: i, end: i + 1 }));
    while (parts.length > 1) {
      let lowest: { rank: number; at: number } | undefined;
      for (let i = 0; i < parts.length - 1; i++) {
        const rank = this.#rank(piece, parts[i]!.start, parts[i + 1]!.end);
        if (rank !== undefined && (lowest === undefined || rank < lowest.rank)) {
          lowest = { rank, at: i };
        }
      }
      if (lowest === undefined) break;
      parts[lowest.at] = { start: parts[lowest.at]!.start, end: parts[lowest.at + 1]!.end };
      parts.splice(lowest.at + 1, 1);
    }
    return parts
      .map(({ start, end }) => this.#rank(piece, start, end))
      .filter((rank) => rank !== undefined);
  }
}
