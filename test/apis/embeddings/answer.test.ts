import { describe, expect, it } from "vitest";
import { readEmbeddings } from "../../../src/apis/embeddings/answer.js";
import { expectMalformed, thrownBy } from "../../helpers/answer_checks.js";

describe("readEmbeddings", () => {
  const hosted = { surface: "hosted" as const, model: "e", api: "embeddings" as const };
  const headers = new Headers({ "x-gateway-request-id": "rid-e" });
  const base64 = (numbers: number[]) =>
    Buffer.from(new Float32Array(numbers).buffer).toString("base64");

  it("places each vector by its index, whatever order the items arrive in", () => {
    const data = {
      data: [
        { index: 1, embedding: [0.5, 0.25] },
        { index: 0, embedding: base64([1, -2]) },
      ],
    };
    expect(readEmbeddings(data, headers, hosted, 2)).toEqual([
      [1, -2],
      [0.5, 0.25],
    ]);
  });

  it("takes items in their order when none has an index", () => {
    const data = { data: [{ embedding: [1] }, { embedding: [2] }] };
    expect(readEmbeddings(data, headers, hosted, 2, { length: 1, source: "asked" })).toEqual([
      [1],
      [2],
    ]);
  });

  const item = (index: unknown, embedding: unknown = [1, 2]) => ({ index, embedding });
  it.each([
    ["no data", {}, "the JSON body has no `data` array of embeddings"],
    ["a missing vector", { data: [item(0)] }, "`data` holds 1 embeddings for 2 inputs"],
    [
      "a negative index",
      { data: [item(-1), item(1)] },
      "`data[0].index` is not a position of the inputs (0 to 1)",
    ],
    [
      "an index one past the inputs",
      { data: [item(0), item(2)] },
      "`data[1].index` is not a position of the inputs (0 to 1)",
    ],
    ["a fractional index", { data: [item(0.5), item(1)] }, "`data[0].index` is not a position"],
    [
      "an index left out where others have one",
      { data: [item(0), { embedding: [1, 2] }] },
      "`data[1].index` is not a position",
    ],
    ["a repeated index", { data: [item(1), item(1)] }, "two items of `data` have the index 1"],
    [
      "a vector of strings",
      { data: [item(0, ["1", "2"]), item(1)] },
      "`data[0].embedding` is neither numbers nor base64 float32",
    ],
    [
      "a vector with one string",
      { data: [item(0, [1, "2"]), item(1)] },
      "`data[0].embedding` is neither numbers nor base64 float32",
    ],
    [
      "base64 that is not float32",
      { data: [item(0, "abc"), item(1)] },
      "`data[0].embedding` is neither numbers nor base64 float32",
    ],
    ["an empty vector", { data: [item(0, []), item(1)] }, "`data[0].embedding` is empty"],
    [
      "a NaN",
      { data: [item(0), item(1, [1, Number.NaN])] },
      "`data[1].embedding` holds NaN or ±Infinity",
    ],
    [
      "vectors of two lengths",
      { data: [item(0, [1, 2]), item(1, [1, 2, 3])] },
      "the embeddings are not all of one length",
    ],
  ])("refuses %s as a MalformedResponseError with the request ID", (_label, data, detail) => {
    expectMalformed(
      thrownBy(() => readEmbeddings(data, headers, hosted, 2)),
      "rid-e",
      detail,
    );
  });

  it("refuses vectors not of the expected length, saying where that length comes from", () => {
    const expected = { length: 3, source: "`dimensions` asked for" };
    expect(() => readEmbeddings({ data: [item(0)] }, headers, hosted, 1, expected)).toThrow(
      expect.objectContaining({
        summary: expect.stringContaining(
          "`data[0].embedding` has 2 dimensions where `dimensions` asked for 3",
        ),
      }),
    );
  });
});
