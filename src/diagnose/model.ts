/** @module The `model` and `credit` checks: one chat completion with `max_tokens: 1`, when a model ID is given. */

import { checkChatCompletion } from "../apis/chat/answer.js";
import { availableModelsText } from "../errors/available_models.js";
import {
  type InferenceServiceError,
  InsufficientCreditError,
  ModelNotFoundError,
} from "../errors/errors.js";
import { fromError, unexpected, type Verdict } from "./check.js";
import { answerError, type Outcome, postChat, type Target, tokensUsed } from "./probe.js";

export async function checkModelAndCredit(
  target: Target,
  probe: Outcome,
  model: string | undefined,
  availableModels: string[] | undefined,
  endpointTypes?: readonly string[],
): Promise<Array<Verdict>> {
  // Some services check credit before the model: then the key probe already found it empty.
  const creditFromProbe =
    !probe.ok && InsufficientCreditError.isInstance(probe.error)
      ? noCredit(probe.error)
      : undefined;
  if (model === undefined || model.trim() === "") {
    return [
      {
        id: "model",
        status: "skip",
        detail: `Skipped: no model ID given (\`model\`).${
          availableModels ? ` ${availableModelsText("", availableModels)}` : ""
        }`,
      },
      creditFromProbe ?? {
        id: "credit",
        status: "skip",
        detail:
          "Skipped: needs a model ID (`model`); the check is one real call with max_tokens 1 and may cost a few tokens.",
      },
    ];
  }
  const outcome = await postChat(target, model, availableModels);
  if (outcome.ok) {
    const unusable = answerError(outcome, () =>
      checkChatCompletion(outcome.data, outcome.response.headers, outcome.ctx),
    );
    if (unusable) return [unexpected("model", unusable, `"${model}" answered`), skipCredit()];
    return [
      {
        id: "model",
        status: "pass",
        detail: `"${model}" answered one chat completion with max_tokens 1${tokensUsed(outcome)}; this check may cost a few tokens.${servedThrough(endpointTypes)}`,
        requestId: outcome.requestId,
      },
      {
        id: "credit",
        status: "pass",
        detail: "Above zero: the service accepted a paid call.",
        requestId: outcome.requestId,
      },
    ];
  }
  const { error } = outcome;
  if (ModelNotFoundError.isInstance(error)) {
    return [
      fromError("model", error, unknownModel(model)),
      creditFromProbe ?? skipCredit("needs a model ID the service knows."),
    ];
  }
  if (InsufficientCreditError.isInstance(error)) {
    // The probe's unknown model got 503 while this call got 403: the model is checked first, so it passed.
    const modelFirst = !probe.ok && ModelNotFoundError.isInstance(probe.error);
    return [
      modelFirst
        ? {
            id: "model",
            status: "pass",
            detail: `"${model}" is known: the service checks the model before the credit, and refused this call for credit only.`,
            requestId: error.requestId,
          }
        : {
            id: "model",
            status: "skip",
            detail: `Skipped: the service refused the call for credit before it looked up "${model}".`,
          },
      noCredit(error),
    ];
  }
  return [unexpected("model", error, `"${model}" could not be checked`), skipCredit()];
}

/**
 * What the model list says of the model's APIs (new-api's `supported_endpoint_types`): whether
 * `useResponsesApi` can reach it; nothing when the list does not say.
 */
function servedThrough(endpointTypes: readonly string[] | undefined): string {
  if (endpointTypes === undefined) return "";
  return endpointTypes.includes("openai-response")
    ? ' The service lists it with the Responses API ("openai-response"): `useResponsesApi: true` or "auto" can call it there.'
    : ' The service lists it without the Responses API ("openai-response"): leave `useResponsesApi` out, or "auto" calls Chat Completions for it.';
}

export function noCredit(error: InferenceServiceError): Verdict {
  return fromError(
    "credit",
    error,
    // docs/service-contract.md#errors, rule 3: credit exhaustion is a 403, not a 429.
    "No credit left: HTTP 403 insufficient_user_quota (a Wallet at or below zero, not a rate limit).",
  );
}

/** A 503 `model_not_found` for a model check (chat or embeddings). */
export function unknownModel(model: string): string {
  // docs/service-contract.md#hosted-models, rule 4: 503 model_not_found means an unknown model, not an outage.
  return `"${model}" is unknown to the service: HTTP 503 model_not_found; the service is not down.`;
}

export function skipCredit(why = "the model check did not get an answer."): Verdict {
  return { id: "credit", status: "skip", detail: `Skipped: ${why}` };
}
