/**
 * @module How `ChatInferenceService` is serialised and printed without its secrets: the key is a
 * reference to its env variable, never a value, and neither `lc_kwargs`, a spread of the model nor
 * `console.log` shows it; `configuration` (header values, a fetch function) is never written.
 */
import type { Serialized } from "@langchain/core/load/serializable";
import { ENV } from "../../constants.js";
import { secretReference } from "../options.js";
import { CHAT_OPTIONS } from "./options.js";

/**
 * Keeps the key where `ChatOpenAI` users read it (`model.apiKey`) but out of what is shown: not in
 * `lc_kwargs` (printed and serialised by LangChain), and not enumerable, so spreads and
 * `Object.entries` skip it.
 */
export function hideApiKey(model: { lc_kwargs: object }, apiKey: string): void {
  delete (model.lc_kwargs as Record<string, unknown>).apiKey;
  Object.defineProperty(model, "apiKey", { value: apiKey, enumerable: false, writable: true });
}

/**
 * The serialised model with its secret named after this package's variable: LangChain merges
 * `lc_secrets` up the class chain with the base class winning, which would name it OPENAI_API_KEY.
 */
export function withOwnSecret(json: Serialized): Serialized {
  if (json.type !== "constructor") return json;
  const { openai_api_key: _, ...kwargs } = json.kwargs as Record<string, unknown>;
  // `lc_kwargs` never holds the key (see hideApiKey): it is written as a reference only.
  return { ...json, kwargs: { ...kwargs, api_key: secretReference(ENV.apiKey) } };
}

/**
 * The fields written when the model is serialised: `ChatOpenAI`'s own, except those this package
 * owns, of which the schema says which it writes (never `configuration`, nor the key).
 */
export function serialisableKeys(inherited: readonly string[]): string[] {
  const owned = new Set(CHAT_OPTIONS.owned);
  return [...inherited.filter((key) => !owned.has(key)), ...CHAT_OPTIONS.serialised];
}
