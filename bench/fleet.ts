/**
 * @module Benchmark 8, a fleet on one limit and one budget: 4 worker processes, each with its own
 * `ChatInferenceService`, share one `RateLimiter` and one `UsageTracker` budget through a
 * `RedisStore` on a real `redis-server`, against a server that allows R requests a second and
 * answers 429 above it. Wall time against the ideal (the calls the budget lets through ÷ R) and
 * against one process doing the same work on a `MemoryStore` in the same run; 429s; and the
 * spend, watched while the fleet runs, against the budget.
 */

import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { RedisStore } from "../src/stores/redis_store.js";
import { REDIS_SERVER, type RedisServer, startRedis } from "../test/helpers/redis.js";
import { QUICK } from "./lib/config.js";
import type { BenchContext } from "./lib/context.js";
import {
  FLEET_MAX_TOKENS,
  type FleetWorkerResult,
  type FleetWorkerSetup,
} from "./lib/fleet_worker.js";
import { type RateLimitedServer, startRateLimitedServer } from "./lib/rate_limited_server.js";
import type { Section } from "./lib/report.js";
import { int, ratio, seconds } from "./lib/stats.js";

/** Requests a second the server allows. */
const R = 100;
const WORKERS = 4;
const CONCURRENCY = 64;
/** The budget lets this share of the calls through; the rest are refused unsent. */
const BUDGET_SHARE = 0.8;
/** Per million output tokens: a call of 8 tokens costs exactly 1. */
const OUTPUT_PRICE = 1_000_000 / FLEET_MAX_TOKENS;
/** The goals: within 1.10× of the ideal, at most 5 % of requests rejected. */
const TIME_GOAL = 1.1;
const REJECTED_GOAL = 0.05;

/** One timed run: its processes' results, the server's counts, and the spend seen. */
interface RunOutcome {
  wallMs: number;
  results: FleetWorkerResult[];
  requests: number;
  rejected: number;
  /** Highest `spent` and `spent + reserved` seen during the run, and `spent` at its end. */
  peakSpent: number;
  peakCommitted: number;
  spent: number;
}

const WORKER = fileURLToPath(new URL("./lib/fleet_worker.ts", import.meta.url));

