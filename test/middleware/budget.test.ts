/**
 * `budgetMiddleware` with `createAgent` on the emulator: a tool loop that would spend for ever
 * (every step must call a tool) stops under its cap — gracefully, or rejecting with
 * `BudgetExceededError` — in `invoke` and in `streamMode: "messages"`, alone and beside
 * LangChain's own middleware; a shared budget on one Redis store stops two agents; the refused
 * call never reaches the wire (the emulator's request log), and what was spent is the tracker's
 * own figure, counted once.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import { AIMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { ChatOpenAI } from "@langchain/openai";
import {
  type AnyAgentMiddleware,
  createAgent,
  createMiddleware,
  MiddlewareError,
  modelCallLimitMiddleware,
  modelRetryMiddleware,
  tool,
} from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ChatInferenceService } from "../../src/apis/chat/chat_models.js";
import {
  createEmulator,
  DEFAULT_CREDIT,
  DEFAULT_MODEL,
  type InProcessEmulator,
} from "../../src/emulator/index.js";
import { BudgetExceededError, ConfigurationError } from "../../src/errors/errors.js";
import { type BudgetMiddlewareOptions, budgetMiddleware } from "../../src/middleware/budget.js";
import type { BudgetReached } from "../../src/middleware/budget_reached.js";
import type { UsageRecord } from "../../src/spend/usage_records.js";
import { UsageTracker } from "../../src/spend/usage_tracker.js";
import type { UsageTrackerOptions } from "../../src/spend/usage_tracker_options.js";
import { RedisStore } from "../../src/stores/redis_store.js";
import { REDIS_SERVER, type RedisServer, startRedis, warnIfNoRedis } from "../helpers/redis.js";
import { expectConsole } from "../setup/quiet.js";

const getWeather = tool(async ({ city }) => `Sunny, 21°C in ${city}`, {
  name: "get_weather",
  description: "Get the weather for a city",
  schema: z.object({ city: z.string() }),
});

/** Every step must call a tool (`tool_choice: "required"`): without a limit the agent never ends. */
const toolLoop = createMiddleware({
  name: "toolLoop",
  wrapModelCall: (request, handler) => handler({ ...request, toolChoice: "required" }),
});

const ASK = { messages: [{ role: "user", content: "What is the weather in Paris?" }] };
/** Far more steps than any cap here allows: the loop is stopped by the budget, never by this. */
const STEPS = { recursionLimit: 200 };

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
  const tracker = (options: UsageTrackerOptions = {}) =>
    new UsageTracker({ prices, currency: "credit", ...options });
  /** An agent in the tool loop, its budget given by `options`, inside LangChain's `outer` middleware. */
  const looping = (
    options: BudgetMiddlewareOptions,
    { outer = [], on = model() }: { outer?: AnyAgentMiddleware[]; on?: BaseChatModel } = {},
  ) => {
    const middleware: AnyAgentMiddleware[] = [...outer, budgetMiddleware(options), toolLoop];
    return createAgent({ model: on, tools: [getWeather], middleware });
  };
  return { emulator, prices, model, tracker, looping };
}

/** The calls that were sent and answered. */
const sentBy = (usage: UsageTracker) =>
  usage.records.filter((record) => record.settlement === "reported");

/** What the agent's last message says of the budget, checked to be the graceful ending. */
function ending(messages: readonly BaseMessage[]): { content: string; reached: BudgetReached } {
  const last = messages.at(-1);
  expect(AIMessage.isInstance(last)).toBe(true);
  const message = last as AIMessage;
  expect(message.tool_calls ?? []).toEqual([]);
  return {
    content: message.text,
    reached: message.response_metadata.budgetExceeded as BudgetReached,
  };
}

/** The calls the emulator answered (and billed). */
function answered(emulator: InProcessEmulator) {
  return emulator.state.requests().filter((entry) => entry.status === 200);
}

const cost = (records: readonly UsageRecord[]) =>
  records.reduce((sum, record) => sum + (record.cost ?? 0), 0);

