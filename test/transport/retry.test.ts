import { describe, expect, it } from "vitest";
import {
  BadRequestError,
  EndpointNotReadyError,
  RateLimitError,
  ServiceUnavailableError,
} from "../../src/errors/errors.js";
import { ServiceCaller } from "../../src/transport/retry.js";

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
