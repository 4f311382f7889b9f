/**
 * @module The JSON shape a prompt asks for in JSON mode (`response_format: json_object`), where the
 * schema travels in the prompt's text rather than in the request: a JSON schema, an example
 * object, or the keys it names.
 */

import { isRecord } from "../validate.js";

type Schema = Record<string, unknown>;

// Prompts are read up to here: the scan is linear, but a schema sits near the instructions anyway.
const MAX_SCANNED_CHARS = 200_000;
const KEY = /^[A-Za-z_][\w-]{0,63}$/;
// Field names that hold numbers when the prompt names them without a type ("keys name and age").
const NUMERIC_KEY =
  /^(?:age|count|year|years|number|amount|total|price|cost|quantity|score|rating|rank|size|length|width|height|weight|temperature|a|b|x|y|n)$|_(?:count|number|total|id)$/i;

/**
 * The schema described by `texts` (system and user turns, newest last), or undefined: the last
 * JSON schema object found (LangChain's format instructions show an example schema before the
 * real one), else the last JSON example object turned into a schema, else the keys named in a
 * sentence that mentions JSON ("Reply in JSON with the keys `setup` and `punchline`").
 */
export function schemaFromPrompt(texts: readonly string[]): Schema | undefined {
  const objects = texts.flatMap((text) =>
    jsonObjectsIn(text.slice(0, MAX_SCANNED_CHARS)).map((span) => span.value),
  );
  const schema = objects.findLast(isJsonSchema);
  if (schema) return schema;
  const example = objects.at(-1);
  if (example) return schemaOfExample(example) as Schema;
  for (const text of [...texts].reverse()) {
    const keys = namedKeys(text.slice(0, MAX_SCANNED_CHARS));
    if (keys.length > 0) {
      return {
        type: "object",
        properties: Object.fromEntries(
          keys.map((key) => [key, { type: NUMERIC_KEY.test(key) ? "number" : "string" }]),
        ),
      };
    }
  }
  return undefined;
}

function isJsonSchema(value: Schema): boolean {
  return isRecord(value.properties) && (value.type === undefined || value.type === "object");
}

/**
 * `text` without the JSON objects in it: what is left of a prompt for filling values, so that a
 * schema's own words and numbers ("$schema": "…/2020-12/…") are not taken for the user's.
 */
export function withoutJsonObjects(text: string): string {
  let result = "";
  let from = 0;
  for (const { start, end } of jsonObjectsIn(text.slice(0, MAX_SCANNED_CHARS))) {
    result += `${text.slice(from, start)} `;
    from = end;
  }
  return result + text.slice(from);
}

/**
 * The top-level `{…}` spans of `text` that parse as JSON objects, in order. One pass with a depth
 * counter that skips string literals, so the scan stays linear however the braces nest.
 */
function jsonObjectsIn(text: string): Array<{ value: Schema; start: number; end: number }> {
  const found: Array<{ value: Schema; start: number; end: number }> = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === "\\") i++;
      else if (char === '"') inString = false;
    } else if (char === '"' && depth > 0) {
      inString = true;
    } else if (char === "{") {
      if (depth++ === 0) start = i;
    } else if (char === "}" && depth > 0 && --depth === 0) {
      const value = parseObject(text.slice(start, i + 1));
      if (value) found.push({ value, start, end: i + 1 });
    }
  }
  return found;
}

function parseObject(text: string): Schema | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) && Object.keys(value).length > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

/** `{"name": "Ada", "age": 36, "tags": ["x"]}` → an object schema with those types. */
function schemaOfExample(value: unknown): unknown {
  if (Array.isArray(value)) {
    return { type: "array", items: value.length > 0 ? schemaOfExample(value[0]) : {} };
  }
  if (isRecord(value)) {
    return {
      type: "object",
      properties: Object.fromEntries(
        Object.entries(value).map(([key, item]) => [key, schemaOfExample(item)]),
      ),
    };
  }
  if (typeof value === "number") return { type: Number.isInteger(value) ? "integer" : "number" };
  if (typeof value === "boolean") return { type: "boolean" };
  return { type: "string" };
}

/** Quoted or backticked identifiers in a sentence that mentions JSON and keys, fields or properties. */
function namedKeys(text: string): string[] {
  for (const sentence of text.split(/(?<=[.!?])\s+|\n+/)) {
    if (!/\bjson\b/i.test(sentence) || !/\b(?:keys?|fields?|propert(?:y|ies))\b/i.test(sentence)) {
      continue;
    }
    const keys = [...sentence.matchAll(/`([^`]+)`|"([^"]+)"|'([^']+)'/g)]
      .map((match) => match[1] ?? match[2] ?? match[3] ?? "")
      .filter((key) => KEY.test(key));
    if (keys.length > 0) return [...new Set(keys)];
  }
  return [];
}
