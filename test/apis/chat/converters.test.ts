import { AIMessage, type AIMessageChunk, HumanMessage } from "@langchain/core/messages";
import type { OpenAI } from "openai";
import { describe, expect, it } from "vitest";
import {
  type StreamState,
  toChatResult,
  toGenerationChunk,
  usageChunk,
  usageMetadataOf,
} from "../../../src/apis/chat/converters.js";
import { createEmulator, DEFAULT_MODEL } from "../../../src/emulator/index.js";
import { ChatInferenceService, requestIdOf } from "../../../src/index.js";

const completion = {
  id: "c-1",
  object: "chat.completion",
  created: 0,
  model: "m-2024",
  choices: [
    {
      index: 0,
      message: { role: "assistant", content: "Hi", refusal: null },
      finish_reason: "stop",
      logprobs: null,
    },
  ],
  usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
} as OpenAI.Chat.Completions.ChatCompletion;

function chunk(content: string, model?: string): OpenAI.Chat.Completions.ChatCompletionChunk {
  return {
    id: "c-1",
    object: "chat.completion.chunk",
    created: 0,
    model: model as string,
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
  };
}

function metadata(chunk: { message: { response_metadata: unknown } }): Record<string, unknown> {
  return chunk.message.response_metadata as Record<string, unknown>;
}

function state(): StreamState {
  return {
    meta: { requestId: "rid-1" },
    promptIndex: 0,
    logprobs: false,
    includeRawResponse: false,
  };
}

describe("a completion as LangChain's result", () => {
  it("gives each message the usage, the request ID, the model and this package's provider", () => {
    const { generations, llmOutput } = toChatResult(
      completion,
      { requestId: "rid-1", model: "m-2024" },
      false,
    );
    const message = generations[0]!.message as AIMessage;
    expect(message).toBeInstanceOf(AIMessage);
    expect(message.content).toBe("Hi");
    expect(message.response_metadata).toMatchObject({
      requestId: "rid-1",
      model: "m-2024",
      model_provider: "inference-service",
    });
    expect(message.usage_metadata).toMatchObject({
      input_tokens: 5,
      output_tokens: 2,
      total_tokens: 7,
    });
    expect(generations[0]!.generationInfo).toEqual({ finish_reason: "stop" });
    expect(llmOutput).toEqual({
      tokenUsage: { promptTokens: 5, completionTokens: 2, totalTokens: 7 },
    });
  });

  it("reads the cached prompt tokens and the reasoning tokens of the usage", () => {
    expect(
      usageMetadataOf({
        prompt_tokens: 10,
        completion_tokens: 4,
        total_tokens: 14,
        prompt_tokens_details: { cached_tokens: 6 },
        completion_tokens_details: { reasoning_tokens: 3 },
      }),
    ).toMatchObject({
      input_token_details: { cache_read: 6 },
      output_token_details: { reasoning: 3 },
    });
  });

  it("reads the prompt's cache writes from every field the gateway writes them in, with their split by lifetime", () => {
    const usage = (extra: object) =>
      usageMetadataOf({
        prompt_tokens: 100,
        completion_tokens: 1,
        total_tokens: 101,
        ...extra,
      } as never).input_token_details;
    expect(
      usage({
        prompt_tokens_details: { cached_tokens: 20, cached_creation_tokens: 70 },
        claude_cache_creation_5_m_tokens: 70,
        claude_cache_creation_1_h_tokens: 0,
      }),
    ).toEqual({ cache_read: 20, cache_creation: 70 });
    expect(
      usage({
        prompt_tokens_details: { cached_tokens: 0, cached_creation_tokens: 70 },
        claude_cache_creation_5_m_tokens: 30,
        claude_cache_creation_1_h_tokens: 40,
      }),
    ).toEqual({
      cache_read: 0,
      cache_creation: 70,
      ephemeral_5m_input_tokens: 30,
      ephemeral_1h_input_tokens: 40,
    });
    expect(usage({ prompt_tokens_details: { cache_write_tokens: 9 } })).toEqual({
      cache_creation: 9,
    });
  });
});

describe("a stream's chunks as LangChain's chunks", () => {
  it("puts the request ID and the model on the first chunk with a choice only", () => {
    const s = state();
    const first = toGenerationChunk({ ...chunk(""), choices: [] }, s);
    expect(first).toBeUndefined();
    const second = toGenerationChunk(chunk("a", "m-2024"), s)!;
    expect(second.message.response_metadata).toMatchObject({ requestId: "rid-1", model: "m-2024" });
    const third = toGenerationChunk(chunk("b", "other"), s)!;
    expect(metadata(third).requestId).toBeUndefined();
    expect(metadata(third).model_provider).toBe("inference-service");
    expect(third.generationInfo).toEqual({ prompt: 0, completion: 0 });
  });

  it("takes the model from the first chunk that names one, even one without a choice", () => {
    const s = state();
    toGenerationChunk({ ...chunk("", "m-first"), choices: [] }, s);
    const next = toGenerationChunk(chunk("a", "m-later"), s)!;
    expect(metadata(next).model).toBe("m-first");
  });

  it("closes a stream with its usage", () => {
    const last = usageChunk({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 });
    expect((last.message as AIMessageChunk).usage_metadata).toEqual({
      input_tokens: 5,
      output_tokens: 2,
      total_tokens: 7,
      input_token_details: { audio: undefined, cache_read: undefined },
      output_token_details: { audio: undefined, reasoning: undefined },
    });
  });
});

describe("requestIdOf", () => {
  const emulator = createEmulator();
  const model = new ChatInferenceService(DEFAULT_MODEL, {
    apiKey: emulator.apiKey,
    baseURL: emulator.baseURL,
    fetch: emulator.fetch,
  });

  it("gives an invoke's reply the answer's request ID, typed as a string", async () => {
    const reply = await model.invoke("Hello");
    const id: string | undefined = requestIdOf(reply);
    expect(id).toBe(emulator.state.lastRequest()?.requestId);
  });

  it("reads a stream's first chunk and its chunks concatenated, and no later chunk", async () => {
    const chunks: AIMessageChunk[] = [];
    for await (const chunk of await model.stream("Hello there")) chunks.push(chunk);
    const id = emulator.state.lastRequest()?.requestId;
    expect(requestIdOf(chunks[0])).toBe(id);
    expect(requestIdOf(chunks.reduce((whole, chunk) => whole.concat(chunk)))).toBe(id);
    expect(requestIdOf(chunks.at(-1))).toBeUndefined();
  });

  it("is undefined for a message without one, or with one that is not a string", () => {
    expect(requestIdOf(new HumanMessage("hi"))).toBeUndefined();
    expect(requestIdOf(new AIMessage({ content: "", response_metadata: { requestId: 7 } }))).toBe(
      undefined,
    );
    expect(requestIdOf(new AIMessage({ content: "", response_metadata: { requestId: "" } }))).toBe(
      undefined,
    );
    expect(requestIdOf(undefined)).toBeUndefined();
    expect(requestIdOf(null)).toBeUndefined();
    expect(requestIdOf({ response_metadata: null })).toBeUndefined();
  });
});
