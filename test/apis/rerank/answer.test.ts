import { describe, expect, it } from "vitest";
import { readRerank } from "../../../src/apis/rerank/answer.js";
import { MalformedResponseError } from "../../../src/errors/errors.js";
import { expectMalformed, thrownBy } from "../../helpers/answer_checks.js";

describe("readRerank", () => {
  const hosted = { surface: "hosted" as const, model: "r", api: "rerank" as const };
  const headers = new Headers({ "x-gateway-request-id": "rid-r" });
  const result = (index: unknown, relevance_score: unknown = 0.5) => ({ index, relevance_score });

  it("returns the results in the service's order, index and score, leaving out the rest", () => {
    const data = {
      results: [result(2, 0.1), { ...result(0, 0.9), document: { text: "x" } }],
      usage: { total_tokens: 3 },
    };
    expect(readRerank(data, headers, hosted, 3, 2)).toEqual([
      { index: 2, relevanceScore: 0.1 },
      { index: 0, relevanceScore: 0.9 },
    ]);
  });

  it.each([
    ["no results", {}, 2, "the JSON body has no `results` array"],
    ["a missing result", { results: [result(0)] }, 2, "`results` holds 1 results for 2 documents"],
    ["a repeated index", { results: [result(1), result(1)] }, 2, "two results have the index 1"],
    [
      "an index as a string",
      { results: [result("0"), result(1)] },
      2,
      "`results[0].index` is not a position",
    ],
    [
      "a null score",
      { results: [result(0, null), result(1)] },
      2,
      "`results[0].relevance_score` is not a finite number",
    ],
    [
      "a negative index",
      { results: [result(-1), result(1)] },
      2,
      "`results[0].index` is not a position of the documents (0 to 1)",
    ],
    [
      "an index one past the documents",
      { results: [result(0), result(2)] },
      2,
      "`results[1].index` is not a position of the documents (0 to 1)",
    ],
    [
      "a score as a string",
      { results: [result(0, "0.5"), result(1)] },
      2,
      "`results[0].relevance_score` is not a finite number",
    ],
    [
      "an infinite score",
      { results: [result(0), result(1, Number.POSITIVE_INFINITY)] },
      2,
      "`results[1].relevance_score` is not a finite number",
    ],
  ])(
    "refuses %s as a MalformedResponseError with the request ID",
    (_label, data, count, detail) => {
      expectMalformed(
        thrownBy(() => readRerank(data, headers, hosted, count, count)),
        "rid-r",
        detail,
      );
    },
  );

  it("names top_n when fewer results were asked for than documents sent", () => {
    expect(() => readRerank({ results: [result(0)] }, headers, hosted, 3, 2)).toThrow(
      expect.objectContaining({
        summary: expect.stringContaining("`results` holds 1 results for top_n 2 of 3 documents"),
      }),
    );
  });

  it("is the error an `{error: …}` body carries, not a malformed answer", () => {
    const data = {
      error: { code: "model_not_found", message: "no such model", type: "new_api_error" },
    };
    const error = thrownBy(() => readRerank(data, headers, hosted, 1, 1));
    expect(MalformedResponseError.isInstance(error)).toBe(false);
    expect(error).toMatchObject({ code: "model_not_found", requestId: "rid-r" });
  });
});
