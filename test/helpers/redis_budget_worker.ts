/**
 * @module A worker process for the shared-budget test: once connected it prints `ready` and waits
 * for a line on stdin (the test sends it when every worker is ready, so that their calls
 * overlap), then sends CALLS parallel calls through a UsageTracker on a RedisStore, and prints
 * what happened as one JSON line. Every worker shares the budget `fleet` on the same Redis.
 */

import { ChatInferenceService } from "../../src/apis/chat/chat_models.js";
import { BudgetExceededError } from "../../src/errors/errors.js";
import { UsageTracker } from "../../src/spend/usage_tracker.js";
import { RedisStore } from "../../src/stores/redis_store.js";

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const store = new RedisStore({ url: env("REDIS_URL"), prefix: env("PREFIX"), timeoutMs: 5000 });
const tracker = new UsageTracker({
  // A reply is cut at max_tokens 4 and costs exactly what was reserved: 4 × 0.25 = 1.
  prices: { [env("MODEL")]: { input: 0, output: 250_000 } },
  budget: Number(env("BUDGET")),
  store,
  budgetKey: "fleet",
});
const model = new ChatInferenceService(env("MODEL"), {
  apiKey: env("API_KEY"),
  baseURL: env("BASE_URL"),
  maxTokens: 4,
  maxRetries: 0,
});
await store.budgetState("fleet"); // connected before the start
process.stdout.write("ready\n");
await new Promise((resolve) => process.stdin.once("data", resolve));
const results = await model.batch(
  Array.from({ length: Number(env("CALLS")) }, (_, i) => `Tell me a story about the number ${i}`),
  { callbacks: [tracker] },
  { returnExceptions: true },
);
const refused = results.filter((r) => BudgetExceededError.isInstance(r)).length;
const failed = results.filter((r) => r instanceof Error).length - refused;
process.stdout.write(
  `${JSON.stringify({ sent: results.length - refused - failed, refused, failed })}\n`,
);
await store.close();
