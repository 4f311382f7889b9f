/**
 * LangChain v1 standard content blocks of replies from the in-process emulator: `reasoning`
 * from `reasoning_content`, `outputVersion: "v1"`, invoke and stream, read through
 * @langchain/core's own `contentBlocks`, `text` and `concat`.
 */
import {
  AIMessage,
  AIMessageChunk,
  type BaseMessage,
  type ContentBlock,
} from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { concat } from "@langchain/core/utils/stream";
import { createAgent } from "langchain";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ChatInferenceService,
  type ChatInferenceServiceFields,
} from "../../../src/apis/chat/chat_models.js";
import { LS_PROVIDER } from "../../../src/constants.js";
import { createEmulator, type InProcessEmulator } from "../../../src/emulator/index.js";

const QUESTION = "Is 17 prime?";
const REASONING =
  'Thinking about "Is 17 prime?". No tool, context or schema applies, so I will reply directly.';
const ANSWER = 'Emulated reply to: "Is 17 prime?"';

let emulator: InProcessEmulator;
let bodies: Array<{ messages: Array<Record<string, unknown>> }>;

beforeEach(() => {
  emulator = createEmulator();
  bodies = [];
});

const model = (
  name = "emulator-reasoner",
  fields: Omit<ChatInferenceServiceFields, "model"> = {},
) =>
  new ChatInferenceService(name, {
    apiKey: emulator.apiKey,
    baseURL: emulator.baseURL,
    fetch: (input, init) => {
      bodies.push(JSON.parse(String(init?.body)));
      return emulator.fetch(input, init);
    },
    ...fields,
  });

const getWeather = tool(async ({ city }) => `Sunny, 21°C in ${city}`, {
  name: "get_weather",
  description: "Get the weather for a city",
  schema: z.object({ city: z.string() }),
});

async function streamAll(stream: AsyncIterable<AIMessageChunk>) {
  const chunks: AIMessageChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return { chunks, full: chunks.reduce((a, b) => concat(a, b)) };
}

const types = (blocks: ContentBlock.Standard[] | BaseMessage["content"]) =>
  (blocks as Array<{ type: string }>).map((block) => block.type);

describe("reasoning as a standard `reasoning` block (default output)", () => {
  it("invoke: contentBlocks leads with the reasoning, then the text; content stays a string", async () => {
    const reply = await model().invoke(QUESTION);
    expect(reply.contentBlocks).toEqual([
      { type: "reasoning", reasoning: REASONING },
      { type: "text", text: ANSWER },
    ]);
    expect(reply.content).toBe(ANSWER);
    expect(reply.additional_kwargs.reasoning_content).toBe(REASONING);
    expect(reply.response_metadata.model_provider).toBe(LS_PROVIDER);
    expect(bodies).toHaveLength(1);
  });

  it("stream: each reasoning chunk shows a reasoning block; the concatenation has one of each", async () => {
    const { chunks, full } = await streamAll(await model().stream(QUESTION));
    const thinking = chunks.filter((c) => c.additional_kwargs.reasoning_content);
    expect(thinking.length).toBeGreaterThan(1);
    for (const chunk of thinking) {
      expect(chunk.contentBlocks).toEqual([
        {
          type: "reasoning",
          reasoning: chunk.additional_kwargs.reasoning_content,
          index: "reasoning",
        },
      ]);
    }
    expect(full.contentBlocks).toEqual([
      { type: "reasoning", reasoning: REASONING, index: "reasoning" },
      { type: "text", text: ANSWER, index: "text" },
    ]);
    expect(full.text).toBe(ANSWER);
  });

  it("streaming invoke (`streaming: true`) has the same blocks as a plain invoke", async () => {
    const reply = await model("emulator-reasoner", { streaming: true }).invoke(QUESTION);
    expect(types(reply.contentBlocks)).toEqual(["reasoning", "text"]);
    expect(bodies[0]).toMatchObject({ stream: true });
  });

  it("a model without reasoning_content gets no reasoning block", async () => {
    const reply = await model("emulator-chat").invoke(QUESTION);
    expect(reply.contentBlocks).toEqual([{ type: "text", text: ANSWER }]);
  });

  it("tool calls keep their standard `tool_call` block after the reasoning", async () => {
    const reply = await model().bindTools([getWeather]).invoke("What is the weather in Paris?");
    expect(reply.contentBlocks).toEqual([
      { type: "reasoning", reasoning: expect.stringContaining("It matches an offered tool") },
      {
        type: "tool_call",
        id: reply.tool_calls?.[0]?.id,
        name: "get_weather",
        args: { city: "Paris" },
      },
    ]);
  });
});

