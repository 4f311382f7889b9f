import { RunnableLambda } from "@langchain/core/runnables";
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ChatInferenceService } from "../../src/apis/chat/chat_models.js";
import { BudgetExceededError } from "../../src/errors/errors.js";
import { UsageTracker } from "../../src/spend/usage_tracker.js";
import { withUsage } from "../../src/spend/with_usage.js";
import { BASE, chatCompletion, intercept, JSON_HEADERS, KEY } from "../helpers/wire.js";

const CHAT = "/inference/v1/chat/completions";
const PRICES = { "test-model": { input: 2, output: 8 } };
const ALS_KEY = Symbol.for("ls:tracing_async_local_storage");

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
  vi.restoreAllMocks();
});

function chat() {
  return new ChatInferenceService("test-model", { apiKey: KEY, baseURL: BASE, maxRetries: 0 });
}

/** Answers every chat request with 9 input and 3 output tokens. */
function serve() {
  return intercept(CHAT, [200, chatCompletion({ content: "ok" }), JSON_HEADERS]);
}

describe("withUsage", () => {
  it.each([
    ["a number", 5],
    ["nothing", undefined],
  ])(
    "refuses %s for its block with a ConfigurationError naming fn, running nothing",
    async (_n, fn) => {
      await expect(withUsage(fn as never)).rejects.toMatchObject({
        name: "ConfigurationError",
        option: "fn",
        message: expect.stringMatching(/^`fn` must be a function/),
      });
    },
  );

  it("turns on LangChain's async context where nothing else has, and counts calls without callbacks", async () => {
    const globals = globalThis as Record<symbol, unknown>;
    const previous = globals[ALS_KEY];
    delete globals[ALS_KEY];
    try {
      serve();
      const model = chat();
      const { result, usage } = await withUsage(async () => (await model.invoke("hi")).content);
      expect(result).toBe("ok");
      expect(globals[ALS_KEY]).toBeDefined();
      expect(usage.totals).toMatchObject({ calls: 1, inputTokens: 9, outputTokens: 3 });
    } finally {
      if (previous !== undefined) globals[ALS_KEY] = previous;
    }
  });

  it("returns the result and the usage of calls given the tracker explicitly", async () => {
    serve();
    const model = chat();
    const { result, usage } = await withUsage(
      async (tracker) => (await model.invoke("hi", { callbacks: [tracker] })).content,
      { prices: PRICES },
    );
    expect(result).toBe("ok");
    expect(usage.records).toHaveLength(1); // the scope and the explicit tracker: counted once
    expect(usage.totals.cost).toBe((9 * 2 + 3 * 8) / 1e6);
  });

  it("counts only the calls made inside the scope", async () => {
    const seen = serve();
    const model = chat();
    const { usage } = await withUsage(async () => {
      await model.invoke("inside");
      await model.batch(["inside too", "and this"]);
    });
    await model.invoke("outside");
    expect(seen).toHaveLength(4);
    expect(usage.totals.calls).toBe(3);
  });

  it("keeps concurrent scopes apart", async () => {
    serve();
    const model = chat();
    const [one, two] = await Promise.all([
      withUsage(() => model.invoke("a")),
      withUsage(() => model.batch(["b", "c"])),
    ]);
    expect(one.usage.totals.calls).toBe(1);
    expect(two.usage.totals.calls).toBe(2);
  });

  it("counts a nested scope's calls in the outer scope too", async () => {
    serve();
    const model = chat();
    const outer = await withUsage(async () => {
      await model.invoke("outer");
      return withUsage(() => model.invoke("inner"));
    });
    expect(outer.result.usage.totals.calls).toBe(1);
    expect(outer.usage.totals.calls).toBe(2);
  });

  it("inside a runnable, keeps its callbacks and makes the calls children of its run", async () => {
    serve();
    const model = chat();
    const chainRuns: string[] = [];
    const modelEnds: string[] = [];
    const step = RunnableLambda.from(async (input: string) => {
      const { usage } = await withUsage(() => model.invoke(input));
      return usage;
    });
    const usage = await step.invoke("hi", {
      callbacks: [
        {
          handleChainStart: (_c, _i, runId) => void chainRuns.push(runId),
          handleLLMEnd: (_o, runId) => void modelEnds.push(runId),
        },
      ],
    });
    expect(chainRuns).toHaveLength(1);
    expect(usage.records).toHaveLength(1);
    expect(usage.records[0]?.parentRunId).toBe(chainRuns[0]);
    expect(modelEnds).toEqual([usage.records[0]?.runId]); // the enclosing callbacks still run
  });

  it("keeps counting into a given tracker when the block throws", async () => {
    serve();
    const model = chat();
    const tracker = new UsageTracker();
    await expect(
      withUsage(async () => {
        await model.invoke("hi");
        throw new Error("later failure");
      }, tracker),
    ).rejects.toThrow("later failure");
    expect(tracker.totals.calls).toBe(1);
  });

  it("applies the scope's budget to calls made without callbacks, before any request", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const seen = serve();
    const model = chat();
    await expect(
      withUsage(() => model.invoke("hi"), { prices: PRICES, budget: 0 }),
    ).rejects.toBeInstanceOf(BudgetExceededError);
    expect(seen).toHaveLength(0);
  });
});

describe("withUsage where the runtime has no AsyncLocalStorage", () => {
  it("still runs the block and returns its result, leaving LangChain's context off", async () => {
    const globals = globalThis as Record<symbol, unknown>;
    const runtime = process as { getBuiltinModule?: unknown };
    const previous = globals[ALS_KEY];
    const getBuiltinModule = runtime.getBuiltinModule;
    try {
      for (const lookup of [undefined, () => undefined]) {
        delete globals[ALS_KEY];
        runtime.getBuiltinModule = lookup;
        const { result, usage } = await withUsage(() => 42);
        expect(result).toBe(42);
        expect(usage.totals.calls).toBe(0);
        expect(globals[ALS_KEY]).toBeUndefined();
      }
    } finally {
      runtime.getBuiltinModule = getBuiltinModule;
      if (previous !== undefined) globals[ALS_KEY] = previous;
    }
  });
});
