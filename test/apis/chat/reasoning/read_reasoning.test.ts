/**
 * Every reasoning format a model server writes — `reasoning_content` (DeepSeek), `reasoning`
 * (vLLM ≥ 0.9), `<think>` tags in the answer (a whole leading pair, or a lone `</think>` after
 * a chat template opened the tag) — comes out in one shape: a `reasoning` block, the text in
 * `additional_kwargs.reasoning_content`, and an answer without tags; on invoke, stream, the
 * events API and `outputVersion: "v1"`. Wire fixtures (nock), streams cut at every character.
 */
import type { AIMessageChunk } from "@langchain/core/messages";
import { concat } from "@langchain/core/utils/stream";
import nock from "nock";
import type { OpenAI } from "openai";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ChatInferenceService,
  type ChatInferenceServiceFields,
} from "../../../../src/apis/chat/chat_models.js";
import {
  readCompletionReasoning,
  readStreamReasoning,
  StreamReasoning,
} from "../../../../src/apis/chat/reasoning/read_reasoning.js";
import type { InferenceModelProfile } from "../../../../src/config/profiles.js";
import {
  BASE,
  chatChunk,
  chatCompletion,
  intercept,
  JSON_HEADERS,
  KEY,
  SSE_HEADERS,
  sse,
  streamedReply,
} from "../../../helpers/wire.js";

const CHAT = "/inference/v1/chat/completions";
const THOUGHT = "17 has no divisor but 1 and itself.";
const ANSWER = "17 is prime.";

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

function model(profile: InferenceModelProfile = {}, fields: ChatInferenceServiceFields = {}) {
  return new ChatInferenceService("test-model", {
    apiKey: KEY,
    baseURL: BASE,
    maxRetries: 0,
    profiles: { "test-model": profile },
    ...fields,
  });
}

/** How a server writes one reply: the message of a completion, and the deltas of a stream. */
interface Format {
  name: string;
  profile?: InferenceModelProfile;
  message: Record<string, unknown>;
  /** The stream's deltas: each text cut into one-character pieces. */
  deltas: Array<Record<string, unknown>>;
}

const chars = (field: string, text: string) => [...text].map((c) => ({ [field]: c }));

const FORMATS: Format[] = [
  {
    name: "reasoning_content (DeepSeek)",
    message: { content: ANSWER, reasoning_content: THOUGHT },
    deltas: [...chars("reasoning_content", THOUGHT), ...chars("content", ANSWER)],
  },
  {
    name: "reasoning (vLLM ≥ 0.9)",
    message: { content: ANSWER, reasoning: THOUGHT },
    deltas: [...chars("reasoning", THOUGHT), ...chars("content", ANSWER)],
  },
  {
    name: "a leading <think>…</think> in the answer",
    message: { content: `<think>\n${THOUGHT}</think>\n\n${ANSWER}` },
    deltas: chars("content", `<think>\n${THOUGHT}</think>\n\n${ANSWER}`),
  },
  {
    name: "a lone </think> after a chat template opened the tag",
    profile: { reasoningTags: "opened" },
    message: { content: `${THOUGHT}</think>\n\n${ANSWER}` },
    deltas: chars("content", `${THOUGHT}</think>\n\n${ANSWER}`),
  },
];

function completionReply(format: Format) {
  return [200, chatCompletion(format.message), JSON_HEADERS] as const;
}

const streamReply = (format: Format) =>
  streamedReply(format.deltas, { prompt_tokens: 9, completion_tokens: 30, total_tokens: 39 });
const streamText = (text: string) => streamedReply(chars("content", text));

async function streamed(stream: AsyncIterable<AIMessageChunk>) {
  const chunks: AIMessageChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return { chunks, full: chunks.reduce((a, b) => concat(a, b)) };
}

