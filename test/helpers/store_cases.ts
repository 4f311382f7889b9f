/**
 * @module The behaviour every `UsageStore` must share, run against the in-memory store and
 * against a real Redis (the Lua scripts mirror the TypeScript, and these cases keep them equal).
 */
import { describe, expect, it } from "vitest";
import type { RateGrant, RateTake, UsageStore } from "../../src/stores/usage_store.js";

/** Requests per millisecond for `perSecond` requests a second. */
const perSecond = (n: number) => n / 1000;

const TAKE: Omit<RateTake, "now"> = {
  requestRate: perSecond(10),
  burst: 1,
  tokens: 0,
  recoveryMs: 10_000,
  learn: true,
  accepted: 0,
};

/** The spans of a grant, to give it back. */
const spans = (grant: RateGrant) => ({
  ...(grant.requestSpan ? { requestSpan: grant.requestSpan } : {}),
  ...(grant.tokenSpan ? { tokenSpan: grant.tokenSpan } : {}),
});

export function describeStoreContract(
  name: string,
  makeStore: () => UsageStore | Promise<UsageStore>,
) {
  describe(`${name}: budgets`, () => {
    it("grants reservations while they fit and refuses the next without changing anything", async () => {
      const store = await makeStore();
      const outcomes = [];
      for (const id of ["a", "b", "c", "d"]) {
        outcomes.push(await store.reserve("b1", { id, amount: 1, budget: 3 }));
      }
      expect(outcomes.map((o) => o.ok)).toEqual([true, true, true, false]);
      expect(outcomes[3]).toEqual({ ok: false, spent: 0, reserved: 3 });
      expect(await store.budgetState("b1")).toEqual({ spent: 0, reserved: 3 });
    });

    it("grants exactly ⌊budget / amount⌋ of 100 reservations made at once", async () => {
      const store = await makeStore();
      const outcomes = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          store.reserve("b2", { id: `r${i}`, amount: 1, budget: 30 }),
        ),
      );
      expect(outcomes.filter((o) => o.ok)).toHaveLength(30);
      expect(await store.budgetState("b2")).toEqual({ spent: 0, reserved: 30 });
    });

    it("fills a budget exactly despite float noise (3 × 0.1 against 0.3)", async () => {
      const store = await makeStore();
      const granted = [];
      for (const id of ["x", "y", "z", "w"]) {
        granted.push((await store.reserve("b3", { id, amount: 0.1, budget: 0.3 })).ok);
      }
      expect(granted).toEqual([true, true, true, false]);
    });

    it("settles a hold to the real cost, releases one at zero, and charges an unknown one in full", async () => {
      const store = await makeStore();
      await store.reserve("b4", { id: "a", amount: 5, budget: 10 });
      await store.reserve("b4", { id: "b", amount: 5, budget: 10 });
      expect((await store.reserve("b4", { id: "c", amount: 1, budget: 10 })).ok).toBe(false);
      await store.settle("b4", "a", 1.25);
      await store.settle("b4", "b", 0);
      expect(await store.budgetState("b4")).toEqual({ spent: 1.25, reserved: 0 });
      await store.settle("b4", "gone", 0.5);
      await store.charge("b4", 0.25);
      expect(await store.budgetState("b4")).toEqual({ spent: 2, reserved: 0 });
    });

    it("refuses everything once spent reaches the budget, and a budget of 0 at once", async () => {
      const store = await makeStore();
      await store.charge("b5", 2);
      expect((await store.reserve("b5", { id: "a", amount: 0, budget: 2 })).ok).toBe(false);
      expect((await store.reserve("b6", { id: "a", amount: 0, budget: 0 })).ok).toBe(false);
    });

    it("keeps the other call's hold reserved between two overlapping settles", async () => {
      const store = await makeStore();
      await store.reserve("b8", { id: "a", amount: 2, budget: 10 });
      await store.reserve("b8", { id: "b", amount: 3, budget: 10 });
      await store.settle("b8", "a", 0.5);
      expect(await store.budgetState("b8")).toEqual({ spent: 0.5, reserved: 3 });
      // Settling an ID twice charges the second time in full and holds nothing more.
      await store.settle("b8", "a", 0.25);
      expect(await store.budgetState("b8")).toEqual({ spent: 0.75, reserved: 3 });
      await store.settle("b8", "b", 1);
      expect(await store.budgetState("b8")).toEqual({ spent: 1.75, reserved: 0 });
    });

    it("reset forgets spend but keeps the holds of calls in flight", async () => {
      const store = await makeStore();
      await store.charge("b7", 3);
      await store.reserve("b7", { id: "a", amount: 2, budget: 10 });
      await store.resetBudget("b7");
      expect(await store.budgetState("b7")).toEqual({ spent: 0, reserved: 2 });
      await store.settle("b7", "a", 1);
      expect(await store.budgetState("b7")).toEqual({ spent: 1, reserved: 0 });
    });

    it("keeps budgets of different keys apart", async () => {
      const store = await makeStore();
      await store.charge("k1", 3);
      expect(await store.budgetState("k2")).toEqual({ spent: 0, reserved: 0 });
    });
  });

  describe(`${name}: rate limits`, () => {
    it("spaces requests at the rate, burst 1: slots at 0, 100, 200 … ms", async () => {
      const store = await makeStore();
      const waits = [];
      for (let i = 0; i < 5; i++)
        waits.push((await store.takeRate("r1", { ...TAKE, now: 1000 })).waitMs);
      expect(waits).toEqual([0, 100, 200, 300, 400]);
    });

    it("lets `burst` requests go at once after an idle spell", async () => {
      const store = await makeStore();
      const waits = [];
      for (let i = 0; i < 5; i++) {
        waits.push((await store.takeRate("r2", { ...TAKE, burst: 3, now: 1000 })).waitMs);
      }
      expect(waits).toEqual([0, 0, 0, 100, 200]);
      // After a long idle spell the bucket is full again.
      expect((await store.takeRate("r2", { ...TAKE, burst: 3, now: 60_000 })).waitMs).toBe(0);
    });

    it("paces tokens: a request waits until the tokens before it are paid for", async () => {
      const store = await makeStore();
      const take = { ...TAKE, requestRate: undefined, tokenRate: 1, learn: false }; // 1 token/ms
      const waits = [];
      for (const tokens of [500, 300, 100]) {
        waits.push((await store.takeRate("r3", { ...take, tokens, now: 0 })).waitMs);
      }
      expect(waits).toEqual([0, 500, 800]);
    });

    it("pauses for Retry-After and cuts the rate once per epoch", async () => {
      const store = await makeStore();
      const first = await store.takeRate("r4", { ...TAKE, now: 10_000 });
      await store.takeRate("r4", { ...TAKE, now: 10_000 });
      const penalty = {
        pauseMs: 2000,
        decrease: 0.5,
        requestRate: perSecond(10),
        recoveryMs: 10_000,
        accepted: 0,
      };
      const epoch = await store.penalizeRate("r4", { ...penalty, now: 10_050, epoch: first.epoch });
      expect(epoch).toBe(first.epoch + 1);
      // A second 429 from the same round does not cut again.
      expect(await store.penalizeRate("r4", { ...penalty, now: 10_060, epoch: first.epoch })).toBe(
        epoch,
      );
      const after = [];
      for (let i = 0; i < 3; i++) after.push(await store.takeRate("r4", { ...TAKE, now: 10_100 }));
      // Paused until 12,060 (the later 429's Retry-After counts too), then 1/s: half of the 2/s
      // observed going out, which is lower than the configured 10/s.
      expect(after.map((g) => g.waitMs)).toEqual([1960, 2960, 3960]);
      expect(after.every((g) => g.epoch === epoch)).toBe(true);
    });

    it("recovers linearly after a cut: the cut rate doubles every recoveryMs", async () => {
      const store = await makeStore();
      const { epoch } = await store.takeRate("r5", { ...TAKE, now: 0 });
      await store.penalizeRate("r5", {
        now: 0,
        pauseMs: 0,
        epoch,
        decrease: 0.5,
        requestRate: perSecond(10),
        recoveryMs: 10_000,
        accepted: 0,
      });
      // Observed 1 request in the last second → cut to 0.5/s, back to 1/s after 10 s.
      const a = await store.takeRate("r5", { ...TAKE, now: 10_000 });
      const b = await store.takeRate("r5", { ...TAKE, now: 10_000 });
      expect(a.waitMs).toBe(0);
      expect(b.waitMs).toBeCloseTo(1000, 6);
    });

    it("learns a rate from the first 429 when none is configured", async () => {
      const store = await makeStore();
      const take = { ...TAKE, requestRate: undefined };
      let epoch = 0;
      for (let i = 0; i < 20; i++)
        epoch = (await store.takeRate("r6", { ...take, now: 5_000 })).epoch;
      expect((await store.takeRate("r6", { ...take, now: 5_000 })).waitMs).toBe(0); // unlimited so far
      await store.penalizeRate("r6", {
        now: 5_000,
        pauseMs: 0,
        epoch,
        decrease: 0.5,
        recoveryMs: 10_000,
        accepted: 0,
      });
      // 21 slots in the last second → learned 10.5/s; slots now ~95 ms apart.
      const waits = [];
      for (let i = 0; i < 3; i++)
        waits.push((await store.takeRate("r6", { ...take, now: 5_000 })).waitMs);
      expect(waits[0]).toBe(0);
      expect(waits[1]).toBeCloseTo(1000 / 10.5, 6);
      expect(waits[2]).toBeCloseTo(2000 / 10.5, 6);
    });

    it("takes back slots given back, in any order, once every later one is given back too", async () => {
      const store = await makeStore();
      const take = { ...TAKE, tokenRate: 1, tokens: 50 }; // 100 ms and 50 ms per slot
      const grants = [];
      for (let i = 0; i < 5; i++) grants.push(await store.takeRate("r8", { ...take, now: 0 }));
      expect(grants.map((g) => g.waitMs)).toEqual([0, 100, 200, 300, 400]);
      // Slots 1 to 4 are cancelled, the middle ones first: each waits until the tail comes back.
      for (const i of [2, 1, 4, 3]) {
        await store.releaseRate?.("r8", { epoch: grants[i]!.epoch, ...spans(grants[i]!) });
      }
      const next = await store.takeRate("r8", { ...take, now: 20 });
      expect(next.waitMs).toBe(80); // right after slot 0, as if 1 to 4 had never been taken
    });

    it("keeps a slot given back in the middle out of later takes, and forgets one of an older epoch", async () => {
      const store = await makeStore();
      const grants = [];
      for (let i = 0; i < 3; i++) grants.push(await store.takeRate("r9", { ...TAKE, now: 0 }));
      await store.releaseRate?.("r9", { epoch: grants[1]!.epoch, ...spans(grants[1]!) });
      // Slot 2 is still held: a new one goes after it, never at the same time.
      expect((await store.takeRate("r9", { ...TAKE, now: 0 })).waitMs).toBe(300);
      const old = await store.takeRate("r10", { ...TAKE, now: 0 });
      await store.penalizeRate("r10", {
        now: 0,
        pauseMs: 1000,
        epoch: old.epoch,
        decrease: 0.5,
        requestRate: perSecond(10),
        recoveryMs: 10_000,
        accepted: 0,
      });
      // Cut to half the 1/s observed: one slot every 2 s after the pause.
      const held = await store.takeRate("r10", { ...TAKE, now: 0 });
      expect(held.waitMs).toBe(1000);
      // A release that names the old epoch is forgotten, whatever its spans say.
      await store.releaseRate?.("r10", { epoch: old.epoch, ...spans(held) });
      expect((await store.takeRate("r10", { ...TAKE, now: 0 })).waitMs).toBeCloseTo(3000, 6);
    });

    it("gives back a slot of a limit on tokens alone", async () => {
      const store = await makeStore();
      const take = { ...TAKE, requestRate: undefined, learn: false, tokenRate: 1, tokens: 100 };
      await store.takeRate("r11", { ...take, now: 0 });
      const second = await store.takeRate("r11", { ...take, now: 0 });
      expect(second.requestSpan).toBeUndefined();
      await store.releaseRate?.("r11", { epoch: second.epoch, ...spans(second) });
      expect((await store.takeRate("r11", { ...take, now: 0 })).waitMs).toBe(100);
    });

    it("cuts to what the service accepted, not to what was sent", async () => {
      const store = await makeStore();
      const take = { ...TAKE, requestRate: undefined };
      let epoch = 0;
      // 64 slots go out at once; answers to 9 of them are reported with later takes.
      for (let i = 0; i < 64; i++) epoch = (await store.takeRate("r7", { ...take, now: 0 })).epoch;
      await store.takeRate("r7", { ...take, now: 5, accepted: 9 });
      // The 429 also brings the one answer not reported yet: 10 accepted in the last second.
      await store.penalizeRate("r7", {
        now: 10,
        pauseMs: 0,
        epoch,
        decrease: 0.5,
        recoveryMs: 10_000,
        accepted: 1,
      });
      const a = await store.takeRate("r7", { ...take, now: 10 });
      const b = await store.takeRate("r7", { ...take, now: 10 });
      expect(a.waitMs).toBe(0);
      expect(b.waitMs).toBeCloseTo(200, 6); // 5 a second
    });
  });
}
