import type { Serialized } from "@langchain/core/load/serializable";
import { AIMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import { describe, expect, it } from "vitest";
import {
  cacheTokenDetails,
  modelOfRun,
  promptCacheFromWire,
  promptUsageFromWire,
  reasoningTokensFromWire,
  requestIdOfError,
  requestIdOfResult,
  runUsageFromResult,
  sumTokenUsage,
  tokenUsageFromMetadata,
  tokenUsageFromWire,
} from "../../src/spend/usage.js";

const chatModel: Serialized = {
  lc: 1,
  type: "constructor",
  id: ["langchain_inference_service", "chat_models", "ChatInferenceService"],
  kwargs: { model: "from-kwargs" },
};

function message(usage?: AIMessage["usage_metadata"], requestId?: string) {
  return new AIMessage({
    content: "ok",
    usage_metadata: usage,
    response_metadata: requestId ? { requestId } : {},
  });
}

const usage = (input: number, output: number) => ({
  input_tokens: input,
  output_tokens: output,
  total_tokens: input + output,
});

describe("modelOfRun", () => {
  it("prefers the requested model ID from the invocation params", () => {
    expect(
      modelOfRun(
        chatModel,
        { invocation_params: { model: "requested" } },
        { ls_model_name: "from-ls" },
      ),
    ).toBe("requested");
  });

  it("falls back to ls_model_name (a dedicated endpoint's Service-Name), then kwargs, then the class", () => {
    const llm: Serialized = { lc: 1, type: "not_implemented", id: ["x", "DedicatedEndpointLLM"] };
    expect(modelOfRun(llm, { invocation_params: {} }, { ls_model_name: "tenant.job" })).toBe(
      "tenant.job",
    );
    expect(modelOfRun(chatModel, undefined, undefined)).toBe("from-kwargs");
    expect(
      modelOfRun({ ...chatModel, kwargs: { service_name: "t.alias" } } as Serialized, {}, {}),
    ).toBe("t.alias");
    expect(modelOfRun(llm, undefined, undefined)).toBe("DedicatedEndpointLLM");
  });
});

describe("runUsageFromResult", () => {
  it("reads usage_metadata with its details, dropping empty details", () => {
    const result: LLMResult = {
      generations: [
        [
          {
            text: "ok",
            message: message({
              ...usage(9, 3),
              input_token_details: { cache_read: 2 },
              output_token_details: {},
            }),
          } as never,
        ],
      ],
    };
    expect(runUsageFromResult(result)).toEqual({
      inputTokens: 9,
      outputTokens: 3,
      totalTokens: 12,
      inputTokenDetails: { cache_read: 2 },
    });
  });

  it("counts only the first of n choices, which all repeat the call's usage", () => {
    const choice = { text: "ok", message: message(usage(9, 6)) } as never;
    expect(runUsageFromResult({ generations: [[choice, choice, choice]] }).totalTokens).toBe(15);
  });

  it("prefers usage_metadata over llmOutput.tokenUsage", () => {
    const result: LLMResult = {
      generations: [[{ text: "ok", message: message(usage(1, 1)) } as never]],
      llmOutput: { tokenUsage: { promptTokens: 50, completionTokens: 50, totalTokens: 100 } },
    };
    expect(runUsageFromResult(result).totalTokens).toBe(2);
  });

  it("trusts an empty llmOutput.tokenUsage over generationInfo, so a batch's sum is not counted twice", () => {
    const result: LLMResult = {
      generations: [
        [{ text: "b", generationInfo: { tokenUsage: { promptTokens: 3, completionTokens: 2 } } }],
      ],
      llmOutput: { tokenUsage: {} },
    };
    expect(runUsageFromResult(result)).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
  });

  it("reads generationInfo.tokenUsage of a streamed LLM, whose end has no llmOutput", () => {
    const result: LLMResult = {
      generations: [
        [{ text: "b", generationInfo: { tokenUsage: { promptTokens: 3, completionTokens: 2 } } }],
      ],
    };
    expect(runUsageFromResult(result)).toEqual({ inputTokens: 3, outputTokens: 2, totalTokens: 5 });
  });

  it("is zero when the model reports nothing", () => {
    expect(runUsageFromResult({ generations: [[{ text: "x" }]] })).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
    });
  });
});

