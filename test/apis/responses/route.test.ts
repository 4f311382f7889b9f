import {
  AIMessage,
  type AIMessageChunk,
  HumanMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import nock from "nock";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ChatInferenceService,
  type ChatInferenceServiceFields,
} from "../../../src/apis/chat/chat_models.js";
import { resetResponsesAuto } from "../../../src/apis/responses/fallbacks.js";
import {
  AuthenticationError,
  BadRequestError,
  BudgetExceededError,
  ConfigurationError,
  InsufficientCreditError,
  InvalidURLError,
  ModelNotFoundError,
  RateLimitError,
  ServiceConnectionError,
  ServiceUnavailableError,
} from "../../../src/errors/errors.js";
import { RateLimiter } from "../../../src/spend/rate_limiter.js";
import { UsageTracker } from "../../../src/spend/usage_tracker.js";
import { pdf, png } from "../../helpers/media.js";
import { BASE, chatCompletion, intercept, KEY } from "../../helpers/wire.js";

const RESPONSES = "/inference/v1/responses";
const CHAT = "/inference/v1/chat/completions";
const RID = { "X-Gateway-Request-Id": "rid-1", "Content-Type": "application/json" };
const EVENTS = { "Content-Type": "text/event-stream", "X-Gateway-Request-Id": "rid-s" };

beforeAll(() => nock.disableNetConnect());
beforeEach(() => resetResponsesAuto());
afterEach(() => nock.cleanAll());

function model(fields: Omit<ChatInferenceServiceFields, "model"> = {}) {
  return new ChatInferenceService("gpt-test", {
    apiKey: KEY,
    baseURL: BASE,
    useResponsesApi: true,
    retry: { initialDelayMs: 0, maxDelayMs: 0 },
    ...fields,
  });
}

const getWeather = tool(async ({ city }) => `Sunny in ${city}`, {
  name: "get_weather",
  description: "Get the weather for a city",
  schema: z.object({ city: z.string() }),
});

const REASONING = {
  id: "rs_1",
  type: "reasoning",
  summary: [{ type: "summary_text", text: "The user wants the weather." }],
  encrypted_content: "SEALED-1",
};
const CALL = {
  id: "fc_1",
  type: "function_call",
  status: "completed",
  call_id: "call_1",
  name: "get_weather",
  arguments: '{"city":"Paris"}',
};
const USAGE = {
  input_tokens: 40,
  input_tokens_details: { cached_tokens: 8 },
  output_tokens: 12,
  output_tokens_details: { reasoning_tokens: 5 },
  total_tokens: 52,
};

function response(output: unknown[], extra: Record<string, unknown> = {}) {
  return {
    id: "resp_1",
    object: "response",
    created_at: 1,
    status: "completed",
    error: null,
    incomplete_details: null,
    model: "gpt-test-2026",
    output,
    usage: USAGE,
    ...extra,
  };
}

const text = (value: string) => ({
  id: "msg_1",
  type: "message",
  status: "completed",
  role: "assistant",
  content: [{ type: "output_text", text: value, annotations: [] }],
});

/** An SSE body of typed events as the gateway relays them: `event:` and `data:`, no `[DONE]`. */
function events(list: Array<Record<string, unknown>>): string {
  return list.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
}

/** A streamed tool call whose reasoning item gets its `encrypted_content` only when done. */
function toolCallEvents(
  completedOutput: unknown[] = [{ ...REASONING, encrypted_content: undefined }, CALL],
) {
  const created = response([], { status: "in_progress", usage: null });
  return events([
    { type: "response.created", response: created },
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { id: "rs_1", type: "reasoning", summary: [] },
    },
    {
      type: "response.reasoning_summary_text.delta",
      output_index: 0,
      item_id: "rs_1",
      summary_index: 0,
      delta: "The user wants the weather.",
    },
    { type: "response.output_item.done", output_index: 0, item: REASONING },
    { type: "response.output_item.added", output_index: 1, item: { ...CALL, arguments: "" } },
    {
      type: "response.function_call_arguments.delta",
      output_index: 1,
      item_id: "fc_1",
      delta: '{"city":',
    },
    {
      type: "response.function_call_arguments.delta",
      output_index: 1,
      item_id: "fc_1",
      delta: '"Paris"}',
    },
    { type: "response.output_item.done", output_index: 1, item: CALL },
    { type: "response.completed", response: response(completedOutput) },
  ]);
}

