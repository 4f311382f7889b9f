import { InMemoryCache } from "@langchain/core/caches";
import { getRetryable, LangChainError } from "@langchain/core/errors";
import { BaseLLM } from "@langchain/core/language_models/llms";
import type { Serialized } from "@langchain/core/load/serializable";
import { type AIMessageChunk, HumanMessage } from "@langchain/core/messages";
import { StringOutputParser } from "@langchain/core/output_parsers";
import type { LLMResult } from "@langchain/core/outputs";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { concat } from "@langchain/core/utils/stream";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent, tool } from "langchain";
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { ChatInferenceService } from "../../src/apis/chat/chat_models.js";
import { DedicatedEndpointLLM } from "../../src/apis/completions/llms.js";
import {
  createEmulator,
  DEFAULT_CREDIT,
  DEFAULT_MODEL,
  DEFAULT_SERVICE_NAME,
  type InProcessEmulator,
} from "../../src/emulator/index.js";
import { BudgetExceededError, ConfigurationError } from "../../src/errors/errors.js";
import type { UsageRecord } from "../../src/spend/usage_records.js";
import { UsageTracker } from "../../src/spend/usage_tracker.js";
import type { UsageTrackerOptions } from "../../src/spend/usage_tracker_options.js";
import { MemoryStore } from "../../src/stores/memory_store.js";
import { bodies, RID, withRequestId } from "../helpers/fixtures.js";
import { png } from "../helpers/media.js";
import {
  BASE,
  chatChunk,
  chatCompletion,
  intercept,
  JSON_HEADERS,
  KEY,
  SSE_HEADERS,
  sse,
} from "../helpers/wire.js";

const CHAT = "/inference/v1/chat/completions";
const PRICES = { "test-model": { input: 2, output: 8 } };

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
  vi.restoreAllMocks();
});

function chat(model = "test-model", fields: Record<string, unknown> = {}) {
  return new ChatInferenceService(model, { apiKey: KEY, baseURL: BASE, maxRetries: 0, ...fields });
}

/** A reply whose usage is `input`/`output` tokens. */
function reply(input: number, output: number, extra: Record<string, unknown> = {}) {
  return chatCompletion(
    { content: "ok" },
    {
      usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
      ...extra,
    },
  );
}

/** The amounts a tracker's store is asked to hold, in order. */
function reservedAmounts(usage: UsageTracker): number[] {
  const reserved: number[] = [];
  const reserve = usage.store.reserve.bind(usage.store);
  vi.spyOn(usage.store, "reserve").mockImplementation(async (key, hold) => {
    reserved.push(hold.amount);
    return reserve(key, hold);
  });
  return reserved;
}

function sum(records: readonly UsageRecord[], key: "inputTokens" | "outputTokens" | "totalTokens") {
  return records.reduce((total, r) => total + r[key], 0);
}

describe("UsageTracker's run hooks, given the wrong types", () => {
  const estimate = { model: "m", inputTokens: 1, maxOutputTokens: 1, choices: 1 };
  it.each([
    ["reserve(5, estimate)", (t: UsageTracker) => t.reserve(5 as never, estimate), "runId"],
    [
      "reserve(run, undefined)",
      (t: UsageTracker) => t.reserve("run", undefined as never),
      "estimate",
    ],
    [
      "reserve(run, { model: 5 })",
      (t: UsageTracker) => t.reserve("run", { ...estimate, model: 5 as never }),
      "estimate.model",
    ],
    ["endRun(run, undefined)", (t: UsageTracker) => t.endRun("run", undefined as never), "how"],
    ["endRun(5, {})", (t: UsageTracker) => t.endRun(5 as never, {}), "runId"],
  ])("%s is a ConfigurationError naming %s, recording nothing", async (_call, call, option) => {
    const tracker = new UsageTracker({ budget: 1, prices: { m: { input: 1, output: 1 } } });
    await expect(call(tracker)).rejects.toMatchObject({ name: "ConfigurationError", option });
    expect(tracker.records).toEqual([]);
    expect((await tracker.budgetStatus()).reserved).toBe(0);
  });
});

