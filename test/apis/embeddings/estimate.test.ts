import { describe, expect, it } from "vitest";
import { estimateEmbeddingRequest } from "../../../src/apis/embeddings/estimate.js";

describe("estimateEmbeddingRequest", () => {
  it("reserves the tokens of the inputs and no output", () => {
    expect(estimateEmbeddingRequest({ input: ["abc", "abcdef"] }, "e")).toEqual({
      model: "e",
      inputTokens: 3,
      maxOutputTokens: 0,
      choices: 1,
    });
    expect(estimateEmbeddingRequest({ input: "abcdefg" }, "e").inputTokens).toBe(3);
  });
});
