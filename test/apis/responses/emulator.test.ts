/**
 * The Responses path against the emulator: its route (JSON and typed events, reasoning items
 * sealed and checked, faults, the model list), a `createAgent` tool loop, and the behaviours of
 * LangChain's standard integration tests for chat models (`@langchain/standard-tests` is not
 * published to npm) with `useResponsesApi: true`.
 */
import {
  AIMessage,
  type AIMessageChunk,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ChatInferenceService } from "../../../src/apis/chat/chat_models.js";
import { resetResponsesAuto } from "../../../src/apis/responses/fallbacks.js";
import { createEmulator, DEFAULT_MODEL, REASONING_MODEL } from "../../../src/emulator/index.js";
import {
  BadRequestError,
  MalformedResponseError,
  ServiceConnectionError,
  ServiceTimeoutError,
} from "../../../src/errors/errors.js";
import { UsageTracker } from "../../../src/spend/usage_tracker.js";
import { pdf, png } from "../../helpers/media.js";

afterEach(() => resetResponsesAuto());

/** An emulator whose `/responses` request bodies are kept, in order. */
function served() {
  const emulator = createEmulator();
  const bodies: Array<Record<string, unknown>> = [];
  const paths: string[] = [];
  const fetch = async (url: RequestInfo | URL, init?: RequestInit) => {
    paths.push(new URL(String(url)).pathname);
    if (String(url).endsWith("/responses")) bodies.push(JSON.parse(String(init?.body)));
    return emulator.fetch(url, init);
  };
  return { emulator, bodies, paths, fetch };
}

function model(id = REASONING_MODEL, extra: Record<string, unknown> = {}) {
  const { emulator, bodies, paths, fetch } = served();
  const chat = new ChatInferenceService(id, {
    apiKey: emulator.apiKey,
    baseURL: emulator.baseURL,
    fetch,
    useResponsesApi: true,
    reasoning: { effort: "low" },
    ...extra,
  });
  return { chat, bodies, paths, emulator };
}

const getWeather = tool(async ({ city }) => `Sunny, 21 degrees in ${city}`, {
  name: "get_weather",
  description: "Get the current weather for a city",
  schema: z.object({ city: z.string() }),
});

