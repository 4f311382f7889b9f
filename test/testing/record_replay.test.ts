/**
 * The whole loop, as a user runs it: record a run against an upstream whose answers change with
 * every call, then replay the cassette with the upstream gone — and get the same content, tool
 * calls, usage, typed errors and request IDs, with the key in no cassette.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  DEFAULT_EMBEDDING_MODEL,
  REASONING_MODEL,
  startEmulator,
} from "../../src/emulator/index.js";
import {
  BadRequestError,
  ChatInferenceService,
  DedicatedEndpointLLM,
  InferenceServiceEmbeddings,
  InferenceServiceError,
  InsufficientCreditError,
  ModelNotFoundError,
} from "../../src/index.js";
import { MISS_CODE, startRecorder } from "../../src/testing/index.js";
import { startRandomUpstream } from "../helpers/random_upstream.js";

const KEY = "sk-canary-0123456789abcdef";

const getWeather = tool(async ({ city }) => `It is 18°C and sunny in ${city}.`, {
  name: "get_weather",
  description: "Get the current weather for a city",
  schema: z.object({ city: z.string().describe("City name") }),
});

/** Calls made by one run, with a count of the requests the models sent. */
function connection(baseURL: string, apiKey: string) {
  let sent = 0;
  const fetchCounted: typeof fetch = (input, init) => {
    sent++;
    return fetch(input, init);
  };
  const chat = (model: string, headers?: Record<string, string>) =>
    new ChatInferenceService(model, {
      baseURL,
      apiKey,
      fetch: fetchCounted,
      ...(headers ? { configuration: { defaultHeaders: headers } } : {}),
    });
  return { chat, fetch: fetchCounted, sent: () => sent };
}

/** What an error shows a program: class, code, status, request ID, retryable. */
function typed(error: unknown) {
  if (!InferenceServiceError.isInstance(error)) throw error;
  return {
    name: error.name,
    code: error.code,
    status: error.status,
    requestId: error.requestId,
    retryable: error.retryable,
  };
}

/** Everything the app sees in one run. */
async function run(baseURL: string, apiKey: string) {
  const c = connection(baseURL, apiKey);
  const invoked = await c.chat("emulator-chat").invoke("What is a context window?");

  let streamed = "";
  let reasoning = "";
  let streamUsage: unknown;
  let streamRequestId: unknown;
  for await (const chunk of await c.chat(REASONING_MODEL).stream("Why is the sky blue?")) {
    streamed += chunk.text;
    reasoning += String(chunk.additional_kwargs.reasoning_content ?? "");
    streamUsage = chunk.usage_metadata ?? streamUsage;
    streamRequestId = chunk.response_metadata.requestId ?? streamRequestId;
  }

  const agent = createAgent({ model: c.chat("emulator-chat"), tools: [getWeather] });
  const turn1 = await agent.invoke({
    messages: [{ role: "user", content: "What is the weather in Paris?" }],
  });
  const turn2 = await agent.invoke({
    messages: [...turn1.messages, { role: "user", content: "And the weather in Rome?" }],
  });
  const agentView = turn2.messages.map((message) => ({
    type: message.type,
    text: message.text,
    toolCalls: "tool_calls" in message ? (message.tool_calls as unknown[]) : undefined,
    usage: "usage_metadata" in message ? message.usage_metadata : undefined,
    requestId: (message.response_metadata as { requestId?: string } | undefined)?.requestId,
  }));

  const vectors = await new InferenceServiceEmbeddings(DEFAULT_EMBEDDING_MODEL, {
    baseURL,
    apiKey,
    fetch: c.fetch,
  }).embedDocuments(["alpha", "beta"]);

  const dedicated = await new DedicatedEndpointLLM({
    serviceName: "tenant-demo.demo-endpoint",
    baseURL,
    apiKey,
    fetch: c.fetch,
  }).generate(["The three primary colours are"]);

  const quota = await c
    .chat("emulator-chat", { "X-Emulator-Fault": "insufficient_user_quota" })
    .invoke("Spend some credit")
    .then(() => "no error", typed);
  const notFound = await c
    .chat("no-such-model")
    .invoke("Hello")
    .then(() => "no error", typed);

  return {
    invoked: {
      text: invoked.text,
      usage: invoked.usage_metadata,
      requestId: invoked.response_metadata.requestId,
    },
    streamed: { text: streamed, reasoning, usage: streamUsage, requestId: streamRequestId },
    agent: agentView,
    vectors,
    dedicated: { generations: dedicated.generations, llmOutput: dedicated.llmOutput },
    quota,
    notFound,
    sent: c.sent(),
  };
}

