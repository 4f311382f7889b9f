/**
 * `<think>` tags read out of an answer, whole and piece by piece: the same split whatever the
 * cuts, the tags never in the text, and nothing held back but what may still be a tag.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  MAX_SPACE_BEFORE_TAG,
  type SplitText,
  splitThinkTags,
  type TagMode,
  ThinkTagSplitter,
} from "../../../../src/apis/chat/reasoning/think_tags.js";

/** Streams `pieces` through a splitter and joins what comes out. */
function streamed(pieces: readonly string[], mode: TagMode): SplitText & { outs: SplitText[] } {
  const split = new ThinkTagSplitter(mode);
  const outs = [...pieces.map((piece) => split.push(piece)), split.end()];
  return {
    reasoning: outs.map((o) => o.reasoning).join(""),
    text: outs.map((o) => o.text).join(""),
    outs,
  };
}

/** `text` cut at the given positions. */
function cut(text: string, at: readonly number[]): string[] {
  const points = [...new Set(at.map((n) => n % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const point of points) {
    pieces.push(text.slice(from, point));
    from = point;
  }
  pieces.push(text.slice(from));
  return pieces;
}

describe("splitThinkTags, whole answers", () => {
  it.each<[string, TagMode, string, SplitText]>([
    [
      "a leading <think>…</think>",
      "leading",
      "<think>\nSeventeen has no divisor.\n</think>\n\n17 is prime.",
      { reasoning: "Seventeen has no divisor.\n", text: "17 is prime." },
    ],
    ["whitespace before the tag", "leading", "\n <think>x</think>y", { reasoning: "x", text: "y" }],
    [
      "a <think> mentioned later in the text",
      "leading",
      "Models write <think> first. </think> closes it.",
      { reasoning: "", text: "Models write <think> first. </think> closes it." },
    ],
    [
      "a lone </think> when the template did not open the tag",
      "leading",
      "Let me see.</think>Yes.",
      { reasoning: "", text: "Let me see.</think>Yes." },
    ],
    [
      "a lone </think> when the template opened the tag",
      "opened",
      "Let me see.\n</think>\n\nYes.",
      { reasoning: "Let me see.\n", text: "Yes." },
    ],
    [
      "a leading <think> when the template opened the tag",
      "opened",
      "<think>Let me see.</think>Yes.",
      { reasoning: "Let me see.", text: "Yes." },
    ],
    [
      "an answer cut off while thinking",
      "leading",
      "<think>Let me s",
      { reasoning: "Let me s", text: "" },
    ],
    [
      "an opened answer cut off while thinking",
      "opened",
      "Let me see</thi",
      { reasoning: "Let me see</thi", text: "" },
    ],
    [
      "an answer without tags",
      "leading",
      "Plain answer.",
      { reasoning: "", text: "Plain answer." },
    ],
    ["a partial tag that never completes", "leading", "<thi", { reasoning: "", text: "<thi" }],
    [
      "an empty answer after the reasoning",
      "leading",
      "<think>x</think>\n",
      { reasoning: "x", text: "" },
    ],
    [
      "a second </think>, which is text",
      "leading",
      "<think>a</think>b</think>c",
      { reasoning: "a", text: "b</think>c" },
    ],
  ])("reads %s", (_name, mode, answer, expected) => {
    expect(splitThinkTags(answer, mode)).toEqual(expected);
  });
});

describe("ThinkTagSplitter, streamed", () => {
  it("holds back only what may be a tag, and lets an answer without tags through at once", () => {
    const split = new ThinkTagSplitter("leading");
    expect(split.push("Hel")).toEqual({ reasoning: "", text: "Hel" });
    expect(split.settled).toBe(true);
    expect(split.push("lo <think>")).toEqual({ reasoning: "", text: "lo <think>" });
  });

  it("holds a partial opening tag, then a partial closing tag, and nothing else", () => {
    const split = new ThinkTagSplitter("leading");
    expect(split.push("<th")).toEqual({ reasoning: "", text: "" });
    expect(split.push("ink>Let me see</thi")).toEqual({ reasoning: "Let me see", text: "" });
    expect(split.push("nking")).toEqual({ reasoning: "</thinking", text: "" });
    expect(split.push("</think>\n")).toEqual({ reasoning: "", text: "" });
    expect(split.push("\n42")).toEqual({ reasoning: "", text: "42" });
    expect(split.settled).toBe(true);
  });

  it("streams an opened answer's reasoning at once, before any tag is seen", () => {
    const split = new ThinkTagSplitter("opened");
    expect(split.push("Let me")).toEqual({ reasoning: "Let me", text: "" });
    expect(split.push(" see.</")).toEqual({ reasoning: " see.", text: "" });
    expect(split.push("think>Yes")).toEqual({ reasoning: "", text: "Yes" });
  });

  it("streams leading whitespace as text before the first visible character once no tag can follow it", () => {
    const split = new ThinkTagSplitter("leading");
    const outs = Array.from({ length: MAX_SPACE_BEFORE_TAG + 1 }, () => split.push(" "));
    // Within reach of a tag, whitespace is held (a `<think>` after it drops it); one more, and
    // it is the answer's own.
    expect(outs.slice(0, MAX_SPACE_BEFORE_TAG).every((out) => out.text === "")).toBe(true);
    expect(outs.at(-1)).toEqual({ reasoning: "", text: " ".repeat(MAX_SPACE_BEFORE_TAG + 1) });
    expect(split.held).toBe(0);
    expect(split.settled).toBe(true);
    expect(split.push("\n")).toEqual({ reasoning: "", text: "\n" });
    expect(split.push("<think>x</think>y")).toEqual({ reasoning: "", text: "<think>x</think>y" });
  });

  it("never holds more than the whitespace a tag may follow, however long the run", () => {
    for (const mode of ["leading", "opened"] as const) {
      const split = new ThinkTagSplitter(mode);
      for (let i = 0; i < 10_000; i++) {
        split.push(i % 2 ? " " : "\n");
        expect(split.held).toBeLessThanOrEqual(MAX_SPACE_BEFORE_TAG);
      }
    }
  });

  it.each<[TagMode, SplitText]>([
    ["leading", { reasoning: "", text: `${" ".repeat(40)}<think>x</think>y` }],
    ["opened", { reasoning: "<think>x", text: "y" }],
  ])(
    "reads a <think> after more whitespace than a tag may follow as %s mode reads a later one",
    (mode, expected) => {
      const answer = `${" ".repeat(40)}<think>x</think>y`;
      expect(splitThinkTags(answer, mode)).toEqual(expected);
      expect(streamed([...answer], mode)).toMatchObject(expected);
    },
  );

  const answers = fc.oneof(
    fc
      .tuple(
        fc.oneof(
          fc.string({ maxLength: 3, unit: fc.constantFrom(" ", "\n") }),
          // Around the most whitespace a tag may follow.
          fc.string({ minLength: 30, maxLength: 36, unit: fc.constantFrom(" ", "\n") }),
        ),
        fc.string(),
        fc.string(),
      )
      .map(([space, thought, text]) => `${space}<think>${thought}</think>${text}`),
    fc.tuple(fc.string(), fc.string()).map(([thought, text]) => `${thought}</think>${text}`),
    fc.string(),
    fc.string({ unit: fc.constantFrom("<", "/", "t", "h", "i", "n", "k", ">", " ", "x") }),
  );

  it("splits an answer cut at any characters exactly as the whole answer", () => {
    fc.assert(
      fc.property(
        answers,
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.constantFrom<TagMode>("leading", "opened"),
        (answer, at, mode) => {
          const { reasoning, text } = streamed(cut(answer, at), mode);
          expect({ reasoning, text }).toEqual(splitThinkTags(answer, mode));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("cut at every single character, never holds back more than a partial tag", () => {
    fc.assert(
      fc.property(answers, fc.constantFrom<TagMode>("leading", "opened"), (answer, mode) => {
        const split = new ThinkTagSplitter(mode);
        let given = "";
        for (const piece of answer) {
          given += piece;
          split.push(piece);
          // A proper prefix of a tag, and the whitespace before the answer's first one.
          const leading = /^\s*/.exec(given)![0].length;
          expect(split.held).toBeLessThanOrEqual("</think>".length - 1 + leading);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("keeps a leading <think>…</think> out of the text, however the stream is cut", () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes("</think>")),
        fc.string(),
        fc.array(fc.nat(), { maxLength: 12 }),
        (thought, answer, at) => {
          const whole = `<think>${thought}</think>${answer}`;
          const { reasoning, text } = streamed(cut(whole, at), "leading");
          expect(reasoning).toBe(thought.trimStart());
          expect(text).toBe(answer.trimStart());
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe("ThinkTagSplitter at the edges", () => {
  it("lets newlines, CRs and tabs come before a leading <think>", () => {
    for (const space of ["\n\n", "\r\n", "\t "]) {
      expect(splitThinkTags(`${space}<think>a</think>b`, "leading")).toEqual({
        reasoning: "a",
        text: "b",
      });
    }
  });

  it("ends an opened answer that stopped at the start as reasoning, whitespace dropped", () => {
    const partial = new ThinkTagSplitter("opened");
    partial.push("<thi");
    expect(partial.end()).toEqual({ reasoning: "<thi", text: "" });
    const blank = new ThinkTagSplitter("opened");
    blank.push("  ");
    expect(blank.end()).toEqual({ reasoning: "", text: "" });
    const leading = new ThinkTagSplitter("leading");
    leading.push("<thi");
    expect(leading.end()).toEqual({ reasoning: "", text: "<thi" });
  });

  it("holds nothing once ended", () => {
    const split = new ThinkTagSplitter("leading");
    split.push("<think>a</th");
    split.end();
    expect(split.held).toBe(0);
  });
});
