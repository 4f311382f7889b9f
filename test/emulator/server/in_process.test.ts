import { ChatOpenAI } from "@langchain/openai";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createEmulator,
  DEFAULT_SERVICE_NAME,
  IN_PROCESS_ORIGIN,
  PENDING_SERVICE_NAME,
} from "../../../src/emulator/index.js";
import { CHAT, chatBody, post } from "../helpers.js";

const emulator = createEmulator();
const client = new OpenAI({
  apiKey: emulator.apiKey,
  baseURL: emulator.baseURL,
  fetch: emulator.fetch,
  maxRetries: 0,
});
const chatModel = (fields: Record<string, unknown> = {}) =>
  new ChatOpenAI({
    model: "emulator-chat",
    apiKey: emulator.apiKey,
    maxRetries: 0,
    configuration: { baseURL: emulator.baseURL, fetch: emulator.fetch },
    ...fields,
  });

describe("createEmulator", () => {
  it("lives at an .invalid origin and hands out the demo key", () => {
    expect(emulator.baseURL).toBe(`${IN_PROCESS_ORIGIN}/inference/v1`);
    expect(emulator.url).toBe(IN_PROCESS_ORIGIN);
    expect(emulator.apiKey).toBe("sk-emulator-demo");
  });

  it("accepts a Request object and any origin", async () => {
    const request = new Request(`http://127.0.0.1:9${CHAT}`, {
      method: "POST",
      headers: { authorization: `Bearer ${emulator.apiKey}` },
      body: JSON.stringify(chatBody()),
    });
    expect((await emulator.fetch(request)).status).toBe(200);
  });

  it("rejects like undici, TypeError with an ECONNRESET cause, for a Pending endpoint", async () => {
    const call = post(
      emulator,
      "/inference/v1/completions",
      { prompt: "Hi" },
      {
        authorization: `Bearer ${emulator.apiKey}`,
        "service-name": PENDING_SERVICE_NAME,
      },
    );
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({ message: "fetch failed", cause: { code: "ECONNRESET" } });
  });
});

describe("createEmulator's body limit", () => {
  it("answers 413 to a body over maxBodyBytes, and serves one at the limit", async () => {
    const emulator = createEmulator({ maxBodyBytes: 2_000 });
    const call = (content: string) =>
      emulator.fetch(`${emulator.baseURL}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${emulator.apiKey}` },
        body: JSON.stringify({ model: "emulator-chat", messages: [{ role: "user", content }] }),
      });
    const over = await call("x".repeat(3_000));
    expect(over.status).toBe(413);
    expect(await over.json()).toMatchObject({ error: { code: "request_too_large" } });
    expect((await call("x".repeat(1_500))).status).toBe(200);
  });

  it("rejects a maxBodyBytes that is not a number ≥ 1, naming it", () => {
    expect(() => createEmulator({ maxBodyBytes: 0 })).toThrow(/maxBodyBytes/);
  });
});

