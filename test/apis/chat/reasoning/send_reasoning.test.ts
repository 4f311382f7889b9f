/**
 * Reasoning sent back on the wire: the assistant messages that called tools carry their
 * `reasoning_content` within the turn (the default), always, or never, as the model's profile
 * says; from `additional_kwargs` or v1 `reasoning` blocks, after any serialisation of the history;
 * on invoke, stream and the events API alike.
 */
import {
  AIMessage,
  type BaseMessage,
  ChatMessage,
  HumanMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
  ToolMessage,
} from "@langchain/core/messages";
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ChatInferenceService } from "../../../../src/apis/chat/chat_models.js";
import {
  reasoningToSendBack,
  withReasoningSentBack,
} from "../../../../src/apis/chat/reasoning/send_reasoning.js";
import type { InferenceModelProfile } from "../../../../src/config/profiles.js";
import {
  BASE,
  chatCompletion,
  intercept,
  JSON_HEADERS,
  KEY,
  streamedReply,
} from "../../../helpers/wire.js";

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

describe("reasoningToSendBack and withReasoningSentBack on their own", () => {
  const call = (id: string, reasoning?: string, content: AIMessage["content"] = "") =>
    new AIMessage({
      content,
      tool_calls: [{ id, name: "lookup", args: {} }],
      additional_kwargs: reasoning === undefined ? {} : { reasoning_content: reasoning },
    });
  const result = (id: string) => new ToolMessage({ content: "ok", tool_call_id: id });

  it("sends only the turn after the last user message, even right after it", () => {
    const messages = [
      new HumanMessage("a"),
      call("1", "r0"),
      new HumanMessage("b"),
      call("2", "r1"),
    ];
    expect(reasoningToSendBack(messages, "turn")).toEqual([undefined, "r1"]);
  });

  it("sends every turn of a history without a user message", () => {
    const messages = [call("1", "r0"), result("1"), call("2", "r1"), result("2")];
    expect(reasoningToSendBack(messages, "turn")).toEqual(["r0", "r1"]);
  });

  it("reads a ChatMessage with role user as the user's turn, and one with role assistant as a tool call", () => {
    const assistant = new ChatMessage({
      content: "",
      role: "assistant",
      additional_kwargs: { tool_calls: [{ id: "1" }], reasoning_content: "r1" } as never,
    });
    const user = new ChatMessage({ content: "b", role: "user" });
    expect(reasoningToSendBack([call("0", "r0"), user, assistant], "turn")).toEqual([
      undefined,
      "r1",
    ]);
  });

  it("counts no tool call on a message that is not the assistant's", () => {
    const tool = new ChatMessage({
      content: "",
      role: "tool",
      additional_kwargs: { tool_calls: [{ id: "1" }], reasoning_content: "x" } as never,
    });
    expect(reasoningToSendBack([tool, call("2", "r")], "always")).toEqual(["r"]);
  });

  it("sends nothing at all when no turn has reasoning", () => {
    expect(reasoningToSendBack([new HumanMessage("a"), call("1")], "always")).toBeUndefined();
  });

  it("reads v1 reasoning blocks when reasoning_content is empty, and none from text or empty blocks", () => {
    const blocks = call("1", "", [
      { type: "text", text: "t" },
      { type: "reasoning", reasoning: "from " },
      { type: "reasoning", reasoning: "" },
      { type: "reasoning", reasoning: "blocks" },
    ] as never);
    expect(reasoningToSendBack([blocks], "always")).toEqual(["from blocks"]);
    const textOnly = call("1", undefined, [{ type: "text", text: "t" }] as never);
    const emptyOnly = call("2", undefined, [{ type: "reasoning", reasoning: "" }] as never);
    expect(reasoningToSendBack([textOnly, emptyOnly], "always")).toBeUndefined();
  });

  it("puts each entry on the request's tool-calling assistant message, leaving the others as they are", () => {
    const assistant = {
      role: "assistant" as const,
      content: "",
      tool_calls: [
        { id: "1", type: "function" as const, function: { name: "f", arguments: "{}" } },
      ],
    };
    const plain = { role: "assistant" as const, content: "hello" };
    const request = {
      messages: [{ role: "user" as const, content: "a" }, plain, assistant, assistant],
    };
    const sent = withReasoningSentBack(request, ["r1", undefined]);
    expect(sent.messages[2]).toEqual({ ...assistant, reasoning_content: "r1" });
    expect(sent.messages[1]).toBe(plain);
    expect(sent.messages[3]).toBe(assistant);
    // Counts that differ send nothing rather than reasoning on the wrong turn.
    expect(withReasoningSentBack(request, ["r1"])).toBe(request);
  });
});
