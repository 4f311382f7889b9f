import { ChatOpenAICompletions } from "@langchain/openai";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { ChatInferenceService } from "../../src/apis/chat/chat_models.js";
import { chatInferenceServiceOptions, validateChatOptions } from "../../src/apis/chat/options.js";
import { serialisableKeys } from "../../src/apis/chat/serialisation.js";
import { DedicatedEndpointLLM } from "../../src/apis/completions/llms.js";
import {
  dedicatedEndpointLLMOptions,
  validateDedicatedEndpointOptions,
} from "../../src/apis/completions/options.js";
import { inferenceServiceEmbeddingsOptions } from "../../src/apis/embeddings/options.js";
import { isSerialised } from "../../src/apis/options.js";
import { inferenceServiceRerankOptions } from "../../src/apis/rerank/options.js";
import { diagnose } from "../../src/diagnose/diagnose.js";
import { RateLimiter } from "../../src/spend/rate_limiter.js";
import { configurationProblem } from "../helpers/errors.js";
import { optionDocs } from "../helpers/option_docs.js";

describe("the models' options", () => {
  it("apply the defaults once checked (docs/service-contract.md#limits-and-retries: two retries)", () => {
    const backoff = { initialDelayMs: 500, maxDelayMs: 8000, maxRetryAfterMs: 30_000 };
    expect(validateChatOptions({})).toEqual({ maxRetries: 2, retry: backoff, telemetry: true });
    expect(validateDedicatedEndpointOptions({ maxRetries: 0, retry: { maxDelayMs: 5 } })).toEqual({
      maxRetries: 0,
      retry: { ...backoff, maxDelayMs: 5 },
      telemetry: true,
      waitForReady: 0,
      streaming: false,
      modelKwargs: {},
    });
  });

  it("name a nested retry option and an unknown one by their paths", () => {
    expect(configurationProblem(() => validateChatOptions({ retry: { maxDelayMs: -1 } }))).toEqual({
      option: "retry.maxDelayMs",
      message: "`retry.maxDelayMs` must be a number of milliseconds ≥ 0; got -1.",
    });
    expect(
      configurationProblem(() => validateChatOptions({ retry: { delay: 1 } as never })),
    ).toEqual({
      option: "retry.delay",
      message:
        "`retry.delay` is not an option: `retry` must be an object with initialDelayMs, maxDelayMs and maxRetryAfterMs (milliseconds ≥ 0).",
    });
  });

  it("check the shared options before the dedicated endpoint's own", () => {
    expect(
      configurationProblem(() => validateDedicatedEndpointOptions({ maxTokens: 0, maxRetries: -1 }))
        .option,
    ).toBe("maxRetries");
  });

  it("accept any non-array object as modelKwargs, as the body spreads it", () => {
    class Extra {
      top_p = 0.5;
    }
    const extra = new Extra();
    expect(validateDedicatedEndpointOptions({ modelKwargs: extra }).modelKwargs).toBe(extra);
    expect(
      configurationProblem(() => validateDedicatedEndpointOptions({ modelKwargs: null as never })),
    ).toEqual({
      option: "modelKwargs",
      message: "`modelKwargs` must be an object of extra body fields; got null.",
    });
  });

  it("check diagnose's timeout the same way", async () => {
    const error = await diagnose({ timeout: -1 }).catch((e: unknown) => e);
    expect(
      configurationProblem(() => {
        throw error;
      }),
    ).toEqual({
      option: "timeout",
      message: "`timeout` must be a number of milliseconds > 0; got -1.",
    });
  });

  it("accept a limiter as a model option, and nothing else there", () => {
    expect(() => validateChatOptions({ rateLimiter: new RateLimiter() })).not.toThrow();
    expect(
      configurationProblem(() => validateChatOptions({ rateLimiter: { acquire() {} } })),
    ).toMatchObject({
      option: "rateLimiter",
      message: expect.stringMatching(/a RateLimiter/),
    });
    expect(
      configurationProblem(() => validateDedicatedEndpointOptions({ rateLimiter: 5 })).option,
    ).toBe("rateLimiter");
  });

  // Node runs a timer set over 2^31 − 1 ms after 1 ms: such a timeout failed every call at once.
  it.each<[string, Record<string, unknown>]>([
    ["timeout", { timeout: 2 ** 31 }],
    ["idleTimeout", { idleTimeout: 2 ** 31 }],
    ["retry.initialDelayMs", { retry: { initialDelayMs: 2 ** 31 } }],
    ["retry.maxDelayMs", { retry: { maxDelayMs: 2 ** 31 } }],
    ["retry.maxRetryAfterMs", { retry: { maxRetryAfterMs: 1e12 } }],
  ])("refuse a timer option %s longer than a timer can wait, on both models", (option, fields) => {
    const got = option === "retry.maxRetryAfterMs" ? "1000000000000" : String(2 ** 31);
    const expected = {
      option,
      message: `\`${option}\` must be at most 2147483647 ms (about 24.8 days): a timer set any longer fires at once; got ${got}.`,
    };
    expect(configurationProblem(() => validateChatOptions(fields))).toEqual(expected);
    expect(configurationProblem(() => validateDedicatedEndpointOptions(fields))).toEqual(expected);
  });

  it("accept a timer option of exactly 2147483647 ms, and any waitForReady (a deadline, not a timer)", () => {
    const longest = 2_147_483_647;
    const retry = { initialDelayMs: longest, maxDelayMs: longest, maxRetryAfterMs: longest };
    expect(validateChatOptions({ timeout: longest, idleTimeout: longest, retry })).toMatchObject({
      timeout: longest,
      idleTimeout: longest,
      retry,
    });
    expect(validateDedicatedEndpointOptions({ waitForReady: 1e12 })).toMatchObject({
      waitForReady: 1e12,
    });
  });

  it("refuse diagnose's timeout over 2147483647 ms", async () => {
    const error = await diagnose({ timeout: 2 ** 31 }).catch((e: unknown) => e);
    expect(
      configurationProblem(() => {
        throw error;
      }),
    ).toEqual({
      option: "timeout",
      message:
        "`timeout` must be at most 2147483647 ms (about 24.8 days): a timer set any longer fires at once; got 2147483648.",
    });
  });
});

