/**
 * End to end over real HTTP: both models against the emulator on a free port, for every docs/service-contract.md#errors row
 * that a configuration can produce and both docs/service-contract.md#endpoint-states states, plus streaming, tools, structured output
 * and metering.
 */
import { tool } from "@langchain/core/tools";
import {
  AuthenticationError,
  BaseURLError,
  ChatInferenceService,
  type ChatInferenceServiceFields,
  DedicatedEndpointLLM,
  EndpointNotReadyError,
  InferenceServiceError,
  InsufficientCreditError,
  InvalidURLError,
  ModelNotFoundError,
  ServiceNameError,
} from "langchain-inference-service";
import { type RunningEmulator, startEmulator } from "langchain-inference-service/emulator";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Fetch } from "../src/transport/fetch.js";

let emulator: RunningEmulator;
const PRICE = { input: 0.5, output: 1.5 }; // emulator-chat, per million tokens

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
});
afterAll(() => emulator.close());
beforeEach(() => emulator.state.reset());

const fast = { retry: { initialDelayMs: 1, maxDelayMs: 2 } };
const chat = (fields: Omit<ChatInferenceServiceFields, "model"> = {}, model = "emulator-chat") =>
  new ChatInferenceService(model, {
    apiKey: emulator.apiKey,
    baseURL: emulator.baseURL,
    ...fast,
    ...fields,
  });
const endpoint = (fields: ConstructorParameters<typeof DedicatedEndpointLLM>[0] = {}) =>
  new DedicatedEndpointLLM({
    serviceName: "tenant-demo.demo-endpoint",
    apiKey: emulator.apiKey,
    baseURL: emulator.baseURL,
    ...fast,
    ...fields,
  });

/** A fetch that sends to another path, as a user's own misconfigured proxy or SDK would. */
const rewrite =
  (from: string, to: string): Fetch =>
  (input, init) =>
    fetch(String(input).replace(from, to), init);

async function failure(promise: Promise<unknown>): Promise<InferenceServiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(InferenceServiceError.isInstance(error), String(error)).toBe(true);
  return error as InferenceServiceError;
}

describe("hosted surface against the emulator", () => {
  it("401: a missing and an invalid key fail the same way on the first response", async () => {
    const before = emulator.state.requests().length;
    const invalid = await failure(chat({ apiKey: "sk-wrong" }).invoke("hi"));
    expect(AuthenticationError.isInstance(invalid)).toBe(true);
    expect(invalid.requestId).toBe(emulator.state.lastRequest()?.requestId);
    expect(emulator.state.requests().length - before).toBe(1);
  });

  it("403: credit exhausted maps to InsufficientCreditError with the Chinese text kept", async () => {
    emulator.state.setCredit(0);
    const e = await failure(chat().invoke("hi"));
    expect(InsufficientCreditError.isInstance(e)).toBe(true);
    expect(e).toMatchObject({
      status: 403,
      code: "insufficient_user_quota",
      param: "",
      retryable: false,
    });
    expect(e.serviceMessage).toMatch(/^用户额度不足/);
  });

  it("404: a singular path is InvalidURLError showing the path the service saw", async () => {
    const e = await failure(
      chat({ fetch: rewrite("/chat/completions", "/chat/completion") }).invoke("hi"),
    );
    expect(InvalidURLError.isInstance(e)).toBe(true);
    expect(e.serviceMessage).toBe("Invalid URL (POST /v1/chat/completion)");
  });

  it("503 model_not_found fails at once as ModelNotFoundError", async () => {
    const before = emulator.state.requests().length;
    const e = await failure(chat({}, "no-such-model").invoke("hi"));
    expect(ModelNotFoundError.isInstance(e)).toBe(true);
    expect(emulator.state.requests().length - before).toBe(1);
  });

  it("HTML 200: a base without /v1 is BaseURLError", async () => {
    const e = await failure(chat({ fetch: rewrite("/inference/v1/", "/inference/") }).invoke("hi"));
    expect(BaseURLError.isInstance(e)).toBe(true);
    expect(e.status).toBe(200);
  });

  it("meters exactly: credit drops by the reported tokens × price", async () => {
    const before = emulator.state.credit;
    const reply = await chat().invoke("How much does this cost?");
    const usage = reply.usage_metadata!;
    const expected = (usage.input_tokens * PRICE.input + usage.output_tokens * PRICE.output) / 1e6;
    expect(before - emulator.state.credit).toBeCloseTo(expected, 12);
  });

  it("lets the call that runs credit out succeed, then answers 403", async () => {
    emulator.state.setCredit(0.000001);
    await expect(chat().invoke("spend the last credit")).resolves.toBeDefined();
    expect(emulator.state.credit).toBeLessThanOrEqual(0);
    expect(InsufficientCreditError.isInstance(await failure(chat().invoke("again")))).toBe(true);
  });

  it("streams with usage, calls tools and returns structured output", async () => {
    let text = "";
    let usage: unknown;
    for await (const chunk of await chat().stream("Tell me something")) {
      text += chunk.text;
      usage = chunk.usage_metadata ?? usage;
    }
    expect(text).toMatch(/^Emulated reply/);
    expect(usage).toMatchObject({
      input_tokens: expect.any(Number),
      output_tokens: expect.any(Number),
    });

    const weather = tool(async () => "sunny", {
      name: "get_weather",
      description: "Get the weather for a city",
      schema: z.object({ city: z.string() }),
    });
    const call = await chat().bindTools([weather]).invoke("What is the weather in Oslo?");
    expect(call.tool_calls?.[0]).toMatchObject({ name: "get_weather", args: { city: "Oslo" } });

    const person = await chat()
      .withStructuredOutput(z.object({ name: z.string(), age: z.number() }))
      .invoke('"Grace Hopper" is 85');
    expect(person).toEqual({ name: "Grace Hopper", age: 85 });
  });
});

