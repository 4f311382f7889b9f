/**
 * The arithmetic of one rate limit, on the plain state both stores run it on (the in-memory
 * store directly, the Redis store's Lua script line for line): the cases the store contract in
 * test/helpers/store_cases.ts leaves out.
 */
import { describe, expect, it } from "vitest";
import {
  MAX_HOLES,
  newPacingState,
  type PacingState,
  penalize,
  releaseSlot,
  takeSlot,
} from "../../src/stores/pacing.js";
import type { RateGrant, RatePenalty, RateTake } from "../../src/stores/usage_store.js";

/** Requests per millisecond for `n` requests a second. */
const perSecond = (n: number) => n / 1000;

/** No configured rate: requests are unlimited until a 429 teaches one. */
const LEARN: Omit<RateTake, "now"> = {
  burst: 1,
  tokens: 0,
  recoveryMs: 10_000,
  learn: true,
  accepted: 0,
};

const TEN_A_SECOND: Omit<RateTake, "now"> = { ...LEARN, requestRate: perSecond(10) };

const CUT: Omit<RatePenalty, "now" | "epoch"> = {
  pauseMs: 0,
  decrease: 0.5,
  recoveryMs: 10_000,
  accepted: 0,
};

/** The waits of `count` takes made at `now`. */
function waits(state: PacingState, take: RateTake, count: number): number[] {
  return Array.from({ length: count }, () => takeSlot(state, take).waitMs);
}

/** Gives a grant back, at the state's current epoch. */
function giveBack(state: PacingState, grant: Omit<RateGrant, "epoch">): void {
  releaseSlot(state, { epoch: state.epoch, ...grant });
}

describe("pacing: the rate a 429 cuts to is what went out over about the last second", () => {
  it("weighs the previous one-second window by how much of it the last second still covers", () => {
    const state = newPacingState();
    waits(state, { ...LEARN, now: 1000 }, 4);
    waits(state, { ...LEARN, now: 2000 }, 2);
    // At 2,250 the last second covers 3/4 of the window before: 4 × 0.75 + 2 = 5 a second,
    // halved to 2.5 a second, a slot every 400 ms.
    penalize(state, { ...CUT, now: 2250, epoch: state.epoch });
    expect(waits(state, { ...LEARN, now: 2250 }, 3)).toEqual([0, 400, 800]);
  });

  it("forgets a window that is not the one just before (an idle second in between)", () => {
    const state = newPacingState();
    waits(state, { ...LEARN, now: 1000 }, 4);
    waits(state, { ...LEARN, now: 3000 }, 2);
    // Only the 2 slots of the current window count: 2 a second, halved to 1.
    penalize(state, { ...CUT, now: 3250, epoch: state.epoch });
    expect(waits(state, { ...LEARN, now: 3250 }, 2)).toEqual([0, 1000]);
  });

  it("weighs the answers reported (accepted) the same way, before the slots", () => {
    const state = newPacingState();
    takeSlot(state, { ...LEARN, now: 1000, accepted: 4 });
    takeSlot(state, { ...LEARN, now: 2000, accepted: 2 });
    // 4 × 0.75 + 2 = 5 answers a second (the 2 slots alone would say 1.75), halved to 2.5.
    penalize(state, { ...CUT, now: 2250, epoch: state.epoch });
    expect(waits(state, { ...LEARN, now: 2250 }, 2)).toEqual([0, 400]);
  });

  it("halves the configured rate when nothing went out to observe", () => {
    const state = newPacingState();
    penalize(state, { ...CUT, now: 5000, epoch: 0, requestRate: perSecond(10) });
    expect(waits(state, { ...TEN_A_SECOND, now: 5000 }, 2)).toEqual([0, 200]);
  });

  it("halves a learned rate again on a later 429 with nothing observed since", () => {
    const state = newPacingState();
    const take = { ...LEARN, recoveryMs: 0 };
    waits(state, { ...take, now: 1000 }, 4);
    waits(state, { ...take, now: 2000 }, 2);
    penalize(state, { ...CUT, recoveryMs: 0, now: 2250, epoch: state.epoch }); // 2.5 a second
    // A recoveryMs of 0 never recovers: at 10,000 the rate is still 2.5 a second, halved to 1.25.
    penalize(state, { ...CUT, recoveryMs: 0, now: 10_000, epoch: state.epoch });
    expect(waits(state, { ...take, now: 10_000 }, 2)).toEqual([0, 800]);
  });
});

