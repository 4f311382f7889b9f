/**
 * Prompts and replies reach telemetry only when asked: by default no span, event or metric holds
 * a word of them; `captureContent: true` (or the GenAI conventions' environment variable) records
 * them as `gen_ai.input.messages` and `gen_ai.output.messages`, in the conventions' JSON shape.
 */
import { SpanStatusCode } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it, vi } from "vitest";
import {
  createEmulator,
  DEFAULT_EMBEDDING_MODEL,
  DEFAULT_MODEL,
  DEFAULT_RERANK_MODEL,
  DEFAULT_SERVICE_NAME,
  FAULT_HEADER,
} from "../../src/emulator/index.js";
import {
  ChatInferenceService,
  DedicatedEndpointLLM,
  InferenceServiceEmbeddings,
  InferenceServiceRerank,
} from "../../src/index.js";
import { inputMessages, ReplyContent, resolveCaptureContent } from "../../src/telemetry/content.js";
import type { Fetch } from "../../src/transport/fetch.js";
import { useOtel } from "../helpers/otel.js";

const emulator = createEmulator();
const PROMPT = "What is the secret recipe of Quokka pie";
const ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

const otel = useOtel();

const connection = { apiKey: emulator.apiKey, baseURL: emulator.baseURL, maxRetries: 0 };
const withFault =
  (fault: string): Fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set(FAULT_HEADER, fault);
    return emulator.fetch(input, { ...init, headers });
  };

const chat = (fields: Record<string, unknown> = {}) =>
  new ChatInferenceService(DEFAULT_MODEL, { ...connection, fetch: emulator.fetch, ...fields });
const llm = (fields: Record<string, unknown> = {}) =>
  new DedicatedEndpointLLM({
    serviceName: DEFAULT_SERVICE_NAME,
    ...connection,
    fetch: emulator.fetch,
    ...fields,
  });

/** Everything telemetry recorded, as text: spans (attributes, events, status) and metrics. */
async function everything(): Promise<string> {
  const spans = otel.spans().map((span: ReadableSpan) => ({
    name: span.name,
    attributes: span.attributes,
    events: span.events,
    status: span.status,
  }));
  return JSON.stringify({ spans, metrics: [...(await otel.metrics())] });
}

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream) {
    // read to the end
  }
}

const callSpan = () => otel.spans().find((span) => "gen_ai.operation.name" in span.attributes)!;

describe("by default", () => {
  it.each([
    ["chat invoke", () => chat().invoke(PROMPT)],
    ["chat stream", async () => drain(await chat().stream(PROMPT))],
    ["dedicated invoke", () => llm().invoke(PROMPT)],
    ["dedicated stream", async () => drain(await llm().stream(PROMPT))],
    [
      "rerank",
      () =>
        new InferenceServiceRerank(DEFAULT_RERANK_MODEL, {
          ...connection,
          fetch: emulator.fetch,
        }).rerank([PROMPT, "another"], PROMPT),
    ],
    [
      "embeddings",
      () =>
        new InferenceServiceEmbeddings(DEFAULT_EMBEDDING_MODEL, {
          ...connection,
          fetch: emulator.fetch,
        }).embedQuery(PROMPT),
    ],
  ])("%s: no word of the prompt or the reply in any span, event or metric", async (_name, call) => {
    await call();
    const recorded = await everything();
    expect(otel.spans().length).toBeGreaterThan(0);
    // The emulator's replies quote the prompt: "Emulated reply to: …".
    expect(recorded).not.toContain("Quokka");
    expect(recorded).not.toContain("gen_ai.input.messages");
    expect(recorded).not.toContain("gen_ai.output.messages");
  });

  it("a failure's span status is the package's hint, not the service's words", async () => {
    const error = (await chat({ fetch: withFault("sensitive_words_detected") })
      .invoke(PROMPT)
      .catch((e: unknown) => e)) as { hint: string; message: string };
    expect(callSpan().status).toEqual({ code: SpanStatusCode.ERROR, message: error.hint });
    expect(error.message).not.toBe(error.hint);
  });
});

