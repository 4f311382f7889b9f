import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SERVICE_NAME, REASONING_MODEL } from "../../../src/emulator/index.js";
import {
  bearer,
  CHAT,
  COMPLETIONS,
  chatBody,
  functionTool,
  inProcess,
  overHttp,
  parseSse,
  post,
  type TestEmulator,
} from "../helpers.js";

type Chunk = Record<string, unknown> & { choices: Array<Record<string, unknown>> };
const chunksOf = (events: ReturnType<typeof parseSse>) =>
  events.filter((e): e is Chunk => e !== "[DONE]");
const deltas = (events: ReturnType<typeof parseSse>) =>
  chunksOf(events).flatMap((chunk) =>
    chunk.choices.map((choice) => choice.delta as Record<string, unknown>),
  );

const WEATHER_TOOL = functionTool("get_weather", "Get the current weather for a city", {
  city: { type: "string" },
});

describe("streamed chat completions", () => {
  const emulator = inProcess();

  it("streams the role, ~1-token content pieces, the finish reason, a usage chunk and [DONE]", async () => {
    const plain = (await (await post(emulator, CHAT, chatBody("Stream this please"))).json()) as {
      choices: Array<{ message: { content: string } }>;
      usage: unknown;
    };
    const response = await post(emulator, CHAT, chatBody("Stream this please", { stream: true }));
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const text = await response.text();
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    const events = parseSse(text);
    const chunks = chunksOf(events);
    const requestId = response.headers.get("x-gateway-request-id");
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({
        id: `chatcmpl-${requestId}`,
        object: "chat.completion.chunk",
        model: "emulator-chat",
      });
    }
    expect(chunks[0]!.choices[0]).toEqual({
      index: 0,
      delta: { role: "assistant", content: "" },
      logprobs: null,
      finish_reason: null,
    });
    const pieces = deltas(events).flatMap((delta) =>
      typeof delta.content === "string" ? [delta.content] : [],
    );
    expect(pieces.length).toBeGreaterThan(5);
    expect(pieces.join("")).toBe(plain.choices[0]!.message.content);
    expect(chunks.at(-2)!.choices[0]).toEqual({
      index: 0,
      delta: {},
      logprobs: null,
      finish_reason: "stop",
    });
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: plain.usage });
    expect(events.at(-1)).toBe("[DONE]");
  });

  it("omits the usage chunk when stream_options.include_usage is false", async () => {
    const response = await post(
      emulator,
      CHAT,
      chatBody("Hi", { stream: true, stream_options: { include_usage: false } }),
    );
    const events = parseSse(await response.text());
    expect(chunksOf(events).some((chunk) => "usage" in chunk)).toBe(false);
    expect(chunksOf(events).at(-1)!.choices[0]!.finish_reason).toBe("stop");
    expect(events.at(-1)).toBe("[DONE]");
  });

  it("streams reasoning_content deltas before the content of a reasoning model", async () => {
    const response = await post(
      emulator,
      CHAT,
      chatBody("Hi", { model: REASONING_MODEL, stream: true }),
    );
    const all = deltas(parseSse(await response.text()));
    const firstContent = all.findIndex(
      (delta) => typeof delta.content === "string" && delta.content !== "",
    );
    const reasoningIndexes = all.flatMap((delta, i) => ("reasoning_content" in delta ? [i] : []));
    expect(reasoningIndexes.length).toBeGreaterThan(0);
    expect(Math.max(...reasoningIndexes)).toBeLessThan(firstContent);
    expect(reasoningIndexes.map((i) => all[i]!.reasoning_content).join("")).toBe(
      'Thinking about "Hi". No tool, context or schema applies, so I will reply directly.',
    );
  });

  it("streams a tool call as id and name first, then its arguments in pieces, then tool_calls", async () => {
    const response = await post(
      emulator,
      CHAT,
      chatBody("What's the weather in Paris?", { stream: true, tools: [WEATHER_TOOL] }),
    );
    const events = parseSse(await response.text());
    const toolDeltas = deltas(events).flatMap(
      (delta) => (delta.tool_calls as Array<Record<string, unknown>>) ?? [],
    );
    expect(toolDeltas[0]).toEqual({
      index: 0,
      id: expect.stringMatching(/^call_[0-9a-f]{24}$/),
      type: "function",
      function: { name: "get_weather", arguments: "" },
    });
    const argumentPieces = toolDeltas.slice(1).map((delta) => {
      expect(delta).toEqual({ index: 0, function: { arguments: expect.any(String) } });
      return (delta.function as { arguments: string }).arguments;
    });
    expect(argumentPieces.length).toBeGreaterThan(1);
    expect(JSON.parse(argumentPieces.join(""))).toEqual({ city: "Paris" });
    expect(chunksOf(events).at(-2)!.choices[0]!.finish_reason).toBe("tool_calls");
  });
});

describe("streamed completions over the node:http server", () => {
  let emulator: TestEmulator;
  beforeAll(async () => {
    emulator = await overHttp({ streamChunkDelayMs: 1 });
  });
  afterAll(() => emulator.close());

  it("streams text_completion chunks, a final chunk per prompt, usage and [DONE]", async () => {
    const response = await post(
      emulator,
      COMPLETIONS,
      { prompt: "Once upon a time", stream: true },
      { ...bearer(), "service-name": DEFAULT_SERVICE_NAME },
    );
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const events = parseSse(await response.text());
    const chunks = chunksOf(events);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ object: "text_completion", model: DEFAULT_SERVICE_NAME });
    }
    const text = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.text)).join("");
    expect(text).toBe('Emulated completion of: "Once upon a time"');
    expect(chunks.at(-2)!.choices).toEqual([
      { index: 0, text: "", logprobs: null, finish_reason: "stop" },
    ]);
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 4, completion_tokens: 11, total_tokens: 15 },
    });
    expect(events.at(-1)).toBe("[DONE]");
  });

  it("streams chat completions over HTTP with the same framing", async () => {
    const response = await post(emulator, CHAT, chatBody("Hi", { stream: true }));
    const events = parseSse(await response.text());
    expect(events.at(-1)).toBe("[DONE]");
    expect(chunksOf(events).at(-1)).toMatchObject({ choices: [], usage: expect.any(Object) });
  });
});
