import { describe, expect, it } from "vitest";
import { PromptCache, type PromptPart } from "../../../src/emulator/state/prompt_cache.js";

const part = (key: string, tokens: number): PromptPart => ({ key: () => key, tokens });
const TOOLS = part("tools", 10);
const SYSTEM = part("system", 1000);
const EXAMPLES = part("examples", 500);

describe("PromptCache at breakpoints", () => {
  it("writes the prompt up to each breakpoint for its lifetime, then reads the longest prefix written", () => {
    const cache = new PromptCache();
    const one = [TOOLS, SYSTEM, EXAMPLES, part("question 1", 20)];
    const marks = [
      { part: 1, ttl: "1h" as const },
      { part: 2, ttl: "5m" as const },
    ];
    expect(cache.write("m", one, marks)).toEqual({
      read: 0,
      written: 1510,
      writtenForAnHour: 1010,
    });
    // The same prefix, another question: read up to the last breakpoint, nothing written.
    expect(cache.write("m", [TOOLS, SYSTEM, EXAMPLES, part("question 2", 30)], marks)).toEqual({
      read: 1510,
      written: 0,
      writtenForAnHour: 0,
    });
    // Other examples: the system prompt is read, the new examples written for five minutes.
    expect(
      cache.write("m", [TOOLS, SYSTEM, part("other examples", 300), part("q", 5)], marks),
    ).toEqual({
      read: 1010,
      written: 300,
      writtenForAnHour: 0,
    });
  });

  it("writes nothing without breakpoints, keeps models apart, and forgets on clear", () => {
    const cache = new PromptCache();
    expect(cache.write("m", [TOOLS, SYSTEM], [])).toEqual({
      read: 0,
      written: 0,
      writtenForAnHour: 0,
    });
    expect(cache.write("m", [TOOLS, SYSTEM], [{ part: 1, ttl: "5m" }]).written).toBe(1010);
    expect(cache.write("other", [TOOLS, SYSTEM], [{ part: 1, ttl: "5m" }]).read).toBe(0);
    // A breakpoint past the end of the prompt is ignored; a prefix read by the automatic cache is a
    // cache of its own.
    expect(cache.write("m", [TOOLS], [{ part: 4, ttl: "1h" }]).written).toBe(0);
    expect(cache.read("m", [TOOLS, SYSTEM])).toBe(0);
    cache.clear();
    expect(cache.write("m", [TOOLS, SYSTEM], [{ part: 1, ttl: "5m" }]).read).toBe(0);
  });
});
