/**
 * @module A `RunnableBinding` of a chat model whose bound call options never show their secrets:
 * per-call headers given with `withConfig({ options: { headers } })` (or through `bindTools`,
 * `withStructuredOutput`) are sent, but `JSON.stringify` and `console.log` of the binding show
 * `[redacted]` in their place, as they do for the model's own `defaultHeaders`.
 */
import { RunnableBinding, type RunnableConfig } from "@langchain/core/runnables";
import { redactCallOptions } from "../../utils/secrets.js";

/** `util.inspect`'s hook, by its registered symbol: no `node:util` import in the main entry. */
const INSPECT = Symbol.for("nodejs.util.inspect.custom");

/** Redacts the call options a serialised or printed binding carries, by path. */
function redactBound(value: unknown): unknown {
  return typeof value === "object" && value !== null ? redactCallOptions(value) : value;
}

/**
 * What the chat model's `withConfig` returns. Serialised as a plain `RunnableBinding`, so `load()`
 * reads it as before.
 */
export class RedactedBinding<
  RunInput,
  RunOutput,
  CallOptions extends RunnableConfig,
> extends RunnableBinding<RunInput, RunOutput, CallOptions> {
  /** Serialised under the id of a plain binding, which `load()` knows. */
  override get lc_id(): string[] {
    return [...this.lc_namespace, "RunnableBinding"];
  }

  override toJSON() {
    const json = super.toJSON();
    if (json.type !== "constructor") return json;
    const kwargs = json.kwargs as Record<string, unknown>;
    return {
      ...json,
      kwargs: { ...kwargs, config: redactBound(kwargs.config), kwargs: redactBound(kwargs.kwargs) },
    };
  }

  [INSPECT](
    _depth: number,
    options: unknown,
    inspect: (value: unknown, options: unknown) => string,
  ) {
    const shown = {
      bound: this.bound,
      config: redactBound(this.config),
      kwargs: redactBound(this.kwargs),
    };
    return `RunnableBinding ${inspect(shown, options)}`;
  }
}
