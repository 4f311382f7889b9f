/** @module Model profiles: what a model can do and how much it can read, as LangChain v1 agents and middleware read it. */
import type { ModelProfile } from "@langchain/core/language_models/profile";
import { z } from "zod";
import { expectedAt, optionsSchema } from "./options.js";

/**
 * Profiles by model ID (`ChatInferenceService`) or by Service-Name (`DedicatedEndpointLLM`).
 * Each entry may be partial: its fields are laid over the model's defaults.
 *
 * @example
 * const profiles: ModelProfiles = {
 *   "my-hosted-model": { maxInputTokens: 131_072, maxOutputTokens: 8_192, structuredOutput: true },
 *   "my-reasoner": { maxInputTokens: 65_536, reasoningOutput: true },
 * };
 */
export type ModelProfiles = Readonly<Record<string, InferenceModelProfile>>;

/**
 * What a hosted model is taken to be when its ID has no entry in `profiles` (and the base every
 * entry is merged over). The service contract names no models and no limits (docs/service-contract.md#hosted-models, docs/service-contract.md#limits-and-retries), so:
 * - `maxInputTokens`, `maxOutputTokens`, `reasoningOutput`: unknown (`undefined`). The key is
 *   present on purpose: LangChain's summarization and context-editing middleware then refuse a
 *   fractional limit ("Model profile information is required …") instead of guessing a window
 *   from the model's name, which for an unknown name is 4,097 tokens.
 * - `toolCalling`, `toolChoice`: `true`. The surface is chat-completions style (docs/service-contract.md#the-two-surfaces); agents and
 *   this package's structured output (a forced tool call) rely on them.
 * - `structuredOutput`: `false`, so `createAgent` picks its tool strategy for a `responseFormat`,
 *   which works wherever tool calling does; `response_format` is not shown by docs/service-contract.md#hosted-models. Declare
 *   `true` for a model that honours `json_schema` to get the provider strategy.
 * - Image, audio, video, PDF inputs and outputs: `false` — docs/service-contract.md#hosted-models gives `content` as a string.
 */
export const DEFAULT_HOSTED_PROFILE: Readonly<ModelProfile> = Object.freeze({
  maxInputTokens: undefined,
  maxOutputTokens: undefined,
  reasoningOutput: undefined,
  toolCalling: true,
  toolChoice: true,
  structuredOutput: false,
  imageInputs: false,
  imageUrlInputs: false,
  pdfInputs: false,
  audioInputs: false,
  videoInputs: false,
  imageToolMessage: false,
  pdfToolMessage: false,
  imageOutputs: false,
  audioOutputs: false,
  videoOutputs: false,
});

/**
 * What a dedicated endpoint is taken to be when its Service-Name has no entry in `profiles`: text
 * in, text out (docs/service-contract.md#dedicated-endpoints takes a `prompt` string), no tools, limits unknown (see
 * {@link DEFAULT_HOSTED_PROFILE} for why they stay `undefined`).
 */
export const DEFAULT_DEDICATED_PROFILE: Readonly<ModelProfile> = Object.freeze({
  ...DEFAULT_HOSTED_PROFILE,
  reasoningOutput: false,
  toolCalling: false,
  toolChoice: false,
});

/** The profile of `id`: its entry in `profiles` laid over `defaults`; a fresh object each time. */
export function resolveProfile(
  id: string,
  profiles: ModelProfiles | undefined,
  defaults: Readonly<ModelProfile>,
): InferenceModelProfile {
  // Own keys only: a model ID such as "constructor" must not pick up Object.prototype members.
  const own = profiles && Object.hasOwn(profiles, id) ? profiles[id] : undefined;
  return { ...defaults, ...own };
}

const flag = z.boolean().describe("true or false");

/**
 * This package's own profile fields, beside LangChain's: how a hosted model's reasoning is read
 * and sent back. LangChain ignores them; this package reads them through {@link reasoningSettingsOf}.
 */
const reasoningFields = optionsSchema({
  /**
   * Which reasoning the model gets back in the `reasoning_content` field of the assistant
   * messages that called tools: `"turn"`, those after the last user message (a thinking model
   * such as DeepSeek's answers 400 "The reasoning_content in the thinking mode must be passed
   * back to the API." without it, and reasoning of earlier turns is no use to it); `"always"`,
   * every such message of the conversation (a model that asks for all of it); `"never"`, none
   * (an R1-style model, which answers 400 to any input message that carries reasoning).
   * @default "turn"
   */
  reasoningRoundTrip: z
    .enum(["turn", "always", "never"])
    .describe('"turn", "always" or "never" (which reasoning is sent back)')
    .optional(),
  /**
   * Where `<think>` tags in the answer are read as reasoning, for a model served without a
   * reasoning parser: `"leading"`, a `<think>…</think>` that opens the answer (never one later
   * in the text); `"opened"`, the answer starts inside the reasoning because the chat template
   * wrote the opening tag, so everything up to the first `</think>` is reasoning (a leading
   * `<think>` is skipped too); `"off"`, the answer is left as sent. A reply whose reasoning came
   * in a field (`reasoning_content`, `reasoning`) is never read for tags.
   * @default "leading"
   */
  reasoningTags: z
    .enum(["leading", "opened", "off"])
    .describe('"leading", "opened" or "off" (where <think> tags are read as reasoning)')
    .optional(),
});

