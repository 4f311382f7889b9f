/** @module An LCEL chain: prompt → ChatInferenceService → string parser. */
import { StringOutputParser } from "@langchain/core/output_parsers";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { ChatInferenceService } from "langchain-inference-service";
import { type Log, MODEL, runIfMain } from "./connection.js";

export async function main(log: Log = console.log): Promise<void> {
  const prompt = ChatPromptTemplate.fromMessages([
    ["system", "You are a concise assistant. Answer in one sentence."],
    ["human", "Explain {topic} to a new engineer."],
  ]);
  const model = new ChatInferenceService(MODEL, { temperature: 0 });
  const chain = prompt.pipe(model).pipe(new StringOutputParser());

  const answer = await chain.invoke({ topic: "retries with exponential backoff" });
  log(`answer: ${answer}`);
}

await runIfMain(import.meta.url, main);