describe("budgetMiddleware: a tool loop under maxCost", () => {
  it("ends the loop before the call that would overspend; the agent returns normally, saying what was spent", async () => {
    const { emulator, tracker, looping } = setup();
    const usage = tracker();
    const agent = looping({ tracker: usage, maxCost: 0.0006 });
    const result = await agent.invoke(ASK, STEPS);

    const { content, reached } = ending(result.messages);
    const sent = sentBy(usage);
    expect(sent.length).toBeGreaterThan(2);
    // The refused call: recorded as refused, never sent.
    expect(usage.records.at(-1)).toMatchObject({
      settlement: "refused",
      error: { name: "BudgetExceededError" },
    });
    expect(answered(emulator)).toHaveLength(sent.length);
    expect(emulator.state.requests()).toHaveLength(sent.length);
    // Under the cap, and the next call's worst case did not fit in what was left.
    expect(reached).toMatchObject({ limit: "maxCost", budget: 0.0006, currency: "credit" });
    expect(reached.runSpent).toBeCloseTo(cost(sent), 12);
    expect(reached.runSpent).toBeCloseTo(DEFAULT_CREDIT - emulator.state.credit, 12);
    expect(reached.runSpent).toBeLessThanOrEqual(0.0006);
    expect(reached.runSpent + reached.requested!).toBeGreaterThan(0.0006);
    expect(content).toBe(
      `Budget reached: this run may spend 0.0006 credit (maxCost) and has spent ${Number(reached.runSpent.toPrecision(6))} credit; its next model call to "${DEFAULT_MODEL}" (up to ${Number(reached.requested!.toPrecision(6))} credit) was not sent.`,
    );
    // The loop's tool results precede the ending: the agent stopped between two steps.
    expect(result.messages.at(-2)?.type).toBe("tool");
  });

  it('with onExhausted "throw", rejects with BudgetExceededError itself, the refused call unsent', async () => {
    const { emulator, tracker, looping } = setup();
    const usage = tracker();
    const agent = looping({ tracker: usage, maxCost: 0.0006, onExhausted: "throw" });
    const error = await agent.invoke(ASK, STEPS).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(BudgetExceededError.isInstance(error)).toBe(true);
    expect(MiddlewareError.isInstance(error)).toBe(false);
    const refused = error as BudgetExceededError;
    const sent = sentBy(usage);
    expect(refused).toMatchObject({ budget: 0.0006, currency: "credit", model: DEFAULT_MODEL });
    expect(refused.spent).toBeCloseTo(cost(sent), 12);
    expect(refused.spent + refused.requested!).toBeGreaterThan(0.0006);
    expect(emulator.state.requests()).toHaveLength(sent.length);
    expect(usage.records.at(-1)?.settlement).toBe("refused");
  });

  it("gives each invocation the whole cap again, on a thread a checkpointer keeps too", async () => {
    const { model, tracker } = setup();
    const usage = tracker();
    const agent = createAgent({
      model: model(),
      tools: [getWeather],
      checkpointer: new MemorySaver(),
      middleware: [budgetMiddleware({ tracker: usage, maxCost: 0.0006 }), toolLoop],
    });
    const config = { ...STEPS, configurable: { thread_id: "one" } };
    const first = ending((await agent.invoke(ASK, config)).messages).reached;
    const second = ending((await agent.invoke(ASK, config)).messages).reached;
    expect(first.runSpent).toBeGreaterThan(0.0003);
    expect(second.runSpent).toBeGreaterThan(0.0003);
    expect(second.runSpent).toBeLessThanOrEqual(0.0006);
    expect(usage.spent).toBeCloseTo(first.runSpent + second.runSpent, 12);
  });

  it("stops the loop in streamMode messages: the ending is streamed as the last message, the refused call unsent", async () => {
    const { emulator, tracker, looping } = setup();
    const usage = tracker();
    const agent = looping({ tracker: usage, maxCost: 0.0006 });
    const streamed: string[] = [];
    for await (const [chunk] of await agent.stream(ASK, { ...STEPS, streamMode: "messages" })) {
      if (chunk.text) streamed.push(chunk.text);
    }
    expect(streamed.at(-1)).toMatch(
      /^Budget reached: this run may spend 0\.0006 credit \(maxCost\)/,
    );
    const sent = sentBy(usage);
    expect(sent.length).toBeGreaterThan(2);
    expect(sent.every((record) => record.requestId !== undefined)).toBe(true);
    expect(emulator.state.requests().every((entry) => entry.stream)).toBe(true);
    expect(emulator.state.requests()).toHaveLength(sent.length);
    expect(usage.records.at(-1)?.settlement).toBe("refused");
  });

  it('rejects with BudgetExceededError in streamMode messages with onExhausted "throw"', async () => {
    const { emulator, tracker, looping } = setup();
    const usage = tracker();
    const agent = looping({ tracker: usage, maxCost: 0.0006, onExhausted: "throw" });
    const read = async () => {
      for await (const _ of await agent.stream(ASK, { ...STEPS, streamMode: "messages" })) {
        // read to the end
      }
    };
    await expect(read()).rejects.toSatisfy((error) => BudgetExceededError.isInstance(error));
    expect(emulator.state.requests()).toHaveLength(sentBy(usage).length);
  });
});

