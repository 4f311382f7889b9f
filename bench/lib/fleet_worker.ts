/**
 * @module One process of the fleet benchmark (bench/fleet.ts): a `ChatInferenceService` with a
 * `RateLimiter` and a `UsageTracker` on the store it is told to use — a `RedisStore` shared with
 * the other workers, or its own `MemoryStore` (the single-process baseline). It warms up, says
 * `ready`, and on `go` waits for the start time it was given, sends its batch and reports what
 * happened; then it exits.
 */

import {
  BudgetExceededError,
  ChatInferenceService,
  MemoryStore,
  RateLimiter,
  UsageTracker,
} from "../../src/index.js";
import { RedisStore } from "../../src/stores/redis_store.js";
import type { UsageStore } from "../../src/stores/usage_store.js";
import { PROMPT } from "./contenders.js";
import { FIXED_MODEL } from "./fixed_server.js";

/** What the benchmark tells a worker. */
export interface FleetWorkerSetup {
  baseURL: string;
  /** A Redis URL, or undefined for a `MemoryStore` of the worker's own. */
  redisURL?: string;
  /** Key prefix of this run on Redis, so runs never share state. */
  prefix: string;
  calls: number;
  concurrency: number;
  requestsPerMinute: number;
  /** The shared budget, and each call's cost (what it reserves and settles to). */
  budget: number;
  outputPrice: number;
  maxTokens: number;
}

/** What a worker reports. */
export interface FleetWorkerResult {
  sent: number;
  refused: number;
  failed: number;
  /** `Date.now()` when its batch ended. */
  endedAt: number;
}

/** The fixed server answers 8 completion tokens: with `maxTokens: 8` a call costs what it reserved. */
export const FLEET_MAX_TOKENS = 8;

async function run(setup: FleetWorkerSetup): Promise<void> {
  const redis = setup.redisURL
    ? new RedisStore({ url: setup.redisURL, prefix: setup.prefix, timeoutMs: 5000 })
    : undefined;
  const store: UsageStore = redis ?? new MemoryStore();
  const tracker = new UsageTracker({
    prices: { [FIXED_MODEL]: { input: 0, output: setup.outputPrice } },
    budget: setup.budget,
    store,
    budgetKey: "fleet",
  });
  const rateLimiter = new RateLimiter({
    requestsPerMinute: setup.requestsPerMinute,
    store,
    name: "fleet",
  });
  const common = {
    apiKey: "sk-bench-fleet",
    baseURL: setup.baseURL,
    maxTokens: setup.maxTokens,
    maxRetries: 6,
  };
  // Warm-up outside the limit and the budget: connections open, modules loaded, Redis connected.
  await new ChatInferenceService(FIXED_MODEL, common).batch(Array(4).fill(PROMPT));
  await store.budgetState("fleet");
  const model = new ChatInferenceService(FIXED_MODEL, { ...common, rateLimiter });
  const startAt = await new Promise<number>((resolve) => {
    process.on("message", (message: { go?: number }) => {
      if (typeof message.go === "number") resolve(message.go);
    });
    process.send?.("ready");
  });
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));
  const results = await model.batch(
    Array.from({ length: setup.calls }, () => PROMPT),
    { maxConcurrency: setup.concurrency, callbacks: [tracker] },
    { returnExceptions: true },
  );
  const endedAt = Date.now();
  const refused = results.filter((r) => BudgetExceededError.isInstance(r)).length;
  const failed = results.filter((r) => r instanceof Error).length - refused;
  const result: FleetWorkerResult = {
    sent: results.length - refused - failed,
    refused,
    failed,
    endedAt,
  };
  process.send?.({ result });
  await redis?.close();
  process.disconnect?.();
}

const flag = process.argv.indexOf("--fleet-worker");
if (flag >= 0) await run(JSON.parse(process.argv[flag + 1] ?? "{}") as FleetWorkerSetup);
