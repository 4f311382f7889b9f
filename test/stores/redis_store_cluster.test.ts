/**
 * The Redis store on a real Redis Cluster (6 nodes: 3 masters, 3 replicas) that the suite starts
 * on free ports: a paused master holds up only the budgets whose keys it holds, a killed master's
 * replica takes over, and no call that was never sent is charged. Assertions are on outcomes
 * (failed calls, charged amounts), with bounded waits.
 */
import { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ChatInferenceService } from "../../src/apis/chat/chat_models.js";
import { createEmulator, DEFAULT_MODEL, type InProcessEmulator } from "../../src/emulator/index.js";
import { UsageStoreError } from "../../src/errors/errors.js";
import { UsageTracker } from "../../src/spend/usage_tracker.js";
import { RedisStore, type RedisStoreOptions } from "../../src/stores/redis_store.js";
import {
  type ClusterMaster,
  keyOn,
  REDIS_CLUSTER_TOOLS,
  type RedisCluster,
  startRedisCluster,
  warnIfNoRedisCluster,
} from "../helpers/redis_cluster.js";

warnIfNoRedisCluster("redis_store_cluster.test.ts");

/** Prices where a call reserves, and costs, exactly 1 (a reply cut at max_tokens 4). */
const ONE_PER_CALL = { [DEFAULT_MODEL]: { input: 0, output: 250_000 } };

/**
 * How long a master stays paused: longer than a store's `timeoutMs` (1 s, or 2 s where calls on
 * other masters must not fail on a loaded machine), shorter than the cluster's node timeout (5 s).
 */
const PAUSE_MS = 3000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `read` until `done` holds of its answer or `ms` pass; answers the last reading. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 20_000) {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read().catch(() => undefined);
    if ((value !== undefined && done(value)) || Date.now() > until) return value;
    await sleep(200);
  }
}

