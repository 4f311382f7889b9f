/**
 * @module An agent on a thinking model: `createAgent` with two tools and a structured answer, two
 * turns kept by a checkpointer. The model needs the reasoning of the turn's tool calls sent back
 * (as DeepSeek's thinking mode does), reads part of each prompt from its cache, and is paid for at
 * its cached price.
 */

import { AIMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { ChatInferenceService, UsageTracker } from "langchain-inference-service";
import { z } from "zod";
import { type Connection, type Log, runIfMain } from "./connection.js";

/** The thinking model: INFERENCE_SERVICE_THINKING_MODEL, else the emulator's DeepSeek-like one. */
const THINKING_MODEL = process.env.INFERENCE_SERVICE_THINKING_MODEL ?? "emulator-thinker";

const getWeather = tool(async ({ city }) => `It is 18°C and sunny in ${city}.`, {
  name: "get_weather",
  description: "Get the current weather for a city",
  schema: z.object({ city: z.string().describe("City name") }),
});

const getTime = tool(async ({ city }) => `It is 14:05 in ${city}.`, {
  name: "get_time",
  description: "Get the current local time in a city",
  schema: z.object({ city: z.string().describe("City name") }),
});

const Answer = z.object({ answer: z.string().describe("The answer, in one or two sentences") });

export async function main(log: Log = console.log, connection?: Connection): Promise<void> {
  // Against the emulator, its catalogue's profile of the model; against the service, declare your
  // own (e.g. `{ reasoningRoundTrip: "never" }` for an R1-style model).
  const profiles = connection?.emulator?.state.modelProfiles() ?? {};
  const model = new ChatInferenceService(THINKING_MODEL, {
    reasoning: { effort: "medium" }, // sent as reasoning_effort
    profiles,
  });
  // Credit per million tokens; a prompt token read from the model's cache costs a tenth.
  const usage = new UsageTracker({
    prices: { [THINKING_MODEL]: { input: 0.28, cachedInput: 0.028, output: 0.42 } },
    currency: "credit",
  });
  const agent = createAgent({
    model,
    tools: [getWeather, getTime],
    responseFormat: Answer,
    checkpointer: new MemorySaver(),
  });
  const config = { configurable: { thread_id: "trip" }, callbacks: [usage] };

  const wallet = connection?.emulator?.state.credit;
  let seen = 0;
  for (const question of [
    "What is the weather in Paris and the time in Tokyo?",
    "And the weather in Rome?",
  ]) {
    const result = await agent.invoke({ messages: [{ role: "user", content: question }] }, config);
    log(`user: ${question}`);
    for (const message of result.messages.slice(seen)) {
      if (!AIMessage.isInstance(message)) continue;
      const thought = message.additional_kwargs.reasoning_content;
      if (typeof thought === "string") log(`  thought: ${thought}`);
      for (const call of message.tool_calls ?? []) {
        log(`  tool call: ${call.name}(${JSON.stringify(call.args)})`);
      }
    }
    seen = result.messages.length;
    log(`  answer: ${result.structuredResponse.answer.replaceAll("\n", " ")}`);
  }
  log(usage.summary());
  if (wallet !== undefined && connection?.emulator) {
    // The emulator charges cached tokens at the same prices: the Wallet agrees with the tracker.
    const drop = wallet - connection.emulator.state.credit;
    log(`wallet drop ${drop.toPrecision(6)}, tracked ${usage.spent.toPrecision(6)}`);
  }
}

await runIfMain(import.meta.url, main);
