/**
 * The emulator's o200k_base encoder against js-tiktoken's `Tiktoken` over the same bundled ranks:
 * the same tokens for the docs' own text and for random strings of the characters that try a
 * tokenizer (accents, CJK, emoji with modifiers and joiners, lone surrogates, special-token
 * text), and the same text decoded from every prefix of a few tokens.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Tiktoken } from "js-tiktoken/lite";
import o200kBase from "js-tiktoken/ranks/o200k_base";
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../../src/emulator/faults/faults.js";
import { O200kEncoder } from "../../../src/emulator/model/o200k.js";

const reference = new Tiktoken(o200kBase);
const encoder = new O200kEncoder();

const ALPHABET = [
  "a",
  "Z",
  " ",
  "\n",
  "\t",
  "  ",
  "'s",
  "123456",
  "é",
  "ß",
  "x\u0301",
  "中",
  "文",
  "١٢",
  "😀",
  "👍🏽",
  "🇫🇷",
  "\u200d",
  "\uD800",
  "<|endoftext|>",
];

function randomTexts(count: number): string[] {
  const random = mulberry32(7);
  return Array.from({ length: count }, () => {
    const length = 1 + Math.floor(random() * 40);
    return Array.from({ length }, () => ALPHABET[Math.floor(random() * ALPHABET.length)]).join("");
  });
}

const docs = readdirSync("docs")
  .filter((name) => name.endsWith(".md"))
  .map((name) => readFileSync(join("docs", name), "utf8"));

describe("the o200k_base encoder", () => {
  it("encodes every page of docs/ as js-tiktoken does", () => {
    for (const text of docs) expect(encoder.encode(text)).toEqual(reference.encode(text, [], []));
  });

  it("encodes random strings of hard characters as js-tiktoken does, and decodes their prefixes alike", () => {
    for (const text of randomTexts(2000)) {
      const tokens = reference.encode(text, [], []);
      expect(encoder.encode(text)).toEqual(tokens);
      for (const end of [1, 2, 3]) {
        expect(encoder.decode(tokens.slice(0, end))).toBe(reference.decode(tokens.slice(0, end)));
      }
    }
  });
});