describe.skipIf(!REDIS_CLUSTER_TOOLS)("RedisStore on a real Redis Cluster", () => {
  let cluster: RedisCluster;
  let masters: ClusterMaster[];
  const clients: Cluster[] = [];
  let prefixes = 0;

  beforeAll(async () => {
    cluster = await startRedisCluster({ nodeTimeoutMs: 5000 });
    masters = await cluster.masters();
  });
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await cluster?.stop();
  });

  /** A store on a cluster client of its own (as each worker process has), with a fresh prefix. */
  function clusterStore(options: RedisStoreOptions = {}): RedisStore {
    const client = new Cluster(cluster.startupNodes).on("error", () => {});
    clients.push(client);
    return new RedisStore({ client, prefix: `c${++prefixes}:`, ...options });
  }

  /** One budget on one master: a tracker on it and a model whose calls reach its own emulator. */
  async function budgetOn(store: RedisStore, master: ClusterMaster, stem: string) {
    const budgetKey = await keyOn(cluster, master, stem);
    const emulator = createEmulator();
    const tracker = new UsageTracker({ prices: ONE_PER_CALL, budget: 1e6, store, budgetKey });
    const model = new ChatInferenceService(DEFAULT_MODEL, {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch: emulator.fetch,
      maxTokens: 4,
      maxRetries: 0,
    });
    const call = () =>
      model.invoke("hi", { callbacks: [tracker] }).then(
        () => undefined,
        (error: unknown) => error,
      );
    return { budgetKey, emulator, tracker, call, sent: () => sentTo(emulator) };
  }

  const sentTo = (emulator: InProcessEmulator) => emulator.state.requests().length;

  /** Calls one after another (20 ms apart, to spare the CPU) until `until`; answers the failures. */
  async function callUntil(call: () => Promise<unknown>, until: number): Promise<unknown[]> {
    const failures: unknown[] = [];
    while (Date.now() < until) {
      const failure = await call();
      if (failure !== undefined) failures.push(failure);
      await sleep(20);
    }
    return failures;
  }

  it("a paused master fails only the budgets it holds, and charges nothing for the calls it failed", async () => {
    const [stalled, healthy] = masters as [ClusterMaster, ClusterMaster];
    // 2 s: calls on the healthy master have room to spare on a machine other tests load.
    const store = clusterStore({ timeoutMs: 2000 });
    const onStalled = await budgetOn(store, stalled, "stalled");
    const onHealthy = await budgetOn(store, healthy, "healthy");
    // Both budgets in use (connections open, scripts run) before the fault.
    expect(await onStalled.call()).toBeUndefined();
    expect(await onHealthy.call()).toBeUndefined();

    const node = cluster.node(stalled.port);
    node.pause();
    let failures: [unknown[], unknown[]];
    try {
      const until = Date.now() + PAUSE_MS;
      // Four callers on the stalled budget keep its reserves timing out (and, before the fix,
      // the scripts being loaded again) while one caller runs on the healthy budget.
      failures = await Promise.all([
        callUntil(onHealthy.call, until),
        Promise.all([1, 2, 3, 4].map(() => callUntil(onStalled.call, until))).then((all) =>
          all.flat(),
        ),
      ]);
    } finally {
      node.resume();
    }
    const [healthyFailures, stalledFailures] = failures;

    expect(healthyFailures).toEqual([]);
    expect(onHealthy.sent()).toBeGreaterThan(3);
    expect(await onHealthy.tracker.budgetStatus()).toMatchObject({
      spent: onHealthy.sent(),
      reserved: 0,
    });

    expect(stalledFailures.length).toBeGreaterThan(0);
    expect(stalledFailures.every((f) => UsageStoreError.isInstance(f))).toBe(true);
    expect(stalledFailures).toContainEqual(expect.objectContaining({ operation: "reserve" }));
    // The reserves that timed out ran once the master woke up; each was released behind it.
    const status = await eventually(
      () => onStalled.tracker.budgetStatus(),
      (s) => s.reserved === 0,
    );
    expect(status).toMatchObject({ spent: onStalled.sent(), reserved: 0 });
    // Calls work again on the stalled budget.
    expect(await onStalled.call()).toBeUndefined();
  }, 30_000);

  it("with failOpen, a call sent unguarded while its master is paused is charged once the master answers", async () => {
    const [paused] = masters as [ClusterMaster];
    const errors: UsageStoreError[] = [];
    const store = clusterStore({ failOpen: true, onError: (e) => errors.push(e) });
    const budget = await budgetOn(store, paused, "open");
    expect(await budget.call()).toBeUndefined();

    const node = cluster.node(paused.port);
    node.pause();
    let outcomes: unknown[];
    try {
      const resumeAt = Date.now() + PAUSE_MS;
      outcomes = await Promise.all([1, 2, 3].map(() => budget.call()));
      await sleep(resumeAt - Date.now());
    } finally {
      node.resume();
    }

    // Each reserve timed out; each call was sent all the same.
    expect(outcomes).toEqual([undefined, undefined, undefined]);
    expect(budget.sent()).toBe(4);
    // (A settle sent late in the stall may be answered in time: only the reserves are certain.)
    expect(errors.filter((e) => e.operation === "reserve")).toHaveLength(3);
    // Once the master answers, the late reserves are released and the settles charge the calls.
    const status = await eventually(
      () => budget.tracker.budgetStatus(),
      (s) => s.spent === 4 && s.reserved === 0,
    );
    expect(status).toMatchObject({ spent: 4, reserved: 0 });
  }, 30_000);

  it("a killed master's replica takes over: calls succeed again, and no call is charged that was not sent", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const victim = masters[2] as ClusterMaster;
    const store = clusterStore();
    const budget = await budgetOn(store, victim, "failover");
    expect(await budget.call()).toBeUndefined();

    const failures: unknown[] = [];
    let sentAfterFailures = 0;
    let stop = false;
    // Four callers, as four workers would be, so that reserves are in flight when it dies.
    const callers = [1, 2, 3, 4].map(async () => {
      while (!stop) {
        const failure = await budget.call();
        if (failure !== undefined) failures.push(failure);
        else if (failures.length > 0) sentAfterFailures++;
        await sleep(20);
      }
    });
    try {
      await eventually(
        async () => budget.sent(),
        (sent) => sent >= 5,
      );
      await cluster.node(victim.port).kill();
      await eventually(
        async () => sentAfterFailures,
        (sent) => sent >= 5,
        40_000,
      );
    } finally {
      stop = true;
      await Promise.all(callers);
      warn.mockRestore();
    }

    expect(sentAfterFailures).toBeGreaterThanOrEqual(5);
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.every((f) => UsageStoreError.isInstance(f))).toBe(true);
    // Each call sent is settled (1), or still held (1) when its settle died with the master:
    // no hold is left of a call never sent.
    const status = await eventually(
      () => budget.tracker.budgetStatus(),
      (s) => s.spent + s.reserved === budget.sent(),
    );
    expect(status!.spent + status!.reserved).toBe(budget.sent());
  }, 60_000);
});