describe("requestIdOfResult", () => {
  it("reads response_metadata.requestId (chat) or generationInfo.requestId (LLM)", () => {
    expect(
      requestIdOfResult({
        generations: [[{ text: "ok", message: message(undefined, "rid-chat") } as never]],
      }),
    ).toBe("rid-chat");
    expect(
      requestIdOfResult({
        generations: [[{ text: "ok", generationInfo: { requestId: "rid-llm" } }]],
      }),
    ).toBe("rid-llm");
    expect(requestIdOfResult({ generations: [[{ text: "ok" }]] })).toBeUndefined();
  });

  it("reads the request ID an error carries", () => {
    expect(requestIdOfError(Object.assign(new Error("x"), { requestId: "rid-err" }))).toBe(
      "rid-err",
    );
    expect(requestIdOfError(new Error("x"))).toBeUndefined();
    expect(requestIdOfError(undefined)).toBeUndefined();
  });
});

describe("promptUsageFromWire", () => {
  it("reads prompt_tokens, else total_tokens (Jina), as the prompt of an answer that writes nothing", () => {
    expect(promptUsageFromWire({ prompt_tokens: 5, total_tokens: 9 })).toEqual({
      promptTokens: 5,
      completionTokens: 0,
      totalTokens: 5,
    });
    expect(promptUsageFromWire({ total_tokens: 9 })).toEqual({
      promptTokens: 9,
      completionTokens: 0,
      totalTokens: 9,
    });
  });

  it("reads no tokens from Cohere's search units, a count that is not a number, or no usage", () => {
    expect(promptUsageFromWire({ billed_units: { search_units: 1 } })).toBeUndefined();
    expect(promptUsageFromWire({ prompt_tokens: "5" })).toBeUndefined();
    expect(promptUsageFromWire(undefined)).toBeUndefined();
  });
});

describe("tokenUsageFromWire and sumTokenUsage", () => {
  it("ignores non-numeric counts and derives the total when it is missing", () => {
    expect(tokenUsageFromWire({ prompt_tokens: 1, completion_tokens: 2 })).toEqual({
      promptTokens: 1,
      completionTokens: 2,
      totalTokens: 3,
    });
    expect(tokenUsageFromWire({ prompt_tokens: "1" })).toBeUndefined();
    expect(tokenUsageFromWire(null)).toBeUndefined();
  });

  it("sums several requests and counts a usage object shared by choices once", () => {
    const shared = { promptTokens: 1, completionTokens: 1, totalTokens: 2 };
    expect(sumTokenUsage([shared, shared, { promptTokens: 4 }, undefined])).toEqual({
      promptTokens: 5,
      completionTokens: 1,
      totalTokens: 2,
    });
  });

  it("turns a chat message's usage_metadata into the tokenUsage LLM callbacks expect", () => {
    expect(tokenUsageFromMetadata({ input_tokens: 3, output_tokens: 4, total_tokens: 7 })).toEqual({
      promptTokens: 3,
      completionTokens: 4,
      totalTokens: 7,
    });
  });
});

