/** @module The `embeddings` check: one `POST …/embeddings` of one word, when an embedding model is given. */
import { InsufficientCreditError, InvalidURLError, ModelNotFoundError } from "../errors/errors.js";
import { readEmbeddings } from "../transport/answer.js";
import { errorSummary, fromError, unexpected, type Verdict } from "./check.js";
import { unknownModel } from "./model.js";
import { answerError, type Outcome, tokensUsed } from "./probe.js";

export function checkEmbeddings(outcome: Outcome, model: string): Verdict {
  if (outcome.ok) {
    let vectors: number[][] = [];
    const unusable = answerError(outcome, () => {
      vectors = readEmbeddings(outcome.data, outcome.response.headers, outcome.ctx, 1);
    });
    if (unusable) return unexpected("embeddings", unusable, `"${model}" answered`);
    return {
      id: "embeddings",
      status: "pass",
      detail: `"${model}" answered one embedding of ${vectors[0]?.length ?? 0} dimensions${tokensUsed(outcome)}; this check may cost a token or two.`,
      requestId: outcome.requestId,
    };
  }
  const { error } = outcome;
  if (ModelNotFoundError.isInstance(error)) {
    const check = fromError("embeddings", error, unknownModel(model));
    // The mapper's hint names the classes' option, `model`; here the ID came from `embeddingModel`.
    return { ...check, fix: check.fix?.replace("passed as `model`", "passed as `embeddingModel`") };
  }
  if (InvalidURLError.isInstance(error)) {
    // The mapper's summary says the service offers no embeddings at this URL.
    return fromError("embeddings", error, errorSummary(error));
  }
  if (InsufficientCreditError.isInstance(error)) {
    return fromError(
      "embeddings",
      error,
      `"${model}" could not be checked: no credit left (HTTP 403 insufficient_user_quota).`,
    );
  }
  return unexpected("embeddings", error, `"${model}" could not be checked`);
}
