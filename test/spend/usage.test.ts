import type { Serialized } from "@langchain/core/load/serializable";
import { AIMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import { describe, expect, it } from "vitest";
import {
  modelOfRun,
  promptUsageFromWire,
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
