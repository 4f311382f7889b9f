/**
 * Agents on thinking models, two turns each: `createAgent` with two tools and a zod
 * `responseFormat`, its history in a LangGraph checkpointer, on a model that needs its reasoning
 * back within the turn (DeepSeek's thinking mode), on one that refuses reasoning on input (R1),
 * and on a plain one — against the emulator and against wire fixtures (nock) that answer as those
 * servers do. What each request carried back is asserted on the wire.
 */
import { MemorySaver } from "@langchain/langgraph";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent, tool } from "langchain";
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ChatInferenceService } from "../../../../src/apis/chat/chat_models.js";
import type { ModelProfiles } from "../../../../src/config/profiles.js";
import {
  createEmulator,
  DEFAULT_MODEL,
  type InProcessEmulator,
  R1_MODEL,
  THINKING_MODEL,
} from "../../../../src/emulator/index.js";
import { BadRequestError } from "../../../../src/errors/errors.js";
import { BASE, JSON_HEADERS, KEY } from "../../../helpers/wire.js";

const CHAT = "/inference/v1/chat/completions";
const DEEPSEEK_400 = "The reasoning_content in the thinking mode must be passed back to the API.";

const getWeather = tool(async ({ city }) => `Sunny, 21°C in ${city}`, {
  name: "get_weather",
  description: "Get the weather for a city",
  schema: z.object({ city: z.string() }),
});
const getTime = tool(async ({ city }) => `It is 14:05 in ${city}`, {
  name: "get_time",
  description: "Get the current time in a city",
  schema: z.object({ city: z.string() }),
});
const Answer = z.object({ answer: z.string() });

const TURNS = ["What is the weather in Paris and the time in Tokyo?", "And the weather in Rome?"];

/** Wire bodies as sent: for each assistant message, its `reasoning_content` or "-". */
function sentBack(body: { messages: Array<Record<string, unknown>> }): string[] {
  return body.messages
    .filter((message) => message.role === "assistant")
    .map((message) =>
      typeof message.reasoning_content === "string" ? message.reasoning_content : "-",
    );
}

/** Runs both turns on one thread, returning each turn's structured response. */
async function twoTurns(model: ChatInferenceService | ChatOpenAI) {
  const agent = createAgent({
    model,
    tools: [getWeather, getTime],
    responseFormat: Answer,
    checkpointer: new MemorySaver(),
  });
  const config = { configurable: { thread_id: "trip" } };
  const answers: unknown[] = [];
  for (const question of TURNS) {
    const state = await agent.invoke({ messages: [{ role: "user", content: question }] }, config);
    answers.push(state.structuredResponse);
  }
  return answers;
}