describe.each(FORMATS)("reasoning as $name", (format) => {
  it("invoke: a reasoning block, the text in reasoning_content, an answer without tags", async () => {
    intercept(CHAT, [...completionReply(format)]);
    const reply = await model(format.profile).invoke("Is 17 prime?");
    expect(reply.content).toBe(ANSWER);
    expect(reply.additional_kwargs.reasoning_content).toBe(THOUGHT);
    expect(reply.contentBlocks).toEqual([
      { type: "reasoning", reasoning: THOUGHT },
      { type: "text", text: ANSWER },
    ]);
  });

  it("stream, one character a chunk: the same, and no chunk's text holds a tag", async () => {
    intercept(CHAT, [...streamReply(format)]);
    const { chunks, full } = await streamed(await model(format.profile).stream("Is 17 prime?"));
    expect(full.content).toBe(ANSWER);
    expect(full.additional_kwargs.reasoning_content).toBe(THOUGHT);
    expect(full.contentBlocks).toEqual([
      { type: "reasoning", reasoning: THOUGHT, index: "reasoning" },
      { type: "text", text: ANSWER, index: "text" },
    ]);
    for (const chunk of chunks) expect(chunk.text).not.toMatch(/<\/?t/);
    expect(full.usage_metadata).toMatchObject({ input_tokens: 9, output_tokens: 30 });
  });

  it("streaming invoke (`streaming: true`): the same message as invoke", async () => {
    intercept(CHAT, [...streamReply(format)]);
    const reply = await model(format.profile, { streaming: true }).invoke("Is 17 prime?");
    expect(reply.content).toBe(ANSWER);
    expect(reply.additional_kwargs.reasoning_content).toBe(THOUGHT);
  });

  it("the events API (core's chat-model stream events): text and reasoning apart", async () => {
    intercept(CHAT, [...streamReply(format)]);
    const events = model(format.profile).streamEvents("Is 17 prime?");
    expect(await events.reasoning).toBe(THOUGHT);
    expect(await events.text).toBe(ANSWER);
    const message = await events.output;
    expect(message.text).toBe(ANSWER);
  });

  it('outputVersion "v1": content is the reasoning block and the text block, invoked and streamed', async () => {
    intercept(CHAT, [...completionReply(format)], [...streamReply(format)]);
    const v1 = model(format.profile, { outputVersion: "v1" });
    expect((await v1.invoke("Is 17 prime?")).content).toEqual([
      { type: "reasoning", reasoning: THOUGHT },
      { type: "text", text: ANSWER },
    ]);
    const { full } = await streamed(await v1.stream("Is 17 prime?"));
    expect(full.content).toEqual([
      { type: "reasoning", reasoning: THOUGHT, index: "reasoning" },
      { type: "text", text: ANSWER, index: "text" },
    ]);
  });
});

describe("where <think> tags are read", () => {
  it("reads no tags when the profile turns them off: the answer is left as sent", async () => {
    const sent = `<think>${THOUGHT}</think>${ANSWER}`;
    intercept(CHAT, [200, chatCompletion({ content: sent }), JSON_HEADERS]);
    const reply = await model({ reasoningTags: "off" }).invoke("Is 17 prime?");
    expect(reply.content).toBe(sent);
    expect(reply.additional_kwargs.reasoning_content).toBeUndefined();
  });

  it("never reads a <think> mentioned mid-answer, nor a lone </think> by default", async () => {
    const sent = "Reasoning models write <think> first and </think> after.";
    intercept(CHAT, [200, chatCompletion({ content: sent }), JSON_HEADERS], [...streamText(sent)]);
    expect((await model().invoke("How?")).content).toBe(sent);
    const { full } = await streamed(await model().stream("How?"));
    expect(full.content).toBe(sent);
    expect(full.additional_kwargs.reasoning_content).toBeUndefined();
  });

  it("reads no tags in a reply whose reasoning came in a field (the server parsed it)", async () => {
    intercept(CHAT, [
      200,
      chatCompletion({ reasoning_content: THOUGHT, content: `${ANSWER} (no </think> here)` }),
      JSON_HEADERS,
    ]);
    const reply = await model({ reasoningTags: "opened" }).invoke("Is 17 prime?");
    expect(reply.content).toBe(`${ANSWER} (no </think> here)`);
    expect(reply.additional_kwargs.reasoning_content).toBe(THOUGHT);
  });

  it("sends what a stream held back when it ends without a finishing chunk", async () => {
    intercept(CHAT, [200, sse([chatChunk({ role: "assistant", content: "<thi" })]), SSE_HEADERS]);
    const { full } = await streamed(await model().stream("hi"));
    expect(full.content).toBe("<thi");
  });

  it("streams the text of a reply without tags as it comes, a chunk for a chunk", async () => {
    intercept(CHAT, [...streamText("Plain answer, no tags.")]);
    const { chunks } = await streamed(await model().stream("hi"));
    expect(chunks.map((chunk) => chunk.text).filter(Boolean)).toEqual([
      ..."Plain answer, no tags.",
    ]);
  });
});

