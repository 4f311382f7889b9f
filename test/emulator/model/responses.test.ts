import { describe, expect, it } from "vitest";
import {
  openReasoning,
  parseResponsesRequest,
  reasoningItemProblem,
  sealReasoning,
} from "../../../src/emulator/model/responses.js";

describe("the emulator's sealed reasoning", () => {
  it("opens what it sealed for the same item, and nothing else", () => {
    const sealed = sealReasoning("rs_1", "thought");
    expect(openReasoning("rs_1", sealed)).toBe("thought");
    expect(openReasoning("rs_2", sealed)).toBeUndefined();
    expect(openReasoning("rs_1", `${sealed}x`)).toBeUndefined();
    expect(openReasoning("rs_1", "not sealed")).toBeUndefined();
  });

  it("refuses an item sent by ID alone (404) and a tampered one (400 invalid_encrypted_content)", () => {
    expect(
      reasoningItemProblem([{ id: "rs_1", encrypted_content: sealReasoning("rs_1", "t") }]),
    ).toBeUndefined();
    expect(reasoningItemProblem([{ id: "rs_1" }])).toMatchObject({ status: 404, code: null });
    expect(reasoningItemProblem([{ id: "rs_1", encrypted_content: "a.b" }])).toMatchObject({
      status: 400,
      code: "invalid_encrypted_content",
    });
  });
});

describe("parseResponsesRequest", () => {
  it("reads input items as chat turns: calls join their assistant turn, outputs become tool turns", () => {
    const request = parseResponsesRequest(
      JSON.stringify({
        model: "m",
        instructions: "Be brief.",
        input: [
          { type: "message", role: "user", content: "Weather in Paris?" },
          {
            id: "rs_1",
            type: "reasoning",
            summary: [],
            encrypted_content: sealReasoning("rs_1", "t"),
          },
          {
            type: "function_call",
            call_id: "c1",
            name: "get_weather",
            arguments: '{"city":"Paris"}',
          },
          { type: "function_call_output", call_id: "c1", output: "Sunny" },
        ],
        include: ["reasoning.encrypted_content"],
        reasoning: { effort: "low", summary: "auto" },
        max_output_tokens: 16,
      }),
    );
    expect(request.messages).toEqual([
      { role: "system", content: "Be brief.", toolCalls: [] },
      { role: "user", content: "Weather in Paris?", toolCalls: [] },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "c1", name: "get_weather", arguments: '{"city":"Paris"}' }],
        reasoning: "t",
      },
      { role: "tool", content: "Sunny", toolCalls: [], toolCallId: "c1" },
    ]);
    expect(request.maxTokens).toBe(16);
    expect(request.responses).toMatchObject({ summary: true, encrypted: true });
  });

  it.each([
    [{ model: "m", input: [] }, /input must be a string or a non-empty array/],
    [
      { model: "m", input: "hi", previous_response_id: "resp_1" },
      /Previous response with id 'resp_1' not found/,
    ],
    [{ model: "m", input: "hi", tools: [{ type: "web_search" }] }, /serves no built-in tools/],
  ])("refuses %j", (body, message) => {
    expect(() => parseResponsesRequest(JSON.stringify(body))).toThrow(message);
  });
});
