/**
 * `fallbackMiddleware` with `createAgent` on the emulator: each failure another model may not
 * have goes to the next model, and each failure no other model fixes is thrown — one request per
 * model, read from the emulator's request log (the `X-Emulator-Fault` header makes the primary
 * fail) — in `invoke` and in `streamMode: "messages"`, alone and beside LangChain's own retry and
 * this package's budget middleware; the usage of failed attempts is counted.
 */
import { AIMessage } from "@langchain/core/messages";
import { createAgent, createMiddleware, modelRetryMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { ChatInferenceService } from "../../src/apis/chat/chat_models.js";
import { createEmulator, DEFAULT_MODEL } from "../../src/emulator/index.js";
import { isAbortError } from "../../src/errors/abort.js";
import {
  AuthenticationError,
  BadRequestError,
  BudgetExceededError,
  ConfigurationError,
  ContentFilterError,
  ContextLengthExceededError,
  InsufficientCreditError,
  ModelNotFoundError,
  RateLimitError,
  ServiceConnectionError,
  ServiceTimeoutError,
  ServiceUnavailableError,
} from "../../src/errors/errors.js";
import { budgetMiddleware } from "../../src/middleware/budget.js";
import type { BudgetReached } from "../../src/middleware/budget_reached.js";
import { fallbackMiddleware } from "../../src/middleware/fallback.js";
import type { FallbackCandidates } from "../../src/middleware/fallback_rules.js";
import { typedCause } from "../../src/middleware/middleware_error.js";
import { UsageTracker } from "../../src/spend/usage_tracker.js";

const BACKUP = "emulator-reasoner";
const ASK = { messages: [{ role: "user", content: "Summarise our refund policy" }] };

function setup() {
  const emulator = createEmulator();
  const profiles = emulator.state.modelProfiles();
  const prices = Object.fromEntries(emulator.state.listModels().map((m) => [m.id, m.prices]));
  const model = (id: string, fields: Record<string, unknown> = {}) =>
    new ChatInferenceService(id, {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch: emulator.fetch,
      maxRetries: 0,
      maxTokens: 50,
      profiles,
      ...fields,
    });
  /** The agent's model, failing every call with `fault`. */
  const failing = (fault: string, fields: Record<string, unknown> = {}) =>
    model(DEFAULT_MODEL, {
      configuration: { defaultHeaders: { "X-Emulator-Fault": fault } },
      ...fields,
    });
  /**
   * What reached the emulator: each faulted call by its fault, each other by its model (a call
   * whose key was refused, before its body was read, by its status).
   */
  const log = () =>
    emulator.state.requests().map((entry) => entry.fault ?? entry.model ?? entry.status);
  return { emulator, prices, model, failing, log };
}

/** Who wrote the agent's last message. */
function answeredBy(messages: readonly unknown[]): unknown {
  const last = messages.at(-1);
  expect(AIMessage.isInstance(last)).toBe(true);
  return (last as AIMessage).response_metadata.model_name;
}

/** The typed error an agent's invocation rejected with, out of LangChain's MiddlewareError. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeDefined();
  return typedCause(error);
}

describe("fallbackMiddleware falls back on what another model may not have", () => {
  const rows: Array<
    [string, (s: ReturnType<typeof setup>) => ChatInferenceService, string, unknown]
  > = [
    ["ModelNotFoundError", (s) => s.model("no-such-model"), "no-such-model", ModelNotFoundError],
    ["ServiceUnavailableError", (s) => s.failing("503"), "503", ServiceUnavailableError],
    ["RateLimitError (no retries left)", (s) => s.failing("429"), "429", RateLimitError],
    [
      "ServiceTimeoutError",
      (s) => s.failing("stall", { timeout: 200 }),
      "stall",
      ServiceTimeoutError,
    ],
    ["ServiceConnectionError", (s) => s.failing("reset"), "reset", ServiceConnectionError],
  ];

  for (const [name, primary, logged, errorClass] of rows) {
    it(`${name}: the backup answers, one request per model`, async () => {
      const s = setup();
      const failed = primary(s);
      await expect(failed.invoke("hi")).rejects.toSatisfy((error) =>
        (errorClass as { isInstance(e: unknown): boolean }).isInstance(error),
      );
      s.emulator.state.clearRequests();
      const agent = createAgent({
        model: failed,
        tools: [],
        middleware: [fallbackMiddleware({ models: [s.model(BACKUP)] })],
      });
      expect(answeredBy((await agent.invoke(ASK)).messages)).toBe(BACKUP);
      expect(s.log()).toEqual([logged, BACKUP]);
    });
  }

  it("RateLimitError once the model's own retries are spent: the primary's retries first, then the backup", async () => {
    const s = setup();
    const agent = createAgent({
      model: s.failing("429", { maxRetries: 1, retry: { maxDelayMs: 1 } }),
      tools: [],
      middleware: [fallbackMiddleware({ models: [s.model(BACKUP)] })],
    });
    expect(answeredBy((await agent.invoke(ASK)).messages)).toBe(BACKUP);
    expect(s.log()).toEqual(["429", "429", BACKUP]);
  });

  it("ContextLengthExceededError: skips a fallback whose window is not larger, takes the larger one", async () => {
    const s = setup();
    const primary = s.failing("context_length_exceeded");
    const same = s.model("emulator-vllm");
    expect(same.profile.maxInputTokens).toBe(primary.profile.maxInputTokens);
    expect(s.model(BACKUP).profile.maxInputTokens).toBeGreaterThan(primary.profile.maxInputTokens!);
    const agent = createAgent({
      model: primary,
      tools: [],
      middleware: [fallbackMiddleware({ models: [same, s.model(BACKUP)] })],
    });
    expect(answeredBy((await agent.invoke(ASK)).messages)).toBe(BACKUP);
    expect(s.log()).toEqual(["context_length_exceeded", BACKUP]);
  });

  it("ContextLengthExceededError: falls back where a window is not declared, and throws when none is larger", async () => {
    const s = setup();
    const undeclared = s.model(BACKUP, { profiles: {} });
    expect(undeclared.profile.maxInputTokens).toBeUndefined();
    const open = createAgent({
      model: s.failing("context_length_exceeded"),
      tools: [],
      middleware: [fallbackMiddleware({ models: [undeclared] })],
    });
    expect(answeredBy((await open.invoke(ASK)).messages)).toBe(BACKUP);
    s.emulator.state.clearRequests();
    const closed = createAgent({
      model: s.failing("context_length_exceeded"),
      tools: [],
      middleware: [fallbackMiddleware({ models: [s.model("emulator-vllm")] })],
    });
    expect(await rejection(closed.invoke(ASK))).toSatisfy((error) =>
      ContextLengthExceededError.isInstance(error),
    );
    expect(s.log()).toEqual(["context_length_exceeded"]);
  });
});

describe("fallbackMiddleware never falls back on what no other model fixes", () => {
  const rows: Array<
    [
      string,
      (s: ReturnType<typeof setup>) => ChatInferenceService,
      string | number,
      (e: unknown) => boolean,
    ]
  > = [
    [
      "AuthenticationError",
      (s) => s.model(DEFAULT_MODEL, { apiKey: "sk-not-a-key-of-the-emulator" }),
      401,
      (e) => AuthenticationError.isInstance(e),
    ],
    [
      "InsufficientCreditError",
      (s) => s.failing("insufficient_user_quota"),
      "insufficient_user_quota",
      (e) => InsufficientCreditError.isInstance(e),
    ],
    [
      "the user's own BadRequestError",
      (s) => s.failing("invalid_request"),
      "invalid_request",
      (e) => BadRequestError.isInstance(e) && !ContentFilterError.isInstance(e),
    ],
    [
      "ContentFilterError",
      (s) => s.failing("sensitive_words_detected"),
      "sensitive_words_detected",
      (e) => ContentFilterError.isInstance(e),
    ],
  ];

  for (const [name, primary, logged, is] of rows) {
    it(`${name}: thrown at once, the backup never called`, async () => {
      const s = setup();
      const agent = createAgent({
        model: primary(s),
        tools: [],
        middleware: [fallbackMiddleware({ models: [s.model(BACKUP)] })],
      });
      expect(await rejection(agent.invoke(ASK))).toSatisfy(is);
      expect(s.log()).toEqual([logged]);
    });
  }

  it("BudgetExceededError: the refused call was never sent, and no other model is asked", async () => {
    const s = setup();
    const usage = new UsageTracker({ prices: s.prices, budget: 0 });
    const agent = createAgent({
      model: s.model(DEFAULT_MODEL),
      tools: [],
      middleware: [fallbackMiddleware({ models: [s.model(BACKUP)] })],
    });
    expect(await rejection(agent.invoke(ASK, { callbacks: [usage] }))).toSatisfy((error) =>
      BudgetExceededError.isInstance(error),
    );
    expect(s.log()).toEqual([]);
    expect(usage.records.map((record) => record.model)).toEqual([DEFAULT_MODEL]);
  });

  it("an abort: the caller's stop is thrown, the backup never called", async () => {
    const s = setup();
    const controller = new AbortController();
    const primary = s.model(DEFAULT_MODEL, {
      configuration: { defaultHeaders: { "X-Emulator-Fault": "latency=60000" } },
      // Stops the call once its request is on its way.
      fetch: (input: RequestInfo | URL, init?: RequestInit) => {
        const response = s.emulator.fetch(input, init);
        setTimeout(() => controller.abort(), 0);
        return response;
      },
    });
    const agent = createAgent({
      model: primary,
      tools: [],
      middleware: [fallbackMiddleware({ models: [s.model(BACKUP)] })],
    });
    const error = await rejection(agent.invoke(ASK, { signal: controller.signal }));
    expect(isAbortError(error) || controller.signal.reason === error).toBe(true);
    expect(s.log()).not.toContain(BACKUP);
  });
});

describe("fallbackMiddleware's choice and its last failure", () => {
  it("throws the last model's typed error when every model fails, once each", async () => {
    const s = setup();
    const agent = createAgent({
      model: s.failing("503"),
      tools: [],
      middleware: [
        fallbackMiddleware({
          models: [
            s.failing("502"),
            s.model(BACKUP, { configuration: { defaultHeaders: { "X-Emulator-Fault": "reset" } } }),
          ],
        }),
      ],
    });
    const error = await rejection(agent.invoke(ASK));
    expect(ServiceConnectionError.isInstance(error)).toBe(true);
    expect(s.log()).toEqual(["503", "502", "reset"]);
  });

  it("asks `on` instead of the rules, with the typed error (out of an inner middleware's MiddlewareError) and both models", async () => {
    const s = setup();
    const primary = s.failing("invalid_request");
    const backup = s.model(BACKUP);
    const asked: Array<[unknown, FallbackCandidates]> = [];
    const passThrough = createMiddleware({
      name: "passThrough",
      wrapModelCall: (request, handler) => handler(request),
    });
    const agent = createAgent({
      model: primary,
      tools: [],
      middleware: [
        fallbackMiddleware({
          models: [backup],
          on: (error, models) => {
            asked.push([error, models]);
            return true;
          },
        }),
        passThrough,
      ],
    });
    expect(answeredBy((await agent.invoke(ASK)).messages)).toBe(BACKUP);
    expect(asked).toHaveLength(1);
    expect(BadRequestError.isInstance(asked[0]![0])).toBe(true);
    expect(asked[0]![1].failed).toBe(primary);
    expect(asked[0]![1].next).toBe(backup);
    s.emulator.state.clearRequests();
    const never = createAgent({
      model: s.failing("503"),
      tools: [],
      middleware: [fallbackMiddleware({ models: [backup], on: () => false })],
    });
    expect(await rejection(never.invoke(ASK))).toSatisfy((error) =>
      ServiceUnavailableError.isInstance(error),
    );
    expect(s.log()).toEqual(["503"]);
  });

  it("refuses options it cannot use, naming the option", () => {
    const { model } = setup();
    const cases: Array<[unknown, string]> = [
      [{}, "models"],
      [{ models: [] }, "models"],
      [{ models: ["emulator-reasoner"] }, "models"],
      [{ models: [model(BACKUP)], on: true }, "on"],
      [{ models: [model(BACKUP)], fallbacks: [] }, "fallbacks"],
    ];
    for (const [options, option] of cases) {
      let caught: unknown;
      try {
        fallbackMiddleware(options as never);
      } catch (error) {
        caught = error;
      }
      expect(ConfigurationError.isInstance(caught)).toBe(true);
      expect((caught as ConfigurationError).option).toBe(option);
    }
  });
});

describe("fallbackMiddleware in streaming and beside other middleware", () => {
  it("streams the backup's reply in streamMode messages after the primary's 503", async () => {
    const s = setup();
    const agent = createAgent({
      model: s.failing("503"),
      tools: [],
      middleware: [fallbackMiddleware({ models: [s.model(BACKUP)] })],
    });
    let text = "";
    for await (const [chunk] of await agent.stream(ASK, { streamMode: "messages" })) {
      text += chunk.text;
    }
    expect(text).toContain('Emulated reply to: "Summarise our refund policy"');
    expect(s.log()).toEqual(["503", BACKUP]);
    expect(s.emulator.state.requests().at(-1)?.stream).toBe(true);
  });

  it("counts a failed attempt's usage: a stream cut mid-way is tracked, and in the budget's run spend", async () => {
    const s = setup();
    const usage = new UsageTracker({ prices: s.prices, currency: "credit" });
    const agent = createAgent({
      // Streamed even in `invoke`: a stream cut mid-way has output to count.
      model: s.failing("truncate", { streaming: true }),
      tools: [],
      middleware: [
        budgetMiddleware({ tracker: usage, maxCost: 1 }),
        fallbackMiddleware({ models: [s.model(BACKUP)] }),
      ],
    });
    const result = await agent.invoke(ASK, { callbacks: [usage] });
    expect(answeredBy(result.messages)).toBe(BACKUP);
    const [failed, answered] = usage.records;
    expect(usage.records).toHaveLength(2);
    expect(failed).toMatchObject({
      model: DEFAULT_MODEL,
      error: { name: "ServiceConnectionError" },
    });
    expect(failed!.outputTokens).toBeGreaterThan(0);
    expect(failed!.cost).toBeGreaterThan(0);
    expect(answered).toMatchObject({ model: BACKUP, settlement: "reported" });
    expect(s.log()).toEqual(["truncate", BACKUP]);
    // The budget's next step would start from both attempts' cost.
    const spent = usage.spent;
    expect(spent).toBeCloseTo(failed!.cost! + answered!.cost!, 12);
  });

  it("takes over after LangChain's modelRetryMiddleware has spent its retries", async () => {
    const s = setup();
    const agent = createAgent({
      model: s.failing("503"),
      tools: [],
      middleware: [
        fallbackMiddleware({ models: [s.model(BACKUP)] }),
        modelRetryMiddleware({ maxRetries: 1, initialDelayMs: 0, onFailure: "error" }),
      ],
    });
    expect(answeredBy((await agent.invoke(ASK)).messages)).toBe(BACKUP);
    expect(s.log()).toEqual(["503", "503", BACKUP]);
  });

  it("inside budgetMiddleware: the budget's ending is no failure, and a budget refusal is never passed on", async () => {
    const s = setup();
    const usage = new UsageTracker({ prices: s.prices, budget: 0, currency: "credit" });
    const agent = createAgent({
      model: s.failing("503"),
      tools: [],
      middleware: [
        budgetMiddleware({ tracker: usage }),
        fallbackMiddleware({ models: [s.model(BACKUP)] }),
      ],
    });
    const last = (await agent.invoke(ASK)).messages.at(-1) as AIMessage;
    expect((last.response_metadata.budgetExceeded as BudgetReached).limit).toBe("budget");
    expect(s.log()).toEqual([]);
  });
});
