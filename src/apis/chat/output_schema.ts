/**
 * @module The schema `withStructuredOutput` is given, read once: the name and description it is
 * sent under, its JSON schema, and how an answer is checked against it — by the zod or Standard
 * Schema itself when it is one, not at all for a plain JSON schema (as `ChatOpenAI` does).
 */
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { isSerializableSchema, isStandardSchema } from "@langchain/core/utils/standard_schema";
import {
  getSchemaDescription,
  type InteropZodType,
  interopSafeParseAsync,
  isInteropZodSchema,
} from "@langchain/core/utils/types";

type JsonObject = Record<string, unknown>;

/** An answer checked against the schema: its value as the schema gives it back, or why not. */
export type Checked = { ok: true; value: unknown } | { ok: false; detail: string; cause: unknown };

/** The schema of a structured output, as every method sends and checks it. */
export interface OutputSchema {
  /** The name of the tool or of the `json_schema` format. */
  name: string;
  description?: string;
  /** The JSON schema, as converted from the caller's schema (not yet made strict). */
  jsonSchema: JsonObject;
  /** Whether the schema came as zod or Standard Schema (`ChatOpenAI` makes `json_schema` strict then). */
  typed: boolean;
  check(value: unknown): Promise<Checked>;
}

/** A name OpenAI-style APIs take for a tool or a format. */
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** A problem's place and words, from a zod or Standard Schema issue. */
interface Issue {
  path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>;
  message: string;
}

/**
 * `schema` read as `withStructuredOutput` takes it: zod, a Standard Schema with a JSON schema, an
 * OpenAI function definition (`{ name, parameters }`) or a JSON schema. Its name is `name` when
 * given, else the function's name or the JSON schema's `title` (when it is a valid name), else
 * `"extract"`, as `ChatOpenAI` names it.
 */
export function readOutputSchema(schema: unknown, name: string | undefined): OutputSchema {
  const record = schema as JsonObject;
  if (isInteropZodSchema(schema) || isSerializableSchema(schema)) {
    const jsonSchema = toJsonSchema(schema) as JsonObject;
    const description = getSchemaDescription(schema) ?? stringOf(jsonSchema.description);
    const check = isInteropZodSchema(schema)
      ? (value: unknown) => checkZod(schema, value)
      : (value: unknown) => checkStandard(schema, value);
    return { name: name ?? "extract", description, jsonSchema, typed: true, check };
  }
  const isFunction = typeof record.name === "string" && isObject(record.parameters);
  const jsonSchema = (isFunction ? record.parameters : record) as JsonObject;
  const title = stringOf(jsonSchema.title);
  return {
    name:
      name ??
      (isFunction ? (record.name as string) : title && NAME.test(title) ? title : "extract"),
    description: stringOf(record.description),
    jsonSchema,
    typed: false,
    check: async (value) => ({ ok: true, value }),
  };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringOf(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

async function checkZod(schema: InteropZodType, value: unknown): Promise<Checked> {
  const result = await interopSafeParseAsync(schema, value);
  if (result.success) return { ok: true, value: result.data };
  const { issues } = result.error as { issues?: Issue[] };
  return { ok: false, detail: issuesText(issues), cause: result.error };
}

async function checkStandard(schema: unknown, value: unknown): Promise<Checked> {
  if (!isStandardSchema(schema)) return { ok: true, value };
  const result = await schema["~standard"].validate(value);
  if (result.issues === undefined) return { ok: true, value: result.value };
  return { ok: false, detail: issuesText(result.issues), cause: result.issues };
}

/** The first problems, each with its place: `age: Expected number, received string`. */
export function issuesText(issues: readonly Issue[] | undefined): string {
  if (!issues?.length) return "it does not fit the schema";
  const shown = issues.slice(0, 3).map((issue) => {
    const path = (issue.path ?? []).map((p) => String(typeof p === "object" ? p.key : p));
    return `${path.length > 0 ? path.join(".") : "(the whole answer)"}: ${issue.message}`;
  });
  const more = issues.length > 3 ? `; and ${issues.length - 3} more` : "";
  return `${shown.join("; ")}${more}`;
}