describe("UsageTracker on one call", () => {
  it("records model, tokens with details, request ID, duration and cost of an invoke", async () => {
    intercept(CHAT, [
      200,
      reply(9, 3, {
        usage: {
          prompt_tokens: 9,
          completion_tokens: 3,
          total_tokens: 12,
          prompt_tokens_details: { cached_tokens: 2 },
          completion_tokens_details: { reasoning_tokens: 1 },
        },
      }),
      JSON_HEADERS,
    ]);
    const usage = new UsageTracker({ prices: PRICES });
    await chat().invoke("hi", { callbacks: [usage] });
    expect(usage.records).toEqual([
      {
        runId: expect.any(String),
        model: "test-model",
        inputTokens: 9,
        outputTokens: 3,
        totalTokens: 12,
        inputTokenDetails: { cache_read: 2 },
        outputTokenDetails: { reasoning: 1 },
        requestId: "req-ok-1",
        durationMs: expect.any(Number),
        cost: (9 * 2 + 3 * 8) / 1e6,
        settlement: "reported",
      },
    ]);
    expect(usage.records[0]?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("counts a streamed call once, from the usage of its final chunk", async () => {
    const chunk = chatChunk;
    const seen = intercept(CHAT, [
      200,
      sse([
        chunk({ role: "assistant", content: "Hel" }),
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
    const usage = new UsageTracker({ prices: PRICES });
    let text = "";
    for await (const c of await chat().stream("hi", { callbacks: [usage] })) text += c.text;
    expect(text).toBe("Hello");
    expect(seen).toHaveLength(1);
    expect(usage.records).toHaveLength(1);
    expect(usage.records[0]).toMatchObject({
      inputTokens: 5,
      outputTokens: 2,
      totalTokens: 7,
      requestId: "req-stream-1",
    });
    expect(usage.totals).toMatchObject({ calls: 1, inputTokens: 5, outputTokens: 2 });
  });

  it("records a failed call with the error, its request ID and no tokens", async () => {
    intercept(CHAT, [403, bodies.noCredit, withRequestId()]);
    const usage = new UsageTracker({ prices: PRICES });
    await expect(chat().invoke("hi", { callbacks: [usage] })).rejects.toThrow();
    expect(usage.records).toEqual([
      expect.objectContaining({
        model: "test-model",
        inputTokens: 0,
        outputTokens: 0,
        requestId: RID,
        error: { name: "InsufficientCreditError", message: expect.any(String) },
        cost: 0,
      }),
    ]);
    expect(usage.totals).toMatchObject({ calls: 1, failed: 1, totalTokens: 0 });
  });

  it("records a cache hit as cached, with no tokens and no second request", async () => {
    const seen = intercept(CHAT, [200, reply(9, 3), JSON_HEADERS]);
    const usage = new UsageTracker({ prices: PRICES });
    const cached = chat("test-model", { cache: new InMemoryCache() });
    await cached.invoke("hi", { callbacks: [usage] });
    await cached.invoke("hi", { callbacks: [usage] });
    expect(seen).toHaveLength(1);
    expect(usage.records[1]).toMatchObject({ cached: true, totalTokens: 0, cost: 0 });
    expect(usage.records[1]?.requestId).toBeUndefined();
    expect(usage.totals).toMatchObject({ calls: 2, totalTokens: 12 });
  });
});

describe("UsageTracker aggregates", () => {
  it("keeps totals equal to the sum of the records and cost equal to tokens × price", async () => {
    const seen = intercept(
      CHAT,
      [200, reply(10, 4), JSON_HEADERS],
      [200, reply(25, 7), JSON_HEADERS],
      [200, reply(3, 1), JSON_HEADERS],
    );
    const usage = new UsageTracker({ prices: PRICES });
    const model = chat();
    for (const input of ["a", "b", "c"]) await model.invoke(input, { callbacks: [usage] });
    expect(seen).toHaveLength(3);
    const { totals, records } = usage;
    expect(totals).toMatchObject({
      calls: 3,
      failed: 0,
      inputTokens: sum(records, "inputTokens"),
      outputTokens: sum(records, "outputTokens"),
      totalTokens: sum(records, "totalTokens"),
    });
    expect(totals.inputTokens).toBe(38);
    expect(totals.outputTokens).toBe(12);
    expect(totals.cost).toBeCloseTo((38 * 2 + 12 * 8) / 1e6, 15);
    expect(records.reduce((c, r) => c + (r.cost ?? 0), 0)).toBeCloseTo(totals.cost!, 15);
    expect(usage.spent).toBe(totals.cost);
  });

  it("counts each call of a batch once", async () => {
    const seen = intercept(CHAT, [200, reply(4, 2), JSON_HEADERS]);
    const usage = new UsageTracker();
    await chat().batch(["a", "b", "c"], { callbacks: [usage], maxConcurrency: 2 });
    expect(seen).toHaveLength(3);
    expect(new Set(usage.records.map((r) => r.runId)).size).toBe(3);
    expect(usage.totals).toMatchObject({ calls: 3, inputTokens: 12, outputTokens: 6 });
  });

  it("aggregates per model; a model without a price has tokens but no cost", async () => {
    intercept(CHAT, [200, reply(10, 5), JSON_HEADERS]);
    const usage = new UsageTracker({ prices: PRICES });
    await chat("test-model").invoke("a", { callbacks: [usage] });
    await chat("other-model").batch(["b", "c"], { callbacks: [usage] });
    expect(usage.byModel()).toEqual({
      "test-model": {
        calls: 1,
        failed: 0,
        inputTokens: 10,
        outputTokens: 5,
        totalTokens: 15,
        cost: (10 * 2 + 5 * 8) / 1e6,
      },
      "other-model": { calls: 2, failed: 0, inputTokens: 20, outputTokens: 10, totalTokens: 30 },
    });
    expect(usage.records.filter((r) => r.model === "other-model").map((r) => r.cost)).toEqual([
      undefined,
      undefined,
    ]);
    // Totals count every token, but cost only where a price is known.
    expect(usage.totals).toMatchObject({ calls: 3, totalTokens: 45, cost: (10 * 2 + 5 * 8) / 1e6 });
  });

  it("leaves cost undefined when no model has a price", async () => {
    intercept(CHAT, [200, reply(10, 5), JSON_HEADERS]);
    const usage = new UsageTracker({ prices: { "another-model": { input: 1, output: 1 } } });
    await chat().invoke("a", { callbacks: [usage] });
    expect(usage.records[0]?.cost).toBeUndefined();
    expect(usage.totals.cost).toBeUndefined();
    expect(usage.totals.totalTokens).toBe(15);
    expect(usage.spent).toBe(0);
  });

  it("counts the model run nested in a chain (prompt | model | parser) under the chain", async () => {
    const seen = intercept(CHAT, [200, reply(12, 6), JSON_HEADERS]);
    const usage = new UsageTracker({ prices: PRICES });
    const chain = ChatPromptTemplate.fromTemplate("Tell me about {topic}")
      .pipe(chat())
      .pipe(new StringOutputParser());
    const chainRunIds: string[] = [];
    const result = await chain.invoke(
      { topic: "tides" },
      {
        callbacks: [
          usage,
          { handleChainStart: (_c, _i, runId, parent) => void (parent ?? chainRunIds.push(runId)) },
        ],
      },
    );
    expect(result).toBe("ok");
    expect(seen[0]?.body.messages).toEqual([{ role: "user", content: "Tell me about tides" }]);
    expect(usage.records).toHaveLength(1);
    expect(chainRunIds).toHaveLength(1);
    expect(usage.records[0]).toMatchObject({ model: "test-model", inputTokens: 12 });
    expect(usage.records[0]?.parentRunId).toBe(chainRunIds[0]);
  });

  it("fires onUsage once per call, with the record", async () => {
    intercept(CHAT, [200, reply(4, 2), JSON_HEADERS]);
    const onUsage = vi.fn();
    const usage = new UsageTracker({ onUsage });
    const model = chat();
    await model.invoke("a", { callbacks: [usage] });
    await model.batch(["b", "c"], { callbacks: [usage] });
    expect(onUsage).toHaveBeenCalledTimes(3);
    expect(onUsage.mock.calls.map(([record]) => record)).toEqual([...usage.records]);
  });

  it("does not fail a call whose onUsage listener throws", async () => {
    intercept(CHAT, [200, reply(4, 2), JSON_HEADERS]);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const usage = new UsageTracker({
      onUsage: () => {
        throw new Error("dashboard down");
      },
    });
    await expect(chat().invoke("a", { callbacks: [usage] })).resolves.toBeDefined();
    expect(usage.totals.calls).toBe(1);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("dashboard down"));
  });

  it("reset() forgets totals and records; maxRecords bounds records, not totals", async () => {
    intercept(CHAT, [200, reply(4, 2), JSON_HEADERS]);
    const usage = new UsageTracker({ maxRecords: 2 });
    await chat().batch(["a", "b", "c"], { callbacks: [usage], maxConcurrency: 1 });
    expect(usage.records).toHaveLength(2);
    expect(usage.totals.calls).toBe(3);
    usage.reset();
    expect(usage.records).toHaveLength(0);
    expect(usage.totals).toEqual({
      calls: 0,
      failed: 0,
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
    });
  });

  it("prints a summary table with a row per model, a total row and the budget", async () => {
    intercept(CHAT, [200, reply(1200, 300), JSON_HEADERS]);
    const usage = new UsageTracker({ prices: PRICES, budget: 1, currency: "credit" });
    await chat().batch(["a", "b"], { callbacks: [usage] });
    await chat("other-model").invoke("c", { callbacks: [usage] });
    expect(usage.summary()).toBe(
      [
        "model        calls  failed  input  output  total  cost (credit)",
        "test-model       2       0   2400     600   3000         0.0096",
        "other-model      1       0   1200     300   1500              -",
        "total            3       0   3600     900   4500         0.0096",
        "budget 1: spent 0.0096 (1.0%)",
      ].join("\n"),
    );
    expect(JSON.parse(JSON.stringify(usage.snapshot()))).toMatchObject({
      totals: { calls: 3, totalTokens: 4500 },
      byModel: { "other-model": { calls: 1 } },
      records: [{ model: "test-model" }, { model: "test-model" }, { model: "other-model" }],
      budget: 1,
      currency: "credit",
    });
  });
});

/** Prices where a call's worst case is exactly its `max_tokens` × 0.01: prompts cost nothing. */
const OUTPUT_ONLY = { "test-model": { input: 0, output: 10_000 } };

/** `n` prompts, each a distinct call. */
const prompts = (n: number) => Array.from({ length: n }, (_, i) => `q${i}`);

/**
 * 20 calls of 40 output tokens (0.4 credit each) against a budget of 3 that holds three
 * worst cases (100 tokens): 3 sent, 17 refused unsent, spend settled to the real 1.2.
 */
async function expectThreeOfTwenty(seen: unknown[], results: unknown[], usage: UsageTracker) {
  expect(seen).toHaveLength(3);
  expect(results.filter((r) => r instanceof BudgetExceededError)).toHaveLength(17);
  expect(usage.spent).toBeCloseTo(3 * 0.4, 12); // settled to the real 40 tokens each
  expect(await usage.budgetStatus()).toEqual({
    budget: 3,
    spent: expect.closeTo(1.2, 12),
    reserved: 0,
    remaining: expect.closeTo(1.8, 12),
  });
  expect(usage.inFlight).toBe(0);
}

describe("UsageTracker budget: reservations", () => {
  it("sends 3 of 20 parallel calls when the budget holds 3 worst cases, the rest refused unsent", async () => {
    const seen = intercept(CHAT, [200, reply(5, 40), JSON_HEADERS]);
    const usage = new UsageTracker({ prices: OUTPUT_ONLY, budget: 3, currency: "credit" });
    const results = await chat("test-model", { maxTokens: 100 }).batch(
      prompts(20),
      { callbacks: [usage] },
      { returnExceptions: true },
    );
    await expectThreeOfTwenty(seen, results, usage);
  });

  it("holds the limit with maxConcurrency 1 too: the reservation is made as each request leaves the queue", async () => {
    const seen = intercept(CHAT, [200, reply(5, 100), JSON_HEADERS]);
    const usage = new UsageTracker({ prices: OUTPUT_ONLY, budget: 3 });
    const model = chat("test-model", { maxTokens: 100, maxConcurrency: 1 });
    await model.batch(prompts(20), { callbacks: [usage] }, { returnExceptions: true });
    expect(seen).toHaveLength(3);
  });

  it("reserves on LangChain's chat-model stream events path too (a handler that prefers them)", async () => {
    // Core calls the model's stream-events generator without the run (e.g. LangGraph's v3
    // messages protocol); the reservation must still be made before each request is sent.
    const seen = intercept(CHAT, [
      200,
      sse([
        chatChunk({ role: "assistant", content: "ok" }),
        chatChunk({}, { usage: { prompt_tokens: 5, completion_tokens: 40, total_tokens: 45 } }),
      ]),
      SSE_HEADERS,
    ]);
    const usage = new UsageTracker({ prices: OUTPUT_ONLY, budget: 3, currency: "credit" });
    const events: string[] = [];
    const listener = {
      lc_prefer_chat_model_stream_events: true,
      handleChatModelStreamEvent(event: { event: string }) {
        events.push(event.event);
      },
    };
    const results = await chat("test-model", { maxTokens: 100 }).batch(
      prompts(20),
      { callbacks: [usage, listener] },
      { returnExceptions: true },
    );
    expect(events).toContain("message-start"); // the stream-events path was taken
    await expectThreeOfTwenty(seen, results, usage);
  });

  it("refuses with one typed error, from the call path: nothing on the console", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const seen = intercept(CHAT, [200, reply(5, 100), JSON_HEADERS]);
    const usage = new UsageTracker({ prices: OUTPUT_ONLY, budget: 1.5, currency: "credit" });
    const model = chat("test-model", { maxTokens: 100 });
    await model.invoke("first", { callbacks: [usage] }); // reserves 1, settles at 1
    const refused = await model.invoke("second", { callbacks: [usage] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BudgetExceededError);
    expect(BudgetExceededError.isInstance(refused)).toBe(true);
    expect(LangChainError.isInstance(refused)).toBe(true);
    expect(getRetryable(refused)).toBe(false);
    expect(refused).toMatchObject({
      code: "budget_exceeded",
      budget: 1.5,
      spent: 1,
      reserved: 0,
      requested: 1,
      currency: "credit",
      model: "test-model",
      hint: expect.stringMatching(/maxTokens/),
    });
    await expect(
      (async () => {
        for await (const _ of await model.stream("third", { callbacks: [usage] })) {
          // never reached
        }
      })(),
    ).rejects.toBeInstanceOf(BudgetExceededError);
    await expect(model.batch(["4", "5"], { callbacks: [usage] })).rejects.toBeInstanceOf(
      BudgetExceededError,
    );
    expect(seen).toHaveLength(1);
    // Refused calls are counted apart: none of them failed.
    expect(usage.totals).toMatchObject({ calls: 5, failed: 0, refused: 4 });
    expect(usage.records.map((record) => [record.settlement, record.error?.name])).toEqual([
      ["reported", undefined],
      ...Array(4).fill(["refused", "BudgetExceededError"]),
    ]);
    expect(error).not.toHaveBeenCalled();
    expect(warn).not.toHaveBeenCalled();
  });

  it("with budget 0, the interceptor sees no request at all; the refused call is a failed record", async () => {
    const seen = intercept(CHAT, [200, reply(1, 1), JSON_HEADERS]);
    const usage = new UsageTracker({ prices: PRICES, budget: 0 });
    await expect(chat().invoke("hi", { callbacks: [usage] })).rejects.toThrow(/budget/i);
    expect(seen).toHaveLength(0);
    expect(usage.records).toEqual([
      expect.objectContaining({
        totalTokens: 0,
        error: { name: "BudgetExceededError", message: expect.any(String) },
      }),
    ]);
  });

  it("reserves defaultReplyTokens for a request without max_tokens; a longer reply overshoots", async () => {
    const seen = intercept(CHAT, [200, reply(5, 300), JSON_HEADERS]);
    const usage = new UsageTracker({ prices: OUTPUT_ONLY, budget: 2.5, defaultReplyTokens: 200 });
    const model = chat();
    await model.invoke("one", { callbacks: [usage] }); // holds 2, costs 3: the overshoot
    await expect(model.invoke("two", { callbacks: [usage] })).rejects.toBeInstanceOf(
      BudgetExceededError,
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]?.body.max_tokens).toBeUndefined();
    expect(usage.spent).toBeCloseTo(3, 12);
  });

  it("reserves each choice of n > 1 and counts tools and prompt in the worst case", async () => {
    intercept(CHAT, [200, reply(5, 10), JSON_HEADERS]);
    const usage = new UsageTracker({ prices: OUTPUT_ONLY, budget: 2.5 });
    const refused = await chat("test-model", { maxTokens: 100, n: 3 })
      .invoke("hi", { callbacks: [usage] })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: "BudgetExceededError", requested: 3 });
  });

  it("releases the reservation of an attempt the service refused; the retry reserves again", async () => {
    const seen = intercept(
      CHAT,
      [503, { error: { code: "upstream_error", message: "busy" } }, JSON_HEADERS],
      [200, reply(5, 50), JSON_HEADERS],
    );
    const store = new MemoryStore();
    const usage = new UsageTracker({ prices: OUTPUT_ONLY, budget: 1, store });
    const model = chat("test-model", {
      maxTokens: 100,
      maxRetries: 1,
      retry: { initialDelayMs: 1, maxDelayMs: 1 },
    });
    await model.invoke("hi", { callbacks: [usage] });
    expect(seen).toHaveLength(2); // a budget of one worst case still fits the retry
    expect(await usage.budgetStatus()).toMatchObject({ spent: 0.5, reserved: 0 });
    expect(store.reservations).toBe(0);
  });

  it("charges nothing for a call the service refused (403)", async () => {
    intercept(CHAT, [403, bodies.noCredit, withRequestId()]);
    const store = new MemoryStore();
    const usage = new UsageTracker({ prices: OUTPUT_ONLY, budget: 5, store });
    await expect(
      chat("test-model", { maxTokens: 100 }).invoke("hi", { callbacks: [usage] }),
    ).rejects.toThrow();
    expect(await usage.budgetStatus()).toMatchObject({ spent: 0, reserved: 0 });
    expect(store.reservations).toBe(0);
  });

  it("settles a reply without usage to an estimate, and marks the record estimated", async () => {
    intercept(CHAT, [
      200,
      chatCompletion({ content: "x".repeat(300) }, { usage: undefined }),
      JSON_HEADERS,
    ]);
    const usage = new UsageTracker({ prices: OUTPUT_ONLY, budget: 5 });
    await chat("test-model", { maxTokens: 500 }).invoke("hi", { callbacks: [usage] });
    expect(usage.records[0]).toMatchObject({ outputTokens: 100, estimated: true });
    expect((await usage.budgetStatus()).spent).toBeCloseTo(1, 12);
  });

  it("shares one budget between trackers given one store and budgetKey", async () => {
    const seen = intercept(CHAT, [200, reply(5, 100), JSON_HEADERS]);
    const store = new MemoryStore();
    const a = new UsageTracker({ prices: OUTPUT_ONLY, budget: 2, store, budgetKey: "team" });
    const b = new UsageTracker({ prices: OUTPUT_ONLY, budget: 2, store, budgetKey: "team" });
    const model = chat("test-model", { maxTokens: 100 });
    await Promise.allSettled([
      ...prompts(5).map((p) => model.invoke(p, { callbacks: [a] })),
      ...prompts(5).map((p) => model.invoke(p, { callbacks: [b] })),
    ]);
    expect(seen).toHaveLength(2);
  });

  it("reset() starts the budget again", async () => {
    intercept(CHAT, [200, reply(5, 100), JSON_HEADERS]);
    const usage = new UsageTracker({ prices: OUTPUT_ONLY, budget: 1 });
    const model = chat("test-model", { maxTokens: 100 });
    await model.invoke("one", { callbacks: [usage] });
    await expect(model.invoke("two", { callbacks: [usage] })).rejects.toThrow(BudgetExceededError);
    await usage.reset();
    await model.invoke("three", { callbacks: [usage] });
    expect(usage.totals.calls).toBe(1);
  });
});

describe("UsageTracker budget: streams left or failed", () => {
  const chunk = chatChunk;
  const words = Array.from({ length: 20 }, (_, i) => chunk({ content: `word${i} ` }));

  it("counts a stream left with break at its worst case (the service may bill all of it), and leaks nothing", async () => {
    intercept(CHAT, [200, sse([chunk({ role: "assistant", content: "" }), ...words]), SSE_HEADERS]);
    const store = new MemoryStore();
    const usage = new UsageTracker({ prices: OUTPUT_ONLY, budget: 5, store });
    let read = "";
    for await (const c of await chat("test-model", { maxTokens: 100 }).stream("hi", {
      callbacks: [usage],
    })) {
      read += c.text;
      if (read.length > 10) break;
    }
    expect(read).toBe("word0 word1 ");
    expect(usage.records).toEqual([
      expect.objectContaining({
        abandoned: true,
        estimated: true,
        outputTokens: 100,
        settlement: "upper-bound",
      }),
    ]);
    expect(usage.inFlight).toBe(0);
    expect(store.reservations).toBe(0);
    expect((await usage.budgetStatus()).spent).toBeCloseTo(1, 12);
  });

  it("counts a stream left after its usage chunk with the service's usage", async () => {
    intercept(CHAT, [
      200,
      sse([
        chunk({ role: "assistant", content: "Hi" }),
        { ...chunk({}), choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
        {
          ...chunk({}),
          choices: [],
          usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
        },
      ]),
      SSE_HEADERS,
    ]);
    const store = new MemoryStore();
    const usage = new UsageTracker({ prices: OUTPUT_ONLY, budget: 5, store });
    for await (const c of await chat("test-model", { maxTokens: 100 }).stream("hi", {
      callbacks: [usage],
    })) {
      if (c.usage_metadata) break;
    }
    expect(usage.records).toEqual([
      expect.objectContaining({ abandoned: true, inputTokens: 5, outputTokens: 2 }),
    ]);
    expect(usage.records[0]?.estimated).toBeUndefined();
    expect(usage.inFlight).toBe(0);
    expect(store.reservations).toBe(0);
  });

  it("settles a stream that fails midway to what it streamed, recorded as failed", async () => {
    intercept(CHAT, [
      200,
      sse(
        [
          chunk({ role: "assistant", content: "" }),
          ...words.slice(0, 3),
          { error: { message: "boom", code: "upstream_error" } },
        ],
        false,
      ),
      SSE_HEADERS,
    ]);
    const store = new MemoryStore();
    const usage = new UsageTracker({ prices: OUTPUT_ONLY, budget: 5, store });
    await expect(
      (async () => {
        for await (const _ of await chat("test-model", { maxTokens: 100 }).stream("hi", {
          callbacks: [usage],
        })) {
          // read on until it fails
        }
      })(),
    ).rejects.toThrow();
    expect(usage.records).toEqual([
      expect.objectContaining({ error: expect.any(Object), estimated: true, outputTokens: 6 }),
    ]);
    expect(usage.inFlight).toBe(0);
    expect(store.reservations).toBe(0);
  });

  it("counts an abandoned dedicated-endpoint stream too", async () => {
    const completionChunk = (text: string) => ({
      id: "c",
      object: "text_completion",
      created: 1,
      model: "m",
      choices: [{ index: 0, text, finish_reason: null }],
    });
    intercept("/inference/v1/completions", [
      200,
      sse(Array.from({ length: 10 }, (_, i) => completionChunk(`tok${i} `))),
      SSE_HEADERS,
    ]);
    const store = new MemoryStore();
    const usage = new UsageTracker({
      prices: { "t.a": { input: 0, output: 10_000 } },
      budget: 5,
      store,
    });
    const llm = new DedicatedEndpointLLM({
      serviceName: "t.a",
      apiKey: KEY,
      baseURL: BASE,
      maxRetries: 0,
      maxTokens: 50,
    });
    let n = 0;
    for await (const _ of await llm.stream("go", { callbacks: [usage] })) {
      if (++n === 2) break;
    }
    expect(usage.records).toEqual([
      expect.objectContaining({
        model: "t.a",
        abandoned: true,
        outputTokens: 50,
        settlement: "upper-bound",
      }),
    ]);
    expect(usage.inFlight).toBe(0);
    expect(store.reservations).toBe(0);
  });
});

describe("UsageTracker budget: dedicated endpoints and other models", () => {
  it("reserves each prompt of a multi-prompt generate: 2 of 3 sent when the budget holds 2", async () => {
    const seen = intercept("/inference/v1/completions", [
      200,
      {
        id: "c",
        object: "text_completion",
        created: 1,
        model: "m",
        choices: [{ index: 0, text: "ok", finish_reason: "stop" }],
        usage: { prompt_tokens: 1, completion_tokens: 100, total_tokens: 101 },
      },
      JSON_HEADERS,
    ]);
    const usage = new UsageTracker({ prices: { "t.a": { input: 0, output: 10_000 } }, budget: 2 });
    const llm = new DedicatedEndpointLLM({
      serviceName: "t.a",
      apiKey: KEY,
      baseURL: BASE,
      maxRetries: 0,
      maxTokens: 100,
      maxConcurrency: 1,
    });
    await expect(llm.generate(["a", "b", "c"], { callbacks: [usage] })).rejects.toBeInstanceOf(
      BudgetExceededError,
    );
    expect(seen).toHaveLength(2);
    expect(usage.inFlight).toBe(0);
  });

  it("checks another model (ChatOpenAI) when its run starts and charges it when it ends", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const seen = intercept("/v1/chat/completions", [200, reply(0, 100), JSON_HEADERS]);
    const usage = new UsageTracker({
      prices: { "gpt-4o-mini": { input: 0, output: 10_000 } },
      budget: 1,
    });
    const openai = new ChatOpenAI({
      model: "gpt-4o-mini",
      apiKey: "sk-openai-test",
      maxRetries: 0,
      configuration: { baseURL: `${BASE}/v1` },
    });
    await openai.invoke("one", { callbacks: [usage] });
    expect(await usage.budgetStatus()).toMatchObject({ spent: 1, reserved: 0 });
    await expect(openai.invoke("two", { callbacks: [usage] })).rejects.toBeInstanceOf(
      BudgetExceededError,
    );
    expect(seen).toHaveLength(1);
    expect(error).toHaveBeenCalled(); // LangChain logs a raising handler's error before rethrowing
  });
});

describe("UsageTracker options", () => {
  it.each<[string, UsageTrackerOptions, string, RegExp]>([
    [
      "a negative price",
      { prices: { m: { input: -1, output: 1 } } },
      "prices.m.input",
      /`prices\.m\.input` must be a number ≥ 0 \(price per million tokens\); got -1/,
    ],
    [
      "a missing price",
      { prices: { m: { input: 1 } as never } },
      "prices.m.output",
      /`prices\.m\.output`/,
    ],
    ["a price that is not an object", { prices: { m: 3 as never } }, "prices.m", /`prices\.m`/],
    ["a negative budget", { prices: PRICES, budget: -1 }, "budget", /`budget` must be/],
    ["a budget without prices", { budget: 1 }, "budget", /`budget` needs `prices`/],
    ["an unknown option", { price: {} } as never, "price", /`price` is not an option/],
    ["a fractional maxRecords", { maxRecords: 1.5 }, "maxRecords", /`maxRecords`/],
    ["an onUsage that is not a function", { onUsage: "x" as never }, "onUsage", /a function/],
    ["a store that is not one", { store: {} as never }, "store", /a UsageStore/],
    ["an empty budgetKey", { budgetKey: "" }, "budgetKey", /`budgetKey`/],
    [
      "a negative defaultReplyTokens",
      { defaultReplyTokens: -1 },
      "defaultReplyTokens",
      /`defaultReplyTokens`/,
    ],
  ])("rejects %s at construction, naming the option", (_label, options, option, message) => {
    const attempt = () => new UsageTracker(options);
    expect(attempt).toThrow(ConfigurationError);
    expect(attempt).toThrow(message);
    try {
      attempt();
    } catch (e) {
      expect((e as ConfigurationError).option).toBe(option);
    }
  });
});

describe("UsageTracker.withBudget: a tracker of the same prices that counts apart", () => {
  it("prices, reserves and records like its parent, in a budget and records of its own", async () => {
    const parent = new UsageTracker({ prices: PRICES, currency: "credit", defaultReplyTokens: 10 });
    const store = new MemoryStore();
    await store.charge("default", 0.00003);
    const child = parent.withBudget(0.0001, store);
    expect(child).not.toBe(parent);
    expect(child.priceOf("test-model")).toEqual(PRICES["test-model"]);
    expect(child).toMatchObject({ budget: 0.0001, currency: "credit", store });
    // 10 reply tokens by the parent's default: (5 × 2 + 10 × 8) / 1e6 = 0.00009 does not fit 0.00007.
    const estimate = { model: "test-model", inputTokens: 5, choices: 1 };
    await expect(child.reserve("run", estimate)).rejects.toMatchObject({
      name: "BudgetExceededError",
      budget: 0.0001,
      spent: 0.00003,
      requested: 0.00009,
      currency: "credit",
    });
    expect(parent.records).toEqual([]);
    expect((await parent.budgetStatus()).spent).toBe(0);
    expect(parent.withBudget(undefined).budget).toBeUndefined();
  });

  it("refuses a budget when the parent has no prices, naming `budget`", () => {
    expect(() => new UsageTracker().withBudget(1)).toThrow(ConfigurationError);
    expect(() => new UsageTracker().withBudget(1)).toThrow(/`budget` needs `prices`/);
  });
});

describe("UsageTracker with other LangChain models", () => {
  it("tracks ChatOpenAI (usage_metadata, model from invocation params)", async () => {
    const seen = intercept("/v1/chat/completions", [200, reply(7, 3), JSON_HEADERS]);
    const usage = new UsageTracker({ prices: { "gpt-4o-mini": { input: 1, output: 2 } } });
    const openai = new ChatOpenAI({
      model: "gpt-4o-mini",
      apiKey: "sk-openai-test",
      maxRetries: 0,
      configuration: { baseURL: `${BASE}/v1` },
    });
    await openai.invoke("hi", { callbacks: [usage] });
    expect(seen).toHaveLength(1);
    expect(usage.records).toEqual([
      expect.objectContaining({
        model: "gpt-4o-mini",
        inputTokens: 7,
        outputTokens: 3,
        totalTokens: 10,
        cost: (7 + 3 * 2) / 1e6,
        settlement: "reported",
      }),
    ]);
  });

  it("counts a model that reports no usage (FakeListChatModel) as a call with zero tokens", async () => {
    const usage = new UsageTracker();
    const fake = new FakeListChatModel({ responses: ["one", "two"] });
    await fake.invoke("a", { callbacks: [usage] });
    for await (const _ of await fake.stream("b", { callbacks: [usage] })) {
      // drain
    }
    expect(usage.byModel()).toEqual({
      FakeListChatModel: { calls: 2, failed: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    });
    // Nothing reported, nothing counted: not the service's usage of zero tokens.
    expect(usage.records.map((record) => record.settlement)).toEqual(["none", "none"]);
  });

  it("reads llmOutput.tokenUsage of an LLM, counting a multi-prompt generate once", async () => {
    class CountingLLM extends BaseLLM {
      _llmType() {
        return "counting";
      }
      async _generate(prompts: string[]): Promise<LLMResult> {
        return {
          generations: prompts.map((p) => [{ text: p.toUpperCase() }]),
          llmOutput: {
            tokenUsage: {
              promptTokens: 3 * prompts.length,
              completionTokens: 2 * prompts.length,
              totalTokens: 5 * prompts.length,
            },
          },
        };
      }
    }
    const usage = new UsageTracker();
    const llm = new CountingLLM({});
    await llm.invoke("a", { callbacks: [usage] });
    await llm.generate(["b", "c"], { callbacks: [usage] });
    expect(usage.records.map((r) => [r.model, r.inputTokens, r.outputTokens])).toEqual([
      ["CountingLLM", 3, 2],
      ["CountingLLM", 6, 4], // LangChain gives the sum to the first run of a generate
      ["CountingLLM", 0, 0],
    ]);
    expect(usage.totals).toMatchObject({ calls: 3, inputTokens: 9, outputTokens: 6 });
  });
});

describe("UsageTracker against the emulator", () => {
  const getWeather = tool(async ({ city }) => `Sunny in ${city}`, {
    name: "get_weather",
    description: "Get the weather for a city",
    schema: z.object({ city: z.string() }),
  });

  function setup() {
    const emulator = createEmulator();
    const prices = Object.fromEntries(emulator.state.listModels().map((m) => [m.id, m.prices]));
    const model = new ChatInferenceService(DEFAULT_MODEL, {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch: emulator.fetch,
    });
    return { emulator, prices, model };
  }

  /** The emulator's request log, in the tracker's terms. */
  function metered(emulator: InProcessEmulator) {
    return emulator.state.requests().map((entry) => ({
      requestId: entry.requestId,
      model: entry.model ?? entry.serviceName,
      inputTokens: entry.promptTokens,
      outputTokens: entry.completionTokens,
      totalTokens: entry.totalTokens,
    }));
  }

  function tracked(usage: UsageTracker) {
    return usage.records.map(({ requestId, model, inputTokens, outputTokens, totalTokens }) => ({
      requestId,
      model,
      inputTokens,
      outputTokens,
      totalTokens,
    }));
  }

  it("matches what the emulator metered and debited for invoke, stream, batch and a chain", async () => {
    const { emulator, prices, model } = setup();
    const usage = new UsageTracker({ prices });
    const chain = ChatPromptTemplate.fromTemplate("Tell me about {topic}")
      .pipe(model)
      .pipe(new StringOutputParser());
    await model.invoke("What is the capital of France?", { callbacks: [usage] });
    for await (const _ of await model.stream("Tell me a story", { callbacks: [usage] })) {
      // drain
    }
    await model.batch(["one", "two", "three"], { callbacks: [usage] });
    await chain.invoke({ topic: "tides" }, { callbacks: [usage] });

    const log = metered(emulator);
    expect(log).toHaveLength(6);
    expect(tracked(usage).sort(byRequestId)).toEqual(log.sort(byRequestId));
    expect(usage.totals.totalTokens).toBe(log.reduce((t, e) => t + e.totalTokens, 0));
    expect(usage.totals.cost).toBeCloseTo(DEFAULT_CREDIT - emulator.state.credit, 12);
  });

  it("tracks the dedicated surface under its Service-Name (invoke, stream, batch)", async () => {
    const { emulator } = setup();
    const llm = new DedicatedEndpointLLM({
      serviceName: DEFAULT_SERVICE_NAME,
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch: emulator.fetch,
    });
    const usage = new UsageTracker();
    await llm.invoke("Once upon a time", { callbacks: [usage] });
    for await (const _ of await llm.stream("Once upon a time", { callbacks: [usage] })) {
      // drain
    }
    await llm.batch(["a", "b"], { callbacks: [usage] });
    expect(tracked(usage).sort(byRequestId)).toEqual(metered(emulator).sort(byRequestId));
    expect(Object.keys(usage.byModel())).toEqual([DEFAULT_SERVICE_NAME]);
    expect(usage.totals.calls).toBe(4);
  });

  it("counts every model step of an agent, each under the agent's run", async () => {
    const { emulator, prices, model } = setup();
    const usage = new UsageTracker({ prices });
    const agent = createAgent({ model, tools: [getWeather] });
    const result = await agent.invoke(
      { messages: [{ role: "user", content: "What is the weather in Paris?" }] },
      { callbacks: [usage] },
    );
    expect(result.messages.at(-1)?.content).toContain("Sunny in Paris");
    expect(usage.records).toHaveLength(2); // the tool call, then the answer
    expect(usage.records.every((r) => r.parentRunId !== undefined)).toBe(true);
    expect(tracked(usage).sort(byRequestId)).toEqual(metered(emulator).sort(byRequestId));
    expect(usage.totals.cost).toBeCloseTo(DEFAULT_CREDIT - emulator.state.credit, 12);
  });

  it("stops an agent at the model step whose worst case no longer fits; the emulator sees no request for it", async () => {
    const { emulator } = setup();
    const capped = new ChatInferenceService(DEFAULT_MODEL, {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch: emulator.fetch,
      maxTokens: 50,
    });
    // One output token costs 1: each step holds 50; the first settles at what it used (> 5).
    const usage = new UsageTracker({
      prices: { [DEFAULT_MODEL]: { input: 0, output: 1e6 } },
      budget: 55,
    });
    const agent = createAgent({ model: capped, tools: [getWeather] });
    await expect(
      agent.invoke(
        { messages: [{ role: "user", content: "What is the weather in Paris?" }] },
        { callbacks: [usage] },
      ),
    ).rejects.toBeInstanceOf(BudgetExceededError);
    expect(emulator.state.requests()).toHaveLength(1);
    expect(usage.records.map((r) => r.error?.name)).toEqual([undefined, "BudgetExceededError"]);
  });
});

function byRequestId(a: { requestId?: string }, b: { requestId?: string }) {
  return (a.requestId ?? "").localeCompare(b.requestId ?? "");
}

describe("UsageTracker settlement: how each call was counted", () => {
  function setup() {
    const emulator = createEmulator();
    const prices = Object.fromEntries(emulator.state.listModels().map((m) => [m.id, m.prices]));
    const model = (fields: Record<string, unknown> = {}) =>
      new ChatInferenceService(DEFAULT_MODEL, {
        apiKey: emulator.apiKey,
        baseURL: emulator.baseURL,
        fetch: emulator.fetch,
        maxRetries: 0,
        maxTokens: 50,
        ...fields,
      });
    return { emulator, prices, model };
  }

  it("says for each way a call ends where its figures come from, and the totals and summary count them", async () => {
    const { emulator, prices, model } = setup();
    const usage = new UsageTracker({ prices, budget: 10, currency: "credit" });
    const callbacks = [usage];
    // reported: the service's usage.
    await model().invoke("Hello", { callbacks });
    // estimated: a stream without a usage chunk, read to its end.
    const noUsage = { callbacks, stream_options: { include_usage: false } };
    for await (const _ of await model().stream("Story", noUsage)) {
      // read to the end
    }
    // upper-bound: a stream left before its usage chunk.
    for await (const _ of await model().stream("Tell me a story", { callbacks })) break;
    // upper-bound: stopped while its request was on its way.
    const controller = new AbortController();
    const stopping = model({
      fetch: (input: RequestInfo | URL, init?: RequestInit) => {
        controller.abort();
        return emulator.fetch(input, init);
      },
    });
    await stopping.invoke("Hello", { callbacks, signal: controller.signal }).catch(() => {});
    // refused: a budget that cannot hold it (a second tracker on the call).
    const tight = new UsageTracker({ prices, budget: 1e-9 });
    await model()
      .invoke("Hello", { callbacks: [usage, tight] })
      .catch(() => {});
    // none: refused by the service, stopped before it was sent, answered by LangChain's cache.
    await model({ apiKey: "sk-wrong" })
      .invoke("Hello", { callbacks })
      .catch(() => {});
    await model()
      .invoke("Hello", { callbacks, signal: AbortSignal.abort() })
      .catch(() => {});
    const cached = model({ cache: new InMemoryCache() });
    await cached.invoke("Hello", { callbacks });
    await cached.invoke("Hello", { callbacks });
    expect(
      usage.records.map((r) => [r.settlement, r.estimated, r.aborted, r.abandoned, r.error?.name]),
    ).toEqual([
      ["reported", undefined, undefined, undefined, undefined],
      ["estimated", true, undefined, undefined, undefined],
      ["upper-bound", true, undefined, true, undefined],
      ["upper-bound", true, true, undefined, undefined],
      ["refused", undefined, undefined, undefined, "BudgetExceededError"],
      ["none", undefined, undefined, undefined, "AuthenticationError"],
      ["none", undefined, true, undefined, undefined],
      ["reported", undefined, undefined, undefined, undefined],
      ["none", undefined, undefined, undefined, undefined],
    ]);
    expect(usage.records.at(-1)?.cached).toBe(true);
    expect(usage.totals).toMatchObject({
      calls: 9,
      failed: 1,
      refused: 1,
      stopped: 3,
      estimated: 3,
    });
    const [header, row] = usage.summary().split("\n");
    expect(header?.split(/\s+/)).toEqual([
      "model",
      "calls",
      "failed",
      "refused",
      "stopped",
      "estimated",
      "input",
      "output",
      "total",
      "cost",
      "(credit)",
    ]);
    expect(row?.split(/\s+/).slice(0, 6)).toEqual([DEFAULT_MODEL, "9", "1", "1", "3", "3"]);
  });

  it("shows no refused, stopped or estimated column, and no such total, while there is none", async () => {
    const { prices, model } = setup();
    const usage = new UsageTracker({ prices });
    await model().invoke("Hello", { callbacks: [usage] });
    expect(Object.keys(usage.totals)).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/^(refused|stopped|estimated)$/)]),
    );
    expect(usage.summary().split("\n")[0]).toMatch(/^model\s+calls\s+failed\s+input\s/);
  });
});

