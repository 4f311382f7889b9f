/** @module The `embeddings` check of `diagnose`: one `POST …/embeddings` of one word, when an embedding model is given. */
import { ENV } from "../../constants.js";
import type { ApiProbe } from "../probe.js";
import { readEmbeddings } from "./answer.js";

export const embeddingsProbe = {
  api: "embeddings",
  option: "embeddingModel",
  env: ENV.embeddingModel,
  kind: "embedding",
  body: (model, prompt) => ({ model, input: [prompt], encoding_format: "float" }),
  read: (answer, model) => {
    const vectors = readEmbeddings(answer.data, answer.response.headers, answer.ctx, 1);
    return `"${model}" answered one embedding of ${vectors[0]?.length ?? 0} dimensions`;
  },
} as const satisfies ApiProbe;