/** This package's own profile fields (see {@link InferenceModelProfile}), as given. */
export type ReasoningProfile = z.input<typeof reasoningFields>;

const mediaTokenCount = z.number().int().nonnegative().describe("a whole number of tokens ≥ 0");

/**
 * This package's own profile field for budgets: what the model bills for images and files, when
 * it differs from what a budget reserves by default (docs/usage.md: what each part reserves).
 */
const mediaFields = optionsSchema({
  /**
   * Tokens the model bills for media parts. `image`: every image, whatever its size (a model that
   * bills images flat; default: by its size, the larger of Anthropic's and OpenAI's formulas);
   * `remoteImage`: an image given by URL, whose size the request does not show (default 3,279, the
   * most those formulas give); `pdfPage`: each page of a PDF (default 3,000); `file`: a file whose
   * pages cannot be counted (default 100 pages).
   */
  mediaTokens: z
    .object({
      image: mediaTokenCount.optional(),
      remoteImage: mediaTokenCount.optional(),
      pdfPage: mediaTokenCount.optional(),
      file: mediaTokenCount.optional(),
    })
    .strict()
    .describe("an object of { image?, remoteImage?, pdfPage?, file? }: tokens, whole numbers ≥ 0")
    .optional(),
});

/** The media rates a profile may declare (see {@link InferenceModelProfile}). */
export type MediaProfile = z.input<typeof mediaFields>;

/**
 * A hosted model's profile as `profiles` takes it: LangChain's `ModelProfile` (context window,
 * capabilities), and this package's reasoning and media fields.
 */
export type InferenceModelProfile = ModelProfile & ReasoningProfile & MediaProfile;

/** How a model's reasoning is read and sent back, with the defaults filled in. */
export type ReasoningSettings = Required<ReasoningProfile>;

/** The reasoning fields' defaults: send back the current turn's, read a leading `<think>`. */
export const DEFAULT_REASONING_SETTINGS: Readonly<ReasoningSettings> = Object.freeze({
  reasoningRoundTrip: "turn",
  reasoningTags: "leading",
});

/** The reasoning settings of a resolved profile, defaults filled in. */
export function reasoningSettingsOf(profile: InferenceModelProfile): ReasoningSettings {
  return {
    reasoningRoundTrip: profile.reasoningRoundTrip ?? DEFAULT_REASONING_SETTINGS.reasoningRoundTrip,
    reasoningTags: profile.reasoningTags ?? DEFAULT_REASONING_SETTINGS.reasoningTags,
  };
}

// `satisfies` lists every field of ModelProfile (and ours): a field added by @langchain/core fails the typecheck here.
const profileFields = {
  maxInputTokens: z
    .number()
    .int()
    .positive()
    .describe("a whole number of tokens ≥ 1 (the context window)"),
  maxOutputTokens: z.number().int().positive().describe("a whole number of tokens ≥ 1"),
  imageInputs: flag,
  imageUrlInputs: flag,
  pdfInputs: flag,
  audioInputs: flag,
  videoInputs: flag,
  fileMimeTypes: z.array(z.string().min(1)).describe("an array of MIME types"),
  imageToolMessage: flag,
  pdfToolMessage: flag,
  reasoningOutput: flag,
  imageOutputs: flag,
  audioOutputs: flag,
  videoOutputs: flag,
  toolCalling: flag,
  toolChoice: flag,
  midConversationSystemMessages: flag,
  midConversationTools: flag,
  structuredOutput: flag,
  ...reasoningFields.shape,
  ...mediaFields.shape,
} satisfies Record<keyof InferenceModelProfile, z.ZodType>;

/** The fields a profile may have, for error messages. */
export const PROFILE_FIELDS: readonly string[] = Object.keys(profileFields);

/** One profile: known fields only, so a misspelt field is reported rather than ignored. */
export const modelProfileSchema = z
  .object(profileFields)
  .partial()
  .strict()
  .describe(`a profile: an object with some of ${PROFILE_FIELDS.join(", ")}`);

/** The `profiles` option: profiles by model ID or Service-Name, each field checked. */
export const profilesSchema: z.ZodType<ModelProfiles, ModelProfiles> = z
  .record(z.string(), modelProfileSchema)
  .describe('an object of profiles by model ID, e.g. { "my-model": { maxInputTokens: 131072 } }');

/** What a profile's field must be, worded for error messages (the emulator's too). */
export function expectedOfProfileField(field: string): string {
  return expectedAt(modelProfileSchema, [field]);
}
