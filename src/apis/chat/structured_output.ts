/**
 * @module Structured output as `ChatOpenAI` does it, with two differences: the traced method is
 * LangChain's own name for it, and a json_schema answer cut short fails as the openai SDK's
 * `parse` would make it fail (this package never calls `parse`: it reads an answer before its
 * `<think>` tags are taken out).
 */
import type { OpenAI } from "openai";
import { ContentFilterFinishReasonError, LengthFinishReasonError } from "openai/error";

/**
 * The config with a traced `function_calling` method renamed `functionCalling`, and the traced
 * schema without the `title` the base class adds (the tool's name) when the schema has none of its
 * own: LangChain traces the schema as given. Any other config is returned as it is.
 */
export function withFunctionCallingTrace<T extends object>(config: T): T {
  const { ls_structured_output_format: format, tools } = config as {
    ls_structured_output_format?: { kwargs?: { method?: string }; schema?: object };
    tools?: Array<{ function?: { parameters?: object } }>;
  };
  if (format?.kwargs?.method !== "function_calling") return config;
  let schema = format.schema;
  const parameters = tools?.[0]?.function?.parameters;
  if (schema && "title" in schema && parameters && !("title" in parameters)) {
    const { title: _injected, ...rest } = schema as { title?: unknown };
    schema = rest;
  }
  return {
    ...config,
    ls_structured_output_format: {
      ...format,
      kwargs: { ...format.kwargs, method: "functionCalling" },
      ...(schema ? { schema } : {}),
    },
  };
}

/**
 * What the openai SDK's `parse` (which `@langchain/openai` calls for a json_schema answer) raises
 * on an answer cut short, where the JSON cannot be whole: the same errors, after the attempt has
 * settled what the service charged for it.
 */
export function checkStructuredFinish(completion: OpenAI.Chat.Completions.ChatCompletion): void {
  for (const choice of completion.choices) {
    if (choice.finish_reason === "length") throw new LengthFinishReasonError();
    if (choice.finish_reason === "content_filter") throw new ContentFilterFinishReasonError();
  }
}
