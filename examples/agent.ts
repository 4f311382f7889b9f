/** @module A tool-calling agent (`createAgent` from langchain) with two tools and summarization sized by the model's profile. */
import { tool } from "@langchain/core/tools";
import { createAgent, summarizationMiddleware } from "langchain";
import { ChatInferenceService } from "langchain-inference-service";
import { z } from "zod";
import { type Connection, type Log, MODEL, runIfMain } from "./connection.js";

const getWeather = tool(async ({ city }) => `It is 18°C and sunny in ${city}.`, {
  name: "get_weather",
  description: "Get the current weather for a city",
  schema: z.object({ city: z.string().describe("City name") }),
});

const convertCurrency = tool(
  async ({ amount, from, to }) => `${amount} ${from} is ${(amount * 1.08).toFixed(2)} ${to}.`,
  {
    name: "convert_currency",
    description: "Convert an amount of money from one currency to another",
    schema: z.object({
      amount: z.number().describe("Amount to convert"),
      from: z.string().describe("Currency code to convert from, e.g. EUR"),
      to: z.string().describe("Currency code to convert to, e.g. USD"),
    }),
  },
);

export async function main(log: Log = console.log, connection?: Connection): Promise<void> {
  // The service publishes no context windows: declare your models' in `profiles` (here, against
  // the emulator, its catalogue's). Summarization then starts at 80 % of the model's window.
  const profiles = connection?.emulator?.state.modelProfiles() ?? {};
  const model = new ChatInferenceService(MODEL, { temperature: 0, profiles });
  const window = model.profile.maxInputTokens;
  log(`context window of ${MODEL}: ${window ?? "not declared"} tokens`);
  const agent = createAgent({
    model,
    tools: [getWeather, convertCurrency],
    systemPrompt: "You are a helpful travel assistant. Use the tools.",
    middleware: [
      summarizationMiddleware({
        model,
        trigger: window ? { fraction: 0.8 } : { tokens: 8_000 },
        keep: { messages: 20 },
      }),
    ],
  });

  for (const question of ["What is the weather in Paris?", "Convert 100 EUR to USD"]) {
    const result = await agent.invoke({ messages: [{ role: "user", content: question }] });
    const calls = result.messages.flatMap((m) =>
      "tool_calls" in m && Array.isArray(m.tool_calls) ? m.tool_calls : [],
    );
    log(`user: ${question}`);
    for (const call of calls) log(`  tool call: ${call.name}(${JSON.stringify(call.args)})`);
    log(`  agent: ${result.messages.at(-1)?.text}`);
  }
}

await runIfMain(import.meta.url, main);
