/** @module The `rerank` check: one `POST …/rerank` of one word against one document, when a rerank model is given. */
import { readRerank } from "../apis/rerank/answer.js";
import type { Verdict } from "./check.js";
import { checkModelCall } from "./model_call.js";
import { type Outcome, PROMPT, post, type Target, tokensUsed } from "./probe.js";

export function checkRerank(outcome: Outcome, model: string): Verdict {
  return checkModelCall(outcome, {
    id: "rerank",
    model,
    option: "rerankModel",
    read: (answer) => {
      const [result] = readRerank(answer.data, answer.response.headers, answer.ctx, 1, 1);
      const score = Number(result!.relevanceScore.toPrecision(3));
      return `"${model}" ranked one document, relevance score ${score}${tokensUsed(answer)}; this check may cost a token or two.`;
    },
  });
}

/** One rerank of one document against a one-word query, by `model`. */
export function postRerank(target: Target, model: string, availableModels?: string[]) {
  const body = { model, query: PROMPT, documents: [PROMPT], top_n: 1, return_documents: false };
  return post(target, "rerank", body, { model, availableModels });
}
