/** @module The `embeddings` check: one `POST …/embeddings` of one word, when an embedding model is given. */
import { readEmbeddings } from "../apis/embeddings/answer.js";
import type { Verdict } from "./check.js";
import { checkModelCall } from "./model_call.js";
import { type Outcome, PROMPT, post, type Target, tokensUsed } from "./probe.js";

export function checkEmbeddings(outcome: Outcome, model: string): Verdict {
  return checkModelCall(outcome, {
    id: "embeddings",
    model,
    option: "embeddingModel",
    read: (answer) => {
      const vectors = readEmbeddings(answer.data, answer.response.headers, answer.ctx, 1);
      return `"${model}" answered one embedding of ${vectors[0]?.length ?? 0} dimensions${tokensUsed(answer)}; this check may cost a token or two.`;
    },
  });
}

/** One embedding of one word from `model`. */
export function postEmbeddings(target: Target, model: string, availableModels?: string[]) {
  const body = { model, input: [PROMPT], encoding_format: "float" };
  return post(target, "embeddings", body, { model, availableModels });
}
