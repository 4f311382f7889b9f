import { load } from "@langchain/core/load";
import { describe, expect, it } from "vitest";
import { ChatInferenceService, type ChatInferenceServiceFields } from "../src/chat_models.js";
import { createEmulator } from "../src/emulator/index.js";
import { ConfigurationError } from "../src/errors.js";
import { DedicatedEndpointLLM, type DedicatedEndpointLLMFields } from "../src/llms.js";
import {
  DEFAULT_DEDICATED_PROFILE,
  DEFAULT_HOSTED_PROFILE,
  PROFILE_FIELDS,
  resolveProfile,
} from "../src/profiles.js";

const BASE = "https://svc.example/inference/v1";
const chat = (model: string, fields: Omit<ChatInferenceServiceFields, "model"> = {}) =>
  new ChatInferenceService(model, { apiKey: "sk-test", baseURL: BASE, ...fields });
const endpoint = (fields: DedicatedEndpointLLMFields = {}) =>
  new DedicatedEndpointLLM({
    apiKey: "sk-test",
    baseURL: BASE,
    serviceName: "t-1.summarizer",
    ...fields,
  });

function configError(build: () => unknown): ConfigurationError {
  try {
    build();
  } catch (error) {
    expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
    return error as ConfigurationError;
  }
  throw new Error("expected a ConfigurationError");
}

