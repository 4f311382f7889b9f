import { describe, expect, it } from "vitest";
import {
  estimateChatRequest,
  estimateCompletionRequest,
  estimateRerankRequest,
  estimateTokens,
  StreamReading,
} from "../../src/spend/estimate.js";

describe("estimateTokens", () => {
  it("counts one token per three UTF-8 bytes, leaning high for English and near exact for CJK", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("hello world!")).toBe(4); // 12 bytes
    expect(estimateTokens("你好世界")).toBe(4); // 12 bytes, four characters
    expect(estimateTokens("é")).toBe(1); // 2 bytes
    expect(estimateTokens("😀😀😀")).toBe(4); // a surrogate pair is one 4-byte character
  });
});

describe("estimateChatRequest", () => {
  it("counts the reasoning sent back with an assistant message", () => {
    const message = { role: "assistant", content: null, tool_calls: [] };
    const without = estimateChatRequest({ messages: [message] }, "m").inputTokens;
    const withReasoning = estimateChatRequest(
      { messages: [{ ...message, reasoning_content: "abcdefghi" }] },
      "m",
    ).inputTokens;
    expect(withReasoning - without).toBe(3);
  });

  it("adds message framing, text parts, media parts, tool calls and tools; reads max_tokens and n", () => {
    const estimate = estimateChatRequest(
      {
        messages: [
          { role: "system", content: "abcdef" },
          {
            role: "user",
            content: [
              { type: "text", text: "abc" },
              { type: "image_url", image_url: { url: "x" } },
            ],
          },
          { role: "assistant", content: null, tool_calls: [{ id: "1" }] },
        ],
        tools: [{ type: "function" }],
        max_tokens: 50,
        n: 2,
      },
      "m",
    );
    // 3 reply priming + 3 × 4 framing + "abcdef" 2 + ("abc" 1 + an image 1000) + tool calls 4
    // (12 bytes of JSON) + tools 7 (21)
    expect(estimate).toEqual({ model: "m", inputTokens: 1029, maxOutputTokens: 50, choices: 2 });
  });

  it("prefers max_completion_tokens and leaves the reply size open when neither is set", () => {
    expect(
      estimateChatRequest({ messages: [], max_completion_tokens: 7, max_tokens: 9 }, "m")
        .maxOutputTokens,
    ).toBe(7);
    // Even no message costs the framing that primes the reply.
    expect(estimateChatRequest({ messages: [] }, "m")).toEqual({
      model: "m",
      inputTokens: 3,
      choices: 1,
    });
  });
});

describe("estimateCompletionRequest", () => {
  it("counts a prompt, or every prompt of an array", () => {
    expect(estimateCompletionRequest({ prompt: "abcdef", max_tokens: 3 }, "t.a")).toEqual({
      model: "t.a",
      inputTokens: 2,
      maxOutputTokens: 3,
      choices: 1,
    });
    expect(estimateCompletionRequest({ prompt: ["abc", "abcd"] }, "t.a").inputTokens).toBe(3);
  });
});

describe("StreamReading", () => {
  it("keeps a byte count, not the text, and estimates its tokens", () => {
    const reading = new StreamReading();
    reading.addText("abc");
    reading.addText(undefined);
    reading.addText("defg");
    expect(reading.outputTokens).toBe(3);
    expect(reading.usage).toBeUndefined();
  });
});

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
});