describe("budgetMiddleware: the tracker's budget", () => {
  it("ends at the tracker's budget, saying what the budget and the run spent", async () => {
    const { emulator, tracker, looping } = setup();
    const usage = tracker({ budget: 0.0005 });
    const agent = looping({ tracker: usage });
    const { content, reached } = ending((await agent.invoke(ASK, STEPS)).messages);
    const spent = (await usage.budgetStatus()).spent;
    expect(reached).toMatchObject({ limit: "budget", budget: 0.0005, reserved: 0 });
    expect(reached.spent).toBeCloseTo(spent, 12);
    expect(reached.runSpent).toBeCloseTo(spent, 12);
    expect(spent + reached.requested!).toBeGreaterThan(0.0005);
    expect(content).toMatch(
      /^Budget reached: the usage budget of 0\.0005 credit has [\d.e-]+ credit spent; the next model call to "emulator-chat" \(up to [\d.e-]+ credit\) was not sent\. This run spent [\d.e-]+ credit\.$/,
    );
    expect(emulator.state.requests()).toHaveLength(usage.records.length - 1);
  });

  it("ends gracefully when the model's own reservation is refused because another caller holds the rest", async () => {
    const { emulator, model, tracker } = setup();
    const usage = tracker({ budget: 0.001 });
    // Another agent on the same budget has a call in flight that holds most of it.
    const other = await usage.reserve("another-agent", {
      model: DEFAULT_MODEL,
      inputTokens: 1800,
      maxOutputTokens: 0,
      choices: 1,
    });
    const agent = createAgent({
      model: model(),
      tools: [getWeather],
      middleware: [budgetMiddleware({ tracker: usage })],
    });
    const result = await agent.invoke(ASK);
    const { content, reached } = ending(result.messages);
    expect(result.messages).toHaveLength(2);
    expect(reached).toMatchObject({ limit: "budget", spent: 0, reserved: 0.0009, runSpent: 0 });
    expect(content).toContain("has 0 credit spent, 0.0009 credit held by calls in flight;");
    expect(emulator.state.requests()).toEqual([]);
    await other.settle({ inputTokens: 0, outputTokens: 0 }, false);
  });

  it("counts each call once when the tracker is in the invocation's callbacks too", async () => {
    const { emulator, tracker, looping } = setup();
    const usage = tracker({ budget: 0.0005 });
    const agent = looping({ tracker: usage });
    const { reached } = ending(
      (await agent.invoke(ASK, { ...STEPS, callbacks: [usage] })).messages,
    );
    const sent = sentBy(usage);
    expect(usage.records).toHaveLength(sent.length + 1);
    expect(new Set(usage.records.map((record) => record.runId)).size).toBe(usage.records.length);
    expect(emulator.state.requests()).toHaveLength(sent.length);
    expect(usage.totals.calls).toBe(sent.length + 1);
    expect(usage.spent).toBeCloseTo(DEFAULT_CREDIT - emulator.state.credit, 12);
    expect((await usage.budgetStatus()).spent).toBeCloseTo(usage.spent, 12);
    expect(reached.runSpent).toBeCloseTo(usage.spent, 12);
  });

  it("stops an agent on another LangChain chat model once a limit is spent, checked from the tracker's records", async () => {
    const { emulator, tracker, looping } = setup();
    // LangChain logs a handler's refusal at a run's start before it rethrows it.
    expectConsole("error", /Error in handler UsageTracker, handleLLMStart: BudgetExceededError/);
    const usage = tracker();
    const other = new ChatOpenAI({
      model: DEFAULT_MODEL,
      apiKey: emulator.apiKey,
      maxRetries: 0,
      maxTokens: 50,
      configuration: { baseURL: emulator.baseURL, fetch: emulator.fetch },
    });
    const agent = looping({ tracker: usage, maxCost: 0.0003 }, { on: other });
    const { reached } = ending((await agent.invoke(ASK, STEPS)).messages);
    const sent = usage.records.filter((record) => record.error === undefined);
    // No reservation: the call that reached the cap was sent, the next one refused at its start.
    expect(reached).toMatchObject({ limit: "maxCost", budget: 0.0003 });
    expect(reached.requested).toBeUndefined();
    expect(reached.runSpent).toBeGreaterThanOrEqual(0.0003);
    expect(reached.runSpent - sent.at(-1)!.cost!).toBeLessThan(0.0003);
    expect(reached.runSpent).toBeCloseTo(cost(sent), 12);
    expect(emulator.state.requests()).toHaveLength(sent.length);
    // The refused run is ended in the user's tracker too: none is left in flight.
    expect(usage.records.at(-1)).toMatchObject({
      settlement: "refused",
      error: { name: "BudgetExceededError" },
    });
    expect(usage.inFlight).toBe(0);
  });
});

