/**
 * @module What `diagnose` needs of an API with a model class of its own to check it with one
 * call: the option and env variable its model ID comes from, the cheapest body, and what a usable
 * answer says, read with the class's own answer check. Each such API's folder has its `probe.ts`;
 * `diagnose` sends it, judges the failures and words the rest.
 */
import type { FailureContext } from "../errors/mapper.js";
import type { CheckedApi } from "../transport/apis.js";

/** A 2xx answer to a probe. */
export interface ProbeAnswer {
  data: unknown;
  response: Response;
  ctx: FailureContext;
}

/** How `diagnose` checks one API (its check is named by the API, titled by its row's `checkTitle`). */
export interface ApiProbe {
  api: CheckedApi;
  /** The `diagnose` option that names the model, which the hint of an unknown model names. */
  option: string;
  /** The env variable read when the option is not given. */
  env: string;
  /** The kind of model, in "no … model ID given". */
  kind: string;
  /** The one request's body, by `model`, with `prompt` as its text. */
  body(model: string, prompt: string): Record<string, unknown>;
  /**
   * What a 2xx answer shows, read with the class's own check (which throws the typed error of an
   * unusable one); `diagnose` adds the tokens used and what the check may cost.
   */
  read(answer: ProbeAnswer, model: string): string;
}
