import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  availableModelsText,
  closestModelIds,
  editDistance,
} from "../../src/errors/available_models.js";

const IDS = ["emulator-chat", "emulator-reasoner", "gpt-4o-mini", "qwen2.5-72b-instruct"];

describe("closestModelIds", () => {
  it("finds typos, case slips and partial IDs, closest first", () => {
    expect(closestModelIds("emulator-caht", IDS)).toEqual(["emulator-chat"]);
    expect(closestModelIds("GPT-4o-Mini", IDS)).toEqual(["gpt-4o-mini"]);
    expect(closestModelIds("qwen2.5-72b", IDS)).toEqual(["qwen2.5-72b-instruct"]);
    expect(closestModelIds("emulator", IDS)).toEqual(["emulator-chat", "emulator-reasoner"]);
  });

  it("lists only near misses, not IDs that share a prefix and nothing of the part that differs", () => {
    const emulator = [
      "emulator-chat",
      "emulator-reasoner",
      "emulator-thinker",
      "emulator-r1",
      "emulator-vllm",
      "emulator-think-tags",
      "emulator-think-open",
      "emulator-embedding",
    ];
    expect(closestModelIds("emulator-caht", emulator)).toEqual(["emulator-chat"]);
    expect(closestModelIds("emulator-cgat", emulator)).toEqual(["emulator-chat"]);
    expect(closestModelIds("emulator-thinkr", emulator)).toEqual(["emulator-thinker"]);
    expect(closestModelIds("emulatr-reasner", emulator)).toEqual(["emulator-reasoner"]);
    expect(closestModelIds("emulator-r2", emulator)).toEqual(["emulator-r1"]);
    expect(closestModelIds("emulator-xyzw", emulator)).toEqual([]);
  });

  it("suggests nothing for an ID unlike any listed one, or an empty one", () => {
    expect(closestModelIds("llama-3-8b", IDS)).toEqual([]);
    expect(closestModelIds("  ", IDS)).toEqual([]);
  });
});

describe("closestModelIds on blank input", () => {
  it("reads a blank ID as no ID, even beside IDs one letter long", () => {
    expect(closestModelIds(" ", ["a", "b"])).toEqual([]);
    expect(closestModelIds(" A ", ["a", "bcd"])).toEqual(["a"]);
  });
});

describe("availableModelsText", () => {
  it("names the near misses, then the listed IDs", () => {
    expect(availableModelsText("emulator-caht", IDS)).toBe(
      'Did you mean "emulator-chat"? The service lists 4 models: emulator-chat, emulator-reasoner, gpt-4o-mini, qwen2.5-72b-instruct.',
    );
    expect(availableModelsText("llama", ["one"])).toBe("The service lists 1 model: one.");
  });

  it("lists at most 20 IDs and says how many more there are, or that there are none", () => {
    const many = Array.from({ length: 25 }, (_, i) => `model-${i}`);
    expect(availableModelsText("x", many)).toMatch(/model-19 and 5 more\.$/);
    expect(availableModelsText("x", [])).toBe("The service lists no models for this key.");
  });
});

/** Optimal string alignment distance, written plainly: the oracle of `editDistance`. */
function osa(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
      }
    }
  }
  return d[a.length]![b.length]!;
}

describe("editDistance", () => {
  it("counts an adjacent swap as one edit, and agrees with a plain table on chosen pairs", () => {
    expect(editDistance("caht", "chat")).toBe(1);
    expect(editDistance("modle", "model")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("abc", "")).toBe(3);
    expect(editDistance("ca", "abc")).toBe(3); // OSA, not Damerau: 3, where Damerau gives 2
    expect(editDistance("abcdef", "badcfe")).toBe(3);
  });

  it("gives the distance, or limit + 1 once it is over the limit, for any two short strings", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "b", "c"), maxLength: 8 }),
        fc.string({ unit: fc.constantFrom("a", "b", "c"), maxLength: 8 }),
        fc.integer({ min: 0, max: 6 }),
        (a, b, limit) => {
          const exact = osa(a, b);
          expect(editDistance(a, b)).toBe(exact);
          expect(editDistance(a, b, limit)).toBe(Math.min(exact, limit + 1));
        },
      ),
      { seed: 34, numRuns: 3000 },
    );
  });
});

