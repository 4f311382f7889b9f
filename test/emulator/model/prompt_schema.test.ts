import { StructuredOutputParser } from "@langchain/core/output_parsers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ChatInferenceService } from "../../../src/apis/chat/chat_models.js";
import { createEmulator } from "../../../src/emulator/index.js";
import { schemaFromPrompt } from "../../../src/emulator/model/prompt_schema.js";

describe("schemaFromPrompt: the shape a JSON-mode prompt describes", () => {
  it("takes the last JSON schema of LangChain's format instructions, not their example", async () => {
    const parser = StructuredOutputParser.fromZodSchema(
      z.object({ title: z.string(), year: z.number() }),
    );
    const schema = schemaFromPrompt([`Extract the film.\n${parser.getFormatInstructions()}`]);
    expect(schema).toMatchObject({
      type: "object",
      properties: { title: { type: "string" }, year: { type: "number" } },
    });
  });

  it("turns an example object into a schema of the same types", () => {
    expect(
      schemaFromPrompt(['Reply as JSON like {"name": "Ada", "age": 36, "tags": ["x"]}']),
    ).toEqual({
      type: "object",
      properties: {
        name: { type: "string" },
        age: { type: "integer" },
        tags: { type: "array", items: { type: "string" } },
      },
    });
  });

  it("reads keys named in a sentence about JSON, numbers for numeric-sounding names", () => {
    expect(
      schemaFromPrompt(["Respond in JSON with the keys `setup`, `punchline` and 'rating'."]),
    ).toEqual({
      type: "object",
      properties: {
        setup: { type: "string" },
        punchline: { type: "string" },
        rating: { type: "number" },
      },
    });
  });

  it("finds nothing in a prompt that describes no shape, and survives unbalanced braces", () => {
    expect(schemaFromPrompt(["Say hi in JSON"])).toBeUndefined();
    expect(schemaFromPrompt(["{ { not json } and } } {"])).toBeUndefined();
    expect(schemaFromPrompt(["{".repeat(100_000)])).toBeUndefined();
  });
});

describe('withStructuredOutput(schema, { method: "jsonMode" }) against the emulator', () => {
  const emulator = createEmulator();
  const model = new ChatInferenceService("emulator-chat", {
    apiKey: emulator.apiKey,
    baseURL: emulator.baseURL,
    fetch: emulator.fetch,
  });
  const Person = z.object({ name: z.string(), age: z.number() });

  it("parses an object that fills the keys the prompt names", async () => {
    const person = await model.withStructuredOutput(Person, { method: "jsonMode" }).invoke([
      { role: "system", content: "Answer in JSON with the keys `name` and `age`." },
      { role: "user", content: "My name is Ada and I am 36 years old." },
    ]);
    expect(person).toEqual({ name: "Ada", age: 36 });
    expect(emulator.state.lastRequest()).toMatchObject({ status: 200, model: "emulator-chat" });
  });

  it("parses an object that fills a JSON schema given in the prompt", async () => {
    const schema = JSON.stringify(z.toJSONSchema(Person));
    const person = await model
      .withStructuredOutput(Person, { method: "jsonMode" })
      .invoke(`Reply in JSON matching this schema: ${schema}\nName is Bob, age is 42.`);
    expect(person).toEqual({ name: "Bob", age: 42 });
  });
});