describe("record against a random upstream, replay with it gone", () => {
  const dir = mkdtempSync(join(tmpdir(), "record-replay-"));
  const cassette = join(dir, "run.har");
  let live: Awaited<ReturnType<typeof run>>;
  let replayed: Awaited<ReturnType<typeof run>>;
  let replay: Awaited<ReturnType<typeof startEmulator>>;

  beforeAll(async () => {
    const upstream = await startRandomUpstream({
      keys: [{ secret: KEY }],
      endpoints: [{ tenantId: "tenant-demo", jobAlias: "demo-endpoint" }],
    });
    const recorder = await startRecorder({ upstream: upstream.baseURL, cassette });
    live = await run(recorder.baseURL, KEY);
    await recorder.close();
    await upstream.close();
    replay = await startEmulator({ replay: cassette });
    replayed = await run(replay.baseURL, "sk-any-key-at-all");
  });
  afterAll(() => replay?.close());

  it("answers with random content live, so a replay can only come from the cassette", async () => {
    const upstream = await startRandomUpstream({ keys: [{ secret: KEY }] });
    try {
      const again = await connection(upstream.baseURL, KEY)
        .chat("emulator-chat")
        .invoke("What is a context window?");
      expect(again.text).not.toBe(live.invoked.text);
      expect(again.response_metadata.requestId).not.toBe(live.invoked.requestId);
    } finally {
      await upstream.close();
    }
  });

  it("replays the invoke, the stream with its reasoning, the agent's two turns, embeddings and the dedicated completion identically", () => {
    // The upstream's nonce is in the text: what replays is what it said that once.
    expect(live.invoked.text).toMatch(/^[0-9a-f]{8} Emulated reply/);
    expect(live.streamed.text).toMatch(/^([0-9a-f]{8}) (?:.*\1){3}/);
    expect(live.streamed.reasoning).toMatch(/^([0-9a-f]{8}) (?:.*\1){3}/);
    expect(live.agent.some((message) => (message.toolCalls?.length ?? 0) > 0)).toBe(true);
    expect(live.dedicated.generations[0]![0]!.text).not.toBe("");
    expect(replayed.invoked).toEqual(live.invoked);
    expect(replayed.streamed).toEqual(live.streamed);
    expect(replayed.agent).toEqual(live.agent);
    expect(replayed.vectors).toEqual(live.vectors);
    expect(replayed.dedicated).toEqual(live.dedicated);
    expect(replayed.sent).toBe(live.sent);
  });

  it("replays the 403 insufficient_user_quota and the 503 model_not_found as the same typed errors with the same request IDs", () => {
    expect(live.quota).toMatchObject({
      name: InsufficientCreditError.name,
      code: "insufficient_user_quota",
      status: 403,
    });
    expect(live.notFound).toMatchObject({
      name: ModelNotFoundError.name,
      code: "model_not_found",
      status: 503,
    });
    expect(replayed.quota).toEqual(live.quota);
    expect(replayed.notFound).toEqual(live.notFound);
  });

  it("writes the key into no part of the cassette", () => {
    const text = readFileSync(cassette, "utf8");
    expect(text).toContain('"value": "[redacted]"');
    expect(text).not.toContain(KEY);
  });

  it("answers an unrecorded request at once with a typed error that is not retried", async () => {
    const c = connection(replay.baseURL, "sk-any");
    const error = await c
      .chat("emulator-chat")
      .invoke("A question nobody recorded")
      .catch((e: unknown) => e);
    expect(BadRequestError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: MISS_CODE, status: 400, retryable: false });
    // Its hint says how to get a recording, not to fix the request's parameters.
    expect((error as BadRequestError).hint).toMatch(
      /^Record it \(run the test once with INFERENCE_SERVICE_RECORD=new/,
    );
    expect((error as Error).message).toContain(
      'body.messages[0].content: "A question nobody recorded" here, "What is a context window?" recorded',
    );
    expect(c.sent()).toBe(1);
  });

  it("fails an unrecorded dedicated completion and embedding the same way, each sent once", async () => {
    const c = connection(replay.baseURL, "sk-any");
    const llm = new DedicatedEndpointLLM({
      serviceName: "tenant-demo.other-endpoint",
      baseURL: replay.baseURL,
      apiKey: "sk-any",
      fetch: c.fetch,
    });
    const dedicated = await llm.invoke("The three primary colours are").catch((e: unknown) => e);
    expect(BadRequestError.isInstance(dedicated)).toBe(true);
    expect((dedicated as Error).message).toContain(
      "Service-Name: tenant-demo.other-endpoint here, tenant-demo.demo-endpoint recorded",
    );
    const embedder = new InferenceServiceEmbeddings(DEFAULT_EMBEDDING_MODEL, {
      baseURL: replay.baseURL,
      apiKey: "sk-any",
      fetch: c.fetch,
    });
    const embedded = await embedder.embedQuery("gamma").catch((e: unknown) => e);
    expect(embedded).toMatchObject({ code: MISS_CODE, retryable: false });
    expect(c.sent()).toBe(2);
  });
});
