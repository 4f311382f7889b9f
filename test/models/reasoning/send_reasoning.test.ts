/**
 * Reasoning sent back on the wire: the assistant messages that called tools carry their
 * `reasoning_content` within the turn (the default), always, or never, as the model's profile
 * says; from `additional_kwargs` or v1 `reasoning` blocks, after any serialisation of the history;
 * on invoke, stream and the events API alike.
 */
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
  ToolMessage,
} from "@langchain/core/messages";
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { InferenceModelProfile } from "../../../src/config/profiles.js";
import { ChatInferenceService } from "../../../src/models/chat_models/index.js";
import {
  BASE,
  chatCompletion,
  intercept,
  JSON_HEADERS,
  KEY,
  streamedReply,
} from "../../helpers/wire.js";

const CHAT = "/inference/v1/chat/completions";

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

function model(profile: InferenceModelProfile = {}) {
  return new ChatInferenceService("test-model", {
    apiKey: KEY,
    baseURL: BASE,
    maxRetries: 0,
    profiles: { "test-model": profile },
  });
}

const call = (id: string, city: string) => ({
  id,
  name: "get_weather",
  args: { city },
  type: "tool_call" as const,
});

/** An earlier turn that called a tool, then the current turn, two tool calls deep. */
function history(): BaseMessage[] {
  return [
    new HumanMessage("Weather in Oslo?"),
    new AIMessage({
      content: "",
      tool_calls: [call("c0", "Oslo")],
      additional_kwargs: { reasoning_content: "old turn: look up Oslo" },
    }),
    new ToolMessage({ content: "Snow", tool_call_id: "c0" }),
    new AIMessage({ content: "Snow in Oslo.", additional_kwargs: { reasoning_content: "answer" } }),
    new HumanMessage("And in Paris and Rome?"),
    new AIMessage({
      content: "",
      tool_calls: [call("c1", "Paris")],
      additional_kwargs: { reasoning_content: "first Paris" },
    }),
    new ToolMessage({ content: "Sun", tool_call_id: "c1" }),
    new AIMessage({
      content: [
        { type: "reasoning", reasoning: "then Rome" },
        { type: "text", text: "Checking Rome." },
      ],
      tool_calls: [call("c2", "Rome")],
      response_metadata: { output_version: "v1" },
    }),
    new ToolMessage({ content: "Rain", tool_call_id: "c2" }),
  ];
}

/** The `reasoning_content` of each assistant message sent, `-` where it had none. */
function sentReasoning(body: Record<string, unknown>): string[] {
  return (body.messages as Array<Record<string, unknown>>)
    .filter((m) => m.role === "assistant")
    .map((m) => (typeof m.reasoning_content === "string" ? m.reasoning_content : "-"));
}

const OK = [200, chatCompletion({ content: "done" }), JSON_HEADERS] as const;

describe("reasoning sent back with the tool-calling assistant messages", () => {
  it("by default, those of the current turn only (after the last user message)", async () => {
    const seen = intercept(CHAT, [...OK]);
    await model().invoke(history());
    expect(sentReasoning(seen[0]!.body)).toEqual(["-", "-", "first Paris", "then Rome"]);
    // A v1 message goes as a plain assistant turn: its text, its tool calls, its reasoning.
    expect((seen[0]!.body.messages as unknown[])[7]).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "Checking Rome." }],
      tool_calls: [
        {
          id: "c2",
          type: "function",
          function: { name: "get_weather", arguments: '{"city":"Rome"}' },
        },
      ],
      reasoning_content: "then Rome",
    });
  });

  it('with reasoningRoundTrip "always", those of every turn (an answer without tool calls sends none)', async () => {
    const seen = intercept(CHAT, [...OK]);
    await model({ reasoningRoundTrip: "always" }).invoke(history());
    expect(sentReasoning(seen[0]!.body)).toEqual([
      "old turn: look up Oslo",
      "-",
      "first Paris",
      "then Rome",
    ]);
  });

  it('with reasoningRoundTrip "never", none (R1-style models refuse reasoning on input)', async () => {
    const seen = intercept(CHAT, [...OK]);
    await model({ reasoningRoundTrip: "never" }).invoke(history());
    expect(sentReasoning(seen[0]!.body)).toEqual(["-", "-", "-", "-"]);
    expect(JSON.stringify(seen[0]!.body)).not.toContain("reasoning_content");
  });

  it("the same on the stream and on the events API", async () => {
    const seen = intercept(CHAT, streamedReply([{ content: "done" }]));
    for await (const _ of await model().stream(history()));
    await model().streamEvents(history()).output;
    await new ChatInferenceService("test-model", {
      apiKey: KEY,
      baseURL: BASE,
      streaming: true,
    }).invoke(history());
    expect(seen.map((request) => sentReasoning(request.body))).toEqual([
      ["-", "-", "first Paris", "then Rome"],
      ["-", "-", "first Paris", "then Rome"],
      ["-", "-", "first Paris", "then Rome"],
    ]);
  });

  it("survives a stored-messages round trip of the history (JSON)", async () => {
    const stored = JSON.parse(JSON.stringify(mapChatMessagesToStoredMessages(history())));
    const seen = intercept(CHAT, [...OK]);
    await model().invoke(mapStoredMessagesToChatMessages(stored));
    expect(sentReasoning(seen[0]!.body)).toEqual(["-", "-", "first Paris", "then Rome"]);
  });

  it("sends nothing new for a conversation without reasoning", async () => {
    const seen = intercept(CHAT, [...OK]);
    const plain = history().map((m) =>
      AIMessage.isInstance(m) ? new AIMessage({ content: "", tool_calls: m.tool_calls ?? [] }) : m,
    );
    await model().invoke(plain);
    expect(JSON.stringify(seen[0]!.body)).not.toContain("reasoning_content");
  });
});
