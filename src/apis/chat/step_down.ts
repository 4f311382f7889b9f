/**
 * @module The one step down of structured output, from `jsonSchema` to `functionCalling`: what it
 * records on the raw message and tells the callbacks, as a LangChain custom event
 * (`handleCustomEvent`, `on_custom_event` in `streamEvents`). Telling it never changes the call.
 */
import { dispatchCustomEvent } from "@langchain/core/callbacks/dispatch/web";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { StructuredOutputMethod } from "../../errors/errors.js";

/** The name of the custom event a structured output's step down is told by. */
export const STRUCTURED_OUTPUT_STEP_DOWN_EVENT = "structured_output_step_down";

/**
 * Why and from where a structured output stepped down: in the raw message's
 * `response_metadata.structuredOutputStepDown`.
 */
export interface StepDown {
  /** The method of the first attempt (`jsonSchema`). */
  from: StructuredOutputMethod;
  /**
   * `"prose"`: the answer was not JSON at all (a channel that ignores `response_format`);
   * `"refused"`: the model's server refused the format or its schema (`ResponseFormatError`).
   */
  reason: "prose" | "refused";
  /** The request ID of the first attempt. */
  requestId?: string;
  /** `"refused"`: the service's `code` (`invalid_json_schema`, …). */
  code?: string;
}

/**
 * The data of the {@link STRUCTURED_OUTPUT_STEP_DOWN_EVENT} custom event: the step down, the
 * method stepped down to and the model asked.
 *
 * @example
 * ```ts
 * const handler = BaseCallbackHandler.fromMethods({
 *   handleCustomEvent(name, data: StructuredOutputStepDownEvent) {
 *     if (name === STRUCTURED_OUTPUT_STEP_DOWN_EVENT) console.warn(`${data.model}: ${data.reason}`);
 *   },
 * });
 * ```
 */
export interface StructuredOutputStepDownEvent extends StepDown {
  to: StructuredOutputMethod;
  model: string;
}

/** Tells the run's handlers of a step down; a handler that fails changes nothing. */
export async function announceStepDown(
  stepDown: StepDown,
  to: StructuredOutputMethod,
  model: string,
  config: RunnableConfig,
): Promise<void> {
  const data: StructuredOutputStepDownEvent = { ...stepDown, to, model };
  try {
    await dispatchCustomEvent(STRUCTURED_OUTPUT_STEP_DOWN_EVENT, data, config);
  } catch {
    // What observes never decides: the second attempt is sent all the same.
  }
}
