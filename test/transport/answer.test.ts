import { describe, expect, it } from "vitest";
import { EndpointNotReadyError, MalformedResponseError } from "../../src/errors/errors.js";
import {
  checkChatCompletion,
  completionAsChunks,
  parseCompletion,
  readEmbeddings,
  readRerank,
  textOfChoice,
} from "../../src/transport/answer.js";

const ctx = { surface: "dedicated" as const, serviceName: "t.a", secrets: ["sk-secret-1234"] };
const response = (headers: Record<string, string> = {}) => new Response(null, { headers });

/** What `run` throws (undefined if it returns). */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** `error` is the MalformedResponseError of a 200 answer with `requestId`, its summary saying `detail`. */
function expectMalformed(error: unknown, requestId: string, detail: string): void {
  expect(MalformedResponseError.isInstance(error), String(error)).toBe(true);
  expect(error).toMatchObject({ requestId, status: 200, retryable: false });
  expect((error as MalformedResponseError).summary).toContain(detail);
}

describe("checkChatCompletion", () => {
  const hosted = { surface: "hosted" as const, model: "m" };

  it("returns a chat completion with choices as it is", () => {
    const data = { choices: [{ message: { content: "hi" } }] };
    expect(checkChatCompletion(data, new Headers(), hosted)).toBe(data);
  });

  it.each([
    ["no choices", {}],
    ["empty choices", { choices: [] }],
    ["choices that are not an array", { choices: { 0: {} } }],
    ["no body", undefined],
    ["a string", "<html>"],
    ["an empty choice", { choices: [{}] }],
    ["a null message", { choices: [{ index: 0, message: null, finish_reason: "stop" }] }],
    [
      "a message with nothing in it",
      { choices: [{ message: { role: "assistant", content: null } }] },
    ],
    ["empty tool calls", { choices: [{ message: { content: null, tool_calls: [] } }] }],
    ["one empty choice among good ones", { choices: [{ message: { content: "a" } }, {}] }],
  ])(
    "refuses %s as a MalformedResponseError carrying the request ID (docs/service-contract.md#errors, rule 4)",
    (_label, data) => {
      const headers = new Headers({ "x-gateway-request-id": "rid-3" });
      const error = thrownBy(() => checkChatCompletion(data, headers, hosted));
      expect(MalformedResponseError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ requestId: "rid-3", surface: "hosted", retryable: false });
    },
  );
});

describe("checkChatCompletion: a choice that carries an answer", () => {
  const hosted = { surface: "hosted" as const, model: "m" };
  const message = (fields: Record<string, unknown>, finish: string | null = null) => ({
    choices: [{ index: 0, message: { role: "assistant", ...fields }, finish_reason: finish }],
  });

  it.each([
    ["text", message({ content: "hi" }, "stop")],
    ["an empty text with its finish reason", message({ content: "" }, "stop")],
    [
      "tool calls with null content",
      message({ content: null, tool_calls: [{ id: "c", type: "function" }] }, "tool_calls"),
    ],
    ["reasoning with null content", message({ content: null, reasoning_content: "r" }, "length")],
    ["a refusal", message({ content: null, refusal: "no" }, "stop")],
    ["null content cut by a finish reason", message({ content: null }, "content_filter")],
  ])("passes %s", (_label, data) => {
    expect(checkChatCompletion(data, new Headers(), hosted)).toBe(data);
  });
});

