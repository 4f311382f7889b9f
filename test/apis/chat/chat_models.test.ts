import { inspect } from "node:util";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { load } from "@langchain/core/load";
import { tool } from "@langchain/core/tools";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  ChatInferenceService,
  type ChatInferenceServiceFields,
} from "../../../src/apis/chat/chat_models.js";
import { createEmulator } from "../../../src/emulator/index.js";
import {
  ConfigurationError,
  MalformedResponseError,
  ModelNotFoundError,
  ServiceConnectionError,
  ServiceUnavailableError,
} from "../../../src/errors/errors.js";
import { estimateTokens } from "../../../src/spend/estimate.js";
import { configurationError } from "../../helpers/errors.js";
import {
  BASE,
  chatChunk,
  chatCompletion,
  intercept,
  JSON_HEADERS,
  KEY,
  SSE_HEADERS,
  sse,
} from "../../helpers/wire.js";

const CHAT = "/inference/v1/chat/completions";

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
  vi.unstubAllEnvs();
});

function model(fields: Omit<ChatInferenceServiceFields, "model"> = {}) {
  return new ChatInferenceService("test-model", { apiKey: KEY, baseURL: BASE, ...fields });
}

const getWeather = tool(async ({ city }) => `Sunny in ${city}`, {
  name: "get_weather",
  description: "Get the weather for a city",
  schema: z.object({ city: z.string() }),
});

