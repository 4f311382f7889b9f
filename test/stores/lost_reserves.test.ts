import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LostReserves } from "../../src/stores/lost_reserves.js";

/** A release as sent: when (fake clock), which budget, which IDs. */
interface Release {
  at: number;
  key: string;
  ids: string[];
}

/**
 * A `send` that records each release and answers it as `answers` says, in turn (true: Redis
 * answered; false: no answer); once they run out, every release lands.
 */
function recorder(...answers: boolean[]) {
  const sent: Release[] = [];
  const send = (key: string, ids: string[]) => {
    sent.push({ at: Date.now(), key, ids });
    const lands = answers.shift() ?? true;
    return lands ? Promise.resolve([]) : Promise.reject(new Error("no answer to releaseReserves"));
  };
  return { sent, send };
}

const LEASE = 600_000;

describe("LostReserves", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sends a release in the very tick it is asked for, then nothing more once it lands", async () => {
    const { sent, send } = recorder();
    const lost = new LostReserves(send, 100);
    lost.add("k", "a", LEASE);
    expect(sent).toEqual([{ at: 0, key: "k", ids: ["a"] }]);
    await vi.advanceTimersByTimeAsync(LEASE);
    expect(sent).toHaveLength(1);
    expect(lost.size).toBe(0);
  });

  it("retries a release that got no answer after retryMs, then 2, 4, … times as long, until one lands", async () => {
    const { sent, send } = recorder(false, false, false, false);
    const lost = new LostReserves(send, 100);
    lost.add("k", "a", LEASE);
    await vi.advanceTimersByTimeAsync(99);
    expect(sent).toHaveLength(1);
    expect(lost.size).toBe(1);
    await vi.advanceTimersByTimeAsync(LEASE);
    expect(sent.map((r) => r.at)).toEqual([0, 100, 300, 700, 1500]);
    expect(lost.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("waits at most a minute between retries, however long retryMs is", async () => {
    const { sent, send } = recorder(false, false, false);
    const lost = new LostReserves(send, 2 ** 31 - 1);
    lost.add("k", "a", LEASE);
    await vi.advanceTimersByTimeAsync(LEASE);
    expect(sent.map((r) => r.at)).toEqual([0, 60_000, 120_000, 180_000]);
  });

  it("grows the wait up to a minute and no further", async () => {
    const { sent, send } = recorder(false, false, false, false);
    const lost = new LostReserves(send, 25_000);
    lost.add("k", "a", LEASE);
    await vi.advanceTimersByTimeAsync(LEASE);
    expect(sent.map((r) => r.at)).toEqual([0, 25_000, 75_000, 135_000, 195_000]);
  });

  it("retries the releases of one budget together, and each budget apart", async () => {
    const { sent, send } = recorder(false, false, false, false);
    const lost = new LostReserves(send, 100);
    for (const [key, id] of [
      ["k1", "a"],
      ["k1", "b"],
      ["k2", "c"],
      ["k1", "d"],
    ] as const) {
      lost.add(key, id, LEASE);
    }
    await vi.advanceTimersByTimeAsync(100);
    expect(sent.slice(4)).toEqual([
      { at: 100, key: "k1", ids: ["a", "b", "d"] },
      { at: 100, key: "k2", ids: ["c"] },
    ]);
    expect(lost.size).toBe(0);
  });

  it("sends at most 100 IDs in one release, the rest in the next as soon as one lands", async () => {
    const { sent, send } = recorder(...Array<boolean>(250).fill(false), true, false);
    const lost = new LostReserves(send, 100);
    for (let i = 0; i < 250; i++) lost.add("k", `r${i}`, LEASE);
    await vi.advanceTimersByTimeAsync(100);
    // The first hundred landed; the next failed, and waits twice as long as a first retry.
    expect(sent.slice(250).map((r) => [r.at, r.ids.length])).toEqual([
      [100, 100],
      [100, 100],
    ]);
    expect(lost.size).toBe(150);
    await vi.advanceTimersByTimeAsync(199);
    expect(sent).toHaveLength(252);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent.slice(252)).toEqual([
      { at: 300, key: "k", ids: Array.from({ length: 100 }, (_, i) => `r${i + 100}`) },
      { at: 300, key: "k", ids: Array.from({ length: 50 }, (_, i) => `r${i + 200}`) },
    ]);
    expect(lost.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("gives up on a release once its reservation's lease has ended (the lease has charged the hold)", async () => {
    const { sent, send } = recorder(...Array<boolean>(10).fill(false));
    const lost = new LostReserves(send, 100);
    lost.add("k", "a", 250);
    lost.add("k", "b", 301);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(sent.map((r) => [r.at, r.ids])).toEqual([
      [0, ["a"]],
      [0, ["b"]],
      [100, ["a", "b"]],
      [300, ["b"]],
    ]);
    expect(lost.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("gives up on a release whose lease ends just as its retry comes", async () => {
    const { sent, send } = recorder(false, false);
    const lost = new LostReserves(send, 100);
    lost.add("k", "a", 100);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(sent.map((r) => r.at)).toEqual([0]);
    expect(lost.size).toBe(0);
  });

  it("keeps one timer per budget however many releases fail at once", async () => {
    const { send } = recorder(false, false, false);
    const lost = new LostReserves(send, 100);
    lost.add("k", "a", LEASE);
    lost.add("k", "b", LEASE);
    lost.add("k", "c", LEASE);
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(1);
  });

  it("never keeps the process alive for a release it retries", async () => {
    const setTimer = vi.spyOn(globalThis, "setTimeout");
    const { send } = recorder(false);
    new LostReserves(send, 100).add("k", "a", LEASE);
    await vi.advanceTimersByTimeAsync(0);
    expect(setTimer).toHaveBeenCalledTimes(1);
    const timer = setTimer.mock.results[0]!.value as { hasRef(): boolean };
    expect(timer.hasRef()).toBe(false);
  });

  it("on close, sends every release still pending once more, 100 IDs at a time, then none", async () => {
    const { sent, send } = recorder(...Array<boolean>(150).fill(false), false);
    const lost = new LostReserves(send, 100);
    for (let i = 0; i < 150; i++) lost.add("k", `r${i}`, LEASE);
    lost.add("k2", "x", LEASE);
    await vi.advanceTimersByTimeAsync(0);
    await lost.close();
    expect(sent.slice(151).map((r) => [r.key, r.ids.length])).toEqual([
      ["k", 100],
      ["k2", 1],
      ["k", 50],
    ]);
    expect(lost.size).toBe(0);
    lost.add("k", "late", LEASE);
    await vi.advanceTimersByTimeAsync(LEASE);
    expect(sent).toHaveLength(154);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("on close, sends nothing for a budget whose every release has outlived its lease", async () => {
    const { sent, send } = recorder(false);
    const lost = new LostReserves(send, 100_000);
    lost.add("k", "short", 50);
    await vi.advanceTimersByTimeAsync(60);
    await lost.close();
    expect(sent).toHaveLength(1);
  });

  it("takes in its stride a first attempt that lands after close", async () => {
    const unhandled = vi.fn();
    process.on("unhandledRejection", unhandled);
    try {
      const answers: (() => void)[] = [];
      const lost = new LostReserves(
        () => new Promise((resolve) => answers.push(() => resolve([]))),
        100,
      );
      lost.add("k", "a", LEASE);
      const closing = lost.close();
      answers[1]!();
      await closing;
      answers[0]!();
      vi.useRealTimers();
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).not.toHaveBeenCalled();
      expect(lost.size).toBe(0);
    } finally {
      process.off("unhandledRejection", unhandled);
    }
  });

  it("on close, leaves out the releases whose lease has ended", async () => {
    const { sent, send } = recorder(false, false);
    const lost = new LostReserves(send, 100_000);
    lost.add("k", "short", 50);
    lost.add("k", "long", LEASE);
    await vi.advanceTimersByTimeAsync(60);
    await lost.close();
    expect(sent.slice(2)).toEqual([{ at: 60, key: "k", ids: ["long"] }]);
  });

  it("stops retrying once closed, even when a retry under way fails after", async () => {
    let answer: (lands: boolean) => void = () => {};
    const sent: string[][] = [];
    const lost = new LostReserves((_key, ids) => {
      sent.push(ids);
      if (sent.length === 1) return Promise.reject(new Error("no answer"));
      if (sent.length > 2) return Promise.resolve([]);
      return new Promise((resolve, reject) => {
        answer = (lands) => (lands ? resolve([]) : reject(new Error("no answer")));
      });
    }, 100);
    lost.add("k", "a", LEASE);
    await vi.advanceTimersByTimeAsync(100);
    expect(sent).toHaveLength(2);
    await lost.close();
    expect(sent).toHaveLength(3);
    answer(false);
    await vi.advanceTimersByTimeAsync(LEASE);
    expect(sent).toHaveLength(3);
    expect(vi.getTimerCount()).toBe(0);
  });
});