describe("structured output from a model that thinks in <think> tags", () => {
  const Person = z.object({ name: z.string(), age: z.number() });
  const JSON_ANSWER = '{"name":"Ada","age":36}';
  const thinking = `<think>\nThe user gives a name and an age.\n</think>\n\n${JSON_ANSWER}`;

  it.each([
    ["jsonMode", "json_object"],
    ["jsonSchema", "json_schema"],
  ] as const)("parses the answer with method %s (response_format %s)", async (method, type) => {
    const seen = intercept(CHAT, [200, chatCompletion({ content: thinking }), JSON_HEADERS]);
    const result = await model()
      .withStructuredOutput(Person, { method, includeRaw: true })
      .invoke("Ada is 36. Answer in JSON with name and age.");
    expect(seen[0]?.body.response_format).toMatchObject({ type });
    expect(result.parsed).toEqual({ name: "Ada", age: 36 });
    expect(result.raw.additional_kwargs.reasoning_content).toBe(
      "The user gives a name and an age.\n",
    );
  });

  it("parses the forced tool call with method functionCalling, the tags kept out of the text", async () => {
    const seen = intercept(CHAT, [
      200,
      chatCompletion({
        content: "<think>Call the extraction tool.</think>",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "extract", arguments: JSON_ANSWER } },
        ],
      }),
      JSON_HEADERS,
    ]);
    const result = await model()
      .withStructuredOutput(Person, { includeRaw: true })
      .invoke("Ada is 36");
    expect(seen[0]?.body.tool_choice).toEqual({ type: "function", function: { name: "extract" } });
    expect(result.parsed).toEqual({ name: "Ada", age: 36 });
    expect(result.raw.content).toBe("");
    expect(result.raw.additional_kwargs.reasoning_content).toBe("Call the extraction tool.");
  });

  it("parses a streamed jsonMode answer whose tags are cut across chunks", async () => {
    intercept(CHAT, [...streamText(thinking)]);
    const parsed = await model({}, { streaming: true })
      .withStructuredOutput(Person, { method: "jsonMode" })
      .invoke("Ada is 36. Answer in JSON with name and age.");
    expect(parsed).toEqual({ name: "Ada", age: 36 });
  });
});