describe("budgetMiddleware beside LangChain's own middleware", () => {
  it("ends under its cap inside modelRetryMiddleware and modelCallLimitMiddleware, which see a plain reply", async () => {
    const { emulator, tracker, looping } = setup();
    const usage = tracker();
    const agent = looping(
      { tracker: usage, maxCost: 0.0006 },
      {
        outer: [
          modelRetryMiddleware({ maxRetries: 2 }),
          modelCallLimitMiddleware({ runLimit: 100 }),
        ],
      },
    );
    const { reached } = ending((await agent.invoke(ASK, STEPS)).messages);
    expect(reached.limit).toBe("maxCost");
    // The retry middleware saw no failure: the refused call was asked for once.
    expect(usage.records.filter((record) => record.settlement === "refused")).toHaveLength(1);
    expect(emulator.state.requests()).toHaveLength(usage.records.length - 1);
  });

  it("lets LangChain's call limit end the run first when it is the smaller limit", async () => {
    const { emulator, tracker, looping } = setup();
    const usage = tracker();
    const agent = looping(
      { tracker: usage, maxCost: 1 },
      { outer: [modelCallLimitMiddleware({ runLimit: 2 })] },
    );
    const result = await agent.invoke(ASK, STEPS);
    expect(result.messages.at(-1)?.text).toMatch(/call limit/);
    expect(emulator.state.requests()).toHaveLength(2);
    expect(usage.records).toHaveLength(2);
  });
});

describe("budgetMiddleware's options", () => {
  it("refuses what is not a tracker, an unknown option and a maxCost without prices, naming the option", () => {
    const cases: Array<[unknown, string]> = [
      [{ tracker: {} }, "tracker"],
      [{ tracker: new UsageTracker(), maxCost: -1 }, "maxCost"],
      [{ tracker: new UsageTracker(), onExhausted: "stop" }, "onExhausted"],
      [{ tracker: new UsageTracker(), max: 1 }, "max"],
      [{ tracker: new UsageTracker(), maxCost: 1 }, "maxCost"],
    ];
    for (const [options, option] of cases) {
      expect(() => budgetMiddleware(options as never)).toThrow(ConfigurationError);
      try {
        budgetMiddleware(options as never);
      } catch (error) {
        expect((error as ConfigurationError).option).toBe(option);
      }
    }
    expect(() => budgetMiddleware({ tracker: new UsageTracker(), maxCost: 1 })).toThrow(
      /`maxCost` needs the tracker's `prices`/,
    );
  });
});

describe.skipIf(REDIS_SERVER === undefined)("budgetMiddleware on a shared Redis budget", () => {
  warnIfNoRedis("budgetMiddleware on a shared Redis budget");
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  it("stops two agents whose trackers share one budget in one store, both gracefully, the budget held", async () => {
    const { emulator, model, tracker } = setup();
    const stores = [new RedisStore({ url: redis.url }), new RedisStore({ url: redis.url })];
    try {
      const budget = 0.001;
      const [a, b] = stores.map((store) =>
        tracker({ budget, store, budgetKey: "shared-agents" }),
      ) as [UsageTracker, UsageTracker];
      const agent = (usage: UsageTracker) =>
        createAgent({
          model: model(),
          tools: [getWeather],
          middleware: [budgetMiddleware({ tracker: usage }), toolLoop],
        });
      const [first, second] = await Promise.all([
        agent(a).invoke(ASK, STEPS),
        agent(b).invoke(ASK, STEPS),
      ]);
      for (const result of [first, second]) {
        expect(ending(result.messages).reached).toMatchObject({ limit: "budget", budget });
      }
      const status = await a.budgetStatus();
      expect(status.reserved).toBe(0);
      expect(status.spent).toBeLessThanOrEqual(budget);
      expect(status.spent).toBeCloseTo(a.spent + b.spent, 12);
      expect(a.spent).toBeGreaterThan(0);
      expect(b.spent).toBeGreaterThan(0);
      expect(status.spent).toBeCloseTo(DEFAULT_CREDIT - emulator.state.credit, 12);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });
});