describe('outputVersion: "v1"', () => {
  it("invoke: content is the standard blocks, and `text` reads them", async () => {
    const reply = await model("emulator-reasoner", { outputVersion: "v1" }).invoke(QUESTION);
    expect(reply.content).toEqual([
      { type: "reasoning", reasoning: REASONING },
      { type: "text", text: ANSWER },
    ]);
    expect(reply.response_metadata).toMatchObject({
      output_version: "v1",
      model_provider: LS_PROVIDER,
    });
    expect(reply.contentBlocks).toEqual(reply.content);
    expect(reply.text).toBe(ANSWER);
  });

  it("as a call option, for one call only", async () => {
    const reasoner = model();
    const v1 = await reasoner.invoke(QUESTION, { outputVersion: "v1" });
    const v0 = await reasoner.invoke(QUESTION);
    expect(types(v1.content)).toEqual(["reasoning", "text"]);
    expect(v0.content).toBe(ANSWER);
  });

  it("stream: chunks concatenate into one reasoning and one text block, not one per token", async () => {
    const { chunks, full } = await streamAll(
      await model("emulator-reasoner", { outputVersion: "v1" }).stream(QUESTION),
    );
    expect(chunks.length).toBeGreaterThan(10);
    expect(full.content).toEqual([
      { type: "reasoning", reasoning: REASONING, index: "reasoning" },
      { type: "text", text: ANSWER, index: "text" },
    ]);
  });

  it("stream with tools: the call arrives as a tool_call_chunk whose args concatenate", async () => {
    const { full } = await streamAll(
      await model("emulator-reasoner", { outputVersion: "v1" })
        .bindTools([getWeather])
        .stream("What is the weather in Paris?"),
    );
    const call = full.tool_calls?.[0];
    expect(call).toMatchObject({ name: "get_weather", args: { city: "Paris" } });
    expect(full.content).toEqual([
      { type: "reasoning", reasoning: expect.any(String), index: "reasoning" },
      {
        type: "tool_call_chunk",
        id: call?.id,
        name: "get_weather",
        args: '{"city":"Paris"}',
        index: 0,
      },
    ]);
  });

  it("in an agent loop, v1 replies go back to the service as plain assistant turns, with their reasoning", async () => {
    const agent = createAgent({
      model: model("emulator-reasoner", { outputVersion: "v1" }),
      tools: [getWeather],
    });
    const { messages } = await agent.invoke({
      messages: [{ role: "user", content: "What is the weather in Paris?" }],
    });
    const last = messages.at(-1) as AIMessage;
    expect(AIMessage.isInstance(last)).toBe(true);
    expect(types(last.content)).toEqual(["reasoning", "text"]);
    expect(last.text).toBe("get_weather returned: Sunny, 21°C in Paris");
    // Second request: the v1 assistant turn is sent as tool_calls, and (the turn is not over)
    // its reasoning block as reasoning_content.
    expect(bodies).toHaveLength(2);
    const assistant = bodies[1]?.messages[1];
    expect(assistant).toMatchObject({
      role: "assistant",
      tool_calls: [
        { type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
      ],
      reasoning_content: expect.stringMatching(/^Thinking about "What is the weather in Paris\?"/),
    });
  });
});

describe("a text delta's blocks (built directly, as the general translation builds them)", () => {
  const chunk = (fields: ConstructorParameters<typeof AIMessageChunk>[0] & object) =>
    new AIMessageChunk({ ...fields, response_metadata: { model_provider: LS_PROVIDER } });
  const keyed = (blocks: ContentBlock.Standard[]) => blocks.map((block) => Object.entries(block));

  it.each([
    ["a chat delta", chunk({ content: "Hi" }), [{ type: "text", text: "Hi", index: "text" }]],
    ["an empty chat delta", chunk({ content: "" }), []],
    [
      "a Responses text part with its index",
      chunk({ content: [{ type: "text", text: "Hi", index: 0 }] }),
      [{ type: "text", index: "text", text: "Hi" }],
    ],
    [
      "a Responses text part without one",
      chunk({ content: [{ type: "text", text: "Hi" }] }),
      [{ type: "text", text: "Hi", index: "text" }],
    ],
    [
      "a text part with annotations (general path)",
      chunk({ content: [{ type: "text", text: "Hi", index: 0, annotations: [] }] }),
      [{ type: "text", index: "text", text: "Hi", annotations: [] }],
    ],
    [
      "a chat delta with reasoning (general path)",
      chunk({ content: "Hi", additional_kwargs: { reasoning_content: "Hm" } }),
      [
        { type: "reasoning", reasoning: "Hm", index: "reasoning" },
        { type: "text", text: "Hi", index: "text" },
      ],
    ],
    [
      "a chat delta with a refusal (general path)",
      chunk({ content: "", additional_kwargs: { refusal: "No" } }),
      [{ type: "refusal", refusal: "No" }],
    ],
  ])("%s", (_name, message, expected) => {
    // Key order too: what serialises a chunk's blocks sees the same object either way.
    expect(keyed(message.contentBlocks)).toEqual(keyed(expected as ContentBlock.Standard[]));
  });
});
