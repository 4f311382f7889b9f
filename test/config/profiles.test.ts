import type { ModelProfile } from "@langchain/core/language_models/profile";
import { load } from "@langchain/core/load";
import { createAgent, summarizationMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ChatInferenceService,
  type ChatInferenceServiceFields,
} from "../../src/apis/chat/chat_models.js";
import {
  DedicatedEndpointLLM,
  type DedicatedEndpointLLMFields,
} from "../../src/apis/completions/llms.js";
import {
  DEFAULT_DEDICATED_PROFILE,
  DEFAULT_HOSTED_PROFILE,
  PROFILE_FIELDS,
  resolveProfile,
} from "../../src/config/profiles.js";
import { createEmulator } from "../../src/emulator/index.js";
import { configurationError } from "../helpers/errors.js";

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
      `\`profiles.m.contextWindow\` is not an option: \`profiles.m\` must be a profile: an object with some of ${PROFILE_FIELDS.join(", ")}.`,
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
      "a MIME type that is not a string",
      { m: { fileMimeTypes: ["text/plain", 7] } },
      "profiles.m.fileMimeTypes",
      '`profiles.m.fileMimeTypes` must be an array of MIME types; got ["text/plain",7].',
    ],
    [
      "a reasoning round trip it does not know",
      { "deepseek-r1": { reasoningRoundTrip: "no" } },
      "profiles.deepseek-r1.reasoningRoundTrip",
      '`profiles.deepseek-r1.reasoningRoundTrip` must be "turn", "always" or "never" (which reasoning is sent back); got "no".',
    ],
    [
      "a tag mode it does not know",
      { m: { reasoningTags: true } },
      "profiles.m.reasoningTags",
      '`profiles.m.reasoningTags` must be "leading", "opened" or "off" (where <think> tags are read as reasoning); got true.',
    ],
    [
      "a media rate that is not a whole number",
      { m: { mediaTokens: { pdfPage: 1.5 } } },
      "profiles.m.mediaTokens.pdfPage",
      "`profiles.m.mediaTokens.pdfPage` must be a whole number of tokens ≥ 0; got 1.5.",
    ],
    [
      "a media rate it does not know",
      { m: { mediaTokens: { video: 10 } } },
      "profiles.m.mediaTokens.video",
      "`profiles.m.mediaTokens.video` is not an option: `profiles.m.mediaTokens` must be an object of { image?, remoteImage?, pdfPage?, file? }: tokens, whole numbers ≥ 0.",
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
      '`profiles` must be an object of profiles by model ID, e.g. { "my-model": { maxInputTokens: 131072 } }; got [{"maxInputTokens":1}].',
    ],
  ])("rejects %s, naming the option", (_case, profiles, option, message) => {
    for (const build of [
      () => chat("m", { profiles: profiles as never }),
      () => endpoint({ profiles: profiles as never }),
    ]) {
      const error = configurationError(build);
      expect(error.option).toBe(option);
      expect(error.message).toBe(message);
    }
  });
});