describe("the readers on their own: a completion and a stream's chunks rewritten in place", () => {
  type Completion = Parameters<typeof readCompletionReasoning>[0];
  type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
  const completion = (fields: Record<string, unknown>) => fields as unknown as Completion;
  const chunk = (choices: unknown[], usage?: unknown) =>
    ({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices, usage }) as Chunk;
  const delta = (fields: Record<string, unknown>, finish: string | null = null, index = 0) => ({
    index,
    delta: fields,
    finish_reason: finish,
  });

  it("takes an empty <think></think> out of a completion's answer", () => {
    const read = readCompletionReasoning(
      completion({ choices: [{ index: 0, message: { content: "<think></think>\n\n42" } }] }),
      "leading",
    );
    expect(read.choices[0]!.message).toEqual({ content: "42" });
  });

  it("skips a choice without a message and a completion without choices", () => {
    expect(readCompletionReasoning(completion({ choices: [{ index: 0 }] }), "leading")).toEqual({
      choices: [{ index: 0 }],
    });
    expect(readCompletionReasoning(completion({ usage: null }), "leading")).toEqual({
      usage: null,
    });
  });

  it("keeps reasoning_content when vLLM's reasoning comes too, and drops a reasoning that is not text", () => {
    const both = readCompletionReasoning(
      completion({
        choices: [
          { index: 0, message: { content: "a", reasoning_content: "kept", reasoning: "r" } },
        ],
      }),
      "leading",
    );
    expect(both.choices[0]!.message).toEqual({ content: "a", reasoning_content: "kept" });
    const odd = readCompletionReasoning(
      completion({ choices: [{ index: 0, message: { content: "a", reasoning: 5 } }] }),
      "leading",
    );
    expect(odd.choices[0]!.message).toEqual({ content: "a" });
  });

  it("copies DeepSeek's cached prompt tokens into prompt_tokens_details, unless it has a count", () => {
    const usage = (u: Record<string, unknown>) =>
      readCompletionReasoning(completion({ choices: [], usage: u }), "off").usage;
    expect(usage({ prompt_cache_hit_tokens: 7 })).toEqual({
      prompt_cache_hit_tokens: 7,
      prompt_tokens_details: { cached_tokens: 7 },
    });
    expect(
      usage({ prompt_cache_hit_tokens: 7, prompt_tokens_details: { audio_tokens: 1 } }),
    ).toEqual({
      prompt_cache_hit_tokens: 7,
      prompt_tokens_details: { audio_tokens: 1, cached_tokens: 7 },
    });
    expect(
      usage({ prompt_cache_hit_tokens: 7, prompt_tokens_details: { cached_tokens: 3 } }),
    ).toEqual({ prompt_cache_hit_tokens: 7, prompt_tokens_details: { cached_tokens: 3 } });
    expect(usage({ prompt_cache_hit_tokens: "7" })).toEqual({ prompt_cache_hit_tokens: "7" });
    expect(usage({ prompt_tokens: 1 })).toEqual({ prompt_tokens: 1 });
  });

  it("reads a stream's chunks: no empty reasoning added, a role-only delta left alone", () => {
    const reader = new StreamReasoning<Chunk>("leading");
    const first = chunk([delta({ role: "assistant" })]);
    const second = chunk([delta({ content: "Hi" })]);
    const usageOnly = chunk([], { prompt_cache_hit_tokens: 2 });
    for (const c of [first, second, usageOnly]) reader.read(c);
    expect(first.choices[0]!.delta).toEqual({ role: "assistant" });
    expect(second.choices[0]!.delta).toEqual({ content: "Hi" });
    expect(usageOnly.usage).toEqual({
      prompt_cache_hit_tokens: 2,
      prompt_tokens_details: { cached_tokens: 2 },
    });
    expect(reader.end()).toEqual([]);
  });

  it("skips a chunk's choice without a delta, and a chunk without choices", () => {
    const reader = new StreamReasoning<Chunk>("leading");
    const bare = chunk([{ index: 0, finish_reason: null }]);
    reader.read(bare);
    reader.read({ id: "c" } as unknown as Chunk);
    expect(bare.choices).toEqual([{ index: 0, finish_reason: null }]);
  });

  it("sends what is held back with the finishing chunk, nothing after it", () => {
    const reader = new StreamReasoning<Chunk>("leading");
    const last = chunk([delta({ content: "<think>a</thi" }, "length")]);
    reader.read(last);
    expect(last.choices[0]!.delta).toEqual({ content: "", reasoning_content: "a</thi" });
    expect(reader.end()).toEqual([]);
  });

  it("finishes a choice whose answer is plain text without touching its last chunk", () => {
    const reader = new StreamReasoning<Chunk>("leading");
    const last = chunk([delta({ content: "done" }, "stop")]);
    reader.read(last);
    expect(last.choices[0]!.delta).toEqual({ content: "done" });
  });

  it("ends a stream cut inside the reasoning with what was held, as reasoning", () => {
    const reader = new StreamReasoning<Chunk>("leading");
    reader.read(chunk([delta({ content: "<think>abc</th" })]));
    const held = reader.end();
    expect(held.map((c) => c.choices)).toEqual([
      [
        {
          index: 0,
          delta: { content: "", reasoning_content: "</th" },
          finish_reason: null,
          logprobs: null,
        },
      ],
    ]);
    const nothingHeld = new StreamReasoning<Chunk>("leading");
    nothingHeld.read(chunk([delta({ content: "<think>abc" })]));
    expect(nothingHeld.end()).toEqual([]);
  });

  it("splits each choice of a stream on its own", () => {
    const reader = new StreamReasoning<Chunk>("leading");
    const a = chunk([
      delta({ content: "<think>x" }, null, 0),
      delta({ content: "<think>y" }, null, 1),
    ]);
    const b = chunk([
      delta({ content: "</think>X" }, null, 0),
      delta({ content: "</think>Y" }, null, 1),
    ]);
    reader.read(a);
    reader.read(b);
    expect([...a.choices, ...b.choices].map((c) => c.delta)).toEqual([
      { content: "", reasoning_content: "x" },
      { content: "", reasoning_content: "y" },
      { content: "X" },
      { content: "Y" },
    ]);
  });

  it('leaves tags in the text with reasoningTags "off"', () => {
    const reader = new StreamReasoning<Chunk>("off");
    const c = chunk([delta({ content: "<think>x</think>y" })]);
    reader.read(c);
    expect(c.choices[0]!.delta).toEqual({ content: "<think>x</think>y" });
  });

  it("still reads tags when reasoning_content is there but empty", () => {
    const reader = new StreamReasoning<Chunk>("leading");
    const c = chunk([delta({ reasoning_content: "", content: "<think>x</think>y" })]);
    reader.read(c);
    expect(c.choices[0]!.delta).toEqual({ reasoning_content: "x", content: "y" });
  });

  it("as an iterator, yields the held-back chunk at the end, and closes its source on return()", async () => {
    let closed = false;
    async function* source() {
      try {
        yield chunk([delta({ content: "<thi" })]);
      } finally {
        closed = true;
      }
    }
    const all = [];
    for await (const c of readStreamReasoning(source(), "leading")) all.push(c.choices[0]!.delta);
    expect(all).toEqual([{ content: "" }, { content: "<thi" }]);
    closed = false;
    const it = readStreamReasoning(source(), "leading");
    await it.next();
    expect(await it.return?.()).toEqual({ done: true, value: undefined });
    expect(closed).toBe(true);
  });
});