describe("pacing: recovery after a cut", () => {
  it("climbs back from when the cut took effect, not from time 0", () => {
    const state = newPacingState();
    penalize(state, { ...CUT, now: 5000, epoch: 0, requestRate: perSecond(10) }); // 5 a second
    // Half of recoveryMs after the cut: 5 + 2.5 = 7.5 a second.
    const [first, second] = waits(state, { ...TEN_A_SECOND, now: 10_000 }, 2);
    expect(first).toBe(0);
    expect(second).toBeCloseTo(1000 / 7.5, 6);
  });

  it("cuts the token rate with the request rate", () => {
    const state = newPacingState();
    penalize(state, { ...CUT, now: 0, epoch: 0, requestRate: perSecond(10) });
    // Halved: 0.5 tokens/ms, so 300 tokens take 600 ms (the 5 a second of requests, 200 ms).
    const take = { ...TEN_A_SECOND, tokenRate: 1, tokens: 300, now: 0 };
    expect(waits(state, take, 2)).toEqual([0, 600]);
  });
});

describe("pacing: the two buckets", () => {
  it("holds no token time when no token rate is set, however many tokens a request has", () => {
    const state = newPacingState();
    const grants = [0, 1].map(() => takeSlot(state, { ...TEN_A_SECOND, tokens: 500, now: 1000 }));
    expect(grants.map((g) => g.waitMs)).toEqual([0, 100]);
    expect(grants.every((g) => g.tokenSpan === undefined)).toBe(true);
  });

  it("holds no request time when only tokens are limited, and none for a request of 0 tokens", () => {
    const state = newPacingState();
    const take = { ...LEARN, learn: false, tokenRate: 0.5, tokens: 100, now: 1000 };
    const first = takeSlot(state, take);
    expect(first).toEqual({ waitMs: 0, tokenSpan: [0, 1200] });
    // An idle bucket starts at now: 100 tokens at 0.5 a ms end 200 ms after 1,000.
    expect(takeSlot(state, { ...take, tokens: 0 })).toEqual({ waitMs: 200 });
    expect(takeSlot(state, take).waitMs).toBe(200);
  });

  it("gives back a token-only slot", () => {
    const state = newPacingState();
    const take = { ...LEARN, learn: false, tokenRate: 1, tokens: 100, now: 0 };
    takeSlot(state, take);
    giveBack(state, takeSlot(state, take));
    expect(takeSlot(state, take).waitMs).toBe(100);
  });
});

describe("pacing: slots given back", () => {
  it("gives back the last slot alone while an earlier hole is still held apart from it", () => {
    const state = newPacingState();
    const grants = [0, 1, 2, 3].map(() => takeSlot(state, { ...TEN_A_SECOND, now: 0 }));
    giveBack(state, grants[1]!);
    giveBack(state, grants[3]!);
    // Slot 2 is still held: the bucket goes back to 300, not through the hole to 100.
    expect(takeSlot(state, { ...TEN_A_SECOND, now: 0 }).waitMs).toBe(300);
  });

  it("chains back through holes given back in order of time, in each bucket", () => {
    const state = newPacingState();
    const take = { ...TEN_A_SECOND, tokenRate: 1, tokens: 50, now: 0 };
    const grants = [0, 1, 2, 3].map(() => takeSlot(state, take));
    giveBack(state, grants[1]!);
    giveBack(state, grants[2]!);
    giveBack(state, grants[3]!);
    expect(takeSlot(state, take).waitMs).toBe(100); // right after slot 0
  });

  it("keeps holes that have not ended yet across a take", () => {
    const state = newPacingState();
    // Slots of 100 ms of requests and 150 ms of tokens: the token bucket ends last.
    const take = { ...TEN_A_SECOND, tokenRate: 1, tokens: 150 };
    const grants = [0, 1, 2].map(() => takeSlot(state, { ...take, now: 0 }));
    giveBack(state, grants[1]!); // holes from 100 to 200 (requests) and 150 to 300 (tokens)
    const later = takeSlot(state, { ...take, now: 50 });
    expect(later.waitMs).toBe(400);
    giveBack(state, later);
    giveBack(state, grants[2]!);
    // Each bucket goes back through its hole to the end of slot 0: 100 and 150.
    expect(takeSlot(state, { ...take, now: 50 }).waitMs).toBe(100);
  });

  it(`keeps at most ${MAX_HOLES} holes, forgetting the earliest`, () => {
    const state = newPacingState();
    const grants = Array.from({ length: MAX_HOLES + 3 }, () =>
      takeSlot(state, { ...TEN_A_SECOND, now: 0 }),
    );
    // Every slot but the first and the last, then the last: one hole too many.
    for (const grant of grants.slice(1, -1)) giveBack(state, grant);
    giveBack(state, grants.at(-1)!);
    // The hole of slot 1 was forgotten: the bucket comes back to the start of slot 2.
    expect(takeSlot(state, { ...TEN_A_SECOND, now: 0 }).waitMs).toBe(200);
  });
});