describe("createAgent, two turns, against the emulator", () => {
  let emulator: InProcessEmulator;
  let bodies: Array<{ messages: Array<Record<string, unknown>> }>;
  beforeAll(() => {
    emulator = createEmulator();
  });
  afterEach(() => emulator.state.reset());

  const model = (id: string, profiles: ModelProfiles = emulator.state.modelProfiles()) => {
    bodies = [];
    return new ChatInferenceService(id, {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      maxRetries: 0,
      profiles,
      fetch: (input, init) => {
        bodies.push(JSON.parse(String(init?.body)));
        return emulator.fetch(input, init);
      },
    });
  };

  it("completes both turns on the model that needs its reasoning back within the turn", async () => {
    const answers = await twoTurns(model(THINKING_MODEL));
    for (const answer of answers) expect(Answer.safeParse(answer).success).toBe(true);
    expect(emulator.state.requests().map((entry) => entry.status)).toEqual([200, 200, 200, 200]);
    // Turn 1, second call: the tool-calling message carries its reasoning. Turn 2, second call:
    // this turn's does, turn 1's does not (and its final answer never does).
    expect(sentBack(bodies[1]!)).toEqual([expect.stringMatching(/^Thinking about/)]);
    expect(sentBack(bodies[3]!)).toEqual(["-", "-", expect.stringMatching(/^Thinking about/)]);
  });

  it("completes both turns on the model that refuses reasoning on input, sending none", async () => {
    const answers = await twoTurns(model(R1_MODEL));
    for (const answer of answers) expect(Answer.safeParse(answer).success).toBe(true);
    expect(emulator.state.requests().map((entry) => entry.status)).toEqual([200, 200, 200, 200]);
    expect(bodies.flatMap(sentBack).every((sent) => sent === "-")).toBe(true);
  });

  it("completes both turns on a plain model", async () => {
    const answers = await twoTurns(model(DEFAULT_MODEL));
    expect(answers).toEqual([
      { answer: expect.stringContaining("get_weather returned: Sunny, 21°C in Paris") },
      { answer: expect.stringContaining("get_weather returned: Sunny, 21°C in Rome") },
    ]);
    expect(bodies).toHaveLength(4);
  });

  it("pays the second call of a turn mostly at the thinking model's cached price", async () => {
    await twoTurns(model(THINKING_MODEL));
    const [first, second] = emulator.state.requests();
    expect(second!.promptTokens).toBeGreaterThan(first!.promptTokens);
    // What the call would cost if nothing were cached (0.28 in, 0.42 out per million).
    const uncached = (second!.promptTokens * 0.28 + second!.completionTokens * 0.42) / 1e6;
    expect(second!.cost).toBeLessThan(uncached);
  });

  it("keeps the reasoning through a checkpointer: an agent stopped before its tools and resumed", async () => {
    const agent = createAgent({
      model: model(THINKING_MODEL),
      tools: [getWeather, getTime],
      responseFormat: Answer,
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: "paused" } };
    // LangGraph's own option, which createAgent's config type leaves out.
    const pause = { ...config, interruptBefore: ["tools"] } as typeof config;
    await agent.invoke({ messages: [{ role: "user", content: TURNS[0]! }] }, pause);
    expect(bodies).toHaveLength(1);
    // Resumed from what the checkpointer stored (serialised), not from objects in memory.
    const state = await agent.invoke(null, config);
    expect(Answer.safeParse(state.structuredResponse).success).toBe(true);
    expect(sentBack(bodies[1]!)).toEqual([expect.stringMatching(/^Thinking about/)]);
  });

  it("streams LangGraph's messages through the events path with the reasoning sent back", async () => {
    const agent = createAgent({
      model: model(THINKING_MODEL),
      tools: [getWeather, getTime],
      responseFormat: Answer,
    });
    let chunks = 0;
    for await (const _ of await agent.stream(
      { messages: [{ role: "user", content: TURNS[0]! }] },
      { streamMode: "messages" },
    )) {
      chunks++;
    }
    expect(chunks).toBeGreaterThan(0);
    expect(emulator.state.requests().map((entry) => entry.status)).toEqual([200, 200]);
    expect(sentBack(bodies[1]!)).toEqual([expect.stringMatching(/^Thinking about/)]);
  });

  it("without the round trip, the thinking model's second call is DeepSeek's 400 (ChatOpenAI)", async () => {
    const chatOpenAI = new ChatOpenAI({
      model: THINKING_MODEL,
      apiKey: emulator.apiKey,
      maxRetries: 0,
      configuration: { baseURL: emulator.baseURL, fetch: emulator.fetch },
    });
    await expect(twoTurns(chatOpenAI)).rejects.toThrow(DEEPSEEK_400);
  });

  it('without reasoningRoundTrip: "never", the R1 model\'s second call is its 400, typed', async () => {
    const error = await twoTurns(model(R1_MODEL, {})).catch((e: unknown) => e);
    expect(BadRequestError.isInstance(error)).toBe(true);
    expect((error as BadRequestError).message).toContain("not accepted in input messages");
    expect(emulator.state.requests().map((entry) => entry.status)).toEqual([200, 400]);
  });
});

// ---- wire fixtures -------------------------------------------------------------------------

type Message = Record<string, unknown> & { role: string };
type Body = { messages: Message[]; tools?: Array<{ function: { name: string } }> };

/** What a fixture server demands of reasoning sent back, as the real servers do. */
type Demand = "require" | "refuse" | "none";

/**
 * Reply `n` of a fixture server of `demand`: a 400 for the reasoning it was sent, as the real
 * servers answer, else a tool call (with reasoning_content, unless the model is plain): the
 * weather of the city asked about, then, with its result in, the agent's structured answer.
 */
