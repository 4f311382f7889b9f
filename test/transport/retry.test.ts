import { afterEach, describe, expect, it, vi } from "vitest";
import {
  BadRequestError,
  EndpointNotReadyError,
  RateLimitError,
  ServiceUnavailableError,
} from "../../src/errors/errors.js";
import { DEFAULT_MAX_RETRIES, ServiceCaller } from "../../src/transport/retry.js";

const fast = { initialDelayMs: 1, maxDelayMs: 2 };
const init = { summary: "s.", hint: "h.", surface: "hosted" as const };

function failing(errors: unknown[], value = "ok") {
  let calls = 0;
  const fn = async () => {
    const error = errors[calls++];
    if (error) throw error;
    return value;
  };
  return { fn, calls: () => calls };
}

describe("ServiceCaller", () => {
  it("does not retry a non-retryable error", async () => {
    const { fn, calls } = failing([new BadRequestError(init)]);
    await expect(new ServiceCaller({ ...fast, maxRetries: 5 }).call(fn)).rejects.toBeInstanceOf(
      BadRequestError,
    );
    expect(calls()).toBe(1);
  });

  it("retries a retryable error maxRetries times, then throws it", async () => {
    const errors = Array.from({ length: 10 }, () => new ServiceUnavailableError(init));
    const { fn, calls } = failing(errors);
    await expect(new ServiceCaller({ ...fast, maxRetries: 3 }).call(fn)).rejects.toBe(errors[3]);
    expect(calls()).toBe(4);
  });

  it("lets a call override maxRetries, 0 disabling retries", async () => {
    const { fn, calls } = failing([
      new ServiceUnavailableError(init),
      new ServiceUnavailableError(init),
    ]);
    await expect(
      new ServiceCaller({ ...fast, maxRetries: 5 }).callWithOptions({ maxRetries: 0 }, fn),
    ).rejects.toThrow();
    expect(calls()).toBe(1);
  });

  it("succeeds after transient failures", async () => {
    const { fn, calls } = failing([new ServiceUnavailableError(init)]);
    await expect(new ServiceCaller({ ...fast, maxRetries: 2 }).call(fn)).resolves.toBe("ok");
    expect(calls()).toBe(2);
  });

  it("fails at once when Retry-After exceeds the cap instead of sleeping", async () => {
    const { fn, calls } = failing([new RateLimitError({ ...init, retryAfterMs: 120_000 })]);
    await expect(
      new ServiceCaller({ ...fast, maxRetries: 2, maxRetryAfterMs: 1000 }).call(fn),
    ).rejects.toBeInstanceOf(RateLimitError);
    expect(calls()).toBe(1);
  });

  it("keeps retrying one kind of error until the deadline, then reports the wait", async () => {
    const errors = Array.from({ length: 1000 }, () => new EndpointNotReadyError(init));
    const { fn, calls } = failing(errors);
    const caller = new ServiceCaller({
      ...fast,
      maxRetries: 0,
      deadline: {
        ms: 30,
        when: (e) => EndpointNotReadyError.isInstance(e),
        onDeadline: (_e, waited) => new Error(`waited ${waited} ms`),
      },
    });
    await expect(caller.call(fn)).rejects.toThrow(/waited \d+ ms/);
    expect(calls()).toBeGreaterThan(1);
  });

  it("normalises what an attempt throws before judging it", async () => {
    const { fn, calls } = failing([new Error("raw"), new Error("raw")]);
    const caller = new ServiceCaller({
      ...fast,
      maxRetries: 1,
      normalize: () => new ServiceUnavailableError(init),
    });
    await expect(caller.call(fn)).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(calls()).toBe(2);
  });

  it("tells a call's onRetry of each retry, with the error and the delay waited", async () => {
    const errors = [
      new ServiceUnavailableError(init),
      new RateLimitError({ ...init, retryAfterMs: 3 }),
    ];
    const { fn } = failing(errors);
    const retries: Array<[unknown, number]> = [];
    const onRetry = (error: unknown, delayMs: number) => void retries.push([error, delayMs]);
    await new ServiceCaller({ ...fast, maxRetries: 2 }).callWithOptions({ onRetry }, fn);
    expect(retries).toEqual([
      [errors[0], expect.any(Number)],
      [errors[1], 3],
    ]);
    expect(retries[0]![1]).toBeLessThanOrEqual(1);
  });

  it("calls a user onFailedAttempt, which can stop retries", async () => {
    const { fn, calls } = failing([
      new ServiceUnavailableError(init),
      new ServiceUnavailableError(init),
    ]);
    const stop = new Error("stop");
    const caller = new ServiceCaller({
      ...fast,
      maxRetries: 5,
      onFailedAttempt: () => {
        throw stop;
      },
    });
    await expect(caller.call(fn)).rejects.toBe(stop);
    expect(calls()).toBe(1);
  });

  it("stops waiting when the signal aborts", async () => {
    const { fn } = failing(Array.from({ length: 5 }, () => new ServiceUnavailableError(init)));
    const controller = new AbortController();
    const caller = new ServiceCaller({ initialDelayMs: 10_000, maxRetries: 3 });
    const pending = caller.callWithOptions({ signal: controller.signal }, fn);
    setTimeout(() => controller.abort(new Error("user abort")), 5);
    await expect(pending).rejects.toThrow(/abort/i);
  });
});