describe("the emulator's /responses", () => {
  it("answers a response with a sealed reasoning item, text and usage; lists supported_endpoint_types", async () => {
    const { chat, emulator } = model();
    const reply = await chat.invoke("Hello there");
    const reasoning = reply.additional_kwargs.reasoning as Record<string, unknown>;
    expect(reasoning.encrypted_content).toEqual(expect.any(String));
    expect(reply.text).toBe('Emulated reply to: "Hello there"');
    expect(reply.usage_metadata?.output_token_details?.reasoning).toBeGreaterThan(0);
    const list = await emulator.fetch(`${emulator.baseURL}/models`, {
      headers: { Authorization: `Bearer ${emulator.apiKey}` },
    });
    const { data } = (await list.json()) as {
      data: Array<{ id: string; supported_endpoint_types: string[] }>;
    };
    const types = Object.fromEntries(data.map((m) => [m.id, m.supported_endpoint_types]));
    expect(types[DEFAULT_MODEL]).toEqual(["openai", "openai-response"]);
    expect(types[REASONING_MODEL]).toEqual(["openai", "openai-response"]);
    expect(types["emulator-thinker"]).toEqual(["openai"]);
  });

  it("streams typed events whose reasoning item is sealed only when done, and bills them", async () => {
    const { chat, emulator } = model();
    let streamed: AIMessageChunk | undefined;
    for await (const chunk of await chat.stream("Hello there")) {
      streamed = streamed ? streamed.concat(chunk) : chunk;
    }
    expect(streamed!.text).toBe('Emulated reply to: "Hello there"');
    expect(
      (streamed!.additional_kwargs.reasoning as Record<string, unknown>).encrypted_content,
    ).toEqual(expect.any(String));
    const entry = emulator.state.lastRequest();
    expect(entry).toMatchObject({ stream: true, status: 200 });
    expect(entry!.totalTokens).toBe(streamed!.usage_metadata!.total_tokens);
  });

  it("refuses a tampered reasoning item (400 invalid_encrypted_content) and one sent by ID alone (404)", async () => {
    const { chat } = model();
    const first = await chat.bindTools([getWeather]).invoke("What is the weather in Paris?");
    const [call] = first.tool_calls!;
    const result = new ToolMessage({ content: "Sunny", tool_call_id: call!.id! });
    const question = new HumanMessage("What is the weather in Paris?");
    const output = first.response_metadata.output as Array<Record<string, unknown>>;
    const tampered = new AIMessage({
      ...first,
      response_metadata: {
        ...first.response_metadata,
        output: output.map((item) =>
          item.type === "reasoning" ? { ...item, encrypted_content: "x.y" } : item,
        ),
      },
    });
    await expect(chat.invoke([question, tampered, result])).rejects.toSatisfy(
      (e) =>
        BadRequestError.isInstance(e) &&
        (e as BadRequestError).code === "invalid_encrypted_content",
    );
    const stored = new ChatInferenceService(REASONING_MODEL, {
      apiKey: "sk-emulator-demo",
      baseURL: "http://emulator.invalid/inference/v1",
      fetch: createEmulator().fetch,
      useResponsesApi: true,
      // Not stateless: the reasoning item goes back by its ID, which the service never stored.
      modelKwargs: { store: true },
    });
    const byId = new AIMessage({
      ...first,
      response_metadata: {
        ...first.response_metadata,
        output: output.map(({ encrypted_content: _sealed, ...item }) => item),
      },
    });
    await expect(stored.invoke([question, byId, result])).rejects.toSatisfy(
      (e) => BadRequestError.isInstance(e) && (e as BadRequestError).status === 404,
    );
  });

  it("is cut by the truncate fault and stalls into the idle timeout", async () => {
    const { chat } = model(REASONING_MODEL, { maxRetries: 0, idleTimeout: 200 });
    const read = async (fault: string) => {
      const options = { options: { headers: { "X-Emulator-Fault": fault } } };
      for await (const _ of await chat.stream("Hello there", options)) void _;
    };
    await expect(read("truncate")).rejects.toSatisfy((e) => ServiceConnectionError.isInstance(e));
    await expect(read("stall-mid")).rejects.toSatisfy(
      (e) =>
        ServiceTimeoutError.isInstance(e) && (e as ServiceTimeoutError).code === "idle_timeout",
    );
  });

  it('serves "auto" by the model list: /responses for emulator-chat, /chat/completions for emulator-thinker', async () => {
    const responses = model(DEFAULT_MODEL, { useResponsesApi: "auto", reasoning: undefined });
    await responses.chat.invoke("Hello");
    expect(responses.paths).toEqual(["/inference/v1/models", "/inference/v1/responses"]);
    // The same base URL and key: the list is read once.
    const chat = model("emulator-thinker", { useResponsesApi: "auto", reasoning: undefined });
    await chat.chat.invoke("Hello");
    expect(chat.paths).toEqual(["/inference/v1/chat/completions"]);
  });
});

describe("createAgent over the Responses API", () => {
  it("runs a tool loop whose second request carries the reasoning item back, before its function call", async () => {
    const { chat, bodies } = model();
    const agent = createAgent({ model: chat, tools: [getWeather] });
    const result = await agent.invoke({
      messages: [{ role: "user", content: "What's the weather in Paris?" }],
    });
    expect(result.messages.at(-1)!.text).toContain("Sunny, 21 degrees in Paris");
    expect(bodies).toHaveLength(2);
    const sentBack = bodies[1]!.input as Array<Record<string, unknown>>;
    const firstOutput = (result.messages[1] as AIMessage).response_metadata.output as Array<
      Record<string, unknown>
    >;
    const reasoning = firstOutput.find((item) => item.type === "reasoning")!;
    expect(sentBack.map((item) => item.type)).toEqual([
      "message",
      "reasoning",
      "function_call",
      "function_call_output",
    ]);
    expect(sentBack[1]).toEqual(reasoning);
    expect(reasoning.encrypted_content).toEqual(expect.any(String));
  });
});

