/**
 * @module Model strings, `"inference-service:<model-id>"`: a hosted model named in one string, as
 * config files name models for LangChain's `initChatModel`.
 */

import { LS_PROVIDER } from "../../constants.js";
import { ConfigurationError } from "../../errors/errors.js";
import { ChatInferenceService, type ChatInferenceServiceFields } from "./chat_models.js";

/** Options of {@link initChatInferenceService}: those of `ChatInferenceService`, plus `modelProvider`. */
export interface InitChatInferenceServiceFields extends Omit<ChatInferenceServiceFields, "model"> {
  /**
   * `"inference-service"`, to pass a bare model ID as the first argument, as `initChatModel`
   * takes `modelProvider`. @default none: the string must carry the `inference-service:` prefix
   */
  modelProvider?: string;
}

const PREFIX = `${LS_PROVIDER}:`;

/**
 * Builds a {@link ChatInferenceService} from a model string, `"inference-service:<model-id>"`
 * (the model ID is everything after the first colon, so it may contain colons itself; spaces
 * around it are trimmed).
 *
 * LangChain's `initChatModel` cannot do this: it knows a fixed table of providers and has no way
 * to add one, so it rejects `"inference-service:…"` (see docs/hosted-models.md). Use this where
 * a config file names the model; the result goes wherever LangChain takes a chat model
 * (`createAgent`, middleware, chains).
 *
 * @example
 * const model = initChatInferenceService("inference-service:my-model", {
 *   temperature: 0,
 *   profiles: { "my-model": { maxInputTokens: 131_072 } },
 * });
 * // A config that mixes providers:
 * const chat = spec.startsWith("inference-service:")
 *   ? initChatInferenceService(spec)
 *   : await initChatModel(spec);
 */
export function initChatInferenceService(
  model: string,
  fields: InitChatInferenceServiceFields = {},
): ChatInferenceService {
  const { modelProvider, ...rest } = fields;
  if (modelProvider !== undefined && modelProvider !== LS_PROVIDER) {
    throw new ConfigurationError(
      "modelProvider",
      `\`modelProvider\` must be "${LS_PROVIDER}"; got ${JSON.stringify(modelProvider)}. Other providers' models are built by LangChain's initChatModel.`,
    );
  }
  if (typeof model !== "string") {
    throw new ConfigurationError(
      "model",
      `\`model\` must be a string such as "${PREFIX}my-model"; got ${typeof model}.`,
    );
  }
  const spec = model.trim();
  const prefixed = spec.startsWith(PREFIX);
  if (!prefixed && modelProvider === undefined) {
    throw new ConfigurationError(
      "model",
      `\`model\` must be "${PREFIX}<model-id>" (or pass modelProvider: "${LS_PROVIDER}" with a bare ID); got ${JSON.stringify(spec)}. Other providers' strings are for LangChain's initChatModel.`,
    );
  }
  // Spaces after the prefix are not part of the ID: "inference-service: my-model" is "my-model".
  const id = (prefixed ? spec.slice(PREFIX.length) : spec).trim();
  if (id === "") {
    throw new ConfigurationError(
      "model",
      `\`model\` names no model ID: got ${JSON.stringify(spec)}; write "${PREFIX}<model-id>".`,
    );
  }
  return new ChatInferenceService(id, rest);
}