/** The delays a caller waits before each retry of `errors`, then the call's outcome. */
async function delaysOf(caller: ServiceCaller, errors: unknown[]) {
  const delays: number[] = [];
  const { fn } = failing(errors);
  const outcome = await caller
    .callWithOptions({ onRetry: (_e, delay) => void delays.push(delay) }, fn)
    .catch((e: unknown) => e);
  return { delays, outcome };
}

const unavailable = (n: number) =>
  Array.from({ length: n }, () => new ServiceUnavailableError(init));

describe("ServiceCaller backoff", () => {
  afterEach(() => vi.restoreAllMocks());

  it("doubles the step from initialDelayMs up to maxDelayMs, waiting between half of it and all of it", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0.5);
    const caller = new ServiceCaller({ initialDelayMs: 4, maxDelayMs: 10, maxRetries: 4 });
    expect((await delaysOf(caller, unavailable(4))).delays).toEqual([3, 6, 7.5, 7.5]);
    vi.spyOn(Math, "random").mockReturnValue(0);
    expect((await delaysOf(caller, unavailable(2))).delays).toEqual([2, 4]);
  });

  it("waits out a Retry-After longer than the backoff, up to maxRetryAfterMs itself", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0);
    const caller = new ServiceCaller({ initialDelayMs: 8, maxRetries: 3, maxRetryAfterMs: 12 });
    const { delays, outcome } = await delaysOf(caller, [
      new RateLimitError({ ...init, retryAfterMs: 1 }),
      new RateLimitError({ ...init, retryAfterMs: 12 }),
    ]);
    expect(delays).toEqual([4, 12]);
    expect(outcome).toBe("ok");
  });

  it(`retries ${DEFAULT_MAX_RETRIES} times when maxRetries is not given`, async () => {
    const caller = new ServiceCaller(fast);
    expect(caller.defaultMaxRetries).toBe(DEFAULT_MAX_RETRIES);
    expect(new ServiceCaller({ maxRetries: 4 }).defaultMaxRetries).toBe(4);
    const { fn, calls } = failing(unavailable(10));
    await expect(caller.call(fn)).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(calls()).toBe(DEFAULT_MAX_RETRIES + 1);
  });
});

