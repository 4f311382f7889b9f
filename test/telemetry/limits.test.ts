import { describe, expect, it } from "vitest";
import { bounded, MAX_ATTRIBUTE_LENGTH } from "../../src/telemetry/limits.js";

describe("bounded", () => {
  it("keeps a string of up to 256 characters as it is", () => {
    expect(MAX_ATTRIBUTE_LENGTH).toBe(256);
    expect(bounded("")).toBe("");
    const full = "x".repeat(256);
    expect(bounded(full)).toBe(full);
  });

  it("cuts a longer one to 256 characters, the last an ellipsis", () => {
    const cut = bounded(`${"a".repeat(255)}bc`);
    expect(cut).toBe(`${"a".repeat(255)}…`);
    expect(cut).toHaveLength(256);
  });

  it("never cuts a surrogate pair in two: the emoji that would be split goes whole", () => {
    const value = `${"a".repeat(254)}😀${"b".repeat(10)}`;
    const cut = bounded(value);
    expect(cut).toBe(`${"a".repeat(254)}…`);
    // No lone high surrogate before the ellipsis.
    expect(cut.charCodeAt(cut.length - 2)).toBe("a".charCodeAt(0));
    // One character further on, the pair fits before the ellipsis.
    const after = bounded(`${"a".repeat(253)}😀${"b".repeat(10)}`);
    expect(after).toBe(`${"a".repeat(253)}😀…`);
    expect(after).toHaveLength(256);
  });
});
