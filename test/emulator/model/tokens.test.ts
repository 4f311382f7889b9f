import { describe, expect, it } from "vitest";
import { countTokens, tokenPieces, truncateToTokens } from "../../../src/emulator/model/tokens.js";

describe("tokens", () => {
  it("counts o200k_base tokens", () => {
    expect(countTokens("")).toBe(0);
    expect(countTokens("Hello world")).toBe(2);
    expect(countTokens("Hello world")).toBe(2); // from the cache
  });

  it("treats special-token text as ordinary text instead of throwing", () => {
    expect(countTokens("<|endoftext|>")).toBeGreaterThan(1);
  });

  it("splits text into pieces that join back exactly, never inside a multi-byte character", () => {
    const text = "Grüße aus 日本 🎉 — done.";
    const pieces = tokenPieces(text);
    expect(pieces.join("")).toBe(text);
    for (const piece of pieces) expect(piece).not.toContain("\uFFFD");
    expect(pieces.length).toBeGreaterThan(5);
  });

  it("truncates to a number of tokens", () => {
    expect(truncateToTokens("Hello world, how are you?", 2)).toBe("Hello world");
    expect(truncateToTokens("Hello", 5)).toBe("Hello");
  });
});