describe("LangChain v1 agents read the profile (against the emulator)", () => {
  const SUMMARY_PROMPT = "Context Extraction Assistant"; // in the middleware's summary request
  const SUMMARY_PREFIX = "Here is a summary of the conversation to date:";

  /** A model as it was before profiles: LangChain then guesses 4,097 tokens from an unknown name. */
  class WithoutProfile extends ChatInferenceService {
    override get profile(): ModelProfile {
      return {};
    }
  }

  function setup() {
    const emulator = createEmulator();
    const sent: string[] = [];
    const fields = (profiles?: ChatInferenceServiceFields["profiles"]) => ({
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      maxRetries: 0,
      profiles,
      fetch: ((input, init) => {
        sent.push(String(init?.body));
        return emulator.fetch(input, init);
      }) satisfies ChatInferenceServiceFields["fetch"],
    });
    return { emulator, sent, fields };
  }

  /** Six long notes and short acknowledgements, then a question: about 700 tokens as LangChain counts. */
  const conversation = () => [
    ...Array.from({ length: 6 }, (_, i) => [
      {
        role: "user",
        content: `Note ${i}: ${"the quarterly report covers revenue, costs and hiring plans in detail. ".repeat(5)}`,
      },
      { role: "assistant", content: `Noted ${i}.` },
    ]).flat(),
    { role: "user", content: "What did note 5 say?" },
  ];

  async function runAgent(model: ChatInferenceService, fraction: number) {
    const agent = createAgent({
      model,
      tools: [],
      middleware: [
        summarizationMiddleware({ model, trigger: { fraction }, keep: { messages: 3 } }),
      ],
    });
    return agent.invoke({ messages: conversation() });
  }

  it("summarization triggers at a fraction of the declared maxInputTokens (1,000), not of a guessed window", async () => {
    const { emulator, sent, fields } = setup();
    const profiles = { "emulator-chat": { maxInputTokens: 1_000 } };
    const { messages } = await runAgent(
      new ChatInferenceService("emulator-chat", fields(profiles)),
      0.5,
    );

    // Two requests: the summary, then the agent's turn on the summary and the 3 kept messages.
    expect(sent).toHaveLength(2);
    expect(sent[0]).toContain(SUMMARY_PROMPT);
    const turn = JSON.parse(sent[1]!) as { messages: Array<{ content: string }> };
    expect(turn.messages).toHaveLength(4);
    expect(turn.messages[0]?.content).toMatch(new RegExp(`^${SUMMARY_PREFIX}`));
    expect(messages[0]?.content).toMatch(new RegExp(`^${SUMMARY_PREFIX}`));
    const [summaryCall, agentCall] = emulator.state.requests();
    expect(agentCall!.promptTokens).toBeLessThan(summaryCall!.promptTokens / 3);

    // Control: the same agent on a model without a profile would not have summarized (4,097 × 0.5).
    const control = setup();
    await runAgent(new WithoutProfile("emulator-chat", control.fields(profiles)), 0.5);
    expect(control.sent).toHaveLength(1);
    expect(control.sent[0]).not.toContain(SUMMARY_PROMPT);
  });

  it("with the emulator's own profile (32,768 tokens), 5 % is not reached where a guessed 4,097 would be", async () => {
    const { sent, fields } = setup();
    const profiles = createEmulator().state.modelProfiles();
    await runAgent(new ChatInferenceService("emulator-chat", fields(profiles)), 0.05);
    expect(sent).toHaveLength(1);
    expect(sent[0]).not.toContain(SUMMARY_PROMPT);

    const control = setup();
    await runAgent(new WithoutProfile("emulator-chat", control.fields(profiles)), 0.05);
    expect(control.sent).toHaveLength(2);
    expect(control.sent[0]).toContain(SUMMARY_PROMPT);
  });

  it("an undeclared context window makes a fractional trigger fail before any request", async () => {
    const { sent, fields } = setup();
    await expect(
      runAgent(new ChatInferenceService("emulator-chat", fields()), 0.5),
    ).rejects.toThrow("Model profile information is required to use fractional token limits");
    expect(sent).toHaveLength(0);
  });

  it("createAgent asks for json_schema when the profile declares structuredOutput, else forces a tool", async () => {
    const schema = z.object({ answer: z.string() });
    const ask = async (profiles?: ChatInferenceServiceFields["profiles"]) => {
      const { sent, fields } = setup();
      const agent = createAgent({
        model: new ChatInferenceService("emulator-chat", fields(profiles)),
        tools: [],
        responseFormat: schema,
      });
      const result = await agent.invoke({ messages: [{ role: "user", content: "Say hi" }] });
      expect(schema.safeParse(result.structuredResponse).success).toBe(true);
      return JSON.parse(sent[0]!) as Record<string, unknown>;
    };

    const provider = await ask({ "emulator-chat": { structuredOutput: true } });
    expect(provider).toMatchObject({ response_format: { type: "json_schema" } });
    expect(provider).not.toHaveProperty("tools");

    const byTool = await ask();
    expect(byTool).toMatchObject({ tool_choice: "required", tools: [{ type: "function" }] });
    expect(byTool).not.toHaveProperty("response_format");
  });
});
