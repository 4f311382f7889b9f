/**
 * @module One method of structured output: the call options it binds to the model (a forced tool,
 * or a `response_format`, traced under LangChain's name for the method) and how it reads the
 * answer — never a silent `undefined`: prose, a missing tool call or JSON that does not fit is a
 * failure the caller reports.
 */
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import { type AIMessage, type BaseMessage, isAIMessage } from "@langchain/core/messages";
import type { Runnable } from "@langchain/core/runnables";
import type { StructuredOutputMethod } from "../../errors/errors.js";
import { withoutUndefined } from "../../utils/without_undefined.js";
import type { OutputSchema } from "./output_schema.js";
import { toStrictSchema, withoutOptionalNulls } from "./strict_schema.js";

/** What the model offers a structured output: a binding of its own with call options. */
export interface BindingModel {
  withConfig(config: Record<string, unknown>): Runnable<BaseLanguageModelInput, BaseMessage>;
}

/** One method, bound: the model to invoke and what it needs to read the answer. */
export interface MethodBinding {
  method: StructuredOutputMethod;
  llm: Runnable<BaseLanguageModelInput, BaseMessage>;
  schema: OutputSchema;
  /** The schema was sent strict: a `null` for an optional field means "absent". */
  strict: boolean;
}

/** Why an answer could not be read. */
export type ReadFailure =
  | { kind: "prose"; text: string }
  | { kind: "no-tool-call"; text: string }
  | { kind: "invalid"; text: string; detail: string; cause?: unknown };

export type Reading = { ok: true; value: unknown } | { ok: false; failure: ReadFailure };

/** How each method is traced in `ls_structured_output_format` (LangChain's standard tests check it). */
const TRACED: Readonly<Record<StructuredOutputMethod, string>> = {
  functionCalling: "functionCalling",
  jsonSchema: "json_schema",
  jsonMode: "json_mode",
};

/**
 * `method` bound to `model`. `strict` is what the caller asked (for `functionCalling`, else the
 * model's `supportsStrictToolCalling`); a `jsonSchema` of a zod or Standard Schema is strict
 * unless `strict: false`, as `ChatOpenAI` sends it. A strict schema is sent as
 * {@link toStrictSchema} makes it.
 */
export function bindMethod(
  model: BindingModel,
  schema: OutputSchema,
  method: StructuredOutputMethod,
  strict: boolean | undefined,
): MethodBinding {
  const { name, description, jsonSchema } = schema;
  const sent = strict === true ? toStrictSchema(jsonSchema) : jsonSchema;
  const traced = (shown: Record<string, unknown>) => ({
    kwargs: { method: TRACED[method] },
    schema: shown,
  });
  let config: Record<string, unknown>;
  if (method === "functionCalling") {
    config = {
      tools: [
        { type: "function", function: withoutUndefined({ name, description, parameters: sent }) },
      ],
      tool_choice: { type: "function", function: { name } },
      ls_structured_output_format: traced(jsonSchema),
      ...(strict !== undefined ? { strict } : {}),
    };
  } else if (method === "jsonSchema") {
    const format = withoutUndefined({ name, description, schema: sent, strict });
    config = {
      response_format: { type: "json_schema", json_schema: format },
      ls_structured_output_format: traced(
        withoutUndefined({ title: name, description, ...jsonSchema }),
      ),
    };
  } else {
    config = {
      response_format: { type: "json_object" },
      ls_structured_output_format: traced({ title: name, ...jsonSchema }),
    };
  }
  const llm = model.withConfig({ outputVersion: "v0", ...config });
  return { method, llm, schema, strict: strict === true };
}

/** The answer of `binding`, read and checked against its schema. */
export async function readAnswer(binding: MethodBinding, raw: BaseMessage): Promise<Reading> {
  const { schema } = binding;
  let text: string;
  let value: unknown;
  if (binding.method === "functionCalling") {
    const message = isAIMessage(raw) ? (raw as AIMessage) : undefined;
    const call = message?.tool_calls?.find((c) => c.name === schema.name);
    if (call === undefined) {
      const broken = message?.invalid_tool_calls?.find((c) => c.name === schema.name);
      if (broken === undefined) return fail({ kind: "no-tool-call", text: raw.text });
      const args = broken.args ?? "";
      return fail({ kind: "invalid", text: args, detail: "its arguments are not JSON" });
    }
    value = call.args;
    text = JSON.stringify(call.args);
  } else {
    text = raw.text;
    const json = jsonIn(text);
    if (json === undefined) return fail({ kind: "prose", text });
    value = json.value;
  }
  const checked = await schema.check(
    binding.strict ? withoutOptionalNulls(value, schema.jsonSchema) : value,
  );
  if (checked.ok) return { ok: true, value: checked.value };
  return fail({ kind: "invalid", text, detail: checked.detail, cause: checked.cause });
}

function fail(failure: ReadFailure): Reading {
  return { ok: false, failure };
}

/**
 * The JSON of an answer: all of its text, or the JSON code block in it (```json … ```), as
 * LangChain's output parsers read it; undefined when neither is JSON.
 */
export function jsonIn(text: string): { value: unknown } | undefined {
  const trimmed = text.trim();
  const fenced =
    /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(trimmed) ?? /```json\s*([\s\S]*?)```/.exec(trimmed);
  for (const candidate of [trimmed, fenced?.[1]]) {
    if (candidate === undefined || candidate === "") continue;
    try {
      return { value: JSON.parse(candidate) };
    } catch {
      // Not this one.
    }
  }
  return undefined;
}
