/**
 * How much a model thinks, and whether: `reasoning: { effort }` sent as `reasoning_effort` for
 * every hosted model (constructor and call option), and providers' thinking switches sent as
 * body fields through `modelKwargs`, the model's and a call's. Asserted on the wire.
 */
import { load } from "@langchain/core/load";
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  ChatInferenceService,
  type ChatInferenceServiceFields,
} from "../../../../src/apis/chat/chat_models.js";
import { configurationError } from "../../../helpers/errors.js";
import {
  BASE,
  chatCompletion,
  intercept,
  JSON_HEADERS,
  KEY,
  streamedReply,
} from "../../../helpers/wire.js";

const CHAT = "/inference/v1/chat/completions";
const OK = [200, chatCompletion({ content: "ok" }), JSON_HEADERS] as const;
const STREAMED = streamedReply([{ content: "ok" }]);

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

const model = (fields: Omit<ChatInferenceServiceFields, "model"> = {}, name = "deepseek-v3.2") =>
  new ChatInferenceService(name, { apiKey: KEY, baseURL: BASE, maxRetries: 0, ...fields });

describe("reasoning effort", () => {
  it("sends `reasoning: { effort }` as reasoning_effort for any hosted model, on invoke, stream and events", async () => {
    const seen = intercept(CHAT, [...OK]);
    const chat = model({ reasoning: { effort: "low" } });
    await chat.invoke("hi");
    nock.cleanAll();
    const streamed = intercept(CHAT, [...STREAMED]);
    for await (const _ of await chat.stream("hi"));
    await chat.streamEvents("hi").output;
    expect(seen[0]?.body.reasoning_effort).toBe("low");
    expect(streamed.map((request) => request.body.reasoning_effort)).toEqual(["low", "low"]);
  });

  it("takes a call's `reasoning` (or `reasoningEffort`) over the model's", async () => {
    const seen = intercept(CHAT, [...OK]);
    const chat = model({ reasoning: { effort: "low" } });
    await chat.invoke("hi", { reasoning: { effort: "high" } });
    await model().invoke("hi", { reasoningEffort: "medium" });
    await chat.withConfig({ reasoning: { effort: "minimal" } }).invoke("hi");
    expect(seen.map((request) => request.body.reasoning_effort)).toEqual([
      "high",
      "medium",
      "minimal",
    ]);
  });

  it("sends no reasoning_effort when none is given", async () => {
    const seen = intercept(CHAT, [...OK]);
    await model().invoke("hi");
    expect(seen[0]?.body).not.toHaveProperty("reasoning_effort");
  });

  it("is checked at construction, and serialised with the model", async () => {
    expect(configurationError(() => model({ reasoning: { effort: "" } as never })).message).toBe(
      '`reasoning` must be an object such as { effort: "low" } (effort a non-empty string); got {"effort":""}.',
    );
    const json = JSON.stringify(model({ reasoning: { effort: "high" } }));
    const loaded = await load<ChatInferenceService>(json, {
      secretsMap: { INFERENCE_SERVICE_API_KEY: KEY },
      optionalImportsMap: { "langchain_inference_service/chat_models": { ChatInferenceService } },
    });
    expect(loaded.reasoning).toEqual({ effort: "high" });
  });
});

describe("providers' thinking switches, as body fields", () => {
  it("sends the model's `modelKwargs` with every call", async () => {
    const seen = intercept(CHAT, [...OK]);
    await model({ modelKwargs: { thinking: { type: "enabled" } } }).invoke("hi");
    expect(seen[0]?.body.thinking).toEqual({ type: "enabled" });
  });

  it("lays a call's `modelKwargs` over the model's, for that call only", async () => {
    const seen = intercept(CHAT, [...OK]);
    const chat = model({ modelKwargs: { thinking: { type: "enabled" }, top_k: 20 } });
    await chat.invoke("hi", { modelKwargs: { thinking: { type: "disabled" } } });
    await chat.invoke("hi");
    expect(seen[0]?.body).toMatchObject({ thinking: { type: "disabled" }, top_k: 20 });
    expect(seen[1]?.body).toMatchObject({ thinking: { type: "enabled" }, top_k: 20 });
  });

  it.each([
    ["DeepSeek, GLM", { thinking: { type: "disabled" } }],
    ["Qwen3 on DashScope", { enable_thinking: false }],
    ["Qwen3 on vLLM or SGLang", { chat_template_kwargs: { enable_thinking: false } }],
  ])("passes %s's switch through a binding, on invoke and stream", async (_provider, kwargs) => {
    const seen = intercept(CHAT, [...OK], [...STREAMED]);
    const bound = model().withConfig({ modelKwargs: kwargs });
    await bound.invoke("hi");
    for await (const _ of await bound.stream("hi"));
    expect(seen).toHaveLength(2);
    for (const request of seen) expect(request.body).toMatchObject(kwargs);
  });
});
