import { describe, expect, it } from "vitest";
import { z } from "zod";
import { readOutputSchema } from "../../../src/apis/chat/output_schema.js";

describe("readOutputSchema", () => {
  it("reads zod: its JSON schema, its description, and a check that gives zod's output", async () => {
    const Person = z.object({ name: z.string(), age: z.coerce.number() }).describe("A person");
    const schema = readOutputSchema(Person, undefined);
    expect(schema).toMatchObject({ name: "extract", description: "A person", typed: true });
    expect(schema.jsonSchema).toMatchObject({ type: "object", required: ["name", "age"] });
    await expect(schema.check({ name: "Ada", age: "36" })).resolves.toEqual({
      ok: true,
      value: { name: "Ada", age: 36 },
    });
    const wrong = await schema.check({ name: 1 });
    expect(wrong).toMatchObject({ ok: false });
    expect(wrong.ok ? "" : wrong.detail).toMatch(/^name: .*; age: /);
  });

  it("names a JSON schema by `name`, else by its title when that is a valid name, and does not check it", async () => {
    const json = { title: "Person", type: "object", properties: { name: { type: "string" } } };
    expect(readOutputSchema(json, undefined).name).toBe("Person");
    expect(readOutputSchema(json, "who").name).toBe("who");
    expect(readOutputSchema({ ...json, title: "A person" }, undefined).name).toBe("extract");
    const schema = readOutputSchema(json, undefined);
    expect(schema.typed).toBe(false);
    await expect(schema.check({ anything: 1 })).resolves.toEqual({
      ok: true,
      value: { anything: 1 },
    });
  });

  it("reads an OpenAI function definition: its name, description and parameters", () => {
    const parameters = { type: "object", properties: { q: { type: "string" } } };
    const schema = readOutputSchema(
      { name: "search", description: "Search the web", parameters },
      undefined,
    );
    expect(schema).toMatchObject({
      name: "search",
      description: "Search the web",
      jsonSchema: parameters,
    });
  });
});
