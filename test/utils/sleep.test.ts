import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MAX_TIMER_MS, sleep } from "../../src/utils/sleep.js";

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("sleep", () => {
  it("waits out a delay longer than one timer holds instead of firing at once", async () => {
    let done = false;
    void sleep(3e9).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(3e9 - MAX_TIMER_MS - 1);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
  });

  it("rejects with the signal's reason when it aborts, in any leg of a long wait", async () => {
    const controller = new AbortController();
    const waiting = sleep(3e9, controller.signal).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS + 10);
    controller.abort(new Error("stop"));
    expect(await waiting).toMatchObject({ message: "stop" });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("leaves no timer behind when the signal cannot take a listener", async () => {
    const notASignal = { aborted: false } as unknown as AbortSignal;
    await expect(sleep(1000, notASignal)).rejects.toThrow(TypeError);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("runs `aborted` in the abort event, and at once for a signal aborted before", async () => {
    const seen: string[] = [];
    const controller = new AbortController();
    const waiting = sleep(1000, controller.signal, () => seen.push("aborted")).catch(() =>
      seen.push("rejected"),
    );
    controller.abort();
    expect(seen).toEqual(["aborted"]); // in the abort's own tick, before the rejection
    await waiting;
    expect(seen).toEqual(["aborted", "rejected"]);
    await sleep(1000, controller.signal, () => seen.push("again")).catch(() => undefined);
    expect(seen).toEqual(["aborted", "rejected", "again"]);
  });
});