describe("ChatInferenceService.profile", () => {
  it("gives a model without an entry the hosted defaults: tools on, structured output off, limits unknown", () => {
    const profile = chat("unknown-model").profile;
    expect(profile).toEqual({
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
    // Present but undefined, so LangChain's middleware does not guess a window from the name.
    expect("maxInputTokens" in profile).toBe(true);
  });

  it("lays a partial entry over the defaults, by the model's own ID", () => {
    const profiles = {
      "big-model": { maxInputTokens: 131_072, structuredOutput: true },
      "small-model": { maxInputTokens: 8_192, toolCalling: false },
    };
    expect(chat("big-model", { profiles }).profile).toEqual({
      ...DEFAULT_HOSTED_PROFILE,
      maxInputTokens: 131_072,
      structuredOutput: true,
    });
    expect(chat("small-model", { profiles }).profile).toMatchObject({
      maxInputTokens: 8_192,
      toolCalling: false,
      toolChoice: true,
    });
    expect(chat("other-model", { profiles }).profile).toEqual(DEFAULT_HOSTED_PROFILE);
  });

  it("follows a change of `model` and hands out a fresh object each time", () => {
    const model = chat("a", {
      profiles: { a: { maxInputTokens: 1_000 }, b: { maxInputTokens: 2_000 } },
    });
    const first = model.profile;
    first.maxInputTokens = 5;
    expect(model.profile.maxInputTokens).toBe(1_000);
    model.model = "b";
    expect(model.profile.maxInputTokens).toBe(2_000);
  });

  it("takes only own entries: a model ID named like an Object member gets the defaults", () => {
    expect(resolveProfile("constructor", {}, DEFAULT_HOSTED_PROFILE)).toEqual(
      DEFAULT_HOSTED_PROFILE,
    );
    expect(chat("toString", { profiles: {} }).profile).toEqual(DEFAULT_HOSTED_PROFILE);
  });

  it("profiles the emulator's models from its catalogue", async () => {
    const emulator = createEmulator();
    const profiles = emulator.state.modelProfiles();
    const model = new ChatInferenceService("emulator-reasoner", {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch: emulator.fetch,
      profiles,
    });
    expect(model.profile).toMatchObject({
      maxInputTokens: 65_536,
      maxOutputTokens: 8_192,
      reasoningOutput: true,
      structuredOutput: true,
    });
    // The profile is client-side knowledge: declaring it sends nothing new.
    expect(await model.invoke("hi")).toMatchObject({
      response_metadata: { model: "emulator-reasoner" },
    });
  });

  it("serialises `profiles` and restores them with load()", async () => {
    const profiles = { m: { maxInputTokens: 4_096, reasoningOutput: true } };
    const json = JSON.stringify(chat("m", { profiles }));
    expect(JSON.parse(json).kwargs.profiles).toEqual(profiles);
    const loaded = await load<ChatInferenceService>(json, {
      secretsMap: { INFERENCE_SERVICE_API_KEY: "sk-test" },
      optionalImportsMap: { "langchain_inference_service/chat_models": { ChatInferenceService } },
    });
    expect(loaded.profile).toMatchObject({ maxInputTokens: 4_096, reasoningOutput: true });
  });
});

describe("DedicatedEndpointLLM.profile", () => {
  it("gives a deployment without an entry the dedicated defaults: text only, no tools", () => {
    expect(endpoint().profile).toEqual(DEFAULT_DEDICATED_PROFILE);
    expect(endpoint().profile).toMatchObject({
      toolCalling: false,
      toolChoice: false,
      structuredOutput: false,
      reasoningOutput: false,
      maxInputTokens: undefined,
    });
  });

  it("reads the entry of its Service-Name", () => {
    const profiles = {
      "t-1.summarizer": { maxInputTokens: 8_192, maxOutputTokens: 1_024 },
      "t-1.other": { maxInputTokens: 2_048 },
    };
    expect(endpoint({ profiles }).profile).toEqual({
      ...DEFAULT_DEDICATED_PROFILE,
      maxInputTokens: 8_192,
      maxOutputTokens: 1_024,
    });
    expect(
      endpoint({ profiles, tenantId: "t-1", jobAlias: "other", serviceName: undefined }).profile,
    ).toMatchObject({ maxInputTokens: 2_048 });
  });

  it("keeps `profiles` out of its serialised form: its keys are Service-Names", () => {
    const json = JSON.stringify(
      endpoint({ profiles: { "t-1.summarizer": { maxInputTokens: 8_192 } } }),
    );
    expect(json).not.toContain("profiles");
    expect(json).not.toContain("t-1.summarizer");
  });
});

describe("`profiles` validation at construction", () => {
  it.each([
    [
      "a misspelt field",
      { m: { contextWindow: 8_192 } },
      "profiles.m.contextWindow",
      `\`profiles.m.contextWindow\` is not a profile field; a profile has ${PROFILE_FIELDS.join(", ")}.`,
    ],
    [
      "a context window of 0",
      { m: { maxInputTokens: 0 } },
      "profiles.m.maxInputTokens",
      "`profiles.m.maxInputTokens` must be a whole number of tokens ≥ 1 (the context window); got 0.",
    ],
    [
      "a fractional token count",
      { m: { maxOutputTokens: 1.5 } },
      "profiles.m.maxOutputTokens",
      "`profiles.m.maxOutputTokens` must be a whole number of tokens ≥ 1; got 1.5.",
    ],
    [
      "a flag given as a string",
      { "qwen2.5-7b": { toolCalling: "yes" } },
      "profiles.qwen2.5-7b.toolCalling",
      '`profiles.qwen2.5-7b.toolCalling` must be true or false; got "yes".',
    ],
    [
      "a profile that is not an object",
      { m: 128_000 },
      "profiles.m",
      `\`profiles.m\` must be a profile: an object with some of ${PROFILE_FIELDS.join(", ")}; got 128000.`,
    ],
    [
      "an array instead of a map",
      [{ maxInputTokens: 1 }],
      "profiles",
      '`profiles` must be an object of profiles by model ID, e.g. { "my-model": { maxInputTokens: 131072 } }.',
    ],
  ])("rejects %s, naming the option", (_case, profiles, option, message) => {
    for (const build of [
      () => chat("m", { profiles: profiles as never }),
      () => endpoint({ profiles: profiles as never }),
    ]) {
      const error = configError(build);
      expect(error.option).toBe(option);
      expect(error.message).toBe(message);
    }
  });
});