describe("LangChain's standard chat-model checks with useResponsesApi: true", () => {
  const { chat } = model(DEFAULT_MODEL, { reasoning: undefined });
  const shapes = { city: z.string() };

  it("invoke: an AIMessage with text, an ID and usage", async () => {
    const reply = await chat.invoke("Hello");
    expect(AIMessage.isInstance(reply)).toBe(true);
    expect(reply.text.length).toBeGreaterThan(0);
    expect(reply.usage_metadata).toMatchObject({ input_tokens: expect.any(Number) });
  });

  it("stream: chunks whose concatenation has text and usage", async () => {
    let total: AIMessageChunk | undefined;
    let count = 0;
    for await (const chunk of await chat.stream("Hello")) {
      total = total ? total.concat(chunk) : chunk;
      count++;
    }
    expect(count).toBeGreaterThan(1);
    expect(total!.text.length).toBeGreaterThan(0);
    expect(total!.usage_metadata!.total_tokens).toBeGreaterThan(0);
  });

  it("batch: one reply per input", async () => {
    const replies = await chat.batch(["Hello", "Goodbye"]);
    expect(replies.map((r) => r.text)).toEqual([
      'Emulated reply to: "Hello"',
      'Emulated reply to: "Goodbye"',
    ]);
  });

  it("a conversation of several turns", async () => {
    const reply = await chat.invoke([
      new HumanMessage("hello"),
      new AIMessage("hello"),
      new HumanMessage("how are you"),
    ]);
    expect(reply.text.length).toBeGreaterThan(0);
  });

  it("tool calling, and a tool message history with string and list content", async () => {
    const bound = chat.bindTools([getWeather]);
    const call = await bound.invoke("What is the weather in Paris?");
    expect(call.tool_calls?.[0]).toMatchObject({ name: "get_weather", args: { city: "Paris" } });
    for (const content of ["Sunny", [{ type: "text" as const, text: "Sunny" }]]) {
      const reply = await bound.invoke([
        new HumanMessage("What is the weather in Paris?"),
        call,
        new ToolMessage({ content, tool_call_id: call.tool_calls![0]!.id! }),
      ]);
      expect(reply.text).toContain("Sunny");
    }
  });

  it("parallel tool calls, and forced tool choice", async () => {
    const parallel = await chat
      .bindTools([getWeather])
      .invoke("What is the weather in Paris and Tokyo?");
    expect(parallel.tool_calls!.map((c) => c.args.city)).toEqual(["Paris", "Tokyo"]);
    const forced = await chat.bindTools([getWeather], { tool_choice: "get_weather" }).invoke("Hi");
    expect(forced.tool_calls?.[0]?.name).toBe("get_weather");
  });

  it("streamed tool calls", async () => {
    let total: AIMessageChunk | undefined;
    for await (const chunk of await chat
      .bindTools([getWeather])
      .stream("What is the weather in Paris?")) {
      total = total ? total.concat(chunk) : chunk;
    }
    expect(total!.tool_calls?.[0]).toMatchObject({ name: "get_weather", args: { city: "Paris" } });
  });

  it.each(["functionCalling", "jsonSchema"] as const)(
    "structured output (%s), with includeRaw",
    async (method) => {
      const schema = z.object(shapes).describe("A city");
      const parsed = await chat
        .withStructuredOutput(schema, { method })
        .invoke("Name a city: Paris");
      expect(parsed).toEqual({ city: expect.any(String) });
      const raw = await chat
        .withStructuredOutput(schema, { method, includeRaw: true })
        .invoke("Paris");
      expect(AIMessage.isInstance(raw.raw)).toBe(true);
      expect(raw.parsed).toEqual({ city: expect.any(String) });
    },
  );

  it("stops at the caller's signal", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(chat.invoke("Hello", { signal: controller.signal })).rejects.toThrow();
  });

  it("content blocks: text (and reasoning for a reasoning model)", async () => {
    const reply = await model().chat.invoke("Hello");
    expect(reply.contentBlocks.map((b) => b.type)).toEqual(["reasoning", "text"]);
  });
});

