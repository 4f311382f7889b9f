import { getEventListeners } from "node:events";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ChatInferenceService } from "../../src/apis/chat/chat_models.js";
import { createEmulator, DEFAULT_MODEL } from "../../src/emulator/index.js";
import type { RequestEstimate } from "../../src/spend/estimate.js";
import { apiKeyId, RateLimiter } from "../../src/spend/rate_limiter.js";
import { MemoryStore } from "../../src/stores/memory_store.js";

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

const estimate = (model = "m", inputTokens = 10, maxOutputTokens = 100): RequestEstimate => ({
  model,
  inputTokens,
  maxOutputTokens,
  choices: 1,
});

/** The most events in any half-open window of `windowMs` (times sorted or not). */
function busiestWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while (sorted[end]! - sorted[start]! >= windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

describe("RateLimiter pacing (controllable clock)", () => {
  it("keeps the request rate under requestsPerMinute in every window, queueing instead of failing", async () => {
    const limiter = new RateLimiter({ requestsPerMinute: 600 }); // 10 a second
    const granted: number[] = [];
    const all = Promise.all(
      Array.from({ length: 150 }, () =>
        limiter.acquire(estimate()).then(() => granted.push(Date.now())),
      ),
    );
    await vi.runAllTimersAsync();
    await all;
    expect(granted).toHaveLength(150);
    expect(busiestWindow(granted, 1000)).toBe(10);
    expect(busiestWindow(granted, 60_000)).toBe(150); // 15 s of traffic: all inside one minute
    expect(Math.max(...granted) - Math.min(...granted)).toBe(14_900);
  });

  it("keeps tokens per minute: each request waits until the tokens before it are paid for", async () => {
    const limiter = new RateLimiter({ tokensPerMinute: 60_000 }); // 1 token a millisecond
    const granted: number[] = [];
    const all = Promise.all(
      [100, 400, 50].map((out) =>
        limiter.acquire(estimate("m", 0, out)).then(() => granted.push(Date.now() - 1_000_000)),
      ),
    );
    await vi.runAllTimersAsync();
    await all;
    expect(granted).toEqual([0, 100, 500]);
  });

  it("makes a request wait its whole turn even when the wait outlasts one timer (~24.8 days)", async () => {
    const limiter = new RateLimiter({ tokensPerMinute: 1 });
    const big = estimate("m", 100_000, 0); // 100,000 minutes of tokens: 6e9 ms
    await limiter.acquire(big);
    let granted = false;
    const next = limiter.acquire(big).then(() => {
      granted = true;
    });
    await vi.advanceTimersByTimeAsync(2 ** 31);
    expect(granted).toBe(false);
    await vi.advanceTimersByTimeAsync(6e9);
    await next;
    expect(granted).toBe(true);
  });

  it("keeps one limit per model by default and one per API key with per: 'key'", async () => {
    const perModel = new RateLimiter({ requestsPerMinute: 60 });
    const perKey = new RateLimiter({ requestsPerMinute: 60, per: "key" });
    const times = async (limiter: RateLimiter) => {
      const granted: number[] = [];
      const all = Promise.all(
        ["a", "b", "a", "b"].map((model) =>
          limiter
            .acquire(estimate(model), { keyId: "k1" })
            .then(() => granted.push(Date.now() - 1_000_000)),
        ),
      );
      await vi.runAllTimersAsync();
      await all;
      const first = Math.min(...granted);
      return granted.map((t) => t - first).sort((x, y) => x - y);
    };
    expect(await times(perModel)).toEqual([0, 0, 1000, 1000]);
    expect(await times(perKey)).toEqual([0, 1000, 2000, 3000]);
  });

  it("gives up its turn when the call's signal aborts, sending nothing", async () => {
    const limiter = new RateLimiter({ requestsPerMinute: 60 });
    await limiter.acquire(estimate());
    const controller = new AbortController();
    const waiting = limiter.acquire(estimate(), { signal: controller.signal });
    controller.abort(new Error("stop"));
    await expect(waiting).rejects.toThrow("stop");
  });

  it("frees the slots of calls aborted while they wait: after 9 are cancelled, the next goes in turn", async () => {
    const limiter = new RateLimiter({ requestsPerMinute: 60 }); // one a second
    await limiter.acquire(estimate());
    const controller = new AbortController();
    const queued = Array.from({ length: 9 }, () =>
      limiter.acquire(estimate(), { signal: controller.signal }).catch((e: unknown) => e),
    );
    await vi.advanceTimersByTimeAsync(200);
    controller.abort(new Error("cancelled"));
    expect(await Promise.all(queued)).toMatchObject(Array(9).fill({ message: "cancelled" }));
    const started = Date.now();
    const next = limiter.acquire(estimate());
    await vi.runAllTimersAsync();
    await next;
    // The first call's second runs out 800 ms later: the cancelled ones hold nothing.
    expect(Date.now() - started).toBe(800);
  });

  it("adds one abort listener per waiting call to a signal the calls share (Node warns past ten)", async () => {
    const limiter = new RateLimiter({ requestsPerMinute: 60 });
    await limiter.acquire(estimate());
    const controller = new AbortController();
    const queued = Array.from({ length: 10 }, () =>
      limiter.acquire(estimate(), { signal: controller.signal }).catch((e: unknown) => e),
    );
    await vi.advanceTimersByTimeAsync(10);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(10);
    controller.abort(new Error("cancelled"));
    expect(await Promise.all(queued)).toMatchObject(Array(10).fill({ message: "cancelled" }));
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it.each([
    ["no estimate", undefined, undefined, "estimate"],
    ["a model that is not a string", { model: 5 }, undefined, "estimate.model"],
    ["a signal that is not one", {}, { signal: "x" }, "options.signal"],
    ["a keyId that is not a string", {}, { keyId: 7 }, "options.keyId"],
  ])(
    "refuses %s with a ConfigurationError naming it, taking no turn",
    async (_n, fields, options, option) => {
      const limiter = new RateLimiter({ requestsPerMinute: 60 });
      const given = fields === undefined ? undefined : { ...estimate(), ...fields };
      await expect(limiter.acquire(given as never, options as never)).rejects.toMatchObject({
        name: "ConfigurationError",
        option,
      });
      // The turn is still free: the next call goes at once.
      expect(await turns(limiter, 1)).toEqual([0]);
    },
  );

  it("takes a null signal as none, as a JavaScript caller may pass it", async () => {
    const limiter = new RateLimiter({ requestsPerMinute: 60 });
    const options = { signal: null } as unknown as { signal?: AbortSignal };
    await limiter.acquire(estimate(), options);
    const second = limiter.acquire(estimate(), options);
    await vi.advanceTimersByTimeAsync(1000);
    await expect(second).resolves.toBeDefined();
  });

  it("gives its slot back when the signal aborts while the store is granting it", async () => {
    const store = new MemoryStore();
    const take = store.takeRate.bind(store);
    const controller = new AbortController();
    store.takeRate = async (key, request) => {
      const grant = await take(key, request);
      if (grant.waitMs > 0) controller.abort(); // before the limiter starts to wait
      return grant;
    };
    const limiter = new RateLimiter({ requestsPerMinute: 60, store });
    await limiter.acquire(estimate());
    const cancelled = limiter.acquire(estimate(), { signal: controller.signal });
    await expect(cancelled).rejects.toMatchObject({ name: "AbortError" });
    store.takeRate = take;
    // The cancelled call's turn at 1000 is free again.
    expect(await turns(limiter, 1)).toEqual([1000]);
  });

  it("keeps the spacing when a call in the middle of the queue is cancelled", async () => {
    const limiter = new RateLimiter({ requestsPerMinute: 60 });
    await limiter.acquire(estimate());
    const controller = new AbortController();
    const middle = limiter.acquire(estimate(), { signal: controller.signal }).catch(() => "gone");
    const granted: number[] = [];
    const last = limiter.acquire(estimate()).then(() => granted.push(Date.now() - 1_000_000));
    controller.abort();
    expect(await middle).toBe("gone");
    const next = limiter.acquire(estimate()).then(() => granted.push(Date.now() - 1_000_000));
    await vi.runAllTimersAsync();
    await Promise.all([last, next]);
    // The freed slot at 1 s is not handed out twice later: one a second still holds.
    expect(granted).toEqual([2000, 3000]);
  });

  it("pauses the whole limit for Retry-After and slows down after a 429, then recovers", async () => {
    const limiter = new RateLimiter({ requestsPerMinute: 600, decrease: 0.5, recoveryMs: 10_000 });
    const both = Promise.all([limiter.acquire(estimate()), limiter.acquire(estimate())]);
    await vi.advanceTimersByTimeAsync(100); // the second slot is 100 ms after the first
    const permits = await both;
    await permits[0]!.rateLimited(2000); // at t = 100
    await permits[1]!.rateLimited(2000); // same round: pauses, no second cut
    const granted: number[] = [];
    const all = Promise.all(
      Array.from({ length: 4 }, () =>
        limiter.acquire(estimate()).then(() => granted.push(Date.now() - 1_000_000)),
      ),
    );
    await vi.runAllTimersAsync();
    await all;
    // Paused until 2,100; then half of the 2 a second that went out before the 429.
    expect(granted).toEqual([2100, 3100, 4100, 5100]);
  });
});

describe("RateLimiter on the wire", () => {
  /** A fetch that answers 429 beyond `perSecond` requests a second (a token bucket of one second). */
  function rateLimitedService(perSecond: number) {
    const emulator = createEmulator();
    let tokens = perSecond;
    let last = Date.now();
    const sent: number[] = [];
    const rejected: number[] = [];
    const fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const now = Date.now();
      sent.push(now);
      tokens = Math.min(perSecond, tokens + ((now - last) * perSecond) / 1000);
      last = now;
      if (tokens < 1) {
        rejected.push(now);
        return new Response(
          JSON.stringify({
            error: { code: "rate_limited", message: "slow down", type: "new_api_error" },
          }),
          { status: 429, headers: { "content-type": "application/json", "retry-after": "1" } },
        );
      }
      tokens -= 1;
      return emulator.fetch(input, init);
    };
    return { emulator, fetch, sent, rejected };
  }

  function model(service: ReturnType<typeof rateLimitedService>, rateLimiter?: RateLimiter) {
    return new ChatInferenceService(DEFAULT_MODEL, {
      apiKey: service.emulator.apiKey,
      baseURL: service.emulator.baseURL,
      fetch: service.fetch,
      maxRetries: 6,
      rateLimiter,
    });
  }

  it("sends a 64-wide batch at the configured rate: no 429, no request early", async () => {
    const service = rateLimitedService(5);
    const limiter = new RateLimiter({ requestsPerMinute: 300 });
    const done = model(service, limiter).batch(
      Array.from({ length: 40 }, (_, i) => `q${i}`),
      { maxConcurrency: 64 },
    );
    await vi.runAllTimersAsync();
    expect(await done).toHaveLength(40);
    expect(service.sent).toHaveLength(40);
    expect(service.rejected).toHaveLength(0);
    expect(busiestWindow(service.sent, 1000)).toBe(5);
  });

  it("learns an unknown limit from 429s: far fewer rejected requests than without a limiter", async () => {
    const runBatch = async (rateLimiter?: RateLimiter) => {
      const service = rateLimitedService(10);
      const done = model(service, rateLimiter).batch(
        Array.from({ length: 200 }, (_, i) => `q${i}`),
        { maxConcurrency: 64 },
        { returnExceptions: true },
      );
      await vi.runAllTimersAsync();
      const results = await done;
      return { service, failed: results.filter((r) => r instanceof Error).length };
    };
    const adaptive = await runBatch(new RateLimiter());
    const plain = await runBatch();
    expect(adaptive.failed).toBe(0);
    expect(adaptive.service.rejected.length).toBeLessThan(plain.service.rejected.length / 4);
    // Nothing is sent while a 429's Retry-After runs, but requests already on their way.
    for (const at of adaptive.service.rejected) {
      expect(adaptive.service.sent.filter((t) => t > at && t < at + 1000)).toEqual([]);
    }
  });
});

/** The times (ms after the start) at which `count` calls of `acquire` get their turn. */
async function turns(limiter: RateLimiter, count: number, est = estimate()): Promise<number[]> {
  const granted: number[] = [];
  const all = Promise.all(
    Array.from({ length: count }, () =>
      limiter.acquire(est).then(() => granted.push(Date.now() - 1_000_000)),
    ),
  );
  await vi.runAllTimersAsync();
  await all;
  return granted;
}

/** A MemoryStore that counts the calls made to it. */
function countingStore() {
  const store = new MemoryStore();
  const calls = { takeRate: 0, penalizeRate: 0 };
  const take = store.takeRate.bind(store);
  const penalize = store.penalizeRate.bind(store);
  store.takeRate = (key, t) => {
    calls.takeRate++;
    return take(key, t);
  };
  store.penalizeRate = (key, p) => {
    calls.penalizeRate++;
    return penalize(key, p);
  };
  return { store, calls };
}

describe("RateLimiter adapting to 429s", () => {
  it("learns from the answers reported with `answered`, not from the slots handed out", async () => {
    const learnedSpacing = async (answers: number) => {
      vi.setSystemTime(1_000_000);
      const limiter = new RateLimiter({ decrease: 0.5 });
      const permits = await Promise.all(
        Array.from({ length: 10 }, () => limiter.acquire(estimate())),
      );
      for (const permit of permits.slice(0, answers)) permit.answered();
      await permits[9]!.rateLimited(0);
      return turns(limiter, 3);
    };
    // 4 answered in the last second: half of 4 a second; none answered: half of the 10 sent.
    expect(await learnedSpacing(4)).toEqual([0, 500, 1000]);
    expect(await learnedSpacing(0)).toEqual([0, 200, 400]);
  });

  it("reports each answer once, with the next take or the next 429, whichever comes first", async () => {
    const limiter = new RateLimiter({ decrease: 0.5 });
    const permits = await Promise.all(
      Array.from({ length: 10 }, () => limiter.acquire(estimate())),
    );
    for (const permit of permits.slice(0, 4)) permit.answered();
    // This take carries the 4 answers; the 429 after it has none left to add.
    const late = await limiter.acquire(estimate());
    await late.rateLimited(0);
    expect(await turns(limiter, 3)).toEqual([0, 500, 1000]);
  });

  it("pauses pauseMs after a 429 without Retry-After, and at most maxPauseMs after one with it", async () => {
    const pausedFor = async (options: object, retryAfterMs?: number) => {
      vi.setSystemTime(1_000_000);
      const limiter = new RateLimiter({ requestsPerMinute: 6000, decrease: 0.9, ...options });
      const permit = await limiter.acquire(estimate());
      await permit.rateLimited(retryAfterMs);
      return (await turns(limiter, 1))[0];
    };
    expect(await pausedFor({})).toBe(1000);
    expect(await pausedFor({ pauseMs: 250 })).toBe(250);
    expect(await pausedFor({}, 4000)).toBe(4000);
    expect(await pausedFor({ maxPauseMs: 3000 }, 4000)).toBe(3000);
    expect(await pausedFor({ pauseMs: 250 }, 0)).toBe(0);
  });

  it("with adaptive: false, neither pauses nor slows down after a 429", async () => {
    const limiter = new RateLimiter({ requestsPerMinute: 600, adaptive: false });
    const permit = await limiter.acquire(estimate());
    permit.answered();
    await permit.rateLimited(5000);
    expect(await turns(limiter, 3)).toEqual([100, 200, 300]);
  });

  it("with adaptive: false and no limit, hands out every turn at once and never asks its store", async () => {
    const { store, calls } = countingStore();
    const limiter = new RateLimiter({ adaptive: false, store });
    expect(await turns(limiter, 50)).toEqual(Array(50).fill(0));
    const permit = await limiter.acquire(estimate());
    await permit.rateLimited(5000);
    expect(calls).toEqual({ takeRate: 0, penalizeRate: 0 });
    expect(await turns(limiter, 2)).toEqual([0, 0]);
  });

  it("without a limit but adaptive, sends at once until the first 429, through its store", async () => {
    const { store, calls } = countingStore();
    const limiter = new RateLimiter({ store });
    expect(await turns(limiter, 50)).toEqual(Array(50).fill(0));
    expect(calls.takeRate).toBe(50);
  });

  it("with adaptive: false, keeps the configured spacing after a 429, learning nothing", async () => {
    const { store } = countingStore();
    const limiter = new RateLimiter({ tokensPerMinute: 60_000, adaptive: false, store });
    const permit = await limiter.acquire(estimate("m", 0, 100));
    await permit.rateLimited(5000);
    // Tokens at 1 a millisecond: the 100 tokens before it, then its own.
    expect(await turns(limiter, 2, estimate("m", 0, 100))).toEqual([100, 200]);
  });
});

describe("RateLimiter limits", () => {
  it("shares one limit between limiters of one store and name, and none between names", async () => {
    const store = new MemoryStore();
    const a = new RateLimiter({ requestsPerMinute: 60, store });
    const b = new RateLimiter({ requestsPerMinute: 60, store });
    const other = new RateLimiter({ requestsPerMinute: 60, store, name: "other" });
    await a.acquire(estimate());
    expect(await turns(b, 1)).toEqual([1000]);
    vi.setSystemTime(1_000_000);
    expect(await turns(other, 1)).toEqual([0]);
  });

  it("with per: 'key', puts calls without a key ID under one default key", async () => {
    const limiter = new RateLimiter({ requestsPerMinute: 60, per: "key" });
    await limiter.acquire(estimate("a"));
    expect(await turns(limiter, 1, estimate("b"))).toEqual([1000]);
    vi.setSystemTime(1_000_000);
    let at = -1;
    const other = limiter.acquire(estimate("a"), { keyId: "k2" }).then(() => {
      at = Date.now() - 1_000_000;
    });
    await vi.runAllTimersAsync();
    await other;
    expect(at).toBe(0);
  });

  it("counts the prompt and max_tokens of every choice, or defaultReplyTokens without max_tokens", async () => {
    const limiter = new RateLimiter({ tokensPerMinute: 60_000, defaultReplyTokens: 300 });
    const noMax = { model: "m", inputTokens: 100, choices: 2 };
    const capped = { model: "m", inputTokens: 10, maxOutputTokens: 40, choices: 3 };
    const granted: number[] = [];
    const all = Promise.all(
      [noMax, capped, noMax].map((e) =>
        limiter.acquire(e).then(() => granted.push(Date.now() - 1_000_000)),
      ),
    );
    await vi.runAllTimersAsync();
    await all;
    // 100 + 2 × 300 = 700 tokens, then 10 + 3 × 40 = 130: at 1 token a millisecond.
    expect(granted).toEqual([0, 700, 830]);
  });
});

describe("apiKeyId", () => {
  it("gives cyrb53's published values, so processes and versions sharing a store agree", () => {
    // cyrb53("a") = 7929297801672961 and cyrb53("b") = 8684336938537663, in base 36.
    expect(apiKeyId("a")).toBe((7929297801672961).toString(36));
    expect(apiKeyId("b")).toBe((8684336938537663).toString(36));
  });

  it("tells keys apart and never shows the key", () => {
    const ids = ["sk-emulator-demo", "sk-emulator-noperm", "sk-emulator-expired", "", "你好"].map(
      apiKeyId,
    );
    expect(new Set(ids).size).toBe(ids.length);
    expect(apiKeyId("sk-emulator-demo")).toBe("1ksf0ntqvku");
    for (const id of ids) expect(id).toMatch(/^[0-9a-z]{1,11}$/);
    expect(apiKeyId("sk-emulator-demo")).toBe(apiKeyId("sk-emulator-demo"));
  });
});

describe("RateLimiter keys and cancellations", () => {
  it("keeps one limit per key ID, under the store key `<name>:key:<ID>`, `default` without one", async () => {
    const store = new MemoryStore();
    const limiter = new RateLimiter({ requestsPerMinute: 60, per: "key", store });
    await limiter.acquire(estimate(), { keyId: "k1" });
    let at = -1;
    const other = limiter.acquire(estimate(), { keyId: "k2" }).then(() => {
      at = Date.now() - 1_000_000;
    });
    await vi.runAllTimersAsync();
    await other;
    expect(at).toBe(0);
    await limiter.acquire(estimate());
    const take = { now: Date.now(), requestRate: 1 / 1000, burst: 1, tokens: 0, recoveryMs: 1 };
    const next = await store.takeRate("default:key:default", {
      ...take,
      learn: false,
      accepted: 0,
    });
    expect(next.waitMs).toBe(1000);
  });

  it("keeps a slot it handed out when the call's signal aborts afterwards", async () => {
    const limiter = new RateLimiter({ requestsPerMinute: 60 });
    const controller = new AbortController();
    await limiter.acquire(estimate());
    const second = limiter.acquire(estimate(), { signal: controller.signal });
    await vi.advanceTimersByTimeAsync(1000);
    await second;
    controller.abort(); // after its turn came: the request went out in that slot
    expect(await turns(limiter, 1)).toEqual([2000]);
  });

  it("gives up a turn on a store that cannot take slots back, whose slot stays taken", async () => {
    const inner = new MemoryStore();
    const store = {
      reserve: inner.reserve.bind(inner),
      settle: inner.settle.bind(inner),
      charge: inner.charge.bind(inner),
      budgetState: inner.budgetState.bind(inner),
      resetBudget: inner.resetBudget.bind(inner),
      takeRate: inner.takeRate.bind(inner),
      penalizeRate: inner.penalizeRate.bind(inner),
    };
    const limiter = new RateLimiter({ requestsPerMinute: 60, store });
    const controller = new AbortController();
    await limiter.acquire(estimate());
    const cancelled = limiter.acquire(estimate(), { signal: controller.signal });
    const failed = expect(cancelled).rejects.toMatchObject({ name: "AbortError" });
    await vi.advanceTimersByTimeAsync(10); // it waits for its turn at 1000
    controller.abort();
    await failed;
    // Its slot stays taken: the next turn is the one after it.
    expect(await turns(limiter, 1)).toEqual([2000]);
  });
});
