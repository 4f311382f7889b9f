/**
 * @module What the tests of every way a call ends share (test/cancellation.test.ts, the
 * telemetry's): a callback handler that throws where LangChain rethrows it, and a rate limiter
 * that makes the next call wait.
 */
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { MemoryStore, RateLimiter } from "../../src/index.js";

/** A handler whose `raiseError` (awaited) makes LangChain rethrow what it throws. */
export class Throwing extends BaseCallbackHandler {
  name = "throwing";
  override raiseError = true;
  override awaitHandlers = true;
  constructor(private readonly at: "start" | "token") {
    super();
  }
  override async handleChatModelStart() {
    if (this.at === "start") throw new Error("boom at start");
  }
  override async handleLLMStart() {
    if (this.at === "start") throw new Error("boom at start");
  }
  override async handleLLMNewToken() {
    if (this.at === "token") throw new Error("boom in a token");
  }
}

/** A limiter whose store takes the first request's slot, so the next one waits; `onWait` then runs. */
export function busyLimiter(onWait: () => void): RateLimiter {
  const store = new MemoryStore();
  const take = store.takeRate.bind(store);
  store.takeRate = async (key, request) => {
    const grant = await take(key, request);
    if (grant.waitMs > 0) queueMicrotask(onWait);
    return grant;
  };
  return new RateLimiter({ requestsPerMinute: 1, burst: 1, store });
}
