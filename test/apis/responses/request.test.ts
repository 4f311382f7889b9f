import { describe, expect, it } from "vitest";
import { responsesBody } from "../../../src/apis/responses/request.js";
import { ConfigurationError } from "../../../src/errors/errors.js";

const input = [{ type: "message" as const, role: "user" as const, content: "hi" }];

describe("responsesBody", () => {
  it("renames the chat fields: max_tokens, reasoning_effort, response_format, tools, tool_choice", () => {
    const body = responsesBody(
      {
        model: "m",
        temperature: 0,
        max_completion_tokens: 32,
        reasoning_effort: "high",
        response_format: {
          type: "json_schema",
          json_schema: { name: "x", schema: { type: "object" } },
        },
        verbosity: "low",
        tools: [{ type: "function", function: { name: "f", description: "d", parameters: {} } }],
        tool_choice: { type: "function", function: { name: "f" } },
        stream_options: { include_usage: true },
        parallel_tool_calls: false,
        messages: [],
      },
      { input, stream: true },
    );
    expect(body).toEqual({
      store: false,
      include: ["reasoning.encrypted_content"],
      model: "m",
      temperature: 0,
      parallel_tool_calls: false,
      input,
      max_output_tokens: 32,
      reasoning: { effort: "high", summary: "auto" },
      text: {
        format: { type: "json_schema", name: "x", schema: { type: "object" } },
        verbosity: "low",
      },
      tools: [{ type: "function", name: "f", description: "d", parameters: {}, strict: false }],
      tool_choice: { type: "function", name: "f" },
      stream: true,
    });
  });

  it("keeps a call stateless unless modelKwargs or previous_response_id say otherwise", () => {
    expect(responsesBody({ model: "m" }, { input, stream: false })).toMatchObject({ store: false });
    expect(responsesBody({ model: "m", store: true }, { input, stream: false }).store).toBe(true);
    const continued = responsesBody(
      { model: "m" },
      { input, stream: false, previousResponseId: "r" },
    );
    expect(continued.previous_response_id).toBe("r");
  });

  it('asks no reasoning of a model that does not reason, nor of effort "none"', () => {
    for (const effort of [undefined, "none"]) {
      const body = responsesBody(
        { model: "m", reasoning_effort: effort },
        { input, stream: false },
      );
      expect(body).not.toHaveProperty("include");
      expect(body.reasoning).toEqual(effort ? { effort } : undefined);
    }
    expect(responsesBody({ model: "m" }, { input, stream: false, reasons: true })).toMatchObject({
      include: ["reasoning.encrypted_content"],
      reasoning: { summary: "auto" },
    });
  });

  it.each([
    ["stop", ["\n"]],
    ["n", 2],
    ["logprobs", true],
    ["presence_penalty", 0.5],
    ["seed", 1],
  ])("refuses %s, which the Responses API does not take", (field, value) => {
    expect(() => responsesBody({ model: "m", [field]: value }, { input, stream: false })).toThrow(
      ConfigurationError,
    );
  });

  it("lets an empty stop list and n of 1 pass", () => {
    expect(() =>
      responsesBody({ model: "m", stop: [], n: 1 }, { input, stream: false }),
    ).not.toThrow();
  });
});
