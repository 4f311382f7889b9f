import { describe, expect, it } from "vitest";
import { checkChatCompletion } from "../../../src/apis/chat/answer.js";
import { MalformedResponseError } from "../../../src/errors/errors.js";
import { thrownBy } from "../../helpers/answer_checks.js";

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