describe("with captureContent: true", () => {
  it("chat: the messages sent and the reply, as the conventions' JSON", async () => {
    const model = chat({ captureContent: true });
    await model.invoke([
      { role: "system", content: "Be brief." },
      { role: "user", content: PROMPT },
    ]);
    const { attributes } = callSpan();
    expect(JSON.parse(String(attributes["gen_ai.input.messages"]))).toEqual([
      { role: "system", parts: [{ type: "text", content: "Be brief." }] },
      { role: "user", parts: [{ type: "text", content: PROMPT }] },
    ]);
    expect(JSON.parse(String(attributes["gen_ai.output.messages"]))).toEqual([
      {
        role: "assistant",
        parts: [{ type: "text", content: `Emulated reply to: "${PROMPT}"` }],
        finish_reason: "stop",
      },
    ]);
  });

  it("chat stream: the reply gathered from its chunks", async () => {
    await drain(await chat({ captureContent: true }).stream(PROMPT));
    const output = JSON.parse(String(callSpan().attributes["gen_ai.output.messages"]));
    expect(output).toEqual([
      {
        role: "assistant",
        parts: [{ type: "text", content: `Emulated reply to: "${PROMPT}"` }],
        finish_reason: "stop",
      },
    ]);
  });

  it("dedicated: the prompt as a user message, the completion as the reply", async () => {
    await llm({ captureContent: true }).invoke(PROMPT);
    const { attributes } = callSpan();
    expect(JSON.parse(String(attributes["gen_ai.input.messages"]))).toEqual([
      { role: "user", parts: [{ type: "text", content: PROMPT }] },
    ]);
    const [reply] = JSON.parse(String(attributes["gen_ai.output.messages"]));
    expect(reply).toMatchObject({ role: "assistant", finish_reason: "stop" });
    expect(reply.parts[0]).toMatchObject({ type: "text", content: expect.any(String) });
  });

  it("a failure's span status is its whole message", async () => {
    const error = (await chat({ captureContent: true, fetch: withFault("503") })
      .invoke(PROMPT)
      .catch((e: unknown) => e)) as Error;
    expect(callSpan().status).toEqual({ code: SpanStatusCode.ERROR, message: error.message });
  });

  it("embeddings record no content: the conventions have no attribute for their inputs", async () => {
    await new InferenceServiceEmbeddings(DEFAULT_EMBEDDING_MODEL, {
      ...connection,
      fetch: emulator.fetch,
      captureContent: true,
    }).embedQuery(PROMPT);
    expect(await everything()).not.toContain("Quokka");
  });

  it("rerank records no content either: neither the query nor the documents", async () => {
    await new InferenceServiceRerank(DEFAULT_RERANK_MODEL, {
      ...connection,
      fetch: emulator.fetch,
      captureContent: true,
    }).rerank([`${PROMPT} (a document)`, "another"], PROMPT);
    expect(otel.spans().length).toBeGreaterThan(0);
    expect(await everything()).not.toContain("Quokka");
  });
});

describe(`the ${ENV} variable`, () => {
  it.each([
    ["true", true],
    ["TRUE", true],
    ["span_only", true],
    ["SPAN_AND_EVENT", true],
    ["false", false],
    ["NO_CONTENT", false],
    ["event_only", false],
    ["yes please", false],
  ])("%s turns capture %s when the option is not given", async (value, on) => {
    vi.stubEnv(ENV, value);
    expect(resolveCaptureContent(undefined)).toBe(on);
    await chat().invoke(PROMPT);
    expect("gen_ai.input.messages" in callSpan().attributes).toBe(on);
  });

  it("is read when the model is built, and the option wins over it", async () => {
    vi.stubEnv(ENV, "true");
    const off = chat({ captureContent: false });
    const on = chat();
    vi.stubEnv(ENV, "false");
    await off.invoke(PROMPT);
    await on.invoke(PROMPT);
    const [first, second] = otel
      .spans()
      .filter((span) => "gen_ai.operation.name" in span.attributes);
    expect(first!.attributes).not.toHaveProperty("gen_ai.input.messages");
    expect(second!.attributes).toHaveProperty("gen_ai.input.messages");
  });
});

describe("the conventions' message shapes", () => {
  it("tool calls and their results, reasoning sent back, media parts named but not copied", () => {
    const json = inputMessages({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Weather here?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
          ],
        },
        {
          role: "assistant",
          content: null,
          reasoning_content: "Call the tool.",
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "get_weather", arguments: "{}" } },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: "sunny" },
      ],
    });
    expect(JSON.parse(json!)).toEqual([
      { role: "user", parts: [{ type: "text", content: "Weather here?" }, { type: "image_url" }] },
      {
        role: "assistant",
        parts: [
          { type: "reasoning", content: "Call the tool." },
          { type: "tool_call", id: "call_1", name: "get_weather", arguments: "{}" },
        ],
      },
      { role: "tool", parts: [{ type: "tool_call_response", id: "call_1", response: "sunny" }] },
    ]);
    expect(inputMessages({ input: ["a text to embed"] })).toBeUndefined();
  });

  it("a streamed reply's tool calls and choices, joined from their deltas", () => {
    const reply = new ReplyContent();
    const chunk = (choices: unknown[]) => reply.read({ choices }, true);
    chunk([{ index: 0, delta: { reasoning_content: "Hm. " } }]);
    chunk([
      {
        index: 0,
        delta: {
          tool_calls: [{ index: 0, id: "c1", function: { name: "f", arguments: '{"a"' } }],
        },
      },
      { index: 1, delta: { content: "Other choice" } },
    ]);
    chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: ":1}" } }] } }]);
    chunk([
      { index: 0, delta: {}, finish_reason: "tool_calls" },
      { index: 1, delta: {}, finish_reason: "length" },
    ]);
    expect(JSON.parse(reply.json()!)).toEqual([
      {
        role: "assistant",
        parts: [
          { type: "reasoning", content: "Hm. " },
          { type: "tool_call", id: "c1", name: "f", arguments: '{"a":1}' },
        ],
        finish_reason: "tool_calls",
      },
      {
        role: "assistant",
        parts: [{ type: "text", content: "Other choice" }],
        finish_reason: "length",
      },
    ]);
  });
});
