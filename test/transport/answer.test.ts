import { describe, expect, it } from "vitest";
import { EndpointNotReadyError, MalformedResponseError } from "../../src/errors/errors.js";
import {
  checkChatCompletion,
  completionAsChunks,
  parseCompletion,
  readRerank,
  textOfChoice,
} from "../../src/transport/answer.js";

const ctx = { surface: "dedicated" as const, serviceName: "t.a", secrets: ["sk-secret-1234"] };
const response = (headers: Record<string, string> = {}) => new Response(null, { headers });

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
      let error: unknown;
      try {
        checkChatCompletion(data, headers, hosted);
      } catch (e) {
        error = e;
      }
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
    let error: MalformedResponseError | undefined;
    try {
      parseCompletion(body, response(), ctx);
    } catch (e) {
      error = e as MalformedResponseError;
    }

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
  ])(
    "refuses %s as a MalformedResponseError with the request ID",
    (_label, data, count, detail) => {
      let error: unknown;
      try {
        readRerank(data, headers, hosted, count, count);
      } catch (e) {
        error = e;
      }
      expect(MalformedResponseError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({ requestId: "rid-r", status: 200, retryable: false });
      expect((error as MalformedResponseError).summary).toContain(detail);
    },
  );
});
