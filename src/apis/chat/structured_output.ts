/**
 * @module `withStructuredOutput` of `ChatInferenceService`: the method chosen by the model's
 * profile (`jsonSchema` only where it says `structuredOutput: true`, else a forced tool call; an
 * explicit `method` wins), one step down from `jsonSchema` to `functionCalling` when the answer is
 * prose or the model's server refuses the `response_format`, and an honest failure — a
 * `StructuredOutputError` — when the answer still cannot be read. Each call decides on its own.
 */
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import type { ModelProfile } from "@langchain/core/language_models/profile";
import type { BaseMessage } from "@langchain/core/messages";
import { type Runnable, type RunnableConfig, RunnableLambda } from "@langchain/core/runnables";
import { z } from "zod";
import { parseOptions } from "../../config/options.js";
import {
  ConfigurationError,
  ResponseFormatError,
  type StructuredOutputError,
  type StructuredOutputMethod,
} from "../../errors/errors.js";
import { requestIdOf } from "./converters.js";
import { readOutputSchema } from "./output_schema.js";
import { announceStepDown, type StepDown } from "./step_down.js";
import {
  type BindingModel,
  bindMethod,
  type MethodBinding,
  type Reading,
  readAnswer,
} from "./structured_binding.js";
import { structuredOutputError } from "./structured_error.js";

/** What `withStructuredOutput` reads of the model besides its bindings. */
export interface StructuredOutputModel extends BindingModel {
  readonly model: string;
  readonly profile: ModelProfile;
  /** `ChatOpenAI`'s field: whether tools are sent `strict` when a call does not say. */
  readonly supportsStrictToolCalling?: boolean;
}

/**
 * What `withStructuredOutput(schema, { includeRaw: true })` gives: the raw message and the parsed
 * value, or — when the answer could not be read — `parsed: null` and the `parsingError`.
 */
export interface StructuredOutputWithRaw<RunOutput> {
  raw: BaseMessage;
  parsed: RunOutput;
  /** Set, with `parsed: null`, when the answer could not be read. */
  parsingError?: StructuredOutputError;
}

/** `withStructuredOutput`'s options (LangChain's `StructuredOutputMethodOptions`), as checked. */
const STRUCTURED_OUTPUT_OPTIONS = z.looseObject({
  method: z
    .enum(["functionCalling", "jsonSchema", "jsonMode"])
    .describe('"functionCalling", "jsonSchema" or "jsonMode"')
    .optional(),
  strict: z.boolean().describe("true or false").optional(),
  includeRaw: z.boolean().describe("true or false").optional(),
  name: z
    .string()
    .min(1)
    .describe("a non-empty string (the tool's or the format's name)")
    .optional(),
});

/**
 * The method a call uses: the one asked for, else `jsonSchema` when the model's profile says
 * `structuredOutput: true`, else `functionCalling`, which every tool-calling model supports.
 */
export function chooseMethod(
  asked: StructuredOutputMethod | undefined,
  profile: ModelProfile,
): StructuredOutputMethod {
  return asked ?? (profile.structuredOutput === true ? "jsonSchema" : "functionCalling");
}

/** A call's plan: the method tried first, and the one it steps down to (`jsonSchema` only). */
interface Plan {
  first: MethodBinding;
  fallback?: MethodBinding;
  includeRaw: boolean;
  model: string;
}

/**
 * The runnable `withStructuredOutput(schema, config)` returns: each call sends the chosen
 * method's request, reads the answer, and — for `jsonSchema` only — sends it once more as a forced
 * tool call when the answer is prose (not cut short) or the service refused the format
 * (`ResponseFormatError`). The result is the parsed value, or `{ raw, parsed }` with `includeRaw`.
 */