/** Forks a worker; resolves once it is warm, with a way to start it and its result. */
function startWorker(
  setup: FleetWorkerSetup,
): Promise<{ go: (at: number) => Promise<FleetWorkerResult> }> {
  const child = fork(WORKER, ["--fleet-worker", JSON.stringify(setup)], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const result = new Promise<FleetWorkerResult>((resolve, reject) => {
    child.on("message", (message: { result?: FleetWorkerResult }) => {
      if (message.result) resolve(message.result);
    });
    child.once("exit", (code) => reject(new Error(`fleet worker exited with code ${code}`)));
  });
  return new Promise((resolve, reject) => {
    child.on("message", (message) => {
      if (message === "ready") {
        resolve({
          go: (at) => {
            child.send({ go: at });
            return result;
          },
        });
      }
    });
    child.once("exit", (code) => reject(new Error(`fleet worker exited with code ${code}`)));
  });
}

/** Runs `processes` workers splitting `calls` between them, on Redis or each on its own memory. */
async function runFleet(
  server: RateLimitedServer,
  redis: RedisServer,
  options: { processes: number; calls: number; shared: boolean; prefix: string },
): Promise<RunOutcome> {
  const budget = Math.round(options.calls * BUDGET_SHARE);
  const setup = (calls: number): FleetWorkerSetup => ({
    baseURL: server.baseURL,
    redisURL: options.shared ? redis.url : undefined,
    prefix: options.prefix,
    calls,
    concurrency: CONCURRENCY,
    requestsPerMinute: R * 60,
    budget,
    outputPrice: OUTPUT_PRICE,
    maxTokens: FLEET_MAX_TOKENS,
  });
  const share = Math.ceil(options.calls / options.processes);
  const workers = await Promise.all(
    Array.from({ length: options.processes }, (_, i) =>
      startWorker(setup(Math.min(share, options.calls - i * share))),
    ),
  );
  // The warm-up calls drew on the server's bucket: let it refill, then count from zero.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await server.reset();
  const watcher = options.shared
    ? new RedisStore({ url: redis.url, prefix: options.prefix, timeoutMs: 5000 })
    : undefined;
  let peakSpent = 0;
  let peakCommitted = 0;
  const watch = async () => {
    const state = await watcher?.budgetState("fleet");
    if (!state) return;
    peakSpent = Math.max(peakSpent, state.spent);
    peakCommitted = Math.max(peakCommitted, state.spent + state.reserved);
  };
  const timer = setInterval(() => void watch().catch(() => undefined), 50);
  const startAt = Date.now() + 300;
  try {
    const results = await Promise.all(workers.map((worker) => worker.go(startAt)));
    const wallMs = Math.max(...results.map((r) => r.endedAt)) - startAt;
    clearInterval(timer);
    await watch();
    const { requests, rejected } = await server.stats();
    const sent = results.reduce((n, r) => n + r.sent, 0);
    // On memory each process keeps its own books: the spend is what its settled calls cost.
    const spent = watcher ? peakSpent : sent;
    return {
      wallMs,
      results,
      requests,
      rejected,
      peakSpent: spent,
      peakCommitted: watcher ? peakCommitted : spent,
      spent,
    };
  } finally {
    clearInterval(timer);
    await watcher?.close();
  }
}

export async function fleet(ctx: BenchContext): Promise<Section> {
  const calls = QUICK ? 400 : 1_000;
  const budget = Math.round(calls * BUDGET_SHARE);
  const heading = "8. A fleet on one rate limit and one budget (Redis)";
  if (REDIS_SERVER === undefined) {
    ctx.progress("fleet: SKIPPED, redis-server not found");
    return {
      name: "fleet",
      heading,
      tables: [
        {
          title: "Skipped: redis-server not found",
          how: "install the Debian package redis-server (or set REDIS_SERVER_BIN) and run again.",
          headers: ["run"],
          rows: [],
        },
      ],
    };
  }
  const redis = await startRedis();
  const server = await startRateLimitedServer(R);
  const runs = [
    { label: "1 process, MemoryStore (same-run baseline)", processes: 1, shared: false },
    { label: `${WORKERS} processes, one RedisStore`, processes: WORKERS, shared: true },
  ];
  const outcomes: RunOutcome[] = [];
  try {
    for (const [i, run] of runs.entries()) {
      ctx.progress(`fleet: ${run.label}, ${calls} calls, budget for ${budget}, ${R} req/s`);
      outcomes.push(await runFleet(server, redis, { ...run, calls, prefix: `fleet-${i}:` }));
      await new Promise((resolve) => setTimeout(resolve, 1500));
    }
  } finally {
    await server.close();
    await redis.stop();
  }
  const baseline = outcomes[0]!;
  const rows: string[][] = [];
  const summary: string[] = [];
  for (const [i, run] of runs.entries()) {
    const o = outcomes[i]!;
    const sent = o.results.reduce((n, r) => n + r.sent, 0);
    const refused = o.results.reduce((n, r) => n + r.refused, 0);
    const failed = o.results.reduce((n, r) => n + r.failed, 0);
    const ideal = (sent / R) * 1000;
    const share = o.requests === 0 ? 0 : o.rejected / o.requests;
    rows.push([
      run.label,
      seconds(o.wallMs),
      ratio(o.wallMs, ideal),
      ratio(o.wallMs, baseline.wallMs),
      int(o.requests),
      int(o.rejected),
      `${(share * 100).toFixed(1)}%`,
      `${int(sent)} / ${int(refused)} / ${int(failed)}`,
      `${int(o.spent)} of ${int(budget)}`,
      `${int(o.peakCommitted)}`,
    ]);
    summary.push(
      `${run.label}: ${seconds(o.wallMs)} (${ratio(o.wallMs, ideal)} ideal, ${ratio(o.wallMs, baseline.wallMs)} one process), ` +
        `${int(o.rejected)} of ${int(o.requests)} requests rejected (${(share * 100).toFixed(1)}%), ` +
        `spent ${int(o.spent)} of a budget of ${int(budget)} (peak committed ${int(o.peakCommitted)}), ` +
        `${int(sent)} calls sent, ${int(refused)} refused by the budget, ${int(failed)} failed`,
    );
  }
  return {
    name: "fleet",
    heading,
    tables: [
      {
        title: `${int(calls)} calls against a server allowing ${R} req/s, a budget for ${int(budget)} of them`,
        how:
          `each process is a worker (bench/lib/fleet_worker.ts) with its own \`ChatInferenceService\` ` +
          `(maxConcurrency ${CONCURRENCY}, maxTokens ${FLEET_MAX_TOKENS}), a \`RateLimiter\` ` +
          `{ requestsPerMinute: ${R * 60} } and a \`UsageTracker\` whose budget holds ${int(budget)} calls ` +
          `(each costs exactly what it reserves), both on one \`RedisStore\` on a redis-server started ` +
          `for the run — or, for the baseline, one process on its own \`MemoryStore\`. The server is ` +
          `bench/lib/rate_limited_server.ts (a bucket of ${R} refilled at ${R}/s, 429 above it). ` +
          "Workers warm up outside the limit and the budget, then start together. Ideal = calls " +
          `sent ÷ R. Spend is read from Redis every 50 ms while the fleet runs; "committed" is ` +
          "spent + reserved. Sent / refused / failed: calls answered, refused unsent by the budget " +
          "(`BudgetExceededError`), failed otherwise.",
        goal: `within ${TIME_GOAL.toFixed(2)}× of the ideal, ≤ ${REJECTED_GOAL * 100} % of requests rejected, spend never over the budget (issue 25).`,
        headers: [
          "run",
          "wall time",
          "× ideal",
          "× one process",
          "requests",
          "rejected (429)",
          "rejected share",
          "sent / refused / failed",
          "spent",
          "peak committed",
        ],
        rows,
        summary: summary.map((line) => `Fleet at ${R} req/s — ${line}.`),
      },
    ],
  };
}