describe("reading counts that may be missing or malformed", () => {
  it("derives a total only from both counts, and keeps any one count it finds", () => {
    expect(tokenUsageFromWire({ prompt_tokens: 3 })).toEqual({ promptTokens: 3 });
    expect(tokenUsageFromWire({ completion_tokens: 2 })).toEqual({ completionTokens: 2 });
    expect(tokenUsageFromWire({ total_tokens: 5 })).toEqual({ totalTokens: 5 });
    expect(
      tokenUsageFromWire({ prompt_tokens: Number.NaN, completion_tokens: "2", total_tokens: null }),
    ).toBeUndefined();
  });

  it("reads nothing from a usage or details that are null", () => {
    expect(promptUsageFromWire(null)).toBeUndefined();
    expect(promptCacheFromWire(null).read).toBeUndefined();
    expect(promptCacheFromWire({ prompt_tokens_details: null }).read).toBeUndefined();
    expect(promptCacheFromWire({ prompt_tokens_details: { cached_tokens: 4 } }).read).toBe(4);
  });

  it("reads a model from constructor arguments only, and names none it cannot find", () => {
    const notSerialisable: Serialized = {
      lc: 1,
      type: "not_implemented",
      id: ["x", "Fake"],
      kwargs: { model: "hidden" },
    } as Serialized;
    expect(modelOfRun(notSerialisable, undefined, undefined)).toBe("Fake");
    expect(modelOfRun({ lc: 1, type: "not_implemented" } as Serialized, {}, {})).toBe("unknown");
  });

  it("derives a message's missing total and keeps only the finite token details", () => {
    const output: LLMResult = {
      generations: [
        [
          {
            text: "",
            message: new AIMessage({
              content: "",
              usage_metadata: {
                input_tokens: 3,
                output_tokens: 2,
                input_token_details: { cache_read: 1, audio: Number.NaN },
                output_token_details: { reasoning: "2" as unknown as number },
              },
            } as ConstructorParameters<typeof AIMessage>[0]),
          } as never,
        ],
      ],
    };
    expect(runUsageFromResult(output)).toEqual({
      inputTokens: 3,
      outputTokens: 2,
      totalTokens: 5,
      inputTokenDetails: { cache_read: 1 },
    });
  });

  it("passes over a tokenUsage that is not an object for the streamed generation's", () => {
    for (const tokenUsage of [null, "n/a"]) {
      const output = {
        generations: [[{ text: "", generationInfo: { tokenUsage: { promptTokens: 1 } } }]],
        llmOutput: { tokenUsage },
      } as unknown as LLMResult;
      expect(runUsageFromResult(output)).toEqual({
        inputTokens: 1,
        outputTokens: 0,
        totalTokens: 1,
      });
    }
    expect(runUsageFromResult(undefined as unknown as LLMResult)).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
    });
  });

  it("takes the first non-empty request ID of any generation, then llmOutput's", () => {
    const output = {
      generations: [
        [{ text: "", generationInfo: { requestId: "" } }],
        [{ text: "", generationInfo: { requestId: 42 } }],
        [{ text: "", generationInfo: { requestId: "req-3" } }],
      ],
      llmOutput: { requestId: "req-llm" },
    } as unknown as LLMResult;
    expect(requestIdOfResult(output)).toBe("req-3");
    expect(requestIdOfResult(undefined as unknown as LLMResult)).toBeUndefined();
  });
});

