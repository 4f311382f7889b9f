import { describe, expect, it } from "vitest";
import {
  estimateChatRequest,
  estimateCompletionRequest,
  estimateTokens,
  StreamReading,
  worstCaseOutputTokens,
} from "../../src/spend/estimate.js";
import { pdf, png } from "../helpers/media.js";

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
    // 3 reply priming + 3 × 4 framing + "abcdef" 2 + ("abc" 1 + an image of unknown size 3279)
    // + tool calls 4 (12 bytes of JSON) + tools 7 (21)
    expect(estimate).toEqual({ model: "m", inputTokens: 3308, maxOutputTokens: 50, choices: 2 });
  });

  it("reserves images and PDFs at their real size, or at the rates of the model's profile", () => {
    const body = {
      messages: [
        {
          role: "user",
          content: [
            { type: "image_url", image_url: { url: png(1500, 1500) } },
            { type: "file", file: { file_data: pdf(20), filename: "report.pdf" } },
          ],
        },
      ],
    };
    // 3 + 4 + an image of 3,000 + 20 pages of 3,000.
    expect(estimateChatRequest(body, "m").inputTokens).toBe(63_007);
    expect(estimateChatRequest(body, "m", { image: 258, pdfPage: 1000 }).inputTokens).toBe(20_265);
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

describe("estimateTokens at the edges of UTF-8", () => {
  const encoder = new TextEncoder();
  /** Three of `char`: a token per character of three bytes, half a token per one of two. */
  it.each([
    ["U+007F, the last 1-byte character", "\u007f", 3],
    ["U+0080, the first 2-byte character", "\u0080", 6],
    ["U+07FF, the last 2-byte character", "\u07ff", 6],
    ["U+0800, the first 3-byte character", "\u0800", 9],
    ["U+D7FF, the last character before the surrogates", "\ud7ff", 9],
    ["U+E000, the first character after them", "\ue000", 9],
    ["a pair of the first surrogates (U+10000)", "\ud800\udc00", 12],
    ["a pair of the last surrogates (U+10FFFF)", "\udbff\udfff", 12],
  ])("counts %s as the bytes the encoder sends", (_name, char, bytes) => {
    const text = char.repeat(3);
    expect(encoder.encode(text)).toHaveLength(bytes);
    expect(estimateTokens(text)).toBe(Math.ceil(bytes / 3));
  });

  it("counts a lone low surrogate as the 3-byte replacement character the encoder sends", () => {
    expect(encoder.encode("\udc00\udfff\udc00")).toHaveLength(9);
    expect(estimateTokens("\udc00\udfff\udc00")).toBe(3);
  });

  it("reads a high surrogate and the code unit after it as one 4-byte character", () => {
    // Lone, it takes "a" with it: 4 bytes, then "bc", 6 in all, as the encoder's 3 + 3.
    expect(encoder.encode("\ud800abc")).toHaveLength(6);
    expect(estimateTokens("\ud800abc")).toBe(2);
    expect(estimateTokens("\udbffabc")).toBe(2);
  });
});

describe("the estimate of a request's reply", () => {
  it.each([
    ["a string", "50"],
    ["NaN", Number.NaN],
    ["a negative number", -1],
    ["infinity", Number.POSITIVE_INFINITY],
    ["null", null],
  ])("leaves the reply size open when max_tokens is %s", (_name, max) => {
    expect(estimateChatRequest({ messages: [], max_tokens: max }, "m").maxOutputTokens).toBe(
      undefined,
    );
    expect(
      estimateCompletionRequest({ prompt: "", max_completion_tokens: max }, "m").maxOutputTokens,
    ).toBe(undefined);
  });

  it("takes max_tokens of 0 as a reply of no tokens", () => {
    expect(estimateChatRequest({ messages: [], max_tokens: 0 }, "m").maxOutputTokens).toBe(0);
  });

  it.each([
    ["a string", "3"],
    ["NaN", Number.NaN],
    ["a negative number", -3],
    ["a fraction", 2.5],
    ["zero", 0],
    ["one", 1],
  ])("counts one choice when n is %s", (_name, n) => {
    expect(estimateChatRequest({ messages: [], n }, "m").choices).toBe(1);
    expect(estimateCompletionRequest({ prompt: "", n }, "m").choices).toBe(1);
  });

  it("counts n choices of max_tokens each in the worst case, or of defaultReplyTokens without it", () => {
    const capped = estimateChatRequest({ messages: [], n: 3, max_tokens: 10 }, "m");
    expect(worstCaseOutputTokens(capped, 1024)).toBe(30);
    const open = estimateChatRequest({ messages: [], n: 2 }, "m");
    expect(worstCaseOutputTokens(open, 100)).toBe(200);
  });
});

describe("the estimate of a request's prompt", () => {
  const base = estimateChatRequest({ messages: [] }, "m").inputTokens;

  it("adds the JSON of `functions` and of `response_format`", () => {
    // `[{"name":"f"}]` is 14 bytes: 5 tokens; `{"type":"json_object"}` 22: 8.
    const functions = [{ name: "f" }];
    const format = { type: "json_object" };
    expect(estimateChatRequest({ messages: [], functions }, "m").inputTokens).toBe(base + 5);
    expect(estimateChatRequest({ messages: [], response_format: format }, "m").inputTokens).toBe(
      base + 8,
    );
    expect(
      estimateChatRequest({ messages: [], functions, response_format: format }, "m").inputTokens,
    ).toBe(base + 13);
  });

  it("counts a message's string parts, and nothing for content that is neither text nor parts", () => {
    const tokens = (content: unknown) =>
      estimateChatRequest({ messages: [{ role: "user", content }] }, "m").inputTokens - base - 4;
    expect(tokens(["abcdef", { type: "text", text: "abc" }])).toBe(3);
    expect(tokens(42)).toBe(0);
    expect(tokens({ text: "abcdef" })).toBe(0);
    expect(tokens([null, 7])).toBe(0);
  });

  it("counts nothing for tools it cannot write as JSON", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(estimateChatRequest({ messages: [], tools: cyclic }, "m").inputTokens).toBe(base);
    expect(estimateChatRequest({ messages: [], tools: null }, "m").inputTokens).toBe(base);
  });

  it("counts only the string prompts of a completion request", () => {
    expect(
      estimateCompletionRequest({ prompt: ["abc", 7, null, "abcdef"] }, "t.a").inputTokens,
    ).toBe(3);
    expect(estimateCompletionRequest({ prompt: 42 }, "t.a").inputTokens).toBe(0);
  });
});

describe("estimates of one character and of malformed parts", () => {
  it("counts a single character by its own bytes: one token up to 3 bytes, two for a pair of surrogates", () => {
    expect(estimateTokens("\ue000")).toBe(1);
    expect(estimateTokens("\udc00")).toBe(1); // a lone low surrogate: the 3-byte replacement
    expect(estimateTokens("\udbff\udfff")).toBe(2);
  });

  it("counts no tokens for null tools or response format, and framing only for a null message", () => {
    const bare = estimateChatRequest({ messages: [] }, "m").inputTokens;
    expect(
      estimateChatRequest({ messages: [], tools: null, response_format: null }, "m").inputTokens,
    ).toBe(bare);
    expect(estimateChatRequest({ messages: [null] }, "m").inputTokens).toBe(bare + 4);
  });
});
