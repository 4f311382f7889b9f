import type { Serialized } from "@langchain/core/load/serializable";
import { describe, expect, it } from "vitest";
import { BudgetExceededError, RateLimitError } from "../../src/errors/errors.js";
import { CallMeter, createCallMeter } from "../../src/spend/call_meter.js";
import type { StreamReading } from "../../src/spend/estimate.js";
import { RateLimiter } from "../../src/spend/rate_limiter.js";
import { UsageTracker } from "../../src/spend/usage_tracker.js";
import { MemoryStore } from "../../src/stores/memory_store.js";

const ESTIMATE = { model: "m", inputTokens: 0, maxOutputTokens: 100, choices: 1 };
const PRICES = { m: { input: 0, output: 10_000 } }; // a worst case of 1 per request

/** A tracker that has seen run "run-1" start, as LangChain's callbacks would. */
async function tracker(budget: number, store = new MemoryStore()) {
  const usage = new UsageTracker({ prices: PRICES, budget, store });
  const llm: Serialized = {
    lc: 1,
    type: "not_implemented",
    id: ["langchain_inference_service", "M"],
  };
  await usage.handleLLMStart(llm, ["p"], "run-1", undefined, { invocation_params: { model: "m" } });
  return { usage, store };
}

describe("CallMeter", () => {
  it("is not built for a call with no tracker and no limiter", () => {
    expect(createCallMeter({ run: { runId: "r", handlers: [{}] } })).toBeUndefined();
    expect(createCallMeter({ limiter: new RateLimiter() })).toBeInstanceOf(CallMeter);
  });

  it("reserves with every tracker, or none: a refusal releases the holds already made", async () => {
    const first = await tracker(5);
    const second = await tracker(0.5);
    const meter = new CallMeter({ run: { runId: "run-1", handlers: [first.usage, second.usage] } });
    await expect(meter.begin(ESTIMATE)).rejects.toBeInstanceOf(BudgetExceededError);
    expect(first.store.reservations).toBe(0);
    expect(await first.usage.budgetStatus()).toMatchObject({ spent: 0, reserved: 0 });
  });

  it("counts a tracker reached twice (scope and explicit callbacks) once", async () => {
    const { usage, store } = await tracker(5);
    const meter = new CallMeter({ run: { runId: "run-1", handlers: [usage, usage] } });
    await meter.begin(ESTIMATE);
    expect(store.reservations).toBe(1);
  });

  it("settles a stream's attempt to an estimate of what was read, then tells the trackers it was left", async () => {
    const { usage, store } = await tracker(5);
    const meter = new CallMeter({ run: { runId: "run-1", handlers: [usage] } });
    const attempt = await meter.begin(ESTIMATE);
    async function* text() {
      yield "x".repeat(30);
      yield "never read";
    }
    const read = (reading: StreamReading, item: string) => reading.addText(item);
    for await (const _ of meter.meterStream(text(), read, () => attempt)) break;
    expect(store.reservations).toBe(0);
    expect((await usage.budgetStatus()).spent).toBeCloseTo(0.1, 12);
    expect(usage.records).toEqual([
      expect.objectContaining({ abandoned: true, outputTokens: 10, estimated: true }),
    ]);
    expect(usage.inFlight).toBe(0);
  });

  it("releases a failed attempt's hold and reports a 429 to the limiter", async () => {
    const { usage, store } = await tracker(5);
    const limiter = new RateLimiter({ requestsPerMinute: 60_000, pauseMs: 0 });
    const meter = new CallMeter({ run: { runId: "run-1", handlers: [usage] }, limiter });
    const attempt = await meter.begin(ESTIMATE);
    await attempt.fail(
      new RateLimitError({ summary: "429", hint: "wait", surface: "hosted", retryAfterMs: 5 }),
    );
    expect(store.reservations).toBe(0);
    // The limit paused for the Retry-After: the next slot waits for it.
    const grant = await limiter.store.takeRate("default:model:m", {
      now: Date.now(),
      requestRate: 1,
      burst: 1,
      tokens: 0,
      recoveryMs: 10_000,
      learn: true,
      accepted: 0,
    });
    expect(grant.waitMs).toBeGreaterThan(0);
    expect(grant.epoch).toBe(1);
  });

  it("tells its observer of each reservation, refusal and limiter wait, and of the settled cost", async () => {
    const heard: unknown[][] = [];
    const observer = {
      reserved: (amount: number, currency?: string) => heard.push(["reserved", amount, currency]),
      refused: (error: unknown) => heard.push(["refused", (error as Error).name]),
      waited: (ms: number) => heard.push(["waited", typeof ms]),
      settled: (cost: number, currency?: string) => heard.push(["settled", cost, currency]),
    };
    const { usage } = await tracker(1.5);
    const limiter = new RateLimiter({ requestsPerMinute: 60_000 });
    const meter = new CallMeter({ run: { runId: "run-1", handlers: [usage] }, limiter });
    const attempt = await meter.begin(ESTIMATE, undefined, observer);
    await attempt.settle({ inputTokens: 0, outputTokens: 50 }, 0);
    await expect(
      meter.begin({ ...ESTIMATE, maxOutputTokens: 1000 }, undefined, observer),
    ).rejects.toBeInstanceOf(BudgetExceededError);
    expect(heard).toEqual([
      ["reserved", 1, undefined],
      ["waited", "number"],
      ["settled", 0.5, undefined],
      ["refused", "BudgetExceededError"],
    ]);
  });
});
