import { describe, expect, it } from "vitest";
import { z } from "zod";
import { instanceOf, valueAfterField } from "../../../src/emulator/model/schema.js";

describe("instanceOf", () => {
  it("fills short string fields with capitalised codes from the message, in order", () => {
    const schema = {
      type: "object",
      properties: { amount: { type: "number" }, from: { type: "string" }, to: { type: "string" } },
      required: ["amount", "from", "to"],
    };
    expect(instanceOf(schema, "Convert 100 EUR to USD")).toEqual({
      amount: 100,
      from: "EUR",
      to: "USD",
    });
  });

  it("follows $ref into $defs and stops recursion with a valid value", () => {
    const Node: z.ZodType<{ label: string; children: unknown[] }> = z.lazy(() =>
      z.object({ label: z.string(), children: z.array(Node) }),
    );
    const Tree = z.object({ root: Node });
    const value = instanceOf(z.toJSONSchema(Tree), "Build a tree");
    expect(Tree.safeParse(value).success).toBe(true);
  });

  it("picks the first non-null variant of anyOf and honours const", () => {
    const schema = {
      type: "object",
      properties: {
        kind: { const: "circle" },
        radius: { anyOf: [{ type: "null" }, { type: "number", minimum: 2 }] },
      },
    };
    expect(instanceOf(schema, "no numbers here")).toEqual({ kind: "circle", radius: 2 });
  });

  it("merges allOf parts into one object", () => {
    const schema = {
      allOf: [
        { type: "object", properties: { a: { type: "integer" } } },
        { type: "object", properties: { b: { type: "boolean", default: true } } },
      ],
    };
    expect(instanceOf(schema, "a is 7")).toEqual({ a: 7, b: true });
  });

  it("rounds and clamps integers to their bounds", () => {
    const schema = {
      type: "object",
      properties: { stars: { type: "integer", minimum: 1, maximum: 5 } },
    };
    expect(instanceOf(schema, "Rate it 9.6 stars")).toEqual({ stars: 5 });
  });

  it("gives every number in the message to a list of numbers", () => {
    const schema = {
      type: "object",
      properties: { values: { type: "array", items: { type: "number" } } },
    };
    expect(instanceOf(schema, "Sum 3, 4 and 5")).toEqual({ values: [3, 4, 5] });
  });

  it("uses formats: a date or an email found in the text, else a plausible value", () => {
    const schema = {
      type: "object",
      properties: {
        day: { type: "string", format: "date" },
        contact: { type: "string", format: "email" },
        site: { type: "string", format: "uri" },
      },
    };
    expect(instanceOf(schema, "Book 2025-03-14 for ada@example.org")).toEqual({
      day: "2025-03-14",
      contact: "ada@example.org",
      site: "https://example.com",
    });
  });

  it("fills name and place fields from different capitalised words", () => {
    const schema = {
      type: "object",
      properties: { passenger_name: { type: "string" }, destination: { type: "string" } },
      required: ["passenger_name", "destination"],
    };
    expect(instanceOf(schema, "Book a trip for Ada Lovelace to Rome")).toEqual({
      passenger_name: "Ada Lovelace",
      destination: "Rome",
    });
  });

  it("cuts strings to maxLength and uses the fallback text for free-form fields", () => {
    const schema = { type: "object", properties: { summary: { type: "string", maxLength: 8 } } };
    expect(instanceOf(schema, "Summarise", "A long fallback answer")).toEqual({
      summary: "A long f",
    });
  });
});

describe("valueAfterField", () => {
  it.each([
    ["my name is Bob", "name", "Bob"],
    ["age: 42", "age", "42"],
    ["set the unit to celsius", "unit", "celsius"],
    ['the title is "Dune"', "title", "Dune"],
    ["the firstName is Ada", "firstName", "Ada"],
    ["the city of the future", "city", undefined],
  ])("reads %j for field %s", (text, field, expected) => {
    expect(valueAfterField(text, field)).toBe(expected);
  });
});
