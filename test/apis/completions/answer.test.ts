import { describe, expect, it } from "vitest";
import { parseCompletion } from "../../../src/apis/completions/answer.js";
import { EndpointNotReadyError, MalformedResponseError } from "../../../src/errors/errors.js";
import { expectMalformed, thrownBy } from "../../helpers/answer_checks.js";

const ctx = { surface: "dedicated" as const, serviceName: "t.a", secrets: ["sk-secret-1234"] };
const response = (headers: Record<string, string> = {}) => new Response(null, { headers });

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
    const error = thrownBy(() =>
      parseCompletion(data, response({ "X-Gateway-Request-Id": "rid-2" }), ctx),
    );
    expectMalformed(error, "rid-2", "a choice has an empty text and no finish reason");
  });

  it("reads an empty text that ended with a finish reason as an empty answer", () => {
    const data = { choices: [{ index: 0, text: "", finish_reason: "length" }] };
    expect(parseCompletion(data, response(), ctx)).toMatchObject([
      { text: "", generationInfo: { finishReason: "length" } },
    ]);
  });

  it.each([
    ["no JSON at all", undefined],
    ["an empty text", ""],
  ])("treats an empty body (%s) as the empty answer of a Pending endpoint", (_label, data) => {
    expect(() => parseCompletion(data, response(), ctx)).toThrow(EndpointNotReadyError);
  });

  it.each([
    ["a null body", null],
    ["a body without choices", { id: "c1" }],
    ["an empty choices array", { choices: [] }],
  ])("refuses %s as malformed, saying no choice has a text", (_label, data) => {
    const error = thrownBy(() =>
      parseCompletion(data, response({ "X-Gateway-Request-Id": "rid-3" }), ctx),
    );
    expectMalformed(
      error,
      "rid-3",
      "the JSON body has neither choices[].text nor choices[].message.content",
    );
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

  it.each([
    ["nothing else", { message: {} }],
    ["a finish reason", { message: {}, finish_reason: "stop" }],
    ["tool calls", { message: { tool_calls: [{ id: "t1" }] } }],
  ])("rejects a choice that has no text in any known shape, even with %s", (_label, choice) => {
    const error = thrownBy(() =>
      parseCompletion(
        { choices: [{ text: "ok" }, choice] },
        response({ "X-Gateway-Request-Id": "rid-4" }),
        ctx,
      ),
    );
    expectMalformed(
      error,
      "rid-4",
      "the JSON body has neither choices[].text nor choices[].message.content",
    );
  });
});