describe("useResponsesApi: true on the wire", () => {
  it("posts to …/responses, stateless: store false, no previous_response_id, the messages as input items", async () => {
    const seen = intercept(RESPONSES, [200, response([text("Hi")]), RID]);
    await model().invoke([new HumanMessage("Hello")]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(seen[0]!.body).toMatchObject({
      model: "gpt-test",
      store: false,
      stream: false,
      input: [{ type: "message", role: "user", content: "Hello" }],
    });
    expect(seen[0]!.body).not.toHaveProperty("previous_response_id");
    expect(seen[0]!.body).not.toHaveProperty("messages");
    expect(seen[0]!.body).not.toHaveProperty("include");
  });

  it("asks a reasoning model for its encrypted reasoning and a summary, and takes a summary option", async () => {
    const seen = intercept(RESPONSES, [200, response([text("Hi")]), RID]);
    await model({ reasoning: { effort: "low" } }).invoke("Hello");
    await model({ reasoning: { effort: "high", summary: "detailed" } }).invoke("Hello");
    expect(seen[0]!.body).toMatchObject({
      include: ["reasoning.encrypted_content"],
      reasoning: { effort: "low", summary: "auto" },
    });
    expect(seen[1]!.body.reasoning).toEqual({ effort: "high", summary: "detailed" });
  });

  it("sends previous_response_id only when the call passes one", async () => {
    const seen = intercept(RESPONSES, [200, response([text("Hi")]), RID]);
    await model().invoke("Hello", { previous_response_id: "resp_0" });
    expect(seen[0]!.body.previous_response_id).toBe("resp_0");
  });

  it("sends tools, tool_choice, max_output_tokens and a json_schema format in the Responses shape", async () => {
    const seen = intercept(
      RESPONSES,
      [200, response([CALL]), RID],
      [200, response([text('{"city":"Paris"}')]), RID],
    );
    await model({ maxTokens: 64 })
      .bindTools([getWeather], { tool_choice: "get_weather" })
      .invoke("Weather in Paris?");
    expect(seen[0]!.body).toMatchObject({
      max_output_tokens: 64,
      tools: [{ type: "function", name: "get_weather", strict: false }],
      tool_choice: { type: "function", name: "get_weather" },
    });
    const place = await model()
      .withStructuredOutput(z.object({ city: z.string() }), { method: "jsonSchema", name: "place" })
      .invoke("Where?");
    expect(place).toEqual({ city: "Paris" });
    expect(seen[1]!.body.text).toMatchObject({ format: { type: "json_schema", name: "place" } });
  });

  it("refuses a Chat Completions option the Responses API does not take, before any request", async () => {
    const seen = intercept(RESPONSES, [200, response([text("Hi")]), RID]);
    await expect(model().invoke("Hello", { stop: ["\n"] })).rejects.toSatisfy(
      (e) => ConfigurationError.isInstance(e) && (e as ConfigurationError).option === "stop",
    );
    expect(seen).toHaveLength(0);
  });

  it("reads text, reasoning, tool calls, usage (cached and reasoning), the request ID and the model", async () => {
    intercept(RESPONSES, [200, response([REASONING, CALL]), RID]);
    const reply = await model().bindTools([getWeather]).invoke("Weather in Paris?");
    expect(reply.tool_calls).toEqual([
      { name: "get_weather", args: { city: "Paris" }, id: "call_1", type: "tool_call" },
    ]);
    expect(reply.usage_metadata).toEqual({
      input_tokens: 40,
      output_tokens: 12,
      total_tokens: 52,
      input_token_details: { cache_read: 8 },
      output_token_details: { reasoning: 5 },
    });
    expect(reply.response_metadata).toMatchObject({
      requestId: "rid-1",
      model: "gpt-test-2026",
      model_provider: "inference-service",
      finish_reason: "tool_calls",
    });
    expect(reply.additional_kwargs.reasoning).toMatchObject({ encrypted_content: "SEALED-1" });
    expect(reply.contentBlocks.find((b) => b.type === "reasoning")).toMatchObject({
      reasoning: "The user wants the weather.",
      encrypted_content: "SEALED-1",
    });
  });

  it("sends the reasoning item back verbatim, before its function_call and the function_call_output", async () => {
    const seen = intercept(
      RESPONSES,
      [200, response([REASONING, CALL]), RID],
      [200, response([text("Sunny in Paris")]), RID],
    );
    const bound = model().bindTools([getWeather]);
    const question = new HumanMessage("Weather in Paris?");
    const first = await bound.invoke([question]);
    const result = new ToolMessage({ content: "Sunny", tool_call_id: "call_1" });
    await bound.invoke([question, first, result]);
    expect(seen[1]!.body.input).toEqual([
      { type: "message", role: "user", content: "Weather in Paris?" },
      REASONING,
      {
        type: "function_call",
        name: "get_weather",
        arguments: '{"city":"Paris"}',
        call_id: "call_1",
      },
      { type: "function_call_output", call_id: "call_1", output: "Sunny" },
    ]);
  });

  it("leaves out a reasoning item without encrypted_content: a stateless call cannot refer to it by ID", async () => {
    const seen = intercept(RESPONSES, [200, response([text("ok")]), RID]);
    const earlier = new AIMessage({
      content: "",
      tool_calls: [{ name: "get_weather", args: { city: "Paris" }, id: "call_1" }],
      response_metadata: { output: [{ id: "rs_0", type: "reasoning", summary: [] }, CALL] },
    });
    await model().invoke([
      new HumanMessage("q"),
      earlier,
      new ToolMessage({ content: "Sunny", tool_call_id: "call_1" }),
    ]);
    const types = (seen[0]!.body.input as Array<{ type: string }>).map((item) => item.type);
    expect(types).toEqual(["message", "function_call", "function_call_output"]);
  });
});

describe("useResponsesApi: true, streamed", () => {
  it("keeps the reasoning item's encrypted_content from output_item.done when the terminal event leaves it out, and sends it back", async () => {
    const seen = intercept(
      RESPONSES,
      [200, toolCallEvents(), EVENTS],
      [200, response([text("Sunny in Paris")]), RID],
    );
    const bound = model().bindTools([getWeather]);
    const question = new HumanMessage("Weather in Paris?");
    let streamed: AIMessageChunk | undefined;
    for await (const chunk of await bound.stream([question])) {
      streamed = streamed ? streamed.concat(chunk) : chunk;
    }
    expect(streamed!.tool_calls).toEqual([
      { name: "get_weather", args: { city: "Paris" }, id: "call_1", type: "tool_call" },
    ]);
    expect(streamed!.additional_kwargs.reasoning).toEqual(REASONING);
    expect(streamed!.response_metadata).toMatchObject({
      requestId: "rid-s",
      model: "gpt-test-2026",
    });
    expect(streamed!.usage_metadata).toMatchObject({ input_tokens: 40, output_tokens: 12 });
    expect(seen[0]!.body.stream).toBe(true);
    const result = new ToolMessage({ content: "Sunny", tool_call_id: "call_1" });
    await bound.invoke([question, new AIMessage(streamed!), result]);
    expect((seen[1]!.body.input as unknown[])[1]).toEqual(REASONING);
  });

  it("keeps it through LangChain's stream-events protocol too", async () => {
    intercept(RESPONSES, [200, toolCallEvents(), EVENTS]);
    const stream = model().streamEvents("Weather in Paris?", { tools: [getWeather] });
    const message = await stream.output;
    const output = message.response_metadata.output as Array<Record<string, unknown>>;
    expect(output[0]).toEqual(REASONING);
    expect(message.response_metadata.requestId).toBe("rid-s");
  });

  it("types a response.failed event with the output so far, and an error event by its code", async () => {
    intercept(RESPONSES, [
      200,
      events([
        { type: "response.created", response: response([], { status: "in_progress" }) },
        {
          type: "response.output_item.added",
          output_index: 0,
          item: { type: "message", id: "m", role: "assistant", content: [] },
        },
        { type: "response.output_text.delta", output_index: 0, delta: "Partial" },
        {
          type: "response.failed",
          response: response([], {
            status: "failed",
            error: { code: "invalid_prompt", message: "bad prompt" },
          }),
        },
      ]),
      EVENTS,
    ]);
    const chunks = async () => {
      for await (const _ of await model().stream("Hello")) void _;
    };
    await expect(chunks()).rejects.toSatisfy(
      (e) =>
        BadRequestError.isInstance(e) &&
        (e as BadRequestError).code === "invalid_prompt" &&
        (e as BadRequestError).partialOutput === "Partial" &&
        (e as BadRequestError).requestId === "rid-s",
    );
    nock.cleanAll();
    intercept(RESPONSES, [
      200,
      events([
        { type: "response.created", response: response([], { status: "in_progress" }) },
        { type: "error", code: "rate_limit_exceeded", message: "slow down", param: null },
      ]),
      EVENTS,
    ]);
    await expect(chunks()).rejects.toSatisfy((e) => RateLimitError.isInstance(e));
  });

  it("is a cut stream when it ends before its terminal event (no [DONE] on these streams)", async () => {
    const full = toolCallEvents();
    const cut = full.slice(0, full.indexOf("event: response.completed"));
    intercept(RESPONSES, [200, cut, EVENTS]);
    const read = async () => {
      for await (const _ of await model({ maxRetries: 0 }).stream("Hello")) void _;
    };
    await expect(read()).rejects.toSatisfy(
      (e) => ServiceConnectionError.isInstance(e) && (e as ServiceConnectionError).midStream,
    );
  });
});

describe("useResponsesApi: true, everything around a call", () => {
  it.each([
    [
      401,
      { error: { message: "invalid token", type: "new_api_error", code: "" } },
      AuthenticationError,
    ],
    [
      403,
      { error: { message: "quota", type: "new_api_error", code: "insufficient_user_quota" } },
      InsufficientCreditError,
    ],
    [
      503,
      {
        error: {
          message: "No available channel for model gpt-test",
          type: "new_api_error",
          code: "model_not_found",
        },
      },
      ModelNotFoundError,
    ],
  ])("fails on the first response: %i", async (status, body, cls) => {
    const seen = intercept(RESPONSES, [status, body, RID]);
    nock(BASE).get("/inference/v1/models").reply(404);
    await expect(model().invoke("Hello")).rejects.toSatisfy((e) => cls.isInstance(e));
    expect(seen).toHaveLength(1);
  });

  it("retries what passes, with the request ID of the answer", async () => {
    const seen = intercept(
      RESPONSES,
      [502, { error: { message: "bad gateway", code: "upstream_error" } }, RID],
      [200, response([text("Hi")]), RID],
    );
    const reply = await model({ maxRetries: 2 }).invoke("Hello");
    expect(seen).toHaveLength(2);
    expect(reply.response_metadata.requestId).toBe("rid-1");
  });

  it("a 404 from /responses says the deployment does not serve it", async () => {
    intercept(RESPONSES, [
      404,
      {
        error: {
          message: "Invalid URL (POST /v1/responses)",
          type: "invalid_request_error",
          code: "",
        },
      },
      RID,
    ]);
    await expect(model().invoke("Hello")).rejects.toSatisfy(
      (e) => InvalidURLError.isInstance(e) && /useResponsesApi/.test((e as InvalidURLError).hint),
    );
  });

  it("reserves with a UsageTracker and settles to the reported usage, invoked and streamed", async () => {
    intercept(RESPONSES, [200, response([text("Hi")]), RID], [200, toolCallEvents(), EVENTS]);
    const tracker = new UsageTracker({
      budget: 10,
      prices: { "gpt-test": { input: 1, output: 1 } },
    });
    const chat = model();
    await chat.invoke("Hello", { callbacks: [tracker] });
    for await (const _ of await chat.stream("Hello", { callbacks: [tracker] })) void _;
    expect(tracker.records.map((r) => [r.inputTokens, r.outputTokens, r.requestId])).toEqual([
      [40, 12, "rid-1"],
      [40, 12, "rid-s"],
    ]);
    expect(tracker.spent).toBeCloseTo((2 * (40 + 12)) / 1e6);
  });

  it("waits for the model's rate limiter", async () => {
    intercept(RESPONSES, [200, response([text("Hi")]), RID]);
    const rateLimiter = new RateLimiter({ requestsPerMinute: 1 });
    const chat = model({ rateLimiter });
    await chat.invoke("Hello");
    const controller = new AbortController();
    const second = chat.invoke("Hello", { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(second).rejects.toThrow();
  });
});

describe("Chat Completions' refusal of function tools with a reasoning effort", () => {
  it("is a BadRequestError whose hint says to set useResponsesApi", async () => {
    const message =
      "Function tools with reasoning_effort are not supported for gpt-5.4 in /v1/chat/completions. Please use /v1/responses instead. (request id: 2026)";
    const seen = intercept(CHAT, [
      400,
      { error: { message, type: "invalid_request_error", param: "reasoning_effort", code: null } },
      RID,
    ]);
    const chat = new ChatInferenceService("gpt-5.4", {
      apiKey: KEY,
      baseURL: BASE,
      reasoning: { effort: "low" },
    });
    await expect(chat.bindTools([getWeather]).invoke("Weather?")).rejects.toSatisfy(
      (e) =>
        BadRequestError.isInstance(e) &&
        (e as BadRequestError).code === "responses_api_required" &&
        /useResponsesApi/.test((e as BadRequestError).hint) &&
        (e as BadRequestError).retryable === false,
    );
    expect(seen).toHaveLength(1);
  });
});

describe('useResponsesApi: "auto"', () => {
  const listed = (types: string[]) => ({
    success: true,
    object: "list",
    data: [{ id: "gpt-test", object: "model", supported_endpoint_types: types }],
  });

  it("asks GET …/models once, and calls /responses for a model listed with openai-response", async () => {
    const list = nock(BASE)
      .get("/inference/v1/models")
      .once()
      .reply(200, listed(["openai", "openai-response"]));
    const seen = intercept(RESPONSES, [200, response([text("Hi")]), RID]);
    await model({ useResponsesApi: "auto" }).invoke("Hello");
    await model({ useResponsesApi: "auto" }).invoke("Hello");
    expect(list.isDone()).toBe(true);
    expect(seen).toHaveLength(2);
  });

  it("calls /chat/completions for a model listed without it", async () => {
    nock(BASE)
      .get("/inference/v1/models")
      .reply(200, listed(["openai"]));
    const chat = intercept(CHAT, [200, chatCompletion({ content: "Hi" }), RID]);
    const reply = await model({ useResponsesApi: "auto" }).invoke("Hello");
    expect(chat).toHaveLength(1);
    expect(reply.text).toBe("Hi");
  });

  it("falls back to /chat/completions on convert_request_failed, and remembers it for new instances until reset", async () => {
    nock(BASE)
      .get("/inference/v1/models")
      .times(2)
      .reply(200, listed(["openai", "openai-response"]));
    const refused = {
      error: { code: "convert_request_failed", message: "not implemented", type: "new_api_error" },
    };
    const responses = intercept(RESPONSES, [500, refused, RID]);
    const chat = intercept(CHAT, [200, chatCompletion({ content: "Hi" }), RID]);
    expect((await model({ useResponsesApi: "auto" }).invoke("Hello")).text).toBe("Hi");
    expect((await model({ useResponsesApi: "auto" }).invoke("Hello")).text).toBe("Hi");
    expect(responses).toHaveLength(1);
    expect(chat).toHaveLength(2);
    resetResponsesAuto();
    await model({ useResponsesApi: "auto" }).invoke("Hello");
    expect(responses).toHaveLength(2);
  });

  it("never falls back with function tools and a reasoning effort: the Responses error is raised", async () => {
    nock(BASE)
      .get("/inference/v1/models")
      .reply(200, listed(["openai", "openai-response"]));
    const refused = {
      error: { code: "convert_request_failed", message: "not implemented", type: "new_api_error" },
    };
    intercept(RESPONSES, [500, refused, RID]);
    const chat = intercept(CHAT, [200, chatCompletion({ content: "Hi" }), RID]);
    const bound = model({ useResponsesApi: "auto", reasoning: { effort: "low" } }).bindTools([
      getWeather,
    ]);
    await expect(bound.invoke("Weather?")).rejects.toSatisfy(
      (e) =>
        BadRequestError.isInstance(e) && (e as BadRequestError).code === "convert_request_failed",
    );
    expect(chat).toHaveLength(0);
  });

  it("uses /chat/completions when the service gives no model list", async () => {
    nock(BASE).get("/inference/v1/models").reply(404);
    const chat = intercept(CHAT, [200, chatCompletion({ content: "Hi" }), RID]);
    await model({ useResponsesApi: "auto" }).invoke("Hello");
    expect(chat).toHaveLength(1);
  });

  it("a 5xx that passes is retried on /responses, never a reason to fall back", async () => {
    nock(BASE)
      .get("/inference/v1/models")
      .reply(200, listed(["openai-response"]));
    const responses = intercept(RESPONSES, [503, { error: { message: "busy", code: "" } }, RID]);
    const chat = intercept(CHAT, [200, chatCompletion({ content: "Hi" }), RID]);
    await expect(
      model({ useResponsesApi: "auto", maxRetries: 1 }).invoke("Hello"),
    ).rejects.toSatisfy((e) => ServiceUnavailableError.isInstance(e));
    expect(responses).toHaveLength(2);
    expect(chat).toHaveLength(0);
  });
});

describe("useResponsesApi: true, money", () => {
  const PRICES = {
    "gpt-test": { input: 3, cachedInput: 0.3, cacheWrite: 3.75, cacheWrite1h: 6, output: 15 },
  };
  /** A Claude model's cache writes as a gateway relays them on this API: reads, writes, the split. */
  const CACHED = {
    input_tokens: 1000,
    input_tokens_details: { cached_tokens: 200, cache_write_tokens: 300 },
    output_tokens: 10,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 1010,
    claude_cache_creation_5_m_tokens: 100,
    claude_cache_creation_1_h_tokens: 200,
  };
  const DETAILS = {
    cache_read: 200,
    cache_creation: 300,
    ephemeral_5m_input_tokens: 100,
    ephemeral_1h_input_tokens: 200,
  };
  const COST = (500 * 3 + 200 * 0.3 + 100 * 3.75 + 200 * 6 + 10 * 15) / 1e6;

  it("reads the cache's reads and writes (and their split) into usage_metadata, and prices them, invoked and streamed", async () => {
    const streamed = events([
      { type: "response.created", response: response([], { status: "in_progress", usage: null }) },
      { type: "response.output_text.delta", output_index: 0, item_id: "msg_1", delta: "Hi" },
      { type: "response.completed", response: response([text("Hi")], { usage: CACHED }) },
    ]);
    intercept(
      RESPONSES,
      [200, response([text("Hi")], { usage: CACHED }), RID],
      [200, streamed, EVENTS],
    );
    const tracker = new UsageTracker({ prices: PRICES, budget: 1 });
    const chat = model();
    const reply = await chat.invoke("Hello", { callbacks: [tracker] });
    expect(reply.usage_metadata?.input_token_details).toEqual(DETAILS);
    let last: AIMessageChunk | undefined;
    for await (const chunk of await chat.stream("Hello", { callbacks: [tracker] })) {
      last = last ? last.concat(chunk) : chunk;
    }
    // LangChain's merging keeps only the reads and the writes; the record has the split all the same.
    expect(last?.usage_metadata?.input_token_details?.cache_creation).toBe(300);
    expect(tracker.records.map((r) => [r.inputTokenDetails, r.settlement])).toEqual([
      [DETAILS, "reported"],
      [DETAILS, "reported"],
    ]);
    expect(tracker.records.map((r) => r.cost)).toEqual([
      expect.closeTo(COST, 12),
      expect.closeTo(COST, 12),
    ]);
    expect(tracker.totals).toMatchObject({ cacheWriteTokens: 600, cacheWrite1hTokens: 400 });
  });

  it("reads writes in the gateway's other name (cached_creation_tokens) as 5-minute writes", async () => {
    const usage = {
      ...USAGE,
      input_tokens_details: { cached_tokens: 8, cached_creation_tokens: 16 },
    };
    intercept(RESPONSES, [200, response([text("Hi")], { usage }), RID]);
    const reply = await model().invoke("Hello");
    expect(reply.usage_metadata?.input_token_details).toEqual({
      cache_read: 8,
      cache_creation: 16,
    });
  });

  /** The tokens a call reserves, read from the refusal of a budget too small for anything. */
  async function reserved(chat: ChatInferenceService, content: HumanMessage["content"]) {
    const seen = intercept(RESPONSES, [200, response([text("Hi")]), RID]);
    const tracker = new UsageTracker({
      prices: { "gpt-test": { input: 1, output: 0 } },
      budget: 1e-9,
    });
    const error = await chat
      .invoke([new HumanMessage({ content })], { callbacks: [tracker] })
      .catch((e: unknown) => e);
    expect(BudgetExceededError.isInstance(error)).toBe(true);
    expect(seen).toHaveLength(0);
    return Math.round((error as BudgetExceededError).requested! * 1e6);
  }

  it("reserves input_image and input_file parts at their real size, and by the profile's mediaTokens", async () => {
    const question = { type: "text" as const, text: "What is in it?" };
    const base = await reserved(model(), [question]);
    const image = await reserved(model(), [
      { type: "image_url", image_url: { url: png(1500, 1500) } },
      question,
    ]);
    expect(image - base).toBe(3000);
    const pdfs = await reserved(model(), [
      { type: "file", file: { file_data: pdf(20), filename: "tides.pdf" } },
      { type: "input_file", file_id: "file-1" },
      question,
    ]);
    expect(pdfs - base).toBe(20 * 3000 + 100 * 3000);
    const remote = await reserved(model(), [
      { type: "input_image", image_url: "https://example.com/chart.png" },
      { type: "input_image", file_id: "file-2" },
      question,
    ]);
    expect(remote - base).toBe(2 * 3279);
    const profiled = model({
      profiles: { "gpt-test": { mediaTokens: { image: 85, pdfPage: 1000, file: 5000 } } },
    });
    const flat = await reserved(profiled, [
      { type: "image_url", image_url: { url: png(1500, 1500) } },
      { type: "file", file: { file_data: pdf(20), filename: "tides.pdf" } },
      { type: "input_file", file_id: "file-1" },
      question,
    ]);
    expect(flat - base).toBe(85 + 20 * 1000 + 5000);
  });

  it.each([
    ["left with a break", false],
    ["stopped by its signal", true],
  ])(
    "charges a stream %s after its first event its worst case, settled upper-bound",
    async (_how, abort) => {
      intercept(RESPONSES, [200, toolCallEvents(), EVENTS]);
      const tracker = new UsageTracker({
        prices: { "gpt-test": { input: 1, output: 1 } },
        budget: 1,
      });
      const controller = new AbortController();
      const chat = model({ maxTokens: 100 });
      const stream = await chat.stream("Hello", {
        callbacks: [tracker],
        signal: controller.signal,
      });
      try {
        for await (const _ of stream) {
          if (abort) controller.abort();
          else break;
        }
      } catch (error) {
        if (!controller.signal.aborted) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 0));
      const [record] = tracker.records;
      expect(record).toMatchObject({ settlement: "upper-bound", abandoned: true, estimated: true });
      expect(abort ? record?.aborted : record?.aborted).toBe(abort ? true : undefined);
      // The worst case: the prompt's estimate and all of max_output_tokens.
      expect(record?.outputTokens).toBe(100);
      expect(tracker.spent).toBeGreaterThan(100 / 1e6);
      expect(tracker.inFlight).toBe(0);
      expect((await tracker.budgetStatus()).reserved).toBe(0);
    },
  );
});
