import { describe, expect, it } from "vitest";
import { estimateRerankRequest } from "../../../src/apis/rerank/estimate.js";

describe("estimateRerankRequest", () => {
  it("counts the query once per document, read with it, strings and { text } alike, and no output", () => {
    // "abc": 1 token; "abcdef": 2; "abcdefghi": 3.
    const body = { query: "abc", documents: ["abcdef", { text: "abcdefghi" }, 7], top_n: 2 };
    expect(estimateRerankRequest(body, "r")).toEqual({
      model: "r",
      inputTokens: 1 + 2 + (1 + 3) + 1,
      maxOutputTokens: 0,
      choices: 1,
    });
    expect(estimateRerankRequest({ query: "abc" }, "r").inputTokens).toBe(0);
  });
  it("counts a rerank document that is null as nothing but the query", () => {
    expect(estimateRerankRequest({ query: "abc", documents: [null] }, "r").inputTokens).toBe(1);
  });
});
