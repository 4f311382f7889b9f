/**
 * @module The `StructuredOutputError` of an answer that could not be read: what was asked, what
 * came back (the start of its text), and what to change.
 */
import { StructuredOutputError, type StructuredOutputMethod } from "../../errors/errors.js";
import type { StepDown } from "./step_down.js";
import type { ReadFailure } from "./structured_binding.js";

/** How much of the answer the message quotes; `rawText` holds all of it. */
const PREVIEW_CHARS = 120;

/** What a method asked of the model, in words. */
const ASKED: Readonly<Record<StructuredOutputMethod, string>> = {
  jsonSchema: "a json_schema response format",
  jsonMode: "a json_object response format",
  functionCalling: "a forced tool call",
};

const PROSE_HINT =
  "The model may not follow structured-output requests: try another model, say in the prompt what to extract, or pass `includeRaw: true` to get its answer in `raw` instead of this error. The whole text is in `rawText`.";
const INVALID_HINT =
  "Describe the fields in the schema (`.describe()`) or in the prompt, or loosen the schema. The whole answer is in `rawText`.";

/** What the caller knew of the call. */
export interface FailedCall {
  model: string;
  methods: readonly StructuredOutputMethod[];
  requestIds: readonly string[];
  stepDown?: StepDown;
}

/** The error of `failure`, the last answer's, after the attempts of `call`. */
export function structuredOutputError(
  failure: ReadFailure,
  call: FailedCall,
): StructuredOutputError {
  const method = call.methods.at(-1) ?? "functionCalling";
  const before = call.stepDown ? ` (after ${stepDownWords(call.stepDown)})` : "";
  const quoted = quote(failure.text);
  const model = `Model "${call.model}"`;
  const summary =
    failure.kind === "prose"
      ? `${model} answered ${ASKED[method]} in prose, not JSON${before}: ${quoted}.`
      : failure.kind === "no-tool-call"
        ? `${model} did not make the forced tool call and answered in prose instead${before}: ${quoted}.`
        : `The answer of model "${call.model}" to ${ASKED[method]} does not fit the schema${before}: ${failure.detail}. It was ${quoted}.`;
  return new StructuredOutputError({
    summary,
    hint: failure.kind === "invalid" ? INVALID_HINT : PROSE_HINT,
    rawText: failure.text,
    methods: call.methods,
    requestIds: call.requestIds,
    model: call.model,
    cause: failure.kind === "invalid" ? failure.cause : undefined,
  });
}

function stepDownWords(stepDown: StepDown): string {
  return stepDown.reason === "prose"
    ? `a prose answer to ${ASKED[stepDown.from]}`
    : `the service refused ${ASKED[stepDown.from]}${stepDown.code ? ` with code ${stepDown.code}` : ""}`;
}

/** The start of an answer, quoted on one line; `(empty)` for none. */
function quote(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat === "") return "(an empty answer)";
  return JSON.stringify(flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS)}…` : flat);
}