function fixtureReply(
  body: Body,
  demand: Demand,
  n: number,
): [number, Record<string, unknown>, Record<string, string>] {
  const turnStart = body.messages.findLastIndex((m) => m.role === "user") + 1;
  const turn = body.messages.slice(turnStart);
  if (demand === "refuse" && body.messages.some((m) => "reasoning_content" in m)) {
    return [
      400,
      deepseekError("reasoning_content is not accepted in input messages."),
      JSON_HEADERS,
    ];
  }
  if (
    demand === "require" &&
    turn.some((m) => m.role === "assistant" && m.tool_calls && !m.reasoning_content)
  ) {
    return [400, deepseekError(DEEPSEEK_400), JSON_HEADERS];
  }
  const thinking = demand === "none" ? {} : { reasoning_content: `Thinking, step ${turn.length}.` };
  const question = String(body.messages[turnStart - 1]?.content ?? "");
  const city = /in (\w+)\?/.exec(question)?.[1] ?? "Paris";
  const calls =
    turn.length === 0
      ? [callOf("call_w", "get_weather", { city })]
      : [
          callOf(
            "call_a",
            body.tools!.find((t) => t.function.name.startsWith("extract"))!.function.name,
            { answer: `Sunny in ${city}` },
          ),
        ];
  return [
    200,
    {
      id: `chatcmpl-fixture-${n}`,
      object: "chat.completion",
      created: 1_700_000_000,
      model: "fixture",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: null, tool_calls: calls, ...thinking },
          finish_reason: "tool_calls",
        },
      ],
      usage: { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 },
    },
    JSON_HEADERS,
  ];
}

const callOf = (id: string, name: string, args: object) => ({
  id,
  type: "function",
  function: { name, arguments: JSON.stringify(args) },
});

/** A model server's 400 as the gateway passes it on. */
const deepseekError = (message: string) => ({
  error: { code: "invalid_request_error", message, type: "invalid_request_error", param: "" },
});

describe("createAgent, two turns, against wire fixtures", () => {
  beforeAll(() => nock.disableNetConnect());
  afterEach(() => nock.cleanAll());

  function serve(demand: Demand) {
    const seen: Body[] = [];
    nock(BASE)
      .post(CHAT)
      .times(20)
      .reply((_uri, body) => {
        seen.push(body as Body);
        return fixtureReply(body as Body, demand, seen.length);
      });
    return seen;
  }

  const model = (profiles: ModelProfiles = {}) =>
    new ChatInferenceService("fixture", { apiKey: KEY, baseURL: BASE, maxRetries: 0, profiles });

  it("DeepSeek's thinking mode: the turn's tool calls go back with their reasoning", async () => {
    const seen = serve("require");
    const answers = await twoTurns(model());
    expect(answers).toEqual([{ answer: "Sunny in Tokyo" }, { answer: "Sunny in Rome" }]);
    // Turn 1 leaves three assistant messages: the weather call, the structured answer's call,
    // and the agent's own note of it. None goes back in turn 2: only its own tool call.
    expect(seen.map(sentBack)).toEqual([
      [],
      ["Thinking, step 0."],
      ["-", "-", "-"],
      ["-", "-", "-", "Thinking, step 0."],
    ]);
  });

  it('R1: nothing goes back with reasoningRoundTrip "never"; without it, its 400', async () => {
    const seen = serve("refuse");
    const answers = await twoTurns(model({ fixture: { reasoningRoundTrip: "never" } }));
    expect(answers).toEqual([{ answer: "Sunny in Tokyo" }, { answer: "Sunny in Rome" }]);
    expect(seen).toHaveLength(4);
    expect(JSON.stringify(seen)).not.toContain("reasoning_content");
    nock.cleanAll();
    serve("refuse");
    await expect(twoTurns(model())).rejects.toThrow("reasoning_content is not accepted");
  });

  it("a plain model: no reasoning anywhere", async () => {
    const seen = serve("none");
    expect(await twoTurns(model())).toEqual([
      { answer: "Sunny in Tokyo" },
      { answer: "Sunny in Rome" },
    ]);
    expect(seen).toHaveLength(4);
    expect(JSON.stringify(seen)).not.toContain("reasoning_content");
  });

  it("the fixture enforces what it says: ChatOpenAI fails the thinking mode's second call", async () => {
    serve("require");
    const chatOpenAI = new ChatOpenAI({
      model: "fixture",
      apiKey: KEY,
      maxRetries: 0,
      configuration: { baseURL: `${BASE}/inference/v1` },
    });
    await expect(twoTurns(chatOpenAI)).rejects.toThrow(DEEPSEEK_400);
  });
});