describe("the prompt cache's reads and writes on the wire", () => {
  it("reads writes from every field the gateway uses, the larger total winning, unsplit writes living 5 minutes", () => {
    // A Claude channel as the gateway relays it: the total and its split by lifetime.
    expect(
      promptCacheFromWire({
        prompt_tokens: 1000,
        prompt_tokens_details: { cached_tokens: 600, cached_creation_tokens: 300 },
        claude_cache_creation_5_m_tokens: 100,
        claude_cache_creation_1_h_tokens: 150,
      }),
    ).toEqual({ read: 600, written: 300, writtenForAnHour: 150 });
    // OpenAI's own name; and the split alone, larger than a stale total.
    expect(promptCacheFromWire({ prompt_tokens_details: { cache_write_tokens: 40 } })).toEqual({
      written: 40,
    });
    expect(
      promptCacheFromWire({
        prompt_tokens_details: { cached_creation_tokens: 10, cache_write_tokens: 20 },
        claude_cache_creation_5_m_tokens: 30,
        claude_cache_creation_1_h_tokens: 5,
      }),
    ).toEqual({ written: 35, writtenForAnHour: 5 });
    expect(promptCacheFromWire({ claude_cache_creation_1_h_tokens: 8 })).toEqual({
      written: 8,
      writtenForAnHour: 8,
    });
    // The Responses API's details; nothing from nothing.
    expect(promptCacheFromWire({ input_tokens_details: { cached_tokens: 64 } })).toEqual({
      read: 64,
    });
    expect(promptCacheFromWire({ prompt_tokens: 3 })).toEqual({});
    expect(promptCacheFromWire("usage")).toEqual({});
    expect(promptCacheFromWire({ claude_cache_creation_1_h_tokens: 0 })).toEqual({ written: 0 });
  });

  it("writes the split by lifetime as LangChain's Anthropic integration names it, only when some writes live an hour", () => {
    expect(cacheTokenDetails({ read: 1, written: 9, writtenForAnHour: 4 })).toEqual({
      cache_read: 1,
      cache_creation: 9,
      ephemeral_5m_input_tokens: 5,
      ephemeral_1h_input_tokens: 4,
    });
    expect(cacheTokenDetails({ written: 9, writtenForAnHour: 0 })).toEqual({ cache_creation: 9 });
    expect(cacheTokenDetails({})).toEqual({});
  });

  it("takes the split of a streamed answer's writes back from the service's usage, which LangChain's merging keeps", () => {
    const merged = (usage_metadata: object, usage?: object) =>
      runUsageFromResult({
        generations: [
          [
            {
              text: "",
              // A chat generation's message, as LangChain hands it to the tracker.
              ...{
                message: new AIMessage({
                  content: "",
                  usage_metadata: usage_metadata as never,
                  response_metadata: usage ? { usage } : {},
                }),
              },
            },
          ],
        ],
      });
    const usage = {
      input_tokens: 100,
      output_tokens: 5,
      total_tokens: 105,
      input_token_details: { cache_read: 10, cache_creation: 50 },
    };
    const wire = { claude_cache_creation_1_h_tokens: 80, prompt_tokens_details: {} };
    expect(merged(usage, wire).inputTokenDetails).toEqual({
      cache_read: 10,
      cache_creation: 50,
      ephemeral_5m_input_tokens: 0,
      ephemeral_1h_input_tokens: 50,
    });
    expect(merged(usage).inputTokenDetails).toEqual({ cache_read: 10, cache_creation: 50 });
    expect(merged(usage, { claude_cache_creation_5_m_tokens: 50 }).inputTokenDetails).toEqual({
      cache_read: 10,
      cache_creation: 50,
    });
    // A split already there is kept as it is.
    const split = {
      ...usage,
      input_token_details: { cache_creation: 50, ephemeral_1h_input_tokens: 7 },
    };
    expect(merged(split, wire).inputTokenDetails).toEqual({
      cache_creation: 50,
      ephemeral_1h_input_tokens: 7,
    });
    const none = { ...usage, input_token_details: { cache_read: 3 } };
    expect(merged(none, wire).inputTokenDetails).toEqual({ cache_read: 3 });
  });
});

describe("the usage readers, in the Responses API's names", () => {
  const usage = {
    input_tokens: 40,
    input_tokens_details: { cached_tokens: 8 },
    output_tokens: 12,
    output_tokens_details: { reasoning_tokens: 5 },
  };

  it("read input_tokens and output_tokens as the prompt and the completion, the total derived", () => {
    expect(tokenUsageFromWire(usage)).toEqual({
      promptTokens: 40,
      completionTokens: 12,
      totalTokens: 52,
    });
  });

  it("read the cached and the reasoning tokens from their details", () => {
    expect(promptCacheFromWire(usage).read).toBe(8);
    expect(reasoningTokensFromWire(usage)).toBe(5);
    expect(reasoningTokensFromWire({ completion_tokens_details: { reasoning_tokens: 3 } })).toBe(3);
    expect(reasoningTokensFromWire({ output_tokens: 1 })).toBeUndefined();
    expect(reasoningTokensFromWire(null)).toBeUndefined();
  });
});