describe("ChatInferenceService configuration", () => {
  it.each([
    [BASE],
    [`${BASE}/`],
    [`${BASE}/inference`],
    [`${BASE}/inference/v1`],
    [`${BASE}/inference/v1/`],
    [`${BASE}/inference/v1/chat/completions`],
    [`${BASE}/inference/v1/completions`],
  ])("sends requests for base %j to /inference/v1/chat/completions", async (baseURL) => {
    const seen = intercept(CHAT, [200, chatCompletion({ content: "ok" }), JSON_HEADERS]);
    await model({ baseURL }).invoke("hi");
    expect(seen.map((r) => r.path)).toEqual([CHAT]);
  });

  it.each([
    ["ftp://svc.test"],
    ["https://u:p@svc.test"],
    ["https://svc.test/inference/v1?x=1"],
    ["https://svc.test/#top"],
    ["svc.test"],
  ])("rejects base %j at construction, before any request", (baseURL) => {
    expect(() => model({ baseURL })).toThrow(ConfigurationError);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it("names the option and the env variable when the key or base URL is missing", () => {
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", "");
    vi.stubEnv("INFERENCE_SERVICE_BASE_URL", "");
    vi.stubEnv("OPENAI_API_KEY", "sk-openai-must-not-be-used");
    vi.stubEnv("OPENAI_BASE_URL", "https://api.openai.com/v1");
    expect(() => new ChatInferenceService("m", { baseURL: BASE })).toThrow(
      /`apiKey` or set INFERENCE_SERVICE_API_KEY/,
    );
    expect(() => new ChatInferenceService("m", { apiKey: KEY })).toThrow(
      /`baseURL` or set INFERENCE_SERVICE_BASE_URL/,
    );
  });

  it("reads the key and base URL from INFERENCE_SERVICE_* env variables", async () => {
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", "sk-from-env");
    vi.stubEnv("INFERENCE_SERVICE_BASE_URL", `${BASE}/inference`);
    const seen = intercept(CHAT, [200, chatCompletion({ content: "ok" }), JSON_HEADERS]);
    await new ChatInferenceService({ model: "m" }).invoke("hi");
    expect(seen[0]?.headers.authorization).toBe("Bearer sk-from-env");
  });

  it("trims a model ID's outer spaces, given as `model` or `modelName`, and sends it trimmed", async () => {
    const seen = intercept(
      CHAT,
      [200, chatCompletion({ content: "ok" }), JSON_HEADERS],
      [200, chatCompletion({ content: "ok" }), JSON_HEADERS],
    );
    const profiles = { "test-model": { maxInputTokens: 8192 } };
    const byModel = new ChatInferenceService(" test-model\n", {
      apiKey: KEY,
      baseURL: BASE,
      profiles,
    });
    const byName = new ChatInferenceService({
      modelName: "  test-model ",
      apiKey: KEY,
      baseURL: BASE,
      profiles,
    });
    for (const chat of [byModel, byName]) {
      expect(chat.model).toBe("test-model");
      expect(chat.profile.maxInputTokens).toBe(8192);
      await chat.invoke("hi");
    }
    expect(seen.map((request) => request.body.model)).toEqual(["test-model", "test-model"]);
  });

  it("requires a model ID", () => {
    expect(() => new ChatInferenceService({ apiKey: KEY, baseURL: BASE })).toThrow(
      /`model` is required/,
    );
  });

  it.each([
    [{ maxRetries: -1 }, /`maxRetries` must be a whole number/],
    [{ maxRetries: 1.5 }, /`maxRetries`/],
    [{ timeout: 0 }, /`timeout` must be a number of milliseconds/],
    [{ idleTimeout: 0 }, /`idleTimeout` must be a number of milliseconds/],
    [{ idleTimeout: Number.POSITIVE_INFINITY }, /`idleTimeout` must be a number of milliseconds/],
    // Node runs a timer over 2^31 − 1 ms after 1 ms: every call would time out at once.
    [{ timeout: 2 ** 31 }, /`timeout` must be at most 2147483647 ms \(about 24\.8 days\)/],
    [{ idleTimeout: 2 ** 31 }, /`idleTimeout` must be at most 2147483647 ms/],
    [{ maxConcurrency: 0 }, /`maxConcurrency`/],
    [
      { retry: { initialDelayMs: -5 } },
      /`retry\.initialDelayMs` must be a number of milliseconds ≥ 0; got -5\./,
    ],
  ])("rejects bad option %j naming it", (fields, message) => {
    expect(() => model(fields as never)).toThrow(message);
  });
});

describe("ChatOpenAI options that would change the API", () => {
  it.each([
    [
      'useResponsesApi that is neither a boolean nor "auto"',
      { useResponsesApi: "yes" },
      "useResponsesApi",
      /^`useResponsesApi` must be true \(POST …\/responses\), false \(POST …\/chat\/completions\) or "auto"/,
    ],
    [
      "a reasoning summary without useResponsesApi",
      { reasoning: { effort: "low", summary: "auto" } },
      "reasoning",
      /^`reasoning.summary` is written only by the Responses API: set `useResponsesApi: true`/,
    ],
    [
      "a reasoning summary by its older name",
      { reasoning: { generate_summary: "concise" } },
      "reasoning",
      /^`reasoning.summary` is written only by the Responses API/,
    ],
  ])(
    "refuses %s at construction, saying why, before any request",
    (_name, fields, option, message) => {
      const seen = intercept(CHAT, [200, chatCompletion({ content: "ok" }), JSON_HEADERS]);
      const error = configurationError(() => model(fields as never));
      expect(error.option).toBe(option);
      expect(error.message).toMatch(message);
      expect(seen).toHaveLength(0);
    },
  );

  it("accepts the options that keep the route: useResponsesApi: false, zdrEnabled, service_tier", async () => {
    const seen = intercept(CHAT, [200, chatCompletion({ content: "ok" }), JSON_HEADERS]);
    const chat = model({
      useResponsesApi: false,
      zdrEnabled: true,
      service_tier: "flex",
      reasoning: { effort: "low", summary: null },
    } as never);
    await chat.invoke("hi");
    expect(seen.map((request) => request.path)).toEqual([CHAT]);
    expect(seen[0]?.body).toMatchObject({ service_tier: "flex", reasoning_effort: "low" });
  });
});

describe("ChatInferenceService on the wire", () => {
  it("passes the prompt-cache controls through: prompt_cache_key, prompt_cache_retention, cache_control breakpoints", async () => {
    const seen = intercept(CHAT, [200, chatCompletion({ content: "ok" }), JSON_HEADERS]);
    const chat = model({ promptCacheKey: "support-v1" } as never);
    const breakpoint = { type: "ephemeral", ttl: "1h" };
    await chat.invoke(
      [
        { role: "system", content: [{ type: "text", text: "Rules", cache_control: breakpoint }] },
        { role: "user", content: "hi" },
      ],
      { promptCacheRetention: "24h" } as never,
    );
    expect(seen[0]?.body).toMatchObject({
      prompt_cache_key: "support-v1",
      prompt_cache_retention: "24h",
      messages: [
        { role: "system", content: [{ type: "text", text: "Rules", cache_control: breakpoint }] },
        { role: "user", content: "hi" },
      ],
    });
  });

  it("sends Bearer auth, JSON, the model and messages, and no Service-Name header (docs/service-contract.md#hosted-models)", async () => {
    const seen = intercept(CHAT, [200, chatCompletion({ content: "hello" }), JSON_HEADERS]);
    const chat = model({
      configuration: { defaultHeaders: { "Service-Name": "t.job", "X-Custom": "v" } },
    });
    await chat.invoke([
      ["system", "be brief"],
      ["human", "hi"],
    ]);
    expect(seen).toHaveLength(1);
    const [req] = seen;
    expect(req?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req?.headers["content-type"]).toBe("application/json");
    expect(req?.headers["service-name"]).toBeUndefined();
    expect(req?.headers["x-custom"]).toBe("v");
    expect(req?.body).toEqual({
      model: "test-model",
      stream: false,
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "hi" },
      ],
    });
  });

  it("parses the reply, usage, request id and model into the message", async () => {
    intercept(CHAT, [200, chatCompletion({ content: "hello" }), JSON_HEADERS]);
    const reply = await model().invoke("hi");
    expect(reply.content).toBe("hello");
    expect(reply.response_metadata).toMatchObject({
      model: "test-model",
      model_name: "test-model",
      requestId: "req-ok-1",
      tokenUsage: { promptTokens: 9, completionTokens: 3, totalTokens: 12 },
    });
    expect(reply.usage_metadata).toMatchObject({
      input_tokens: 9,
      output_tokens: 3,
      total_tokens: 12,
    });
  });

  it("reports llmOutput.tokenUsage through generate", async () => {
    intercept(CHAT, [200, chatCompletion({ content: "hello" }), JSON_HEADERS]);
    const result = await model().generate([[["human", "hi"]]]);
    expect(result.llmOutput?.tokenUsage).toEqual({
      promptTokens: 9,
      completionTokens: 3,
      totalTokens: 12,
    });
  });

  it("surfaces reasoning_content on invoke", async () => {
    intercept(CHAT, [
      200,
      chatCompletion({ content: "42", reasoning_content: "6 times 7" }),
      JSON_HEADERS,
    ]);
    const reply = await model().invoke("6*7?");
    expect(reply.additional_kwargs.reasoning_content).toBe("6 times 7");
  });

  it("sends tools and tool_choice and parses tool calls", async () => {
    const seen = intercept(CHAT, [
      200,
      chatCompletion({
        content: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Paris"}' },
          },
        ],
      }),
      JSON_HEADERS,
    ]);
    const reply = await model()
      .bindTools([getWeather], { tool_choice: "required" })
      .invoke("weather in Paris?");
    expect(seen[0]?.body.tool_choice).toBe("required");
    expect(seen[0]?.body.tools).toEqual([
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Get the weather for a city",
          parameters: expect.objectContaining({
            type: "object",
            properties: { city: { type: "string" } },
            required: ["city"],
          }),
        },
      },
    ]);
    expect(reply.tool_calls).toEqual([
      { name: "get_weather", args: { city: "Paris" }, id: "call_1", type: "tool_call" },
    ]);
  });

  it("keeps bindTools and withConfig on ChatInferenceService, not ChatOpenAI", () => {
    const bound = model().bindTools([getWeather]) as unknown as { bound: unknown };
    expect(bound.bound).toBeInstanceOf(ChatInferenceService);
  });

  it("uses a forced function call for withStructuredOutput by default, with includeRaw", async () => {
    const seen = intercept(CHAT, [
      200,
      chatCompletion({
        content: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "Person", arguments: '{"name":"Ada","age":36}' },
          },
        ],
      }),
      JSON_HEADERS,
    ]);
    const Person = z.object({ name: z.string(), age: z.number() });
    const result = await model()
      .withStructuredOutput(Person, { name: "Person", includeRaw: true })
      .invoke("Ada is 36");
    expect(seen[0]?.body.tool_choice).toEqual({ type: "function", function: { name: "Person" } });
    expect(seen[0]?.body.response_format).toBeUndefined();
    expect(result.parsed).toEqual({ name: "Ada", age: 36 });
    expect((result.raw.response_metadata as { requestId?: string }).requestId).toBe("req-ok-1");
  });

  it('traces the default method as "functionCalling", LangChain\'s name, and the others as before', async () => {
    const traced: string[] = [];
    const schemas: unknown[] = [];
    const handler = BaseCallbackHandler.fromMethods({
      handleChatModelStart(_llm, _messages, _runId, _parentRunId, extra) {
        const options = extra?.options as {
          ls_structured_output_format?: { kwargs: { method: string }; schema: unknown };
        };
        traced.push(options.ls_structured_output_format?.kwargs.method ?? "none");
        schemas.push(options.ls_structured_output_format?.schema);
      },
    });
    const emulator = createEmulator();
    const chat = new ChatInferenceService("emulator-chat", {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch: emulator.fetch,
    });
    const Sum = z.object({ a: z.number(), b: z.number() });
    const prompt = "Add 3 and 4. Answer in JSON with the keys `a` and `b`.";
    for (const config of [
      {},
      { includeRaw: true },
      { method: "jsonSchema" },
      { method: "jsonMode" },
    ]) {
      await chat
        .withStructuredOutput(Sum, config as object)
        .invoke(prompt, { callbacks: [handler] });
    }
    expect(traced).toEqual(["functionCalling", "functionCalling", "json_schema", "json_mode"]);
    // Traced as LangChain's standard tests expect: the schema as given, no injected title.
    expect(schemas[0]).toEqual(toJsonSchema(Sum));
    // The rename is scoped to withStructuredOutput: a plain call traces nothing.
    await chat.invoke("hi", { callbacks: [handler] });
    expect(traced.at(-1)).toBe("none");
  });

  it("lists the service's models, and the near miss, in an unknown model's error: one extra GET, no retry", async () => {
    const emulator = createEmulator();
    const sent: string[] = [];
    const chat = new ChatInferenceService("emulator-caht", {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch: (input, init) => {
        sent.push(`${init?.method ?? "GET"} ${new URL(String(input)).pathname}`);
        return emulator.fetch(input, init);
      },
    });
    const error = await chat.invoke("hi").catch((e: unknown) => e);
    expect(ModelNotFoundError.isInstance(error)).toBe(true);
    expect((error as ModelNotFoundError).hint).toContain(
      'Did you mean "emulator-chat"? The service lists 9 models: emulator-chat, emulator-reasoner, emulator-thinker, emulator-r1, emulator-vllm, emulator-think-tags, emulator-think-open, emulator-embedding, emulator-rerank.',
    );
    expect(sent).toEqual(["POST /inference/v1/chat/completions", "GET /inference/v1/models"]);
  });

  it("sends response_format for method jsonSchema", async () => {
    const seen = intercept(CHAT, [
      200,
      chatCompletion({ content: '{"name":"Ada","age":36}' }),
      JSON_HEADERS,
    ]);
    const Person = z.object({ name: z.string(), age: z.number() });
    const result = await model()
      .withStructuredOutput(Person, { name: "Person", method: "jsonSchema" })
      .invoke("Ada is 36");
    expect(seen[0]?.body.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "Person", strict: true },
    });
    expect(result).toEqual({ name: "Ada", age: 36 });
  });

  it("passes per-call options into the body", async () => {
    const seen = intercept(CHAT, [200, chatCompletion({ content: "x" }), JSON_HEADERS]);
    await model({ temperature: 0.2, maxTokens: 10 }).invoke("hi", { stop: ["END"], seed: 7 });
    expect(seen[0]?.body).toMatchObject({
      temperature: 0.2,
      max_tokens: 10,
      stop: ["END"],
      seed: 7,
    });
  });

  it("runs a batch with at most maxConcurrency requests in flight", async () => {
    let inFlight = 0;
    let peak = 0;
    nock(BASE)
      .post(CHAT)
      .times(6)
      .reply(async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 20));
        inFlight--;
        return [200, chatCompletion({ content: "x" }), JSON_HEADERS];
      });
    const replies = await model().batch(["a", "b", "c", "d", "e", "f"], { maxConcurrency: 2 });
    expect(replies).toHaveLength(6);
    expect(peak).toBeLessThanOrEqual(2);
  });

  it("cancels a call when its signal aborts", async () => {
    nock(BASE)
      .post(CHAT)
      .delay(5_000)
      .reply(200, chatCompletion({ content: "late" }), JSON_HEADERS);
    const controller = new AbortController();
    const pending = model().invoke("hi", { signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    await expect(pending).rejects.toThrow(/abort/i);
  });
});

