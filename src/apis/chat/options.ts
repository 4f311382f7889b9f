/**
 * @module The options of `ChatInferenceService`, declared once: a zod schema whose fields give each
 * option's type, check, wording, JSDoc and default, and say whether the model serialises it.
 */
import type { ClientOptions } from "@langchain/openai";
import type { OpenAI } from "openai";
import { z } from "zod";
import { checkedOnResolve, optionsSchema, parseOptions } from "../../config/options.js";
import { profilesSchema } from "../../config/profiles.js";
import { ConfigurationError } from "../../errors/errors.js";
import {
  type ModelOptions,
  modelOptions,
  serialised,
  serialisedKeys,
  unserialised,
} from "../options.js";
import { checkReasoningSummary, useResponsesApiSchema } from "../responses/options.js";

/** `configuration` of `ChatInferenceService`: the openai SDK's client options, as `ChatOpenAI` takes them. */
export type ChatConfiguration = Omit<ClientOptions, "apiKey" | "baseURL" | "maxRetries"> & {
  /** Read as `apiKey`. */
  apiKey?: string;
  /** Read as `baseURL`. */
  baseURL?: string;
};

/**
 * The options of `ChatInferenceService` that this package owns (the rest are `ChatOpenAI`'s, and
 * pass through unchecked).
 */
export const chatInferenceServiceOptions = optionsSchema({
  /**
   * Model ID of the hosted model, sent as `model` in the body (docs/service-contract.md#hosted-models);
   * outer spaces are trimmed. @default none (required: the first argument, or `model`)
   */
  model: serialised(z.string().optional()),
  ...modelOptions,
  /**
   * openai SDK client options, as `ChatOpenAI` takes them. `configuration.apiKey` and
   * `configuration.baseURL` are read as `apiKey` and `baseURL` (a `ConfigurationError` when they
   * disagree with those); `configuration.fetch` is used when `fetch` is not given;
   * `configuration.maxRetries` is refused (retries live in one layer: pass `maxRetries`);
   * `defaultHeaders` are sent but never serialised. @default `{}`
   */
  configuration: unserialised(checkedOnResolve<ChatConfiguration>().optional()),
  /**
   * What each hosted model can do and how many tokens it reads, by model ID: `profile` is this
   * model's entry laid over `DEFAULT_HOSTED_PROFILE`. LangChain v1 reads it — e.g.
   * summarization middleware (`maxInputTokens`) and `createAgent`'s structured-output strategy
   * (`structuredOutput`). Checked here: a misspelt field is a `ConfigurationError`.
   * @default `{}` (every model gets the defaults; no env variable)
   */
  profiles: serialised(profilesSchema.optional()),
  /**
   * How much the model thinks, as `ChatOpenAI` takes it: `{ effort: "low" }` is sent as
   * `reasoning_effort` for every hosted model (`ChatOpenAI` sends it only for the model names it
   * knows as OpenAI's reasoning models). A call's `reasoning` (or `reasoningEffort`) overrides
   * it. Provider switches that turn thinking on or off (`thinking`, `enable_thinking`,
   * `chat_template_kwargs`) go in `modelKwargs`, the model's or a call's. A `summary` is asked of
   * the Responses API (`useResponsesApi`); with Chat Completions it is a `ConfigurationError`.
   * @default none
   */
  reasoning: serialised(
    z
      .custom<OpenAI.Reasoning>(
        (value) =>
          typeof value === "object" &&
          value !== null &&
          !Array.isArray(value) &&
          isEffort((value as { effort?: unknown }).effort),
      )
      .describe('an object such as { effort: "low" } (effort a non-empty string)')
      .optional(),
  ),
  /**
   * Which of the service's APIs the model calls: `false`, Chat Completions (`POST
   * …/chat/completions`); `true`, OpenAI's Responses API (`POST …/responses`), stateless, with
   * the reasoning items sent back whole; `"auto"`, the Responses API for a model the service's
   * model list marks `"openai-response"`, and Chat Completions otherwise or when the gateway
   * cannot serve the call there (docs/responses.md).
   * @default false
   */
  useResponsesApi: serialised(useResponsesApiSchema.optional()),
});

/** A reasoning effort as a provider may name it ("low", "high", …), or none. */
function isEffort(effort: unknown): boolean {
  return effort === undefined || effort === null || (typeof effort === "string" && effort !== "");
}

/** The options of `ChatInferenceService` that this package owns, as a caller writes them. */
export interface ChatInferenceServiceOptions
  extends ModelOptions,
    Omit<z.input<typeof chatInferenceServiceOptions>, keyof ModelOptions> {}

const CHAT_SPEC = { owner: "ChatInferenceService", schema: chatInferenceServiceOptions };

/** The names of the options `ChatInferenceService` owns, and those of them it serialises. */
export const CHAT_OPTIONS = {
  owned: Object.keys(chatInferenceServiceOptions.shape),
  serialised: serialisedKeys(chatInferenceServiceOptions.shape),
};

/** Checks the options of `ChatInferenceService` that this package owns; returns them with their defaults. */
export function validateChatOptions(fields: unknown): z.output<typeof chatInferenceServiceOptions> {
  const options = parseOptions(CHAT_SPEC, fields);
  checkReasoningSummary(options.reasoning, options.useResponsesApi);
  return options;
}

/** The hosted model ID of `ChatInferenceService`, trimmed: none, or only spaces, is a `ConfigurationError`. */
export function chatModelId(named: unknown): string {
  // No model ID has outer spaces: " my-model" (as "provider: model" is often written) is "my-model".
  const model = typeof named === "string" ? named.trim() : "";
  if (model === "") {
    throw new ConfigurationError(
      "model",
      '`model` is required: pass the hosted model\'s ID, e.g. new ChatInferenceService("my-model").',
    );
  }
  return model;
}
