/**
 * @module What the tests of every way a call ends share (test/cancellation.test.ts, the
 * telemetry's): a callback handler that throws where LangChain rethrows it, and a rate limiter
 * that makes the next call wait.
 */
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { MemoryStore, RateLimiter } from "../../src/index.js";
import { expectConsole } from "../setup/quiet.js";

/**
 * A handler whose `raiseError` (awaited) makes LangChain rethrow what it throws. LangChain also
 * logs each error of a handler ("Error in handler Throwing, handleLLMStart: …"): a test that makes
 * one expects that line, which keeps it out of the output and fails the test if it never came.
 */
export class Throwing extends BaseCallbackHandler {
  name = "throwing";
  override raiseError = true;
  override awaitHandlers = true;
  constructor(private readonly at: "start" | "token") {
    super();
    expectConsole(
      "error",
      at === "start"
        ? /^Error in handler Throwing, handle(LLM|ChatModel)Start: Error: boom at start$/
        : /^Error in handler Throwing, handleLLMNewToken: Error: boom in a token$/,
    );
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
