/**
 * @module The check of an API with a model class of its own (`embeddings`, `rerank`): its probe
 * (`apis/<api>/probe.ts`) sent, and the verdict on that one call, read with the class's own
 * answer check.
 */
import type { ApiProbe } from "../apis/probe.js";
import { InsufficientCreditError, InvalidURLError, ModelNotFoundError } from "../errors/errors.js";
import { type CheckId, errorSummary, fromError, unexpected, type Verdict } from "./check.js";
import { unknownModel } from "./model.js";
import { answerError, type Outcome, PROMPT, post, type Target, tokensUsed } from "./probe.js";

/** The call a check made, and how to judge its answer. */
export interface ModelCall {
  id: CheckId;
  model: string;
  /** The option the ID came from, which the hint of an unknown model names. */
  option: string;
  /**
   * Reads a 2xx answer with the class's own check (which throws the typed error of an unusable
   * one) and says what passed.
   */
  read: (outcome: Extract<Outcome, { ok: true }>) => string;
}

/** The verdict on one call of a model: its answer read, or its typed error explained. */
export function checkModelCall(outcome: Outcome, { id, model, option, read }: ModelCall): Verdict {
  if (outcome.ok) {
    let detail = "";
    const unusable = answerError(outcome, () => {
      detail = read(outcome);
    });
    if (unusable) return unexpected(id, unusable, `"${model}" answered`);
    return { id, status: "pass", detail, requestId: outcome.requestId };
  }
  const { error } = outcome;
  if (ModelNotFoundError.isInstance(error)) {
    const check = fromError(id, error, unknownModel(model));
    // The mapper's hint names the classes' option, `model`; here the ID came from another.
    return { ...check, fix: check.fix?.replace("passed as `model`", `passed as \`${option}\``) };
  }
  if (InvalidURLError.isInstance(error)) {
    // The mapper's summary says the service offers no such route at this URL.
    return fromError(id, error, errorSummary(error));
  }
  if (InsufficientCreditError.isInstance(error)) {
    return fromError(
      id,
      error,
      `"${model}" could not be checked: no credit left (HTTP 403 insufficient_user_quota).`,
    );
  }
  return unexpected(id, error, `"${model}" could not be checked`);
}

/** Sends an API's probe with `model` and judges the answer. */
export async function checkProbe(
  target: Target,
  probe: ApiProbe,
  model: string,
  availableModels: string[] | undefined,
): Promise<Verdict> {
  const outcome = await post(target, probe.api, probe.body(model, PROMPT), {
    model,
    availableModels,
  });
  return checkModelCall(outcome, {
    id: probe.api,
    model,
    option: probe.option,
    read: (answer) =>
      `${probe.read(answer, model)}${tokensUsed(answer)}; this check may cost a token or two.`,
  });
}
