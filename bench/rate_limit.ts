/**
 * @module Benchmark 7, batches against a rate limit: 1,000 calls at `maxConcurrency` 64 against a
 * server that allows R requests a second and answers 429 above it. Wall time and rejected
 * requests for ours — with the limit configured, with the limit left to be learned from 429s,
 * and with no limiter — against `ChatOpenAI` at its defaults.
 */

import type { Runnable } from "@langchain/core/runnables";
import { RateLimiter } from "../src/index.js";
import { QUICK } from "./lib/config.js";
import { chatOpenAI, ours, PROMPT, type Target } from "./lib/contenders.js";
import type { BenchContext } from "./lib/context.js";
import { FIXED_MODEL } from "./lib/fixed_server.js";
import { startRateLimitedServer } from "./lib/rate_limited_server.js";
import type { Section } from "./lib/report.js";
import { int, ratio, seconds } from "./lib/stats.js";

/** Requests a second the server allows. */
const R = 100;
const CONCURRENCY = 64;
/** The goals: wall time within 1.15× of calls / R, at most 10 % of requests rejected. */
const TIME_GOAL = 1.15;
const REJECTED_GOAL = 0.1;

interface Contender {
  name: string;
  make: (target: Target) => Runnable<string, unknown>;
}

const CONTENDERS: Contender[] = [
  {
    name: "ChatInferenceService, rateLimiter { requestsPerMinute: 60·R }",
    make: (t) => ours(t, { rateLimiter: new RateLimiter({ requestsPerMinute: R * 60 }) }),
  },
  {
    name: "ChatInferenceService, rateLimiter {} (limit learned from 429s)",
    make: (t) => ours(t, { rateLimiter: new RateLimiter() }),
  },
  { name: "ChatInferenceService, no limiter (retries only)", make: (t) => ours(t) },
  { name: "ChatOpenAI, defaults", make: (t) => chatOpenAI(t) },
];

export async function rateLimit(ctx: BenchContext): Promise<Section> {
  const calls = QUICK ? 300 : 1_000;
  const ideal = (calls / R) * 1000;
  const server = await startRateLimitedServer(R);
  const target: Target = {
    label: "rate-limited server",
    baseURL: server.baseURL,
    apiKey: "sk-bench-rate",
    model: FIXED_MODEL,
  };
  const inputs = Array.from({ length: calls }, () => PROMPT);
  const rows: string[][] = [];
  const summary: string[] = [];
  try {
    for (const contender of CONTENDERS) {
      ctx.progress(`rate limit: ${contender.name}, ${calls} calls at ${R} req/s`);
      const model = contender.make(target);
      // Warm-up: open the connections, then let the bucket refill before the timed batch.
      await model.batch(inputs.slice(0, 20), { maxConcurrency: 4 }, { returnExceptions: true });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await server.reset();
      const started = performance.now();
      const results = await model.batch(
        inputs,
        { maxConcurrency: CONCURRENCY },
        { returnExceptions: true },
      );
      const wall = performance.now() - started;
      const { requests, rejected } = await server.stats();
      const failed = results.filter((r) => r instanceof Error).length;
      const share = rejected / requests;
      rows.push([
        contender.name,
        seconds(wall),
        ratio(wall, ideal),
        int(requests),
        int(rejected),
        `${(share * 100).toFixed(1)}%`,
        int(failed),
      ]);
      summary.push(
        `${contender.name}: ${seconds(wall)} (${ratio(wall, ideal)} ideal), ${int(rejected)} of ${int(requests)} requests rejected (${(share * 100).toFixed(1)}%), ${int(failed)} calls failed`,
      );
      await new Promise((resolve) => setTimeout(resolve, 1500));
    }
  } finally {
    await server.close();
  }
  return {
    name: "rate-limit",
    heading: "7. Batch against a rate limit",
    tables: [
      {
        title: `\`batch()\` of ${int(calls)} calls at maxConcurrency ${CONCURRENCY} against a server allowing ${R} req/s`,
        how:
          `one batch per contender against bench/lib/rate_limited_server.ts in a child process: a token ` +
          `bucket of ${R} requests refilled at ${R}/s, 429 with \`Retry-After: 1\` above it; 20 warm-up ` +
          `calls, then 1.5 s for the bucket to refill. Ideal = calls ÷ R = ${seconds(ideal)}. ` +
          "Rejected = 429s the server sent; a rejected request is retried, so failed calls are those " +
          "whose retries ran out.",
        goal: `within ${TIME_GOAL}× of the ideal, and ≤ ${REJECTED_GOAL * 100} % of requests rejected (issue 13).`,
        headers: [
          "contender",
          "wall time",
          "× ideal",
          "requests",
          "rejected (429)",
          "rejected share",
          "failed calls",
        ],
        rows,
        summary: summary.map((line) => `Rate limit ${R} req/s — ${line}.`),
      },
    ],
  };
}
