/**
 * @module Spend and rate control: a budget that reserves each call's worst case, a stream left
 * early and still counted, a client-side rate limit, and (when Redis is reachable at REDIS_URL,
 * default redis://127.0.0.1:6379) one budget shared by two "processes" through a RedisStore.
 */
import {
  BudgetExceededError,
  ChatInferenceService,
  RateLimiter,
  UsageStoreError,
  UsageTracker,
} from "langchain-inference-service";
import { RedisStore } from "langchain-inference-service/redis";
import { type Log, MODEL, runIfMain } from "./connection.js";

// Credit per million tokens. Only output is priced, at 250,000 a million, so a call capped at
// maxTokens 4 reserves, and costs at most, exactly 1 credit: easy to follow.
const PRICES = { [MODEL]: { input: 0, output: 250_000 } };

const questions = (n: number) => Array.from({ length: n }, (_, i) => `Question ${i + 1}`);

export async function main(log: Log = console.log): Promise<void> {
  // maxTokens caps the reply, so the worst case a call reserves is known: 4 tokens = 1 credit.
  const model = new ChatInferenceService(MODEL, { maxTokens: 4 });

  // 1. Reservations: 20 calls at once against a budget of 3 — three are sent, 17 refused unsent.
  const usage = new UsageTracker({ prices: PRICES, budget: 3, currency: "credit" });
  const results = await model.batch(
    questions(20),
    { callbacks: [usage] },
    { returnExceptions: true },
  );
  const refused = results.filter((r) => BudgetExceededError.isInstance(r));
  log(
    `reservations: ${results.length - refused.length} of 20 calls sent, ${refused.length} refused`,
  );
  log(`  ${refused[0]?.message}`);
  const status = await usage.budgetStatus();
  log(`  budget ${status.budget}: spent ${status.spent}, reserved ${status.reserved}`);

  // 2. A stream left with `break` is settled and counted: from its usage chunk or, if it had not
  //    come, at its worst case (40 reply tokens): the service may have relayed, and billed, all of it.
  const streams = new UsageTracker({ prices: PRICES, budget: 10 });
  const long = new ChatInferenceService(MODEL, { maxTokens: 40 });
  for await (const chunk of await long.stream("Tell me a long story", { callbacks: [streams] })) {
    if (chunk.text.length > 0) break;
  }
  const [left] = streams.records;
  log(
    `abandoned stream: counted ${left?.outputTokens} output tokens (abandoned: ${left?.abandoned}, settlement: ${left?.settlement}); runs in flight: ${streams.inFlight}`,
  );

  // 3. A rate limit of 1,200 requests a minute: 30 calls at concurrency 64 go 50 ms apart.
  const limited = new ChatInferenceService(MODEL, {
    maxTokens: 4,
    rateLimiter: new RateLimiter({ requestsPerMinute: 1200 }),
  });
  const started = Date.now();
  await limited.batch(questions(30), { maxConcurrency: 64 });
  log(`rate limit: 30 calls at 1,200/min took ${((Date.now() - started) / 1000).toFixed(1)} s`);

  // 4. One budget for a fleet: two trackers on one Redis (two processes in real life).
  const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const probe = new RedisStore({ url, timeoutMs: 500 });
  const reachable = await probe.budgetState("probe").then(
    () => true,
    (error: unknown) => {
      if (!UsageStoreError.isInstance(error)) throw error;
      return false;
    },
  );
  await probe.close();
  if (!reachable) {
    log(`redis: no server reachable at ${url}; skipped the shared budget (set REDIS_URL)`);
    return;
  }
  const prefix = `example-${Date.now()}:`; // a fresh budget for each run of the example
  const stores = [0, 1].map(() => new RedisStore({ url, prefix }));
  const workers = stores.map(
    (store) => new UsageTracker({ prices: PRICES, budget: 5, store, budgetKey: "fleet" }),
  );
  const sent = await Promise.all(
    workers.map(async (tracker) => {
      const batch = await model.batch(
        questions(10),
        { callbacks: [tracker] },
        { returnExceptions: true },
      );
      return batch.filter((r) => !(r instanceof Error)).length;
    }),
  );
  log(
    `redis: two workers sharing a budget of 5 sent ${sent.join(" + ")} = ${sent[0]! + sent[1]!} calls`,
  );
  await Promise.all(stores.map((store) => store.close()));
}

await runIfMain(import.meta.url, main);
