/** @module Token usage and cost per call, per chain and in total, with a budget that reserves each call's worst case. */
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

  // A budget reserves each call's worst case (prompt + maxTokens) before sending it: of five
  // parallel calls, only those whose worst case fits are sent; the rest fail unsent.
  const capped = new ChatInferenceService(MODEL, { maxTokens: 64 });
  const guard = new UsageTracker({ prices: PRICES, budget: 0.00025 });
  const results = await capped.batch(
    ["Question 1", "Question 2", "Question 3", "Question 4", "Question 5"],
    { callbacks: [guard] },
    { returnExceptions: true },
  );
  const refused = results.filter((r) => BudgetExceededError.isInstance(r));
  log(
    `budget: ${results.length - refused.length} of ${results.length} calls sent, then: ${refused[0]?.message}`,
  );
}

await runIfMain(import.meta.url, main);
