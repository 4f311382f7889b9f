import { describe, expect, it } from "vitest";
import { completionAsChunks, textOfChoice } from "../../src/transport/answer.js";

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
