/** @module Structured output with a zod schema (default method: a forced function call). */
import { ChatInferenceService } from "langchain-inference-service";
import { z } from "zod";
import { type Log, MODEL, runIfMain } from "./connection.js";

const Person = z.object({
  name: z.string().describe("The person's full name"),
  age: z.number().describe("Age in years"),
  city: z.string().describe("City where the person lives"),
});

export async function main(log: Log = console.log): Promise<void> {
  const model = new ChatInferenceService(MODEL, { temperature: 0 });
  const extract = model.withStructuredOutput(Person, { name: "Person" });
  const person = await extract.invoke('"Ada Lovelace" is 36 years old and lives in London.');
  log(`person: ${JSON.stringify(person)}`);
  log(`valid: ${Person.safeParse(person).success}`);
}

await runIfMain(import.meta.url, main);