export function structuredOutput(
  model: StructuredOutputModel,
  outputSchema: unknown,
  config: unknown,
): Runnable<BaseLanguageModelInput, unknown> {
  const options = parseOptions(
    { owner: "withStructuredOutput", schema: STRUCTURED_OUTPUT_OPTIONS },
    config ?? {},
  );
  const method = chooseMethod(options.method, model.profile);
  if (method === "jsonMode" && options.strict !== undefined) {
    throw new ConfigurationError(
      "strict",
      '`strict` applies to the methods "functionCalling" and "jsonSchema", not "jsonMode": leave it out, or pass `method: "jsonSchema"`.',
    );
  }
  const schema = readOutputSchema(outputSchema, options.name);
  const toolStrict = options.strict ?? model.supportsStrictToolCalling;
  const formatStrict = options.strict ?? (schema.typed ? true : undefined);
  const plan: Plan = {
    first: bindMethod(model, schema, method, method === "jsonSchema" ? formatStrict : toolStrict),
    fallback:
      method === "jsonSchema"
        ? bindMethod(model, schema, "functionCalling", toolStrict)
        : undefined,
    includeRaw: options.includeRaw === true,
    model: model.model,
  };
  return RunnableLambda.from((input: BaseLanguageModelInput, runConfig?: RunnableConfig) =>
    runStructured(plan, input, runConfig ?? {}),
  ).withConfig({ runName: "StructuredOutput" });
}

/** One call: the answer (after a step down, if one was taken), parsed, or the failure. */
async function runStructured(
  plan: Plan,
  input: BaseLanguageModelInput,
  config: RunnableConfig,
): Promise<unknown> {
  const { raw, binding, reading, requestIds, stepDown } = await answer(plan, input, config);
  raw.response_metadata = {
    ...raw.response_metadata,
    structuredOutputMethod: binding.method,
    ...(stepDown ? { structuredOutputStepDown: stepDown } : {}),
  };
  if (reading.ok) return plan.includeRaw ? { raw, parsed: reading.value } : reading.value;
  const methods = stepDown ? [stepDown.from, binding.method] : [binding.method];
  const error: StructuredOutputError = structuredOutputError(reading.failure, {
    model: plan.model,
    methods,
    requestIds,
    stepDown,
  });
  if (plan.includeRaw) return { raw, parsed: null, parsingError: error };
  throw error;
}

/** The answer a call ends with, and how it came. */
interface Answered {
  raw: BaseMessage;
  binding: MethodBinding;
  reading: Reading;
  requestIds: string[];
  stepDown?: StepDown;
}

/** The first method's answer, or — when it calls for it — the answer of the method stepped down to. */
async function answer(
  plan: Plan,
  input: BaseLanguageModelInput,
  config: RunnableConfig,
): Promise<Answered> {
  const { first, fallback } = plan;
  let raw: BaseMessage;
  try {
    raw = await first.llm.invoke(input, config);
  } catch (error) {
    // Only a refusal of the format itself: the caller's other 400s are theirs to see.
    if (fallback === undefined || !ResponseFormatError.isInstance(error)) throw error;
    const { requestId, code } = error;
    const stepDown: StepDown = { from: first.method, reason: "refused", requestId, code };
    return stepDownTo(fallback, plan, input, config, stepDown);
  }
  const requestId = requestIdOf(raw);
  const reading = await readAnswer(first, raw);
  if (fallback !== undefined && isProse(reading, raw)) {
    const stepDown: StepDown = { from: first.method, reason: "prose", requestId };
    return stepDownTo(fallback, plan, input, config, stepDown);
  }
  return { raw, binding: first, reading, requestIds: requestId ? [requestId] : [] };
}

/**
 * Whether a `response_format` answer is prose: not JSON at all, and not cut short (JSON that ran
 * out of tokens is still the JSON asked for: a second request would not fix it).
 */
function isProse(reading: Reading, raw: BaseMessage): boolean {
  if (reading.ok || reading.failure.kind !== "prose") return false;
  const metadata = raw.response_metadata as { finish_reason?: unknown };
  return metadata.finish_reason !== "length";
}

/** Tells the step down to the callbacks, then sends the same request with `fallback`. */
async function stepDownTo(
  fallback: MethodBinding,
  plan: Plan,
  input: BaseLanguageModelInput,
  config: RunnableConfig,
  stepDown: StepDown,
): Promise<Answered> {
  await announceStepDown(stepDown, fallback.method, plan.model, config);
  const raw = await fallback.llm.invoke(input, config);
  const reading = await readAnswer(fallback, raw);
  const requestIds = [stepDown.requestId, requestIdOf(raw)].filter(
    (id): id is string => id !== undefined,
  );
  return { raw, binding: fallback, reading, requestIds, stepDown };
}
