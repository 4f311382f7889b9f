/** @module Token usage and cost per call, per chain and in total, with a budget guard. */
import { StringOutputParser } from "@langchain/core/output_parsers";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import {
  BudgetExceededError,
  ChatInferenceService,
  UsageTracker,
  withUsage,
} from "langchain-inference-service";
import { type Log, MODEL, runIfMain } from "./connection.js";

// Prices per million tokens, in the account's credit unit (the emulator's defaults here).
const PRICES = {
  [MODEL]: { input: 0.5, output: 1.5 },
  "emulator-reasoner": { input: 1, output: 4 },
};

export async function main(log: Log = console.log): Promise<void> {
  const model = new ChatInferenceService(MODEL);

  // Everything inside withUsage is tracked, however deeply the model calls are nested.
  const { usage } = await withUsage(
    async () => {
      await model.invoke("What is a token?");
      await model.batch(["one", "two", "three"]);
      const chain = ChatPromptTemplate.fromTemplate("Summarise: {text}")
        .pipe(model)
        .pipe(new StringOutputParser());
      await chain.invoke({ text: "LangChain chains compose prompts, models and parsers." });
    },
    { prices: PRICES },
  );
  log(usage.summary());

  // A budget refuses the next call once spent, before any request is sent.
  const guard = new UsageTracker({ prices: PRICES, budget: 0.000001 });
  try {
    await withUsage(async () => {
      await model.invoke("first call");
      await model.invoke("second call");
    }, guard);
  } catch (error) {
    if (!BudgetExceededError.isInstance(error)) throw error;
    log(`budget: ${guard.totals.calls} call sent, then: ${error.message}`);
  }
}

await runIfMain(import.meta.url, main);