describe("ChatInferenceService streaming", () => {
  const chunk = chatChunk;

  it("requests usage and yields text, reasoning, usage, request id and model", async () => {
    const seen = intercept(CHAT, [
      200,
      sse([
        chunk({ role: "assistant", content: "", reasoning_content: "think" }),
        chunk({ content: "Hel" }),
        chunk({ content: "lo" }),
        { ...chunk({}), choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
        {
          ...chunk({}),
          choices: [],
          usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
        },
      ]),
      { ...SSE_HEADERS, "X-Gateway-Request-Id": "req-stream-1" },
    ]);
    const tokens: string[] = [];
    let full: Awaited<ReturnType<ReturnType<typeof model>["invoke"]>> | undefined;
    for await (const c of await model().stream("hi", {
      callbacks: [{ handleLLMNewToken: (t: string) => void tokens.push(t) }],
    })) {
      full = full ? (full.concat(c) as typeof full) : c;
    }
    expect(seen[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(full?.content).toBe("Hello");
    expect(tokens.join("")).toBe("Hello");
    expect(full?.additional_kwargs.reasoning_content).toBe("think");
    expect(full?.usage_metadata).toMatchObject({
      input_tokens: 5,
      output_tokens: 2,
      total_tokens: 7,
    });
    expect(full?.response_metadata).toMatchObject({
      model: "test-model",
      requestId: "req-stream-1",
    });
  });

  it("assembles streamed tool-call chunks into a tool call", async () => {
    intercept(CHAT, [
      200,
      sse([
        chunk({
          role: "assistant",
          tool_calls: [
            {
              index: 0,
              id: "call_9",
              type: "function",
              function: { name: "get_weather", arguments: "" },
            },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }),
        { ...chunk({}), choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
      ]),
      SSE_HEADERS,
    ]);
    let full: Awaited<ReturnType<ReturnType<typeof model>["invoke"]>> | undefined;
    for await (const c of await model().bindTools([getWeather]).stream("weather in Oslo")) {
      full = full ? (full.concat(c) as typeof full) : c;
    }
    expect(full?.tool_calls).toEqual([
      { name: "get_weather", args: { city: "Oslo" }, id: "call_9", type: "tool_call" },
    ]);
  });

  it("delivers a whole chat.completion sent to a stream request as one chunk: content, tool calls, reasoning, usage, request ID", async () => {
    const call = {
      id: "call_7",
      type: "function",
      function: { name: "get_weather", arguments: '{"city":"Oslo"}' },
    };
    // A gateway that ignores `stream: true` answers as to a non-streamed call.
    const answer = chatCompletion({
      content: "Checking.",
      reasoning_content: "think",
      tool_calls: [call],
    });
    intercept(CHAT, [200, answer, JSON_HEADERS]);
    const chunks = [];
    for await (const c of await model().bindTools([getWeather]).stream("weather in Oslo")) {
      chunks.push(c);
    }
    const full = chunks.reduce((a, b) => a.concat(b));
    expect(chunks.filter((c) => c.content !== "")).toHaveLength(1);
    expect(full.content).toBe("Checking.");
    expect(full.additional_kwargs.reasoning_content).toBe("think");
    expect(full.tool_calls).toEqual([
      { name: "get_weather", args: { city: "Oslo" }, id: "call_7", type: "tool_call" },
    ]);
    expect(full.usage_metadata).toMatchObject({
      input_tokens: 9,
      output_tokens: 3,
      total_tokens: 12,
    });
    expect(full.response_metadata).toMatchObject({ model: "test-model", requestId: "req-ok-1" });
  });

  it.each(["invoke", "stream"] as const)(
    "%s: a JSON answer cut mid-body is a retryable cut, retried",
    async (mode) => {
      const cut = JSON.stringify(chatCompletion({ content: "Hello" })).slice(0, 40);
      const seen = intercept(
        CHAT,
        [200, cut, JSON_HEADERS],
        [200, chatCompletion({ content: "Hello" }), JSON_HEADERS],
      );
      const once = await (mode === "invoke"
        ? model({ maxRetries: 0 }).invoke("hi")
        : model({ maxRetries: 0 })
            .stream("hi")
            .then(async (s) => {
              for await (const _ of s) {
                // drained
              }
            })
      ).catch((e: unknown) => e);
      expect(ServiceConnectionError.isInstance(once), String(once)).toBe(true);
      expect(once).toMatchObject({ retryable: true, requestId: "req-ok-1" });
      expect(seen).toHaveLength(1);
      const text =
        mode === "invoke"
          ? (await model({ maxRetries: 1, retry: { initialDelayMs: 1 } }).invoke("hi")).text
          : await (async () => {
              let out = "";
              const stream = await model({ maxRetries: 1, retry: { initialDelayMs: 1 } }).stream(
                "hi",
              );
              for await (const c of stream) out += c.text;
              return out;
            })();
      expect(text).toBe("Hello");
    },
  );

  it.each([
    ["invoke", "an empty choice", [200, { ...chatCompletion({}), choices: [{}] }, JSON_HEADERS]],
    [
      "invoke",
      "a null message",
      [200, { ...chatCompletion({}), choices: [{ index: 0, message: null }] }, JSON_HEADERS],
    ],
    ["stream", "empty choices", [200, sse([{ ...chunk({}), choices: [{}] }]), SSE_HEADERS]],
    [
      "stream",
      "null deltas",
      [200, sse([{ ...chunk({}), choices: [{ delta: null }] }]), SSE_HEADERS],
    ],
  ] as const)(
    "%s: %s is a MalformedResponseError, not an empty reply",
    async (mode, _label, reply) => {
      intercept(CHAT, [...reply]);
      const error = await (async () => {
        if (mode === "invoke") return model().invoke("hi");
        for await (const _ of await model().stream("hi")) {
          // drained
        }
      })().catch((e: unknown) => e);
      expect(MalformedResponseError.isInstance(error), String(error)).toBe(true);
    },
  );

  it("still answers a tool-call-only message (`content: null`), invoked and streamed", async () => {
    const call = {
      id: "call_3",
      type: "function",
      function: { name: "get_weather", arguments: "{}" },
    };
    intercept(CHAT, [
      200,
      { ...chatCompletion({ content: null, tool_calls: [call] }) },
      JSON_HEADERS,
    ]);
    const invoked = await model().bindTools([getWeather]).invoke("weather");
    expect(invoked.tool_calls).toMatchObject([{ id: "call_3", name: "get_weather" }]);
    nock.cleanAll();
    intercept(CHAT, [
      200,
      sse([chunk({ role: "assistant", content: null, tool_calls: [{ index: 0, ...call }] })]),
      SSE_HEADERS,
    ]);
    let streamed: Awaited<ReturnType<ReturnType<typeof model>["invoke"]>> | undefined;
    for await (const c of await model().bindTools([getWeather]).stream("weather")) {
      streamed = streamed ? (streamed.concat(c) as typeof streamed) : c;
    }
    expect(streamed?.tool_calls).toMatchObject([{ id: "call_3", name: "get_weather" }]);
  });

  it("streams under invoke when streaming is on, keeping usage", async () => {
    intercept(CHAT, [
      200,
      sse([
        chunk({ role: "assistant", content: "A" }),
        { ...chunk({}), choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
        {
          ...chunk({}),
          choices: [],
          usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 },
        },
      ]),
      SSE_HEADERS,
    ]);
    const reply = await model({ streaming: true }).invoke("hi");
    expect(reply.content).toBe("A");
    expect(reply.usage_metadata).toMatchObject({
      input_tokens: 4,
      output_tokens: 1,
      total_tokens: 5,
    });
  });
  it("reads LangChain's events API through this model's stream: reasoning, request id, typed errors", async () => {
    intercept(
      CHAT,
      [
        200,
        sse([
          chunk({ role: "assistant", content: "", reasoning_content: "think" }),
          chunk({ content: "Hi" }),
          { ...chunk({}), choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
        ]),
        { ...SSE_HEADERS, "X-Gateway-Request-Id": "req-events-1" },
      ],
      [
        200,
        sse([
          chunk({ role: "assistant", content: "par" }),
          { error: { code: "", message: "Upstream stream interrupted" } },
        ]),
        { ...SSE_HEADERS, "X-Gateway-Request-Id": "req-events-2" },
      ],
    );
    const events = model({ maxRetries: 0 }).streamEvents("hi");
    expect(await events.reasoning).toBe("think");
    const reply = await events.output;
    expect(reply.text).toBe("Hi");
    expect(reply.response_metadata).toMatchObject({ requestId: "req-events-1" });

    const error = await model({ maxRetries: 0 })
      .streamEvents("hi")
      .output.then(undefined, (e: unknown) => e);
    expect(ServiceUnavailableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      midStream: true,
      partialOutput: "par",
      requestId: "req-events-2",
    });
  });
});

describe("ChatInferenceService LangChain contract", () => {
  it("counts tokens locally by the package's one estimate rule, the one budgets reserve by", async () => {
    const chat = model();
    expect(await chat.getNumTokens("héllo wörld")).toBe(estimateTokens("héllo wörld"));
    expect(await chat.getNumTokens([{ type: "text", text: "abcdef" }])).toBe(2);
  });

  it("identifies itself to LangChain and LangSmith", () => {
    const chat = model();
    expect(ChatInferenceService.lc_name()).toBe("ChatInferenceService");
    expect(chat._llmType()).toBe("inference-service");
    // The key's variable as serialised (`lc_secrets` is ChatOpenAI's; toJSON writes this one).
    expect(chat.toJSON()).toMatchObject({
      kwargs: { api_key: { lc: 1, type: "secret", id: ["INFERENCE_SERVICE_API_KEY"] } },
    });
    expect(JSON.stringify(chat)).not.toContain("OPENAI_API_KEY");
    expect(chat.lc_serializable).toBe(true);
    expect(chat.lc_namespace).toEqual(["langchain_inference_service", "chat_models"]);
    expect(chat.getLsParams({} as never)).toMatchObject({
      ls_provider: "inference-service",
      ls_model_name: "test-model",
      ls_model_type: "chat",
    });
    expect(chat.metadata?.versions).toMatchObject({
      "langchain-inference-service": expect.any(String),
    });
  });

  it("never serialises the API key or any header value", () => {
    const canaryKey = "sk-CANARY-key-7f3a9";
    const canaryHeader = "hdr-CANARY-value-51c2";
    const chat = new ChatInferenceService("test-model", {
      apiKey: canaryKey,
      baseURL: BASE,
      configuration: { defaultHeaders: { "X-Secret": canaryHeader } },
    });
    for (const text of [
      JSON.stringify(chat),
      JSON.stringify(chat.toJSON()),
      JSON.stringify(chat._identifyingParams()),
      JSON.stringify(chat.bindTools([getWeather])),
    ]) {
      expect(text).not.toContain(canaryKey);
      expect(text).not.toContain(canaryHeader);
    }
    expect(chat.toJSON()).toMatchObject({
      kwargs: { api_key: { lc: 1, type: "secret", id: ["INFERENCE_SERVICE_API_KEY"] } },
    });
  });

  it.each([
    [
      "configured",
      { configuration: { defaultHeaders: { "X-Org-Token": "tok-CANARY-77\nx" } } },
      {},
    ],
    ["per-call", {}, { options: { headers: { "X-Org-Token": "tok-CANARY-77\nx" } } }],
  ])(
    "refuses a %s header value no header can carry with a ConfigurationError that keeps it out",
    async (_label, fields, callOptions) => {
      const seen = intercept(CHAT, [200, chatCompletion({ content: "hi" }), JSON_HEADERS]);
      const error = await (async () =>
        model({ maxRetries: 0, ...fields }).invoke("hi", callOptions))().catch((e: unknown) => e);
      expect(ConfigurationError.isInstance(error)).toBe(true);
      for (const text of [String(error), (error as Error).stack, inspect(error, { depth: 9 })]) {
        expect(text).toMatch(/header "X-Org-Token" has a line break \(U\+000A\) at character 14/);
        expect(text).not.toContain("tok-CANARY-77");
      }
      expect(seen).toHaveLength(0);
    },
  );

  it("keeps the key and header values out of its enumerable fields: spreads and entries show neither", async () => {
    const canaryKey = "sk-CANARY-key-7f3a9";
    const canaryHeader = "hdr-CANARY-value-51c2";
    const chat = new ChatInferenceService("test-model", {
      apiKey: canaryKey,
      baseURL: BASE,
      configuration: { defaultHeaders: { "X-Secret": canaryHeader } },
    });
    const { inspect } = await import("node:util");
    for (const view of [{ ...chat }, Object.entries(chat), Object.values(chat)]) {
      const text = inspect(view, { depth: Number.POSITIVE_INFINITY, showHidden: false });
      expect(text).not.toContain(canaryKey);
      expect(text).not.toContain(canaryHeader);
    }
    // Still readable where ChatOpenAI users read it, and still sent.
    expect(chat.apiKey).toBe(canaryKey);
    const seen = intercept(CHAT, [
      200,
      chatCompletion({ role: "assistant", content: "ok" }),
      JSON_HEADERS,
    ]);
    await chat.invoke("hi");
    expect(seen[0]?.headers.authorization).toBe(`Bearer ${canaryKey}`);
    expect(seen[0]?.headers["x-secret"]).toBe(canaryHeader);
  });

  it("loads back from its serialised form, taking the key from the secrets map", async () => {
    const text = JSON.stringify(model({ temperature: 0.3 }));
    const loaded = await load<ChatInferenceService>(text, {
      secretsMap: { INFERENCE_SERVICE_API_KEY: "sk-loaded-1" },
      optionalImportsMap: { "langchain_inference_service/chat_models": { ChatInferenceService } },
    });
    expect(loaded).toBeInstanceOf(ChatInferenceService);
    expect(loaded).toMatchObject({
      model: "test-model",
      baseURL: `${BASE}/inference/v1`,
      temperature: 0.3,
    });
    expect(loaded.apiKey).toBe("sk-loaded-1");
  });
});

describe("ChatInferenceService's base URL through serialisation", () => {
  const SERIALISED_URL = `${BASE}/inference/v1`;
  // What this package writes for `model({ temperature: 0.3 })`, before `baseUrl` was read and since.
  const WRITTEN = {
    lc: 1,
    type: "constructor",
    id: ["langchain_inference_service", "chat_models", "ChatInferenceService"],
    kwargs: {
      model: "test-model",
      temperature: 0.3,
      base_url: SERIALISED_URL,
      max_retries: 2,
      api_key: { lc: 1, type: "secret", id: ["INFERENCE_SERVICE_API_KEY"] },
    },
  };
  const loadChat = (text: string) =>
    load<ChatInferenceService>(text, {
      secretsMap: { INFERENCE_SERVICE_API_KEY: KEY },
      optionalImportsMap: { "langchain_inference_service/chat_models": { ChatInferenceService } },
    });

  it("writes `base_url` alone, whether the URL was given as `baseURL` or as `baseUrl`", () => {
    const fromLoadSpelling = new ChatInferenceService("test-model", {
      apiKey: KEY,
      baseUrl: BASE,
      temperature: 0.3,
    });
    for (const chat of [model({ temperature: 0.3 }), fromLoadSpelling]) {
      expect(JSON.parse(JSON.stringify(chat))).toEqual(WRITTEN);
      expect(chat.lc_kwargs).not.toHaveProperty("baseUrl");
    }
    expect(fromLoadSpelling.baseURL).toBe(SERIALISED_URL);
  });

  it.each([
    ["as it was written before `baseUrl` was read", () => JSON.stringify(WRITTEN)],
    ["as it is written now", () => JSON.stringify(model({ temperature: 0.3 }))],
  ])(
    "loads back %s to a model that sends to the serialised URL, not the environment's",
    async (_when, written) => {
      // load() hands the constructor `baseUrl`: were it not read, requests would go here.
      vi.stubEnv("INFERENCE_SERVICE_BASE_URL", "https://env-host.test");
      const loaded = await loadChat(written());
      expect(loaded.baseURL).toBe(SERIALISED_URL);
      expect(JSON.parse(JSON.stringify(loaded))).toEqual(WRITTEN);
      const seen = intercept(CHAT, [200, chatCompletion({ content: "ok" }), JSON_HEADERS]);
      expect((await loaded.invoke("hi")).content).toBe("ok");
      expect(seen.map((r) => r.path)).toEqual([CHAT]);
      expect(seen[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    },
  );
});
