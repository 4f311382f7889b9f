/**
 * @module An agent with tools on a reasoning model through the Responses API
 * (`useResponsesApi: true`): each turn's reasoning item, sealed by the service
 * (`encrypted_content`), rides on the reply and is sent back whole with the tool results —
 * stateless, as a gateway needs (docs/responses.md).
 */

import { AIMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { ChatInferenceService, UsageTracker } from "langchain-inference-service";
import { z } from "zod";
import { type Log, runIfMain } from "./connection.js";

/** The reasoning model: INFERENCE_SERVICE_RESPONSES_MODEL, else the emulator's reasoner. */
const MODEL = process.env.INFERENCE_SERVICE_RESPONSES_MODEL ?? "emulator-reasoner";

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

export async function main(log: Log = console.log): Promise<void> {
  const model = new ChatInferenceService(MODEL, {
    useResponsesApi: true, // POST …/responses: function tools with a reasoning effort
    reasoning: { effort: "low" }, // and a summary of the reasoning ("auto")
  });
  const usage = new UsageTracker();
  const agent = createAgent({ model, tools: [getWeather, getTime] });
  const question = "What is the weather in Paris and the time in Tokyo?";
  const result = await agent.invoke(
    { messages: [{ role: "user", content: question }] },
    { callbacks: [usage] },
  );
  log(`user: ${question}`);
  for (const message of result.messages) {
    if (!AIMessage.isInstance(message)) continue;
    for (const block of message.contentBlocks) {
      if (block.type === "reasoning") {
        const sealed = typeof block.encrypted_content === "string" ? ", sealed" : "";
        log(`  reasoning${sealed}: ${block.reasoning}`);
      }
    }
    for (const call of message.tool_calls ?? []) {
      log(`  tool call: ${call.name}(${JSON.stringify(call.args)})`);
    }
  }
  log(`  answer: ${result.messages.at(-1)?.text.replaceAll("\n", " ")}`);
  log(usage.summary());
}

await runIfMain(import.meta.url, main);
