import { describe, expect, it } from "vitest";
import { availableModelsText, closestModelIds } from "../../src/errors/available_models.js";

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
