import nock from "nock";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  ChatInferenceService,
  type ChatInferenceServiceFields,
} from "../../src/apis/chat/chat_models.js";
import {
  DedicatedEndpointLLM,
  type DedicatedEndpointLLMFields,
} from "../../src/apis/completions/llms.js";
import { configurationError } from "../helpers/errors.js";
import { BASE, chatCompletion, intercept, JSON_HEADERS, KEY } from "../helpers/wire.js";

const CHAT = "/inference/v1/chat/completions";
const COMPLETIONS = "/inference/v1/completions";
const SERVICE_NAME = "tenant-1.summarizer";
const COMPLETION = {
  id: "cmpl-1",
  object: "text_completion",
  choices: [{ index: 0, text: " ok", finish_reason: "stop" }],
};

beforeAll(() => nock.disableNetConnect());
beforeEach(() => {
  // Hermetic: neither the developer's configuration nor OpenAI's variables may help.
  vi.stubEnv("INFERENCE_SERVICE_API_KEY", "");
  vi.stubEnv("INFERENCE_SERVICE_BASE_URL", "");
  vi.stubEnv("OPENAI_API_KEY", "sk-openai-must-not-be-used");
  vi.stubEnv("OPENAI_BASE_URL", "https://api.openai.com/v1");
});
afterEach(() => {
  nock.cleanAll();
  vi.unstubAllEnvs();
});

/** Invokes a chat model built from `fields` and returns what reached the service. */
async function chatSends(fields: Omit<ChatInferenceServiceFields, "model">) {
  const seen = intercept(CHAT, [200, chatCompletion({ content: "ok" }), JSON_HEADERS]);
  await new ChatInferenceService("test-model", fields).invoke("hi");
  return seen;
}

/** The same for a dedicated endpoint; every request must carry its Service-Name. */
async function llmSends(fields: DedicatedEndpointLLMFields) {
  const seen = intercept(COMPLETIONS, [200, COMPLETION, JSON_HEADERS]);
  await new DedicatedEndpointLLM({ serviceName: SERVICE_NAME, ...fields }).invoke("hi");
  for (const request of seen) expect(request.headers["service-name"]).toBe(SERVICE_NAME);
  return seen;
}

// What a `ChatOpenAI` user writes, each honoured: the key and the URL reach the wire.
const SPELLINGS: Array<[string, Record<string, unknown>]> = [
  ["apiKey and baseURL", { apiKey: KEY, baseURL: BASE }],
  ["openAIApiKey", { openAIApiKey: KEY, baseURL: BASE }],
  ["configuration.apiKey", { configuration: { apiKey: KEY }, baseURL: BASE }],
  ["configuration.baseURL", { apiKey: KEY, configuration: { baseURL: `${BASE}/inference/v1` } }],
  ["configuration with both", { configuration: { apiKey: KEY, baseURL: BASE } }],
  // What LangChain's `load()` passes for a serialised `base_url` (snake case → camel case).
  ["baseUrl", { apiKey: KEY, baseUrl: BASE }],
  [
    "the same value twice",
    { apiKey: KEY, openAIApiKey: KEY, configuration: { apiKey: KEY }, baseURL: BASE },
  ],
  [
    "the same URL as baseURL and baseUrl (normalised alike)",
    { apiKey: KEY, baseURL: BASE, baseUrl: `${BASE}/inference/v1/` },
  ],
];

