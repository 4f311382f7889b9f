import { describe, expect, it } from "vitest";
import { characters, duration, money } from "../../../src/emulator/browser/format.js";

describe("money", () => {
  it.each([
    [0, "0"],
    [10, "10"],
    [14.9998, "14.9998"],
    [1.234567, "1.2346"],
    [0.5, "0.5"],
    // A call's cost at the demo prices: its significant digits, never 0.000000.
    [0.0000325, "0.0000325"],
    [0.000018, "0.000018"],
    [0.000123456, "0.000123"],
    [1.5e-9, "1.5e-9"],
    [-0.0000325, "-0.0000325"],
    [1e12, "1000000000000"],
  ])("writes %d as %s", (value, shown) => {
    expect(money(value)).toBe(shown);
  });
});

describe("duration and characters", () => {
  it.each([
    [0, "0 ms"],
    [412.4, "412 ms"],
    [1250, "1.3 s"],
    [125_000, "2 min 5 s"],
  ])("writes %d ms as %s", (ms, shown) => {
    expect(duration(ms)).toBe(shown);
  });

  it("counts characters in thousands past 999", () => {
    expect(characters(812)).toBe("812 characters");
    expect(characters(32_768)).toBe("32.8k characters");
  });
});