describe("parseCompletion", () => {
  it("prefers choices[].text over message.content and keeps one generation per choice", () => {
    const generations = parseCompletion(
      {
        choices: [
          { text: "a", message: { content: "ignored" }, finish_reason: "stop" },
          { message: { content: "b" }, finish_reason: null },
        ],
        usage: { prompt_tokens: 2, completion_tokens: 3 },
      },
      response({ "X-Gateway-Request-Id": "rid-9" }),
      ctx,
    );

    expect(generations).toEqual([
      {
        text: "a",
        generationInfo: {
          finishReason: "stop",
          requestId: "rid-9",
          tokenUsage: { promptTokens: 2, completionTokens: 3, totalTokens: 5 },
        },
      },
      {
        text: "b",
        generationInfo: {
          requestId: "rid-9",
          tokenUsage: { promptTokens: 2, completionTokens: 3, totalTokens: 5 },
        },
      },
    ]);
  });

  it.each([
    ["an empty text with no finish reason", { choices: [{ index: 0, text: "" }] }],
    ["an empty chat content with no finish reason", { choices: [{ message: { content: "" } }] }],
    ["one empty choice among good ones", { choices: [{ text: "a" }, { text: "" }] }],
  ])("refuses %s, as a stream of them is refused", (_label, data) => {
    expect(() => parseCompletion(data, response(), ctx)).toThrow(MalformedResponseError);
  });

  it("reads an empty text that ended with a finish reason as an empty answer", () => {
    const data = { choices: [{ index: 0, text: "", finish_reason: "length" }] };
    expect(parseCompletion(data, response(), ctx)).toMatchObject([
      { text: "", generationInfo: { finishReason: "length" } },
    ]);
  });

  it("treats an empty body as the empty answer of a Pending endpoint", () => {
    expect(() => parseCompletion(undefined, response(), ctx)).toThrow(EndpointNotReadyError);
  });

  it("shows the start of an unreadable body, cut at 100 characters and without secrets", () => {
    const body = { echo: "sk-secret-1234", answer: "x".repeat(300) };
    const error = thrownBy(() => parseCompletion(body, response(), ctx)) as
      | MalformedResponseError
      | undefined;

    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error?.message).toContain(`(body starts: {"echo":"[redacted]","answer":"xxx`);
    expect(error?.message).not.toContain("sk-secret-1234");
    expect(error?.message).toContain("…");
    expect(error?.message).not.toContain("x".repeat(101));
  });

  it("rejects a choice that has no text in any known shape", () => {
    expect(() =>
      parseCompletion({ choices: [{ text: "ok" }, { message: {} }] }, response(), ctx),
    ).toThrow(MalformedResponseError);
  });
});

describe("textOfChoice", () => {
  it("reads stream deltas in the chat shape", () => {
    expect(textOfChoice({ delta: { content: "hi" } }, "delta")).toBe("hi");
    expect(textOfChoice({ delta: { content: 1 } }, "delta")).toBeUndefined();
  });
});

describe("completionAsChunks", () => {
  it("makes a chat completion one chunk per choice, each message its delta, then a usage chunk", () => {
    const call = { id: "call_1", type: "function", function: { name: "f", arguments: "{}" } };
    const usage = { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 };
    const chunks = completionAsChunks({
      id: "c",
      object: "chat.completion",
      model: "m",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: null, tool_calls: [call] },
          finish_reason: "tool_calls",
        },
        {
          index: 1,
          message: { role: "assistant", content: "Hi", reasoning_content: "r" },
          finish_reason: "stop",
        },
      ],
      usage,
    });
    expect(chunks).toEqual([
      {
        id: "c",
        object: "chat.completion.chunk",
        model: "m",
        choices: [
          {
            index: 0,
            finish_reason: "tool_calls",
            delta: { role: "assistant", content: null, tool_calls: [{ index: 0, ...call }] },
          },
        ],
      },
      {
        id: "c",
        object: "chat.completion.chunk",
        model: "m",
        choices: [
          {
            index: 1,
            finish_reason: "stop",
            delta: { role: "assistant", content: "Hi", reasoning_content: "r" },
          },
        ],
      },
      { id: "c", object: "chat.completion.chunk", model: "m", choices: [], usage },
    ]);
  });

  it("keeps a text completion's choices as they are, one chunk each", () => {
    const choice = { index: 0, text: "Once", finish_reason: "stop" };
    expect(completionAsChunks({ id: "t", object: "text_completion", choices: [choice] })).toEqual([
      { id: "t", object: "text_completion", choices: [choice] },
    ]);
  });

  it.each([
    ["no choices", { id: "x" }],
    ["choices that are not an array", { choices: {} }],
    ["a JSON literal", 42],
    ["nothing", undefined],
  ])("gives undefined for %s", (_label, data) => {
    expect(completionAsChunks(data)).toBeUndefined();
  });
});

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
