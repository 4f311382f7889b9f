/** @module Builds a valid instance of a JSON schema, filled with values the message mentions. */

import { isRecord } from "../validate.js";
import { isStopword, words } from "./terms.js";
import { extractValues, type MessageValues } from "./text.js";

type Schema = Record<string, unknown>;

/** Values are handed out in order and each at most once, so two string fields get two names. */
class ValuePool {
  readonly values: MessageValues;
  readonly #used = new Set<string>();
  #numberIndex = 0;

  constructor(values: MessageValues) {
    this.values = values;
  }

  nextNumber(): number | undefined {
    return this.values.numbers[this.#numberIndex++];
  }

  remainingNumbers(): number[] {
    const rest = this.values.numbers.slice(this.#numberIndex);
    this.#numberIndex = this.values.numbers.length;
    return rest;
  }

  take(...lists: string[][]): string | undefined {
    for (const list of lists) {
      const value = list.find((item) => !this.#used.has(item));
      if (value !== undefined) {
        this.#used.add(value);
        return value;
      }
    }
    return undefined;
  }
}

interface Context {
  root: Schema;
  pool: ValuePool;
  /** Text for free-form string fields (an answer, a summary) that the message cannot fill. */
  fallbackText: string;
  depth: number;
}

// Recursive schemas ($ref to an ancestor) stop here with the smallest valid value.
const MAX_DEPTH = 8;
const SHALLOW_DEPTH = 4;

/**
 * A JSON value valid against `schema` (the subset LLM tools and structured output use: object,
 * array, string, number, integer, boolean, null, enum, const, anyOf/oneOf/allOf, $ref, type
 * arrays, minimum/maximum, minItems/maxItems, maxLength, format). Fields named like a place, a
 * name or a query take the matching values of `text`; "<field> is <value>" in the text wins.
 */
export function instanceOf(schema: unknown, text: string, fallbackText = text): unknown {
  const root = isRecord(schema) ? schema : {};
  return build(
    root,
    { root, pool: new ValuePool(extractValues(text)), fallbackText, depth: 0 },
    undefined,
  );
}

function build(schema: Schema, ctx: Context, field: string | undefined): unknown {
  if (ctx.depth > MAX_DEPTH) return null;
  const resolved = resolveRef(schema, ctx.root);
  if ("const" in resolved) return resolved.const;
  if (Array.isArray(resolved.enum) && resolved.enum.length > 0) return pickEnum(resolved, ctx);
  const variants = resolved.anyOf ?? resolved.oneOf;
  if (Array.isArray(variants) && variants.length > 0) {
    const variant = variants.filter(isRecord).find((v) => v.type !== "null") ?? variants[0];
    return build(isRecord(variant) ? variant : {}, ctx, field);
  }
  if (Array.isArray(resolved.allOf)) return build(mergeAllOf(resolved), ctx, field);
  const child = { ...ctx, depth: ctx.depth + 1 };
  switch (schemaType(resolved)) {
    case "object":
      return buildObject(resolved, child);
    case "array":
      return buildArray(resolved, child, field);
    case "number":
    case "integer":
      return pickNumber(resolved, ctx, field);
    case "boolean":
      return pickBoolean(resolved, ctx, field);
    case "null":
      return null;
    default:
      return pickString(resolved, ctx, field);
  }
}

function resolveRef(schema: Schema, root: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#")) return schema;
  let target: unknown = root;
  for (const part of ref.slice(1).split("/").filter(Boolean)) {
    target = isRecord(target)
      ? target[decodeURIComponent(part.replace(/~1/g, "/").replace(/~0/g, "~"))]
      : undefined;
  }
  return isRecord(target) ? target : {};
}

function mergeAllOf(schema: Schema): Schema {
  const parts = (schema.allOf as unknown[]).filter(isRecord);
  const properties = Object.assign(
    {},
    ...parts.map((part) => (isRecord(part.properties) ? part.properties : {})),
  );
  return { type: "object", ...Object.assign({}, ...parts), properties };
}

function schemaType(schema: Schema): string {
  const type = Array.isArray(schema.type)
    ? (schema.type.find((t) => t !== "null") ?? "null")
    : schema.type;
  if (typeof type === "string") return type;
  if (isRecord(schema.properties)) return "object";
  if ("items" in schema) return "array";
  return "string";
}

function buildObject(schema: Schema, ctx: Context): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  // Every declared property is filled, not only the required ones: strict schemas demand it.
  for (const [key, sub] of Object.entries(isRecord(schema.properties) ? schema.properties : {})) {
    result[key] = build(isRecord(sub) ? sub : {}, ctx, key);
  }
  return result;
}

function buildArray(schema: Schema, ctx: Context, field: string | undefined): unknown[] {
  const items = isRecord(schema.items) ? resolveRef(schema.items, ctx.root) : {};
  const min = typeof schema.minItems === "number" ? schema.minItems : 0;
  const max = typeof schema.maxItems === "number" ? schema.maxItems : Number.POSITIVE_INFINITY;
  const itemType = schemaType(items);
  // A list of numbers takes every number still unused ("add 3, 4 and 5" → [3, 4, 5]).
  const taken =
    (itemType === "number" || itemType === "integer") && !("enum" in items) && !("const" in items)
      ? ctx.pool.remainingNumbers().map((n) => clampNumber(items, n))
      : [];
  const result: unknown[] = taken.slice(0, max);
  // One item shows the shape; deep down only the minimum, so recursive schemas end.
  const wanted = ctx.depth < SHALLOW_DEPTH ? Math.max(min, 1) : min;
  while (result.length < wanted && result.length < max) result.push(build(items, ctx, field));
  return result;
}

/** The enum value the message mentions, else the default, else the first. */
function pickEnum(schema: Schema, ctx: Context): unknown {
  const options = schema.enum as unknown[];
  const lower = ctx.pool.values.text.toLowerCase();
  const mentioned = options.find(
    (option) =>
      typeof option === "string" &&
      new RegExp(`\\b${escapeRegExp(option.toLowerCase())}\\b`).test(lower),
  );
  if (mentioned !== undefined) return mentioned;
  return options.includes(schema.default) ? schema.default : options[0];
}

/** "<field> is 42", else the next number of the message, else the default or the minimum. */
function pickNumber(schema: Schema, ctx: Context, field: string | undefined): number {
  const stated = Number(statedValue(ctx, field));
  const value = Number.isFinite(stated)
    ? stated
    : (ctx.pool.nextNumber() ??
      (typeof schema.default === "number" ? schema.default : undefined) ??
      lowestAllowed(schema));
  return clampNumber(schema, value);
}

function lowestAllowed(schema: Schema): number {
  if (typeof schema.minimum === "number") return schema.minimum;
  if (typeof schema.exclusiveMinimum === "number") return schema.exclusiveMinimum + 1;
  return 1;
}

function clampNumber(schema: Schema, value: number): number {
  let result = schema.type === "integer" ? Math.round(value) : value;
  if (typeof schema.minimum === "number") result = Math.max(result, schema.minimum);
  if (typeof schema.maximum === "number") result = Math.min(result, schema.maximum);
  return result;
}

function pickBoolean(schema: Schema, ctx: Context, field: string | undefined): boolean {
  const stated = statedValue(ctx, field)?.toLowerCase();
  if (stated === "true" || stated === "yes") return true;
  if (stated === "false" || stated === "no") return false;
  if (typeof schema.default === "boolean") return schema.default;
  return /\b(?:yes|true)\b/i.test(ctx.pool.values.text);
}

const PLACE_FIELD = /location|city|place|country|destination|origin|region|address|town|where/i;
const NAME_FIELD = /name|person|author|user|who|owner|customer/i;
const QUERY_FIELD = /query|question|search|prompt|input|keyword|^q$|^text$/i;

// Plausible values for required fields the message does not fill.
const FORMAT_DEFAULTS: Readonly<Record<string, string>> = {
  date: "2025-01-01",
  "date-time": "2025-01-01T00:00:00Z",
  time: "12:00:00",
  email: "user@example.com",
  uri: "https://example.com",
  url: "https://example.com",
  uuid: "00000000-0000-4000-8000-000000000000",
};
const FORMAT_PATTERNS: Readonly<Record<string, RegExp>> = {
  date: /\b\d{4}-\d{2}-\d{2}\b/,
  email: /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/,
  uri: /https?:\/\/\S+/,
  url: /https?:\/\/\S+/,
};

function pickString(schema: Schema, ctx: Context, field: string | undefined): string {
  const value = stringValue(schema, ctx, field ?? "");
  return typeof schema.maxLength === "number" ? value.slice(0, schema.maxLength) : value;
}

/** By priority: a format, "<field> is <value>", the field's kind (place, name, query), then presets. */
function stringValue(schema: Schema, ctx: Context, field: string): string {
  const { pool } = ctx;
  const { text, quoted, names, places } = pool.values;
  const preset =
    typeof schema.default === "string"
      ? schema.default
      : Array.isArray(schema.examples) && typeof schema.examples[0] === "string"
        ? schema.examples[0]
        : undefined;
  const format = typeof schema.format === "string" ? schema.format : "";
  const formatDefault = FORMAT_DEFAULTS[format];
  if (formatDefault !== undefined)
    return FORMAT_PATTERNS[format]?.exec(text)?.[0] ?? preset ?? formatDefault;
  const stated = statedValue(ctx, field);
  if (stated !== undefined) return stated;
  if (PLACE_FIELD.test(field)) return pool.take(places, names, quoted) ?? preset ?? "Paris";
  if (NAME_FIELD.test(field)) {
    const people = names.filter((name) => !places.includes(name));
    return pool.take(people, quoted, names) ?? preset ?? "Alice";
  }
  if (QUERY_FIELD.test(field)) return pool.take(quoted) ?? text.trim().replace(/[?!.]+$/, "");
  // Codes written in capitals (EUR, USD, SKU42) fill short fields like `from`/`to` in order.
  const codes = names.filter((name) => /^[A-Z][A-Z0-9]{1,7}$/.test(name));
  return pool.take(quoted, codes) ?? preset ?? ctx.fallbackText;
}

function statedValue(ctx: Context, field: string | undefined): string | undefined {
  return field ? valueAfterField(ctx.pool.values.text, field) : undefined;
}

/**
 * The value right after a field's name: "my name is Bob" → "Bob", "age: 42" → "42",
 * "unit to celsius" → "celsius". Function words are not values ("the city of" → undefined).
 */
export function valueAfterField(text: string, field: string): string | undefined {
  const fieldWords = words(field).map((word) => escapeRegExp(word.toLowerCase()));
  if (fieldWords.length === 0) return undefined;
  const label = new RegExp(
    `\\b${fieldWords.join("[\\s_-]*")}\\b\\s*(?:is|are|was|of|to|=|:|equals?)?\\s*`,
    "gi",
  );
  for (const match of text.matchAll(label)) {
    const value = VALUE.exec(text.slice((match.index ?? 0) + match[0].length));
    const found = value?.[1] ?? value?.[2] ?? value?.[3];
    if (found !== undefined && !isStopword(found)) return found;
  }
  return undefined;
}

const VALUE =
  /^(?:"([^"]+)"|(-?\d+(?:\.\d+)?)(?![\p{L}\d])|(\p{L}[\p{L}'’-]*(?:\s+\p{Lu}[\p{L}'’-]*)*))/u;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