describe.each([
  ["ChatInferenceService", chatSends, CHAT],
  ["DedicatedEndpointLLM", llmSends, COMPLETIONS],
] as const)(
  "%s takes the key and URL wherever ChatOpenAI users write them",
  (_model, sends, path) => {
    it.each(SPELLINGS)("honours %s on the wire", async (_name, fields) => {
      const seen = await sends(fields);
      expect(seen.map((request) => request.path)).toEqual([path]);
      expect(seen[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    });
  },
);

describe("ChatInferenceService: other spellings, conflicts and refusals", () => {
  it("reads configuration.baseURL normalised, like baseURL", async () => {
    const seen = await chatSends({
      apiKey: KEY,
      configuration: { baseURL: `${BASE}/inference/v1/chat/completions` },
    });
    expect(seen.map((r) => r.path)).toEqual([CHAT]);
    expect(
      new ChatInferenceService("m", { apiKey: KEY, configuration: { baseURL: BASE } }).baseURL,
    ).toBe(`${BASE}/inference/v1`);
  });

  it("reads baseUrl, the spelling load() gives a serialised base_url, as baseURL: normalised, and refused under its own name", async () => {
    // The environment names another host: a `baseUrl` left unread would send the request there.
    vi.stubEnv("INFERENCE_SERVICE_BASE_URL", "https://env-host.test");
    const seen = await chatSends({
      apiKey: KEY,
      baseUrl: `${BASE}/inference/v1/chat/completions`,
    });
    expect(seen.map((r) => r.path)).toEqual([CHAT]);
    const error = configurationError(
      () => new ChatInferenceService("m", { apiKey: KEY, baseUrl: "svc.test" }),
    );
    expect(error.option).toBe("baseUrl");
    expect(error.message).toMatch(
      /^`baseUrl` has no scheme \("svc.test"\): add http:\/\/ or https:\/\//,
    );
  });

  it("keeps the other configuration fields: defaultHeaders are sent", async () => {
    const seen = await chatSends({
      configuration: { apiKey: KEY, baseURL: BASE, defaultHeaders: { "X-Team": "search" } },
    });
    expect(seen[0]!.headers["x-team"]).toBe("search");
  });

  it.each([
    [
      { apiKey: KEY, openAIApiKey: "sk-other-key-0002" },
      "openAIApiKey",
      "`apiKey` and `openAIApiKey`",
    ],
    [
      { apiKey: KEY, configuration: { apiKey: "sk-other-key-0002" } },
      "configuration.apiKey",
      "`apiKey` and `configuration.apiKey`",
    ],
    [
      { baseURL: BASE, configuration: { baseURL: "https://other.test" } },
      "configuration.baseURL",
      "two different base URLs",
    ],
    [
      { baseURL: BASE, baseUrl: "https://other.test" },
      "baseUrl",
      "`baseURL` and `baseUrl` give two different base URLs. Pass it once, as `baseURL`.",
    ],
  ])(
    "refuses two different values, naming both places and neither value: %j",
    (fields, option, words) => {
      const error = configurationError(
        () => new ChatInferenceService("m", { apiKey: KEY, baseURL: BASE, ...fields }),
      );
      expect(error.option).toBe(option);
      expect(error.message).toContain(words);
      expect(error.message).not.toContain("sk-other-key-0002");
      expect(error.message).not.toContain(KEY);
      expect(nock.pendingMocks()).toEqual([]);
    },
  );

  it.each([
    [{ configuration: { apiKey: async () => KEY } }, "configuration.apiKey", "got a function"],
    [{ openAIApiKey: 42 }, "openAIApiKey", "got number"],
    [
      { configuration: { baseURL: "not a url" } },
      "configuration.baseURL",
      "`configuration.baseURL` is not a valid URL",
    ],
    [{ configuration: { maxRetries: 5 } }, "configuration.maxRetries", "Pass `maxRetries` instead"],
  ])("refuses %j with a ConfigurationError naming the option", (fields, option, words) => {
    const error = configurationError(
      () => new ChatInferenceService("m", { apiKey: KEY, baseURL: BASE, ...(fields as object) }),
    );
    expect(error.option).toBe(option);
    expect(error.message).toContain(words);
  });

  it("still names the option and the variable when no place gives the base URL", () => {
    const error = configurationError(() => new ChatInferenceService("m", { openAIApiKey: KEY }));
    expect(error.option).toBe("baseURL");
    expect(error.message).toContain("Pass `baseURL` or set INFERENCE_SERVICE_BASE_URL");
  });

  it("never serialises a key given as openAIApiKey or configuration.apiKey", () => {
    for (const fields of [{ openAIApiKey: KEY }, { configuration: { apiKey: KEY } }]) {
      const chat = new ChatInferenceService("m", { baseURL: BASE, ...fields });
      expect(JSON.stringify(chat)).not.toContain(KEY);
    }
  });
});

describe("DedicatedEndpointLLM: conflicts and refusals", () => {
  it("refuses a client option it has no use for, naming it", () => {
    const error = configurationError(
      () =>
        new DedicatedEndpointLLM({
          serviceName: SERVICE_NAME,
          apiKey: KEY,
          baseURL: BASE,
          configuration: { defaultHeaders: { "X-Team": "search" } } as never,
        }),
    );
    expect(error.option).toBe("configuration.defaultHeaders");
    expect(error.message).toContain("only `apiKey` and `baseURL`");
  });

  it("refuses two different keys without showing either", () => {
    const error = configurationError(
      () =>
        new DedicatedEndpointLLM({
          serviceName: SERVICE_NAME,
          apiKey: KEY,
          openAIApiKey: "sk-other-key-0002",
          baseURL: BASE,
        }),
    );
    expect(error.option).toBe("openAIApiKey");
    expect(error.message).not.toMatch(/sk-other-key-0002|sk-test-key-0001/);
  });
});