describe("the openai SDK on the in-process fetch", () => {
  it("creates a chat completion", async () => {
    const completion = await client.chat.completions.create({
      model: "emulator-chat",
      messages: [{ role: "user", content: "Hello there" }],
    });
    expect(completion.choices[0]!.message.content).toBe('Emulated reply to: "Hello there"');
    expect(completion.usage).toEqual({ prompt_tokens: 9, completion_tokens: 9, total_tokens: 18 });
  });

  it("streams a chat completion with usage", async () => {
    const stream = await client.chat.completions.create({
      model: "emulator-chat",
      messages: [{ role: "user", content: "Hello there" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe('Emulated reply to: "Hello there"');
    expect(usage).toEqual({ prompt_tokens: 9, completion_tokens: 9, total_tokens: 18 });
  });

  it("calls a dedicated endpoint with the Service-Name header", async () => {
    const completion = await client.completions.create(
      { model: "ignored", prompt: "Once upon a time" },
      { headers: { "Service-Name": DEFAULT_SERVICE_NAME } },
    );
    expect(completion.choices[0]!.text).toBe('Emulated completion of: "Once upon a time"');
  });

  it("raises APIConnectionError for a Pending endpoint", async () => {
    const call = client.completions.create(
      { model: "ignored", prompt: "Hi" },
      { headers: { "Service-Name": PENDING_SERVICE_NAME } },
    );
    await expect(call).rejects.toBeInstanceOf(OpenAI.APIConnectionError);
  });

  it("raises the SDK's error classes with the service's codes", async () => {
    const messages = [{ role: "user" as const, content: "Hi" }];
    const unknownModel = client.chat.completions.create({ model: "no-such-model", messages });
    await expect(unknownModel).rejects.toBeInstanceOf(OpenAI.InternalServerError);
    await expect(unknownModel).rejects.toMatchObject({ status: 503, code: "model_not_found" });
    const stranger = new OpenAI({
      apiKey: "sk-wrong",
      baseURL: emulator.baseURL,
      fetch: emulator.fetch,
      maxRetries: 0,
    });
    const badKey = stranger.chat.completions.create({ model: "emulator-chat", messages });
    await expect(badKey).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    await expect(badKey).rejects.toMatchObject({ status: 401, code: "" });
  });

  it("bills an instant stream left after one event whole, as a gateway that relayed it all; a paced one as far as it went", async () => {
    const billedAfterOneEvent = async (streamChunkDelayMs: number) => {
      const paced = createEmulator({ streamChunkDelayMs });
      const body = chatBody("Tell me a long story about the sea", { stream: true });
      const response = await post(paced, CHAT, body);
      const reader = response.body!.getReader();
      await reader.read();
      await reader.cancel();
      const full = await post(paced, CHAT, body).then((r) => r.text());
      const [left, whole] = paced.state.requests();
      expect(full).toContain('"usage"');
      return { left: left!.completionTokens, whole: whole!.completionTokens };
    };
    const instant = await billedAfterOneEvent(0);
    expect(instant.left).toBe(instant.whole);
    expect(instant.whole).toBeGreaterThan(5);
    const paced = await billedAfterOneEvent(1);
    expect(paced.left).toBeLessThan(paced.whole);
  });

  it("fails the iteration of a truncated stream", async () => {
    const stream = await client.chat.completions.create(
      {
        model: "emulator-chat",
        messages: [{ role: "user", content: "Hello there" }],
        stream: true,
      },
      { headers: { "X-Emulator-Fault": "truncate" } },
    );
    const consume = async () => {
      for await (const _chunk of stream) {
        // drain
      }
    };
    await expect(consume()).rejects.toThrow();
  });
});

describe("LangChain's ChatOpenAI on the in-process fetch", () => {
  it("invokes and streams with usage metadata", async () => {
    const model = chatModel({ streamUsage: true });
    const message = await model.invoke("Hello there");
    expect(message.content).toBe('Emulated reply to: "Hello there"');
    expect(message.usage_metadata).toMatchObject({
      input_tokens: 9,
      output_tokens: 9,
      total_tokens: 18,
    });
    let streamed = "";
    let usage: unknown;
    for await (const chunk of await model.stream("Hello there")) {
      streamed += chunk.content;
      usage = chunk.usage_metadata ?? usage;
    }
    expect(streamed).toBe(message.content);
    expect(usage).toMatchObject({ input_tokens: 9, output_tokens: 9 });
  });

  it("calls a bound tool with arguments taken from the message", async () => {
    const weather = {
      name: "get_weather",
      description: "Get the current weather for a city",
      schema: z.object({ city: z.string(), unit: z.enum(["celsius", "fahrenheit"]) }),
    };
    const message = await chatModel()
      .bindTools([weather])
      .invoke("What's the weather in Lisbon in celsius?");
    expect(message.tool_calls).toEqual([
      expect.objectContaining({ name: "get_weather", args: { city: "Lisbon", unit: "celsius" } }),
    ]);
  });

  it.each(["functionCalling", "jsonSchema"] as const)(
    "returns structured output valid against a zod schema with method %s",
    async (method) => {
      const Person = z.object({ name: z.string(), age: z.number().int() });
      const result = await chatModel()
        .withStructuredOutput(Person, { method })
        .invoke("Ada Lovelace is 36 years old.");
      expect(Person.parse(result)).toEqual({ name: "Ada Lovelace", age: 36 });
    },
  );
});