describe("UsageTracker with cached prompt tokens", () => {
  // 800 of the 1,000 prompt tokens came from the model server's prompt cache.
  const USAGE = {
    prompt_tokens: 1_000,
    completion_tokens: 50,
    total_tokens: 1_050,
    prompt_tokens_details: { cached_tokens: 800 },
    completion_tokens_details: { reasoning_tokens: 30 },
  };
  const CACHED_PRICES = { "test-model": { input: 2, output: 8, cachedInput: 0.5 } };
  const COST = (200 * 2 + 800 * 0.5 + 50 * 8) / 1e6;

  const streamed = (usage: Record<string, unknown> = USAGE) =>
    [
      200,
      sse([
        chatChunk({ role: "assistant", content: "ok" }),
        chatChunk({}, { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
        chatChunk({}, { choices: [], usage }),
      ]),
      SSE_HEADERS,
    ] as const;

  it("prices them at cachedInput, invoked and streamed: 200·input + 800·cachedInput + 50·output", async () => {
    intercept(CHAT, [200, reply(0, 0, { usage: USAGE }), JSON_HEADERS], [...streamed()]);
    const usage = new UsageTracker({ prices: CACHED_PRICES });
    await chat().invoke("hi", { callbacks: [usage] });
    for await (const _ of await chat().stream("hi", { callbacks: [usage] }));
    expect(usage.records.map((r) => [r.inputTokenDetails, r.outputTokenDetails, r.cost])).toEqual([
      [{ cache_read: 800 }, { reasoning: 30 }, COST],
      [{ cache_read: 800 }, { reasoning: 30 }, COST],
    ]);
    expect(usage.totals).toEqual({
      calls: 2,
      failed: 0,
      inputTokens: 2_000,
      cachedInputTokens: 1_600,
      outputTokens: 100,
      totalTokens: 2_100,
      cost: 2 * COST,
    });
    expect(usage.summary().split("\n")).toEqual([
      "model       calls  failed  input  cached  output  total    cost",
      "test-model      2       0   2000    1600     100   2100  0.0024",
      "total           2       0   2000    1600     100   2100  0.0024",
    ]);
  });

  it("prices them at `input` when no cachedInput is given", async () => {
    intercept(CHAT, [200, reply(0, 0, { usage: USAGE }), JSON_HEADERS]);
    const usage = new UsageTracker({ prices: PRICES });
    await chat().invoke("hi", { callbacks: [usage] });
    expect(usage.records[0]?.cost).toBe((1_000 * 2 + 50 * 8) / 1e6);
  });

  it("reads DeepSeek's prompt_cache_hit_tokens as cached tokens", async () => {
    const deepseek = {
      prompt_tokens: 1_000,
      completion_tokens: 50,
      total_tokens: 1_050,
      prompt_cache_hit_tokens: 800,
      prompt_cache_miss_tokens: 200,
    };
    intercept(CHAT, [200, reply(0, 0, { usage: deepseek }), JSON_HEADERS], [...streamed(deepseek)]);
    const usage = new UsageTracker({ prices: CACHED_PRICES });
    const reply1 = await chat().invoke("hi", { callbacks: [usage] });
    for await (const _ of await chat().stream("hi", { callbacks: [usage] }));
    expect(reply1.usage_metadata?.input_token_details?.cache_read).toBe(800);
    expect(usage.records.map((r) => r.cost)).toEqual([COST, COST]);
  });

  it("keeps cache_read and reasoning in usage_metadata: invoke, stream, streaming invoke, events API", async () => {
    intercept(CHAT, [200, reply(0, 0, { usage: USAGE }), JSON_HEADERS], [...streamed()]);
    const details = {
      input_tokens: 1_000,
      output_tokens: 50,
      input_token_details: expect.objectContaining({ cache_read: 800 }),
      output_token_details: expect.objectContaining({ reasoning: 30 }),
    };
    expect((await chat().invoke("hi")).usage_metadata).toMatchObject(details);
    let last: AIMessageChunk | undefined;
    for await (const c of await chat().stream("hi")) last = last ? concat(last, c) : c;
    expect(last?.usage_metadata).toMatchObject(details);
    expect(
      (await chat("test-model", { streaming: true }).invoke("hi")).usage_metadata,
    ).toMatchObject(details);
    expect((await chat().streamEvents("hi").output).usage_metadata).toMatchObject(details);
  });

  it("reserves the worst case (every prompt token uncached) and settles to the cached cost", async () => {
    intercept(CHAT, [200, reply(0, 0, { usage: USAGE }), JSON_HEADERS]);
    // The prompt of "hi" is estimated at 8 tokens (3 to prime the reply, 4 of the message's
    // framing, 1 of text); 100 reply tokens at most.
    const worst = (8 * 2 + 100 * 8) / 1e6;
    const usage = new UsageTracker({ prices: CACHED_PRICES, budget: worst });
    const reserved = reservedAmounts(usage);
    await chat("test-model", { maxTokens: 100 }).invoke("hi", { callbacks: [usage] });
    expect(reserved).toEqual([worst]);
    expect((await usage.budgetStatus()).spent).toBeCloseTo(COST, 12);
  });
});

describe("UsageTracker with prompt-cache writes", () => {
  // A Claude channel as the gateway relays it: the prompt counts its reads and writes, the
  // writes split by lifetime at the top level.
  const USAGE = {
    prompt_tokens: 1_000,
    completion_tokens: 50,
    total_tokens: 1_050,
    prompt_tokens_details: { cached_tokens: 400, cached_creation_tokens: 500 },
    claude_cache_creation_5_m_tokens: 300,
    claude_cache_creation_1_h_tokens: 200,
  };
  const CLAUDE = {
    "test-model": { input: 3, cachedInput: 0.3, cacheWrite: 3.75, cacheWrite1h: 6, output: 15 },
  };
  const COST = (100 * 3 + 400 * 0.3 + 300 * 3.75 + 200 * 6 + 50 * 15) / 1e6;
  const DETAILS = {
    cache_read: 400,
    cache_creation: 500,
    ephemeral_5m_input_tokens: 300,
    ephemeral_1h_input_tokens: 200,
  };
  const streamed = () =>
    [
      200,
      sse([
        chatChunk({ role: "assistant", content: "ok" }),
        chatChunk({}, { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
        chatChunk({}, { choices: [], usage: USAGE }),
      ]),
      SSE_HEADERS,
    ] as const;

  it("counts both lifetimes invoked and streamed (the split survives the merging of chunks): cost, records, totals, summary, budget", async () => {
    intercept(CHAT, [200, reply(0, 0, { usage: USAGE }), JSON_HEADERS], [...streamed()]);
    const usage = new UsageTracker({ prices: CLAUDE, budget: 1 });
    const invoked = await chat().invoke("hi", { callbacks: [usage] });
    for await (const _ of await chat().stream("hi", { callbacks: [usage] }));
    expect(invoked.usage_metadata?.input_token_details).toEqual(DETAILS);
    expect(usage.records.map((r) => [r.inputTokenDetails, r.cost, r.settlement])).toEqual([
      [DETAILS, COST, "reported"],
      [DETAILS, COST, "reported"],
    ]);
    expect(usage.totals).toMatchObject({
      inputTokens: 2_000,
      cachedInputTokens: 800,
      cacheWriteTokens: 1_000,
      cacheWrite1hTokens: 400,
    });
    expect(usage.totals.cost).toBeCloseTo(2 * COST, 12);
    expect((await usage.budgetStatus()).spent).toBeCloseTo(2 * COST, 12);
    expect(usage.summary().split("\n")[0]?.split(/\s+/)).toEqual([
      "model",
      "calls",
      "failed",
      "input",
      "cached",
      "written",
      "output",
      "total",
      "cost",
    ]);
  });

  it("settles a stream to its writes when only LangChain's merged details reach the end (events API too)", async () => {
    intercept(CHAT, [...streamed()], [...streamed()]);
    const usage = new UsageTracker({ prices: CLAUDE, budget: 1 });
    const { output } = chat().streamEvents("hi");
    expect((await output).usage_metadata?.input_token_details).toMatchObject({
      cache_read: 400,
      cache_creation: 500,
    });
    let last: AIMessageChunk | undefined;
    for await (const c of await chat().stream("hi", { callbacks: [usage] })) {
      last = last ? concat(last, c) : c;
    }
    expect(last?.usage_metadata?.input_token_details).toEqual({
      cache_read: 400,
      cache_creation: 500,
    });
    expect(usage.records[0]?.inputTokenDetails).toEqual(DETAILS);
    expect((await usage.budgetStatus()).spent).toBeCloseTo(COST, 12);
  });

  it("reserves every prompt token at the dearest rate it may be billed at: an hour's write", async () => {
    intercept(CHAT, [200, reply(0, 0, { usage: USAGE }), JSON_HEADERS]);
    // The prompt of "hi" is estimated at 8 tokens; 100 reply tokens at most.
    const worst = (8 * 6 + 100 * 15) / 1e6;
    const usage = new UsageTracker({ prices: CLAUDE, budget: worst });
    const reserved = reservedAmounts(usage);
    await chat("test-model", { maxTokens: 100 }).invoke("hi", { callbacks: [usage] });
    expect(reserved).toEqual([worst]);
  });
});

describe("UsageTracker with images and files", () => {
  it("reserves an image at its real size, or at the rate the model's profile declares", async () => {
    intercept(CHAT, [200, reply(1, 1), JSON_HEADERS], [200, reply(1, 1), JSON_HEADERS]);
    const usage = new UsageTracker({
      prices: { "test-model": { input: 1, output: 0 } },
      budget: 1,
    });
    const reserved = reservedAmounts(usage);
    const picture = [
      new HumanMessage({ content: [{ type: "image_url", image_url: { url: png(1500, 1500) } }] }),
    ];
    await chat().invoke(picture, { callbacks: [usage] });
    const flat = { profiles: { "test-model": { mediaTokens: { image: 258 } } } };
    await chat("test-model", flat).invoke(picture, { callbacks: [usage] });
    // 3 to prime the reply, 4 of the message's framing, and the image; no reply tokens priced.
    expect(reserved).toEqual([(7 + 3000) / 1e6, (7 + 258) / 1e6]);
  });
});

describe("UsageTracker as the models' spend guard (its callbacks called directly)", () => {
  const OURS: Serialized = {
    lc: 1,
    type: "not_implemented",
    id: ["langchain_inference_service", "M"],
  };
  const THEIRS: Serialized = { lc: 1, type: "not_implemented", id: ["langchain", "Other"] };
  const ESTIMATE = { model: "m", inputTokens: 1000, maxOutputTokens: 100, choices: 1 };
  /** Prices per million tokens; a cached prompt token costs more here, so the worst case shows. */
  const prices = { m: { input: 1000, output: 10_000, cachedInput: 2000 } };
  const start = (usage: UsageTracker, runId: string, model = "m", llm = OURS) =>
    usage.handleLLMStart(llm, ["p"], runId, undefined, { invocation_params: { model } });
  const noUsage: LLMResult = { generations: [] };

  it("holds the worst case, every prompt token at the dearer price, and settles it once", async () => {
    const usage = new UsageTracker({ prices, budget: 100, currency: "credit" });
    await start(usage, "r");
    const reservation = await usage.reserve("r", ESTIMATE);
    // 1000 prompt tokens at 2000 and 100 reply tokens at 10000, per million.
    expect(reservation).toEqual({
      amount: 3,
      currency: "credit",
      settle: expect.any(Function),
      settleAsHeld: expect.any(Function),
    });
    expect(await usage.budgetStatus()).toMatchObject({ spent: 0, reserved: 3 });
    expect(await reservation.settle({ inputTokens: 500, outputTokens: 10 }, true)).toBe(0.6);
    expect(await reservation.settle({ inputTokens: 500, outputTokens: 10 }, true)).toBeUndefined();
    expect(await reservation.settleAsHeld()).toBeUndefined();
    expect(await usage.budgetStatus()).toMatchObject({ spent: 0.6, reserved: 0 });
    await usage.handleLLMEnd(noUsage, "r");
    expect(usage.records[0]).toMatchObject({
      inputTokens: 500,
      outputTokens: 10,
      totalTokens: 510,
      estimated: true,
      cost: 0.6,
    });
    expect((await usage.budgetStatus()).spent).toBe(0.6); // a reserved run is not charged again
  });

  it("holds nothing without a budget, or with hold: false, and names no currency it lacks", async () => {
    const shared = new UsageTracker({ prices, budget: 100 });
    await start(shared, "r");
    const second = await shared.reserve("r", ESTIMATE, { hold: false });
    expect(second).not.toHaveProperty("amount");
    expect(second).not.toHaveProperty("currency");
    expect(await shared.budgetStatus()).toMatchObject({ reserved: 0 });
    // Its settle counts the run's tokens, and charges nothing: the holder's settle does.
    await second.settle({ inputTokens: 1000, outputTokens: 0 }, false);
    expect(await shared.budgetStatus()).toMatchObject({ spent: 0, reserved: 0 });
    expect(shared.sharedBudget).toEqual({ store: shared.store, key: shared.budgetKey });
    const counting = new UsageTracker({ prices });
    expect(counting.sharedBudget).toBeUndefined();
    expect(await counting.reserve("r", ESTIMATE)).not.toHaveProperty("amount");
  });

  it("keeps two holds of one run apart, and prices a run it never saw start by the estimate's model", async () => {
    const usage = new UsageTracker({ prices, budget: 100 });
    await start(usage, "r", "m");
    const [a, b] = await Promise.all([usage.reserve("r", ESTIMATE), usage.reserve("r", ESTIMATE)]);
    expect(await usage.budgetStatus()).toMatchObject({ reserved: 6 });
    await a.settle({ inputTokens: 0, outputTokens: 0 }, false);
    expect(await usage.budgetStatus()).toMatchObject({ reserved: 3 });
    await b.settleAsHeld();
    expect(await usage.budgetStatus()).toMatchObject({ spent: 3, reserved: 0 });
    await usage.handleLLMEnd(noUsage, "r");
    // The hold charged as it stood counts its worst case, as an estimate.
    expect(usage.records[0]).toMatchObject({
      inputTokens: 1000,
      outputTokens: 100,
      estimated: true,
    });
    const unseen = await usage.reserve("unseen", ESTIMATE);
    expect(unseen.amount).toBe(3);
    expect(await unseen.settle({ inputTokens: 1, outputTokens: 1 }, false)).toBeCloseTo(0.011, 12);
    await start(usage, "named", "m");
    expect((await usage.reserve("named", { ...ESTIMATE, model: "alias" })).amount).toBe(3);
  });

  it("sums every attempt's tokens, cached ones included, into the run's record", async () => {
    const usage = new UsageTracker({ prices });
    await start(usage, "r");
    await (await usage.reserve("r", ESTIMATE)).settle(
      { inputTokens: 10, outputTokens: 1, cachedInputTokens: 4 },
      false,
    );
    // The same handler reached again keeps the run as it was.
    await start(usage, "r");
    await (await usage.reserve("r", ESTIMATE)).settle(
      { inputTokens: 20, outputTokens: 2, cachedInputTokens: 6 },
      false,
    );
    await usage.handleLLMEnd(noUsage, "r");
    expect(usage.records).toHaveLength(1);
    expect(usage.records[0]).toMatchObject({
      inputTokens: 30,
      outputTokens: 3,
      totalTokens: 33,
      inputTokenDetails: { cache_read: 10 },
    });
    expect(usage.records[0]).not.toHaveProperty("estimated");
    await start(usage, "plain");
    await (await usage.reserve("plain", ESTIMATE)).settle(
      { inputTokens: 5, outputTokens: 5 },
      false,
    );
    await usage.handleLLMEnd(noUsage, "plain");
    expect(usage.records[1]).not.toHaveProperty("inputTokenDetails");
  });

  it("marks a run estimated when any of its attempts was", async () => {
    const usage = new UsageTracker({ prices });
    await start(usage, "r");
    await (await usage.reserve("r", ESTIMATE)).settle({ inputTokens: 1, outputTokens: 1 }, true);
    await (await usage.reserve("r", ESTIMATE)).settle({ inputTokens: 1, outputTokens: 1 }, false);
    await usage.handleLLMEnd(noUsage, "r");
    expect(usage.records[0]).toMatchObject({
      inputTokens: 2,
      estimated: true,
      settlement: "estimated",
    });
  });

  it("settles a run as its least certain attempt: upper-bound over estimated over reported", async () => {
    const usage = new UsageTracker({ prices });
    const settle = async (runId: string, ...hows: Array<"reported" | "estimated" | "held">) => {
      await start(usage, runId);
      for (const how of hows) {
        const reservation = await usage.reserve(runId, ESTIMATE);
        if (how === "held") await reservation.settleAsHeld();
        else await reservation.settle({ inputTokens: 1, outputTokens: 1 }, how === "estimated");
      }
      await usage.handleLLMEnd(noUsage, runId);
    };
    await settle("a", "held", "estimated", "reported");
    await settle("b", "reported", "held");
    await settle("c", "reported", "estimated");
    await settle("d", "reported", "reported");
    expect(usage.records.map((r) => [r.runId, r.settlement, r.estimated])).toEqual([
      ["a", "upper-bound", true],
      ["b", "upper-bound", true],
      ["c", "estimated", true],
      ["d", "reported", undefined],
    ]);
  });

  it("settles a run whose every attempt was released unused as none, not reported", async () => {
    const usage = new UsageTracker({ prices });
    await start(usage, "r");
    // What a meter does for an attempt the service refused: settle it at zero.
    await (await usage.reserve("r", ESTIMATE)).settle({ inputTokens: 0, outputTokens: 0 }, false);
    usage.handleLLMError(new Error("503"), "r");
    expect(usage.records[0]).toMatchObject({ settlement: "none", totalTokens: 0 });
    expect(usage.totals).toMatchObject({ calls: 1, failed: 1 });
    // What was counted keeps its settlement, the service's usage or an estimate of none at all.
    const failed = async (runId: string, tokens: number, estimated: boolean) => {
      await start(usage, runId);
      const reservation = await usage.reserve(runId, ESTIMATE);
      await reservation.settle({ inputTokens: tokens, outputTokens: tokens }, estimated);
      usage.handleLLMError(new Error("cut"), runId);
    };
    await failed("usage", 2, false);
    await failed("nothing read", 0, true);
    expect(usage.records.slice(1).map((r) => [r.settlement, r.totalTokens])).toEqual([
      ["reported", 4],
      ["estimated", 0],
    ]);
  });

  it("charges another model's run at its end, and refuses it at its start once the budget is spent", async () => {
    const usage = new UsageTracker({ prices, budget: 0.0105 });
    const tenPromptTokens: LLMResult = {
      generations: [],
      llmOutput: { tokenUsage: { promptTokens: 10, completionTokens: 0, totalTokens: 10 } },
    };
    await start(usage, "other", "m", THEIRS);
    await usage.handleLLMEnd(tenPromptTokens, "other");
    expect((await usage.budgetStatus()).spent).toBeCloseTo(0.01, 12);
    await start(usage, "again", "m", THEIRS); // 0.01 of 0.0105: not spent yet
    await usage.handleLLMEnd(tenPromptTokens, "again");
    await expect(start(usage, "late", "m", THEIRS)).rejects.toBeInstanceOf(BudgetExceededError);
    // A model without a price is never refused, nor charged; ours is refused from its call path.
    await start(usage, "free", "free", THEIRS);
    await usage.handleLLMEnd(tenPromptTokens, "free");
    await expect(start(usage, "ours", "m", OURS)).resolves.toBeUndefined();
    expect((await usage.budgetStatus()).spent).toBeCloseTo(0.02, 12);
  });

  it("records how a run ended that LangChain will not end: aborted, left, failed to start", async () => {
    const usage = new UsageTracker();
    for (const id of ["a", "b", "c"]) await start(usage, id);
    await usage.endRun("a", { aborted: true, abandoned: true, requestId: "req-a" });
    await usage.endRun("b", { failedToStart: { name: "TypeError", message: "x" } });
    await usage.endRun("c", {});
    expect(usage.records.map(({ runId, durationMs, ...rest }) => rest)).toEqual([
      expect.objectContaining({
        aborted: true,
        abandoned: true,
        requestId: "req-a",
        settlement: "none",
      }),
      expect.objectContaining({ error: { name: "TypeError", message: "x" }, settlement: "none" }),
      { model: "m", inputTokens: 0, outputTokens: 0, totalTokens: 0, settlement: "none" },
    ]);
  });

  it("records a cancelled run as aborted, and an error that is not an Error by its text", async () => {
    const usage = new UsageTracker();
    for (const id of ["a", "b", "c", "d", "e"]) await start(usage, id);
    const abort = Object.assign(new Error("stopped"), { name: "AbortError" });
    usage.handleLLMError(abort, "a");
    usage.handleLLMError("boom" as unknown as Error, "b");
    usage.handleLLMError({ name: 7, message: 8 } as unknown as Error, "c");
    usage.handleLLMError(new TypeError("bad"), "d");
    usage.handleLLMError(undefined as unknown as Error, "e");
    expect(usage.records[0]).toMatchObject({ aborted: true });
    expect(usage.records[0]).not.toHaveProperty("error");
    expect(usage.records[1]?.error).toEqual({ name: "Error", message: "boom" });
    expect(usage.records[2]?.error).toEqual({ name: "Error", message: "[object Object]" });
    expect(usage.records[3]?.error).toEqual({ name: "TypeError", message: "bad" });
    expect(usage.records[4]?.error).toEqual({ name: "Error", message: "undefined" });
    expect(usage.totals).toMatchObject({ calls: 5, failed: 4 });
  });

  it("measures a run's duration from its start to its end", async () => {
    const now = vi.spyOn(performance, "now");
    const usage = new UsageTracker({ maxRecords: 1 });
    now.mockReturnValue(1000);
    await start(usage, "r");
    now.mockReturnValue(1250.4);
    await usage.handleLLMEnd(noUsage, "r");
    expect(usage.records[0]?.durationMs).toBe(250);
    expect(usage.name).toBe("inference_service_usage_tracker");
  });

  it("ignores the end or failure of a run it never saw start, and is its own copy", async () => {
    const usage = new UsageTracker({ prices });
    await usage.handleLLMEnd(noUsage, "unseen");
    usage.handleLLMError(new Error("x"), "unseen");
    expect(usage.records).toEqual([]);
    expect(usage.copy()).toBe(usage);
    expect(usage.priceOf("m")).toEqual(prices.m);
    // A model serialised without an ID path is still tracked, by its invocation parameters.
    await usage.handleLLMStart({ lc: 1, type: "not_implemented" } as never, ["p"], "r", undefined, {
      invocation_params: { model: "m" },
    });
    await usage.handleLLMEnd(noUsage, "r");
    expect(usage.records[0]?.model).toBe("m");
  });
});