describe("closestModelIds: how near is near", () => {
  it("puts an exact match (but for case) before an ID that contains it, and that before a typo", () => {
    expect(
      closestModelIds("Emulator-Chat", ["emulator-chat-v2", "emulator-chta", "emulator-chat"]),
    ).toEqual(["emulator-chat", "emulator-chat-v2", "emulator-chta"]);
    expect(closestModelIds("  emulator-chat ", ["x", "emulator-chat"])).toEqual(["emulator-chat"]);
  });

  it("orders near misses by distance, closest first, whatever the list's order", () => {
    const ids = ["abcdefhgji", "abcdefghji", "abcdefghij-v2", "abcdefghij"];
    expect(closestModelIds("abcdefghij", ids)).toEqual([
      "abcdefghij",
      "abcdefghij-v2",
      "abcdefghji",
    ]);
    expect(closestModelIds("abcdefghij", ids.slice(0, 2))).toEqual(["abcdefghji", "abcdefhgji"]);
  });

  it("suggests at most three", () => {
    const ids = ["model-a", "model-b", "model-c", "model-d"];
    expect(closestModelIds("model", ids)).toEqual(["model-a", "model-b", "model-c"]);
  });

  it("allows two edits to a short ID and a third of the longer one's length to a long one", () => {
    expect(closestModelIds("ab", ["xy"])).toEqual([]); // nothing of the differing part kept
    expect(closestModelIds("abcd", ["abxy"])).toEqual([]);
    expect(closestModelIds("abcde", ["abcxy"])).toEqual([]);
    // 12 characters: up to 4 edits, each near miss keeping most of the part that differs.
    expect(closestModelIds("abcdefghijkl", ["abcdefghjilk"])).toEqual(["abcdefghjilk"]);
    expect(closestModelIds("abcdefghijkl", ["abcdefghjikl"])).toEqual(["abcdefghjikl"]);
    expect(closestModelIds("abcdefghijkl", ["abcdefghwxyz"])).toEqual([]);
    expect(closestModelIds("abcdefghijkl", ["abcdefgh"])).toEqual(["abcdefgh"]);
    expect(closestModelIds("abcdefghijklmno", ["abcdefghijklm"])).toEqual(["abcdefghijklm"]);
  });

  it("takes an ID with letters left out or added at the end of the differing part", () => {
    expect(closestModelIds("emulator-thinkr", ["emulator-thinker"])).toEqual(["emulator-thinker"]);
    expect(closestModelIds("qwen-72b-instrct", ["qwen-72b-instruct"])).toEqual([
      "qwen-72b-instruct",
    ]);
    expect(closestModelIds("gpt-4o-mnii", ["gpt-4o-mini"])).toEqual(["gpt-4o-mini"]);
  });

  it("finds the part that differs from both ends, even when one ID is the other's prefix and suffix", () => {
    expect(closestModelIds("aaaa", ["aaaaaa"])).toEqual(["aaaaaa"]);
    expect(closestModelIds("abab-x", ["abab-yz"])).toEqual([]);
    expect(closestModelIds("mod-xy-end", ["mod-yx-end"])).toEqual(["mod-yx-end"]);
  });
});

describe("closestModelIds at the edges of its rule", () => {
  // Each pair sits where a bound of the rule decides: the limit of two edits, or a third of the
  // longer ID; the part that differs once the shared prefix and suffix are set aside.
  it.each<[string, string, boolean]>([
    ["a", "b", true], // one edit, within the two any ID is allowed
    ["aaa", "baac", true], // two edits, and the differing part is all of it
    ["aaa-", "aaaca-", true],
    ["-aa-", "-aaaa-", true], // letters added in the middle
    ["-aaaax", "-aax", true], // letters left out
    ["bxa", "baaxa", true],
    ["aaaaxaaax", "aaaaax", true], // three edits: a third of 9
    ["ac", "aaa-c", false], // three edits: over the two a 5-letter ID allows
    ["a-", "aaa", false],
    ["cc", "acac", false], // the shared suffix does not reach into the shared prefix
    ["aaa-", "xa-", false],
    ["aa", "-", false],
  ])("for %j, suggests %j: %s", (wanted, id, suggested) => {
    expect(closestModelIds(wanted, [id])).toEqual(suggested ? [id] : []);
  });
});

describe("availableModelsText: its sentence", () => {
  it("offers every near miss, joined by `or`", () => {
    expect(availableModelsText("model", ["model-a", "model-b"])).toBe(
      'Did you mean "model-a" or "model-b"? The service lists 2 models: model-a, model-b.',
    );
  });

  it("lists exactly 20 IDs without saying there are more", () => {
    const twenty = Array.from({ length: 20 }, (_, i) => `m${i}`);
    expect(availableModelsText("zzzz", twenty)).toBe(
      `The service lists 20 models: ${twenty.join(", ")}.`,
    );
  });
});
