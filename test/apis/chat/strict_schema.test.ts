import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toStrictSchema, withoutOptionalNulls } from "../../../src/apis/chat/strict_schema.js";

type Schema = Record<string, unknown>;

describe("toStrictSchema", () => {
  it("requires every property, makes the optional ones nullable and closes every object", () => {
    const schema: Schema = {
      type: "object",
      properties: {
        name: { type: "string" },
        age: { type: "integer", description: "Years" },
        home: { type: "object", properties: { city: { type: "string" } } },
        tags: {
          type: "array",
          items: { type: "object", properties: { label: { type: "string" } } },
        },
        kind: { type: "string", enum: ["a", "b"] },
      },
      required: ["name"],
    };
    expect(toStrictSchema(schema)).toEqual({
      type: "object",
      properties: {
        name: { type: "string" },
        age: { type: ["integer", "null"], description: "Years" },
        home: {
          anyOf: [
            {
              type: "object",
              properties: { city: { type: ["string", "null"] } },
              required: ["city"],
              additionalProperties: false,
            },
            { type: "null" },
          ],
        },
        tags: {
          anyOf: [
            {
              type: "array",
              items: {
                type: "object",
                properties: { label: { type: ["string", "null"] } },
                required: ["label"],
                additionalProperties: false,
              },
            },
            { type: "null" },
          ],
        },
        kind: { anyOf: [{ type: "string", enum: ["a", "b"] }, { type: "null" }] },
      },
      required: ["name", "age", "home", "tags", "kind"],
      additionalProperties: false,
    });
    // A copy: the caller's schema is left as it was.
    expect(schema.required).toEqual(["name"]);
  });

  it("leaves a property that already accepts null as it is", () => {
    const strict = toStrictSchema({
      type: "object",
      properties: {
        a: { type: ["string", "null"] },
        b: { anyOf: [{ type: "number" }, { type: "null" }] },
        c: { enum: ["x", null] },
        d: {},
      },
    });
    expect(strict.properties).toEqual({
      a: { type: ["string", "null"] },
      b: { anyOf: [{ type: "number" }, { type: "null" }] },
      c: { enum: ["x", null] },
      d: {},
    });
    expect(strict.required).toEqual(["a", "b", "c", "d"]);
  });

  it("follows definitions, unions and the schema of a record, and keeps a record's own schema", () => {
    const strict = toStrictSchema({
      type: "object",
      properties: {
        node: { $ref: "#/$defs/Node" },
        either: {
          anyOf: [{ type: "object", properties: { x: { type: "string" } } }, { type: "string" }],
        },
        scores: { type: "object", additionalProperties: { type: "number" } },
      },
      required: ["node", "either", "scores"],
      $defs: { Node: { type: "object", properties: { next: { $ref: "#/$defs/Node" } } } },
    });
    expect(strict.$defs).toEqual({
      Node: {
        type: "object",
        properties: { next: { anyOf: [{ $ref: "#/$defs/Node" }, { type: "null" }] } },
        required: ["next"],
        additionalProperties: false,
      },
    });
    const properties = strict.properties as Record<string, Schema>;
    expect((properties.either!.anyOf as Schema[])[0]).toMatchObject({
      required: ["x"],
      additionalProperties: false,
    });
    // A record says what its other properties are: strict mode cannot say it, the service decides.
    expect(properties.scores).toEqual({
      type: "object",
      additionalProperties: { type: "number" },
      properties: {},
      required: [],
    });
  });

  it("prepares what zod 4 makes of optional fields", () => {
    const Person = z.object({
      name: z.string(),
      nickname: z.string().optional(),
      friends: z.array(z.object({ name: z.string(), since: z.number().optional() })).optional(),
    });
    const strict = toStrictSchema(toJsonSchema(Person) as Schema);
    expect(strict).toMatchObject({
      required: ["name", "nickname", "friends"],
      additionalProperties: false,
      properties: { nickname: { type: ["string", "null"] } },
    });
    const friends = (strict.properties as Record<string, Schema>).friends!.anyOf as Schema[];
    expect((friends[0]!.items as Schema).required).toEqual(["name", "since"]);
  });
});

describe("withoutOptionalNulls", () => {
  const Profile = z.object({
    name: z.string(),
    nickname: z.string().optional(),
    note: z.string().nullable().optional(),
    address: z.object({ city: z.string(), zip: z.string().optional() }).optional(),
    pets: z.array(z.object({ kind: z.string(), name: z.string().optional() })),
    anything: z.unknown().optional(),
  });
  const schema = toJsonSchema(Profile) as Schema;

  it("takes out the nulls of optional fields that do not accept null, at every depth", () => {
    const answer = {
      name: "Ada",
      nickname: null,
      note: null,
      address: { city: "London", zip: null },
      pets: [
        { kind: "cat", name: null },
        { kind: "dog", name: "Rex" },
      ],
      anything: null,
    };
    const value = withoutOptionalNulls(answer, schema);
    expect(value).toEqual({
      name: "Ada",
      note: null,
      address: { city: "London" },
      pets: [{ kind: "cat" }, { kind: "dog", name: "Rex" }],
      anything: null,
    });
    expect(Profile.safeParse(value).success).toBe(true);
    // The answer itself is left as it was.
    expect(answer.nickname).toBeNull();
  });

  it("leaves a null of a required field for the schema to refuse", () => {
    expect(withoutOptionalNulls({ name: null, pets: [] }, schema)).toEqual({
      name: null,
      pets: [],
    });
  });

  it("follows local $refs and picks the union branch that lists the answer's keys", () => {
    const refSchema: Schema = {
      type: "object",
      properties: {
        item: {
          anyOf: [
            { $ref: "#/definitions/Book" },
            { type: "object", properties: { title: { type: "string" }, isbn: { type: "string" } } },
          ],
        },
      },
      required: ["item"],
      definitions: {
        Book: { type: "object", properties: { author: { type: "string" } }, required: [] },
      },
    };
    expect(withoutOptionalNulls({ item: { author: null } }, refSchema)).toEqual({ item: {} });
    expect(withoutOptionalNulls({ item: { title: "T", isbn: null } }, refSchema)).toEqual({
      item: { title: "T" },
    });
  });
});