describe("a Responses API stream left or stopped", () => {
  it("settles its reservation once, to what was read, and ends its run as abandoned", async () => {
    const { chat } = model();
    const tracker = new UsageTracker({
      budget: 1,
      prices: { [REASONING_MODEL]: { input: 1, output: 1 } },
    });
    for await (const chunk of await chat.stream("Hello there", { callbacks: [tracker] })) {
      if (chunk.text !== "") break;
    }
    const [record] = tracker.records;
    expect(record).toMatchObject({ abandoned: true });
    expect(record!.inputTokens).toBeGreaterThan(0);
    const status = await tracker.budgetStatus();
    expect(status.reserved).toBe(0);
    expect(status.spent).toBeGreaterThan(0);
  });
});

describe("the emulator's no-choices fault on /responses", () => {
  it("answers without output, invoked and streamed: a MalformedResponseError with the request ID", async () => {
    const { chat } = model(REASONING_MODEL, { maxRetries: 0 });
    const options = { options: { headers: { "X-Emulator-Fault": "no-choices" } } };
    await expect(chat.invoke("Hello", options)).rejects.toSatisfy(
      (e) =>
        MalformedResponseError.isInstance(e) &&
        /^\d{32}$/.test(String((e as MalformedResponseError).requestId)),
    );
    const read = async () => {
      for await (const _ of await chat.stream("Hello", options)) void _;
    };
    await expect(read()).rejects.toSatisfy((e) => MalformedResponseError.isInstance(e));
  });
});

describe("money over the Responses API, end to end", () => {
  it("costs what the emulator debits for an image, a PDF and cache writes of both lifetimes, streamed and invoked", async () => {
    const emulator = createEmulator();
    const prices = { input: 3, cachedInput: 0.3, cacheWrite: 3.75, cacheWrite1h: 6, output: 15 };
    emulator.state.addModel({
      id: "emulator-claude",
      prices,
      promptCache: "breakpoints",
      endpointTypes: ["openai", "openai-response"],
    });
    const model = new ChatInferenceService("emulator-claude", {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch: emulator.fetch,
      maxTokens: 64,
      useResponsesApi: true,
    });
    const rules = `Answer from the tide tables. ${"Quote the table, then explain. ".repeat(40)}`;
    // Breakpoints in the Responses API's own part shape, which the converter keeps.
    const input = (question: string) => [
      new SystemMessage({
        content: [
          { type: "input_text", text: rules, cache_control: { type: "ephemeral", ttl: "1h" } },
        ],
      }),
      new HumanMessage({
        content: [
          { type: "image_url", image_url: { url: png(1500, 1500) } },
          { type: "file", file: { file_data: pdf(3), filename: "tides.pdf" } },
          { type: "input_text", text: question, cache_control: { type: "ephemeral" } },
        ],
      }),
    ];
    const usage = new UsageTracker({ prices: { "emulator-claude": prices }, budget: 1 });
    const before = emulator.state.credit;
    for await (const _ of await model.stream(input("When is high tide?"), { callbacks: [usage] })) {
      // read to the end
    }
    const reply = await model.invoke(input("And low tide?"), { callbacks: [usage] });
    const [streamed, invoked] = usage.records;
    // Written: the system prompt for an hour, the user's turn (its image and PDF) for five minutes.
    expect(streamed?.inputTokenDetails?.ephemeral_1h_input_tokens).toBeGreaterThan(200);
    expect(streamed?.inputTokenDetails?.ephemeral_5m_input_tokens).toBeGreaterThan(3000 + 9000);
    expect(streamed?.settlement).toBe("reported");
    // Then the system prompt read, the new turn written.
    expect(reply.usage_metadata?.input_token_details?.cache_read).toBe(
      streamed?.inputTokenDetails?.ephemeral_1h_input_tokens,
    );
    expect(invoked?.inputTokenDetails?.cache_creation).toBeGreaterThan(3000 + 9000);
    expect(usage.spent).toBeCloseTo(before - emulator.state.credit, 12);
  });
});