describe("the models' serialised options", () => {
  const connection = { apiKey: "sk-canary-5e1d", baseURL: "https://svc.test" };
  const marked = (shape: Record<string, z.core.$ZodType>, serialised: boolean) =>
    Object.keys(shape).filter((name) => isSerialised(shape[name]!) === serialised);

  it("are each marked, on the schema, as serialised or never serialised", () => {
    for (const { shape } of [chatInferenceServiceOptions, dedicatedEndpointLLMOptions]) {
      for (const [name, field] of Object.entries(shape)) {
        expect(typeof isSerialised(field), name).toBe("boolean");
      }
    }
  });

  it("are DedicatedEndpointLLM's lc_serializable_keys and the fields it keeps", () => {
    const serialised = marked(dedicatedEndpointLLMOptions.shape, true);
    expect(serialised).toEqual([
      "tenantId",
      "jobAlias",
      "baseURL",
      "maxRetries",
      "maxConcurrency",
      "timeout",
      "idleTimeout",
      "retry",
      "telemetry",
      "captureContent",
      "maxTokens",
      "temperature",
      "stop",
      "waitForReady",
      "streaming",
      "modelKwargs",
    ]);
    const llm = new DedicatedEndpointLLM({
      ...connection,
      serviceName: "t.a",
      maxTokens: 5,
      profiles: {},
      rateLimiter: new RateLimiter({ requestsPerMinute: 60 }),
    });
    // What LangChain prints and serialises is cut to the schema's list in the constructor.
    expect(Object.keys(llm.lc_kwargs)).toEqual(["baseURL", "maxTokens", "maxRetries"]);
    expect(llm).toMatchObject({ maxTokens: 5, maxRetries: 2, streaming: false, waitForReady: 0 });
  });

  it("decide which of its own options ChatInferenceService writes, ChatOpenAI's list the rest", () => {
    const chat = new ChatInferenceService("m", { ...connection, idleTimeout: 5, retry: {} });
    const keys = serialisableKeys(ChatOpenAICompletions.prototype.lc_serializable_keys ?? []);
    expect(keys).toEqual(expect.arrayContaining(marked(chatInferenceServiceOptions.shape, true)));
    expect(keys).toContain("temperature");
    for (const never of marked(chatInferenceServiceOptions.shape, false)) {
      expect(keys).not.toContain(never);
    }
    // What LangChain prints and serialises is cut to that list in the constructor.
    expect(Object.keys(chat.lc_kwargs).every((key) => keys.includes(key))).toBe(true);
    const json = JSON.stringify(chat);
    expect(JSON.parse(json).kwargs).toMatchObject({ idle_timeout: 5, retry: {} });
    expect(json).not.toContain(connection.apiKey);
  });
});

describe("each model's options type, declared beside the model", () => {
  /** The shared options' own type, as declared once. */
  const modelsShared = "ModelOptions";
  const models = [
    ["chat", "ChatInferenceServiceOptions", chatInferenceServiceOptions],
    ["completions", "DedicatedEndpointLLMOptions", dedicatedEndpointLLMOptions],
    ["embeddings", "InferenceServiceEmbeddingsOptions", inferenceServiceEmbeddingsOptions],
    ["rerank", "InferenceServiceRerankOptions", inferenceServiceRerankOptions],
  ] as const;

  it("shows every option's JSDoc and @default, the shared ones included", () => {
    const docs = optionDocs({
      ...Object.fromEntries(models.map(([api, type]) => [`../src/apis/${api}/options.ts`, [type]])),
      "../src/apis/options.ts": [modelsShared],
    });
    for (const [, type, schema] of models) {
      const documented = docs.get(type)!;
      expect([...documented.keys()].sort(), type).toEqual(Object.keys(schema.shape).sort());
      for (const [name, doc] of documented) {
        expect(doc.text, `${type}.${name}`).not.toBe("");
        expect(doc.default, `${type}.${name}`).toBeDefined();
      }
      // The options every model shares read the same on each model's type as where they are declared.
      for (const name of ["apiKey", "baseURL", "maxRetries", "timeout", "rateLimiter"]) {
        expect(documented.get(name), `${type}.${name}`).toEqual(docs.get(modelsShared)!.get(name));
      }
    }
  }, 120_000);
});