describe("dedicated surface against the emulator", () => {
  it("Running (docs/service-contract.md#endpoint-states): answers, routed by Service-Name", async () => {
    await expect(endpoint().invoke("Hello")).resolves.toMatch(/Emulated completion/);
    expect(emulator.state.lastRequest()).toMatchObject({
      surface: "dedicated",
      serviceName: "tenant-demo.demo-endpoint",
    });
  });

  it("Pending (docs/service-contract.md#endpoint-states): the closed connection is EndpointNotReadyError, retried maxRetries times", async () => {
    const e = await failure(
      endpoint({ serviceName: "tenant-demo.pending-endpoint", maxRetries: 1 }).invoke("hi"),
    );
    expect(EndpointNotReadyError.isInstance(e)).toBe(true);
    expect(e.retryable).toBe(true);
  });

  it("Pending then Running: waitForReady waits until the endpoint answers", async () => {
    emulator.state.addEndpoint({ tenantId: "tenant-demo", jobAlias: "soon", readyAfterMs: 150 });
    const llm = endpoint({ serviceName: "tenant-demo.soon", waitForReady: 10_000 });
    await expect(llm.invoke("ping")).resolves.toMatch(/Emulated completion/);
  });

  it("401: a key without the Inference Service permission, with the permission hint", async () => {
    const e = await failure(endpoint({ apiKey: "sk-emulator-noperm" }).invoke("hi"));
    expect(AuthenticationError.isInstance(e)).toBe(true);
    expect(e.hint).toMatch(/Inference Service permission/);
  });

  it("401: an expired key", async () => {
    const e = await failure(endpoint({ apiKey: "sk-emulator-expired" }).invoke("hi"));
    expect(AuthenticationError.isInstance(e)).toBe(true);
  });

  it("404: an unknown Service-Name is ServiceNameError", async () => {
    const e = await failure(endpoint({ serviceName: "tenant-demo.nope" }).invoke("hi"));
    expect(ServiceNameError.isInstance(e)).toBe(true);
    expect(e.message).toContain("tenant-demo.nope");
  });

  it("streams token by token with usage", async () => {
    const tokens: string[] = [];
    for await (const token of await endpoint().stream("Count to three")) tokens.push(token);
    expect(tokens.length).toBeGreaterThan(3);
    expect(tokens.join("")).toMatch(/Emulated completion/);
  });
});
