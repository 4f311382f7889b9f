/**
 * @module What the checks of a model with a route of its own (`embeddings`, `rerank`) share: the
 * verdict on one call of it, read with the class's own answer check.
 */
import { InsufficientCreditError, InvalidURLError, ModelNotFoundError } from "../errors/errors.js";
import { type CheckId, errorSummary, fromError, unexpected, type Verdict } from "./check.js";
import { unknownModel } from "./model.js";
import { answerError, type Outcome } from "./probe.js";

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
