/** @module The `rerank` check of `diagnose`: one `POST …/rerank` of one word against one document, when a rerank model is given. */
import { ENV } from "../../constants.js";
import type { ApiProbe } from "../probe.js";
import { readRerank } from "./answer.js";

export const rerankProbe = {
  api: "rerank",
  option: "rerankModel",
  env: ENV.rerankModel,
  kind: "rerank",
  body: (model, prompt) => ({
    model,
    query: prompt,
    documents: [prompt],
    top_n: 1,
    return_documents: false,
  }),
  read: (answer, model) => {
    const [result] = readRerank(answer.data, answer.response.headers, answer.ctx, 1, 1);
    const score = Number(result!.relevanceScore.toPrecision(3));
    return `"${model}" ranked one document, relevance score ${score}`;
  },
} as const satisfies ApiProbe;