describe("ServiceCaller deadline", () => {
  const deadline = (ms: number) => ({
    ms,
    when: (e: unknown) => EndpointNotReadyError.isInstance(e),
    onDeadline: () => new Error("deadline passed"),
  });

  it("ignores a deadline of 0 ms: maxRetries counts, and the last error is thrown as it is", async () => {
    const errors = Array.from({ length: 5 }, () => new EndpointNotReadyError(init));
    const { fn, calls } = failing(errors);
    const caller = new ServiceCaller({ ...fast, maxRetries: 1, deadline: deadline(0) });
    await expect(caller.call(fn)).rejects.toBe(errors[1]);
    expect(calls()).toBe(2);
  });

  it("throws an error the deadline is not about as it is, after maxRetries", async () => {
    const errors = unavailable(5);
    const { fn, calls } = failing(errors);
    const caller = new ServiceCaller({ ...fast, maxRetries: 1, deadline: deadline(10_000) });
    await expect(caller.call(fn)).rejects.toBe(errors[1]);
    expect(calls()).toBe(2);
  });

  it("never waits past the deadline for one more attempt", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0);
    const caller = new ServiceCaller({
      initialDelayMs: 10_000,
      maxRetries: 0,
      deadline: deadline(20),
    });
    const errors = Array.from({ length: 1000 }, () => new EndpointNotReadyError(init));
    const { delays, outcome } = await delaysOf(caller, errors);
    expect(delays.length).toBeGreaterThan(0);
    expect(delays.every((d) => d <= 20)).toBe(true);
    expect(outcome).toEqual(new Error("deadline passed"));
    vi.restoreAllMocks();
  });
});

describe("ServiceCaller cancellation and maxConcurrency", () => {
  /** A task that runs until `finish` is called. */
  function gate() {
    let finish = () => {};
    let started = false;
    const task = () =>
      new Promise<string>((resolve) => {
        started = true;
        finish = () => resolve("done");
      });
    return { task, started: () => started, finish: () => finish() };
  }

  it("sends nothing for a call whose signal aborted before it started", async () => {
    const { fn, calls } = failing([]);
    const controller = new AbortController();
    controller.abort(new Error("gone"));
    await expect(
      new ServiceCaller(fast).callWithOptions({ signal: controller.signal }, fn),
    ).rejects.toThrow("gone");
    expect(calls()).toBe(0);
  });

  it("ends a call aborted during its attempt with the signal's reason, not the attempt's error", async () => {
    const controller = new AbortController();
    const fn = async () => {
      controller.abort(new Error("user abort"));
      throw new ServiceUnavailableError(init);
    };
    await expect(
      new ServiceCaller(fast).callWithOptions({ signal: controller.signal }, fn),
    ).rejects.toThrow("user abort");
  });

  it("runs at most maxConcurrency calls at once, the others in order as slots free", async () => {
    const caller = new ServiceCaller({ ...fast, maxConcurrency: 1 });
    const [a, b, c] = [gate(), gate(), gate()];
    const results = [a, b, c].map((g) => caller.call(g.task));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect([a.started(), b.started(), c.started()]).toEqual([true, false, false]);
    a.finish();
    await results[0];
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect([b.started(), c.started()]).toEqual([true, false]);
    b.finish();
    await results[1];
    await new Promise((resolve) => setTimeout(resolve, 5));
    c.finish();
    expect(await Promise.all(results)).toEqual(["done", "done", "done"]);
  });

  it("lets a call waiting for a slot leave the line when its signal aborts, taking no slot", async () => {
    const caller = new ServiceCaller({ ...fast, maxConcurrency: 1 });
    const [a, b, c] = [gate(), gate(), gate()];
    const first = caller.call(a.task);
    const controller = new AbortController();
    const left = caller.callWithOptions({ signal: controller.signal }, b.task);
    const third = caller.call(c.task);
    controller.abort(new Error("left the line"));
    await expect(left).rejects.toThrow("left the line");
    a.finish();
    await first;
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect([b.started(), c.started()]).toEqual([false, true]);
    c.finish();
    await third;
    const aborted = new AbortController();
    aborted.abort(new Error("already gone"));
    const busy = gate();
    const running = caller.call(busy.task);
    await expect(caller.callWithOptions({ signal: aborted.signal }, gate().task)).rejects.toThrow(
      "already gone",
    );
    busy.finish();
    await running;
  });
});
