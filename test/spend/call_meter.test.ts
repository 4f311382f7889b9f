import type { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { Serialized } from "@langchain/core/load/serializable";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BudgetExceededError, RateLimitError } from "../../src/errors/errors.js";
import {
  CallMeter,
  createCallMeter,
  streamEventsRun,
  tokenCountFromWire,
  tokenCountOf,
} from "../../src/spend/call_meter.js";
import { StreamReading } from "../../src/spend/estimate.js";
import { RateLimiter, type RatePermit } from "../../src/spend/rate_limiter.js";
import type { RunEnd, SpendGuard, TokenCount } from "../../src/spend/spend_guard.js";
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

  it("charges a stream left before its usage chunk its worst case, then tells the trackers it was left", async () => {
    const { usage, store } = await tracker(5);
    const meter = new CallMeter({ run: { runId: "run-1", handlers: [usage] } });
    const attempt = await meter.begin(ESTIMATE);
    const reading = new StreamReading();
    reading.addText("x".repeat(30));
    await meter.endStream(reading, "left", attempt);
    expect(store.reservations).toBe(0);
    // The service may have relayed (and billed) the whole answer: 100 tokens, not the 10 read.
    expect((await usage.budgetStatus()).spent).toBeCloseTo(1, 12);
    expect(usage.records).toEqual([
      expect.objectContaining({
        abandoned: true,
        outputTokens: 100,
        estimated: true,
        settlement: "upper-bound",
      }),
    ]);
    expect(usage.inFlight).toBe(0);
  });

  it("settles a stream left after its usage chunk to that usage", async () => {
    const { usage } = await tracker(5);
    const meter = new CallMeter({ run: { runId: "run-1", handlers: [usage] } });
    const attempt = await meter.begin(ESTIMATE);
    const reading = new StreamReading();
    reading.usage = { inputTokens: 2, outputTokens: 7 } satisfies TokenCount;
    await meter.endStream(reading, "left", attempt);
    expect((await usage.budgetStatus()).spent).toBeCloseTo(0.07, 12);
    expect(usage.records).toEqual([
      expect.objectContaining({ abandoned: true, outputTokens: 7, settlement: "reported" }),
    ]);
  });

  it("releases a failed attempt's hold and reports a 429 to the limiter", async () => {
    const { usage, store } = await tracker(5);
    const limiter = new RateLimiter({ requestsPerMinute: 60_000, pauseMs: 0 });
    const meter = new CallMeter({ run: { runId: "run-1", handlers: [usage] }, limiter });
    const attempt = await meter.begin(ESTIMATE);
    await attempt.fail(
      new RateLimitError({ summary: "429", hint: "wait", surface: "hosted", retryAfterMs: 60_000 }),
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

  it("tells its observer of each reservation, refusal and limiter wait, and how each attempt settled, with its cost", async () => {
    const heard: unknown[][] = [];
    const observer = {
      reserved: (amount: number, currency?: string) => heard.push(["reserved", amount, currency]),
      refused: (error: unknown) => heard.push(["refused", (error as Error).name]),
      waited: (ms: number) => heard.push(["waited", typeof ms]),
      settled: (how: string, cost?: number, currency?: string) =>
        heard.push(["settled", how, cost, currency]),
    };
    const { usage } = await tracker(2);
    const limiter = new RateLimiter({ requestsPerMinute: 60_000 });
    const meter = new CallMeter({ run: { runId: "run-1", handlers: [usage] }, limiter });
    const attempt = await meter.begin(ESTIMATE, undefined, observer);
    await attempt.settle({ inputTokens: 0, outputTokens: 50 }, 0);
    await (await meter.begin(ESTIMATE, undefined, observer)).settle(undefined, 10);
    await (await meter.begin(ESTIMATE, undefined, observer)).fail(new Error("503"));
    await expect(
      meter.begin({ ...ESTIMATE, maxOutputTokens: 1000 }, undefined, observer),
    ).rejects.toBeInstanceOf(BudgetExceededError);
    expect(heard).toEqual([
      ["reserved", 1, undefined],
      ["waited", "number"],
      ["settled", "reported", 0.5, undefined],
      ["reserved", 1, undefined],
      ["waited", "number"],
      ["settled", "estimated", 0.1, undefined],
      ["reserved", 1, undefined],
      ["waited", "number"],
      ["settled", "none", undefined, undefined],
      ["refused", "BudgetExceededError"],
    ]);
  });
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** A spend guard that writes down every call it gets; its reservations settle to `cost`. */
function recordingGuard(
  log: unknown[][],
  name: string,
  reservation: { amount?: number; currency?: string; cost?: number } = {},
  sharedBudget?: { store: object; key: string },
): SpendGuard {
  const { cost, ...held } = reservation;
  return {
    sharedBudget,
    reserve: async (runId, _estimate, options) => {
      log.push([name, "reserve", runId, options]);
      return {
        ...held,
        settle: async (usage: TokenCount, estimated: boolean) => {
          log.push([name, "settle", usage, estimated]);
          return cost;
        },
        settleAsHeld: async () => {
          log.push([name, "settleAsHeld"]);
          return cost;
        },
      };
    },
    endRun: async (runId: string, how: RunEnd) => {
      log.push([name, "endRun", runId, how]);
    },
  };
}

/** A limiter that writes down what it is asked, and hands out a recording permit. */
function recordingLimiter(log: unknown[][]): RateLimiter {
  const permit: RatePermit = {
    answered: () => void log.push(["permit", "answered"]),
    rateLimited: async (retryAfterMs) => void log.push(["permit", "rateLimited", retryAfterMs]),
  };
  return {
    acquire: async (_estimate: unknown, options: unknown) => {
      log.push(["limiter", "acquire", options]);
      return permit;
    },
  } as unknown as RateLimiter;
}

const rateLimited = () =>
  new RateLimitError({ summary: "429", hint: "wait", surface: "hosted", retryAfterMs: 5 });

describe("CallMeter with the trackers and limiter it is given", () => {
  it("tells each guard whether it holds, and gives the limiter the key ID and the signal", async () => {
    const log: unknown[][] = [];
    const store = new MemoryStore();
    const guards = [
      recordingGuard(log, "a", {}, { store, key: "k" }),
      recordingGuard(log, "b", {}, { store, key: "k" }),
    ];
    const signal = new AbortController().signal;
    const meter = new CallMeter(
      { run: { runId: "r", handlers: [] }, limiter: recordingLimiter(log), keyId: "key-1" },
      guards,
    );
    await meter.begin(ESTIMATE, signal);
    expect(log).toEqual([
      ["a", "reserve", "r", { hold: true }],
      ["b", "reserve", "r", { hold: false }],
      ["limiter", "acquire", { keyId: "key-1", signal }],
    ]);
  });

  it("without a run, neither reserves nor ends anything, and needs no handlers", async () => {
    const log: unknown[][] = [];
    const meter = new CallMeter({ limiter: recordingLimiter(log) }, [recordingGuard(log, "a")]);
    await meter.begin(ESTIMATE);
    await meter.endRun({ abandoned: true });
    expect(log).toEqual([["limiter", "acquire", { keyId: undefined, signal: undefined }]]);
    expect(() => new CallMeter({ limiter: recordingLimiter(log) })).not.toThrow();
  });

  it("releases a failed attempt at zero, not as an estimate, and pauses the limiter for a 429 only", async () => {
    const log: unknown[][] = [];
    const meter = new CallMeter(
      { run: { runId: "r", handlers: [] }, limiter: recordingLimiter(log) },
      [recordingGuard(log, "a")],
    );
    await (await meter.begin(ESTIMATE)).fail(new Error("500"));
    await (await meter.begin(ESTIMATE)).fail(rateLimited());
    expect(log.filter(([who, what]) => who === "permit" || what === "settle")).toEqual([
      ["a", "settle", { inputTokens: 0, outputTokens: 0 }, false],
      ["permit", "rateLimited", 5],
      ["a", "settle", { inputTokens: 0, outputTokens: 0 }, false],
    ]);
    // Without a limiter a 429 only releases the holds.
    const plain = new CallMeter({ run: { runId: "r", handlers: [] } }, [recordingGuard(log, "b")]);
    await expect((await plain.begin(ESTIMATE)).fail(rateLimited())).resolves.toBeUndefined();
  });

  it("keeps the request ID of an answer and tells the limiter it was answered", async () => {
    const log: unknown[][] = [];
    const meter = new CallMeter({ limiter: recordingLimiter(log) });
    const attempt = await meter.begin(ESTIMATE);
    attempt.answered("req-1");
    expect(attempt.requestId).toBe("req-1");
    expect(log.at(-1)).toEqual(["permit", "answered"]);
  });

  it("tells its observer only of amounts held and costs priced, how each settled, and the wait it measured", async () => {
    const heard: unknown[][] = [];
    const observer = {
      reserved: (amount: number) => heard.push(["reserved", amount]),
      refused: () => heard.push(["refused"]),
      waited: (ms: number) => heard.push(["waited", ms]),
      settled: (how: string, cost?: number, currency?: string) =>
        heard.push(["settled", how, cost, currency]),
    };
    const now = vi.spyOn(performance, "now");
    now.mockReturnValueOnce(100).mockReturnValueOnce(130);
    const log: unknown[][] = [];
    const meter = new CallMeter(
      { run: { runId: "r", handlers: [] }, limiter: recordingLimiter(log) },
      [
        recordingGuard(log, "unpriced"),
        recordingGuard(log, "priced", { amount: 2, currency: "credit", cost: 1.5 }),
      ],
    );
    const attempt = await meter.begin(ESTIMATE, undefined, observer);
    await attempt.settle({ inputTokens: 1, outputTokens: 1 }, 0);
    const unpriced = new CallMeter({ run: { runId: "r", handlers: [] } }, [
      recordingGuard(log, "none"),
    ]);
    await (await unpriced.begin(ESTIMATE, undefined, observer)).cancelled();
    // No reservation at all (a rate limiter alone): nothing settled, nothing told.
    const limited = new CallMeter({ limiter: recordingLimiter(log) }, []);
    await (await limited.begin(ESTIMATE, undefined, observer)).cancelled();
    await (await limited.begin(ESTIMATE, undefined, observer)).fail(new Error("503"));
    expect(heard).toEqual([
      ["reserved", 2],
      ["waited", 30],
      ["settled", "reported", 1.5, "credit"],
      ["settled", "upper-bound", undefined, undefined],
      ["waited", expect.any(Number)],
      ["waited", expect.any(Number)],
    ]);
    // A cancelled request is charged as its holds stand.
    const cancelled = new CallMeter({ run: { runId: "r", handlers: [] } }, [
      recordingGuard(log, "held", { amount: 2, currency: "credit", cost: 2 }),
    ]);
    await (await cancelled.begin(ESTIMATE, undefined, observer)).cancelled();
    expect(log.at(-1)).toEqual(["held", "settleAsHeld"]);
    expect(heard.slice(6)).toEqual([
      ["reserved", 2],
      ["settled", "upper-bound", 2, "credit"],
    ]);
  });

  it("ends a stream's run as aborted with its request ID when its signal stopped it", async () => {
    const log: unknown[][] = [];
    const meter = new CallMeter({ run: { runId: "r", handlers: [] } }, [recordingGuard(log, "a")]);
    const attempt = await meter.begin(ESTIMATE);
    attempt.answered("req-9");
    const reading = new StreamReading();
    reading.addText("x".repeat(6));
    await meter.endStream(reading, "aborted", attempt);
    expect(log.slice(1)).toEqual([
      ["a", "settleAsHeld"],
      ["a", "endRun", "r", { abandoned: true, aborted: true, requestId: "req-9" }],
    ]);
  });

  it("ends nothing for a stream read to its end or one that failed, and no request ID before an answer", async () => {
    const log: unknown[][] = [];
    const meter = new CallMeter({ run: { runId: "r", handlers: [] } }, [recordingGuard(log, "a")]);
    const reading = new StreamReading();
    reading.addText("abc");
    await meter.endStream(reading, "ended", undefined);
    await meter.endStream(reading, "failed", undefined);
    const attempt = await meter.begin(ESTIMATE);
    await meter.endStream(reading, "left", attempt);
    // A stream left before it opened has no attempt yet.
    await meter.endStream(reading, "left", undefined);
    expect(log.filter(([, what]) => what === "endRun")).toStrictEqual([
      ["a", "endRun", "r", { abandoned: true }],
      ["a", "endRun", "r", { abandoned: true }],
    ]);
  });
});

describe("streamEventsRun", () => {
  const prefers = { lc_prefer_chat_model_stream_events: true } as unknown as BaseCallbackHandler;
  const other = { lc_prefer_chat_model_stream_events: "yes" } as unknown as BaseCallbackHandler;

  it("carries the run only when a given or local handler prefers stream events", () => {
    expect(streamEventsRun([other], [other], "id")).toBeUndefined();
    expect(
      streamEventsRun([undefined as unknown as BaseCallbackHandler], [], "id"),
    ).toBeUndefined();
    expect(streamEventsRun(undefined, [other, prefers], "id")).toEqual({
      runId: "id",
      handlers: [other, prefers],
    });
    expect(streamEventsRun([prefers], undefined, "id")).toEqual({
      runId: "id",
      handlers: [prefers],
    });
  });
});

describe("token counts from the wire", () => {
  it("reads either count alone, and the cached part only beside a count", () => {
    expect(tokenCountOf({ promptTokens: 3 })).toEqual({ inputTokens: 3, outputTokens: 0 });
    expect(tokenCountOf({ completionTokens: 2 })).toEqual({ inputTokens: 0, outputTokens: 2 });
    expect(tokenCountOf({ totalTokens: 5 })).toBeUndefined();
    expect(
      tokenCountFromWire({ prompt_tokens: 3, prompt_tokens_details: { cached_tokens: 2 } }),
    ).toEqual({ inputTokens: 3, outputTokens: 0, cachedInputTokens: 2 });
    expect(tokenCountFromWire({ prompt_tokens_details: { cached_tokens: 2 } })).toBeUndefined();
    expect(tokenCountFromWire({ completion_tokens: 1 })).toEqual({
      inputTokens: 0,
      outputTokens: 1,
    });
  });
});
