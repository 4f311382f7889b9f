/**
 * @module Agent middleware from `langchain-inference-service/middleware`: a cost cap per invocation
 * that ends a tool loop before the call that would overspend (gracefully, or with
 * `BudgetExceededError`), fallbacks only on what another model may not have, and both together in
 * `streamMode: "messages"`.
 *
 * Against the emulator the fallbacks' primary fails on purpose: the `X-Emulator-Fault` header
 * makes the emulator answer its calls with the error named.
 */
import { AIMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createAgent, createMiddleware, MiddlewareError } from "langchain";
import {
  BudgetExceededError,
  ChatInferenceService,
  InferenceServiceError,
  UsageTracker,
} from "langchain-inference-service";
import { budgetMiddleware, fallbackMiddleware } from "langchain-inference-service/middleware";
import { z } from "zod";
import { type Connection, type Log, MODEL, runIfMain } from "./connection.js";

const BACKUP = "emulator-reasoner";

// Prices per million tokens, in the account's credit unit (the emulator's defaults here).
const PRICES = {
  [MODEL]: { input: 0.5, output: 1.5 },
  [BACKUP]: { input: 1, output: 4 },
};

const getWeather = tool(async ({ city }) => `Sunny, 21°C in ${city}`, {
  name: "get_weather",
  description: "Get the weather for a city",
  schema: z.object({ city: z.string() }),
});

/** Every step must call the tool: an agent that never stops by itself, to show the cap at work. */
const alwaysCallTheTool = createMiddleware({
  name: "alwaysCallTheTool",
  wrapModelCall: (request, handler) => handler({ ...request, toolChoice: "required" }),
});

const QUESTION = { messages: [{ role: "user", content: "What is the weather in Paris?" }] };

/** The text of the agent's last message, and which model wrote it. */
function lastOf(messages: readonly unknown[]): { text: string; model: unknown } {
  const last = messages.at(-1);
  return AIMessage.isInstance(last)
    ? { text: last.text, model: last.response_metadata.model_name }
    : { text: "", model: undefined };
}

export async function main(log: Log = console.log, connection?: Connection): Promise<void> {
  const tracker = new UsageTracker({ prices: PRICES, currency: "credit" });
  const model = new ChatInferenceService(MODEL, { maxTokens: 100 });

  // 1. A cap on one invocation: the loop ends before the call whose worst case would overspend.
  const capped = createAgent({
    model,
    tools: [getWeather],
    middleware: [budgetMiddleware({ tracker, maxCost: 0.001 }), alwaysCallTheTool],
  });
  const result = await capped.invoke(QUESTION, { recursionLimit: 100 });
  const sent = tracker.records.filter((record) => record.settlement === "reported").length;
  const refused = tracker.records.filter((record) => record.settlement === "refused").length;
  log(`budget, end: ${sent} calls sent, ${refused} refused; ${lastOf(result.messages).text}`);

  // 2. The same cap, rejecting instead: BudgetExceededError itself, the model not called.
  const strict = createAgent({
    model,
    tools: [getWeather],
    middleware: [
      budgetMiddleware({ tracker, maxCost: 0.001, onExhausted: "throw" }),
      alwaysCallTheTool,
    ],
  });
  try {
    await strict.invoke(QUESTION, { recursionLimit: 100 });
    log("budget, throw: no error");
  } catch (error) {
    if (!BudgetExceededError.isInstance(error)) throw error;
    log(`budget, throw: ${error.name}: ${error.message}`);
  }

  if (!connection?.emulator) {
    log("fallbacks: skipped (the primary model fails only against the emulator)");
    return;
  }
  // No retries on the failing primary, so that the fallback comes at once.
  const failing = (fault: string) =>
    new ChatInferenceService(MODEL, {
      maxRetries: 0,
      configuration: { defaultHeaders: { "X-Emulator-Fault": fault } },
    });
  const backup = new ChatInferenceService(BACKUP, { maxTokens: 100 });

  // 3. Fallbacks on what another model may not have; never on what none fixes.
  for (const fault of ["503", "insufficient_user_quota"]) {
    const agent = createAgent({
      model: failing(fault),
      tools: [getWeather],
      middleware: [fallbackMiddleware({ models: [backup] })],
    });
    try {
      const answered = lastOf((await agent.invoke(QUESTION)).messages);
      log(`fallback, primary ${fault}: answered by ${answered.model}: ${answered.text}`);
    } catch (error) {
      // What a middleware throws reaches the caller as a MiddlewareError; the typed error is its cause.
      const cause = MiddlewareError.isInstance(error) ? error.cause : error;
      if (!InferenceServiceError.isInstance(cause)) throw error;
      log(`fallback, primary ${fault}: not passed on, ${cause.name} thrown`);
    }
  }

  // 4. Both, streamed: the budget outside counts every attempt of the fallback inside it.
  const both = createAgent({
    model: failing("503"),
    tools: [getWeather],
    middleware: [
      budgetMiddleware({ tracker, maxCost: 0.01 }),
      fallbackMiddleware({ models: [backup] }),
    ],
  });
  const before = tracker.records.length;
  let pieces = 0;
  let text = "";
  for await (const [chunk, metadata] of await both.stream(QUESTION, { streamMode: "messages" })) {
    if (metadata.langgraph_node !== "model_request" || !chunk.text) continue;
    pieces++;
    text += chunk.text;
  }
  const attempts = tracker.records.slice(before);
  const failed = attempts.filter((record) => record.error !== undefined).length;
  log(
    `streamed: ${pieces} pieces (${text}); ${attempts.length} model calls, ${failed} failed, the rest by ${BACKUP}`,
  );
  log(tracker.summary());
}

await runIfMain(import.meta.url, main);
