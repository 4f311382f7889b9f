import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UsageStoreError } from "../src/errors.js";
import { RedisStore } from "../src/redis_store.js";
import { REDIS_SERVER, type RedisServer, startRedis, warnIfNoRedis } from "./helpers/redis.js";
import { describeStoreContract } from "./helpers/store_cases.js";

warnIfNoRedis("redis_store.test.ts");

describe.skipIf(REDIS_SERVER === undefined)("RedisStore on a real redis-server", () => {
  let server: RedisServer;
  const stores: RedisStore[] = [];
  let prefixes = 0;

  /** A store with a prefix of its own, so each case starts from empty keys. */
  function store(options: ConstructorParameters<typeof RedisStore>[0] = {}): RedisStore {
    const made = new RedisStore({ url: server.url, prefix: `t${++prefixes}:`, ...options });
    stores.push(made);
    return made;
  }

  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await server?.stop();
  });

  describeStoreContract("RedisStore", () => store());

  it("writes only namespaced keys, each budget's in one cluster slot", async () => {
    const s = store({ prefix: "ns-test:" });
    await s.reserve("nightly", { id: "a", amount: 1, budget: 2 });
    await s.takeRate("default:model:m", {
      now: 0,
      requestRate: 0.01,
      burst: 1,
      tokens: 0,
      recoveryMs: 1000,
      learn: true,
      accepted: 0,
    });
    const client = new Redis(server.url);
    const keys = (await client.keys("*")).filter((k) => k.startsWith("ns-test:")).sort();
    await client.quit();
    expect(keys).toEqual([
      "ns-test:budget:{nightly}",
      "ns-test:budget:{nightly}:holds",
      "ns-test:budget:{nightly}:leases",
      "ns-test:rate:{default:model:m}",
    ]);
  });

  it("counts a hold whose lease ran out (its process died) as spent in full", async () => {
    const s = store({ reservationLeaseMs: 50 });
    await s.reserve("lease", { id: "dead", amount: 2, budget: 5 });
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await s.budgetState("lease")).toEqual({ spent: 2, reserved: 0 });
    // Its late settlement is charged, never subtracted from someone else's hold.
    await s.settle("lease", "dead", 0.5);
    expect(await s.budgetState("lease")).toEqual({ spent: 2.5, reserved: 0 });
  });

  it("shares one budget between two stores (two processes) on the same prefix", async () => {
    const a = store({ prefix: "shared-budget:" });
    const b = new RedisStore({ url: server.url, prefix: "shared-budget:" });
    stores.push(b);
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? a : b).reserve("team", { id: `r${i}`, amount: 1, budget: 7 }),
      ),
    );
    expect(outcomes.filter((o) => o.ok)).toHaveLength(7);
  });

  it("loads its scripts again after Redis forgot them (SCRIPT FLUSH, a restart)", async () => {
    const s = store();
    await s.charge("flush", 1);
    const client = new Redis(server.url);
    await client.script("FLUSH");
    await client.quit();
    await s.charge("flush", 1);
    expect(await s.budgetState("flush")).toEqual({ spent: 2, reserved: 0 });
  });
});

describe.skipIf(REDIS_SERVER === undefined)("RedisStore when Redis is down", () => {
  it("fails with a typed UsageStoreError within timeoutMs", async () => {
    const server = await startRedis();
    const s = new RedisStore({ url: server.url, timeoutMs: 300 });
    await s.charge("x", 1);
    await server.stop();
    const error = await s.reserve("x", { id: "a", amount: 1, budget: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageStoreError);
    expect(error).toMatchObject({
      name: "UsageStoreError",
      code: "usage_store_unavailable",
      store: "redis",
      operation: "reserve",
    });
    expect(UsageStoreError.isInstance(error)).toBe(true);
    expect((error as UsageStoreError).hint).toMatch(/failOpen/);
    await s.close();
  });

  it("with failOpen, grants everything and reports each error to onError", async () => {
    const server = await startRedis();
    const errors: UsageStoreError[] = [];
    const s = new RedisStore({
      url: server.url,
      timeoutMs: 300,
      failOpen: true,
      onError: (e) => errors.push(e),
    });
    await server.stop();
    expect(await s.reserve("x", { id: "a", amount: 9, budget: 1 })).toMatchObject({ ok: true });
    const grant = await s.takeRate("x", {
      now: 0,
      requestRate: 0.001,
      burst: 1,
      tokens: 0,
      recoveryMs: 1,
      learn: false,
      accepted: 0,
    });
    expect(grant.waitMs).toBe(0);
    expect(errors.map((e) => e.operation)).toEqual(["reserve", "takeRate"]);
    await s.close();
  });
});

describe("RedisStore options", () => {
  it.each([
    [{ prefix: 3 }, "prefix"],
    [{ timeoutMs: 0 }, "timeoutMs"],
    [{ failOpen: "yes" }, "failOpen"],
    [{ client: {} }, "client"],
    [{ reservationLeaseMs: -1 }, "reservationLeaseMs"],
    [{ host: "x" }, "host"],
  ])("rejects %j at construction, naming the option", (options, option) => {
    expect(() => new RedisStore(options as never)).toThrow(expect.objectContaining({ option }));
  });
});
