/**
 * The emulator's thinking models on the wire: where each writes its reasoning (invoked and
 * streamed), DeepSeek's 400 for a tool call of the turn sent back without its reasoning, R1's 400
 * for reasoning on input, the providers' switches that turn thinking off, and cached prompt
 * tokens on a repeated prefix, priced at `cachedInput`.
 */
import { describe, expect, it } from "vitest";
import {
  createEmulator,
  EmulatorConfigError,
  EmulatorState,
  OPENED_THINK_TAGS_MODEL,
  R1_MODEL,
  THINK_TAGS_MODEL,
  THINKING_MODEL,
  VLLM_REASONING_MODEL,
} from "../../../src/emulator/index.js";
import { CHAT, chatBody, functionTool, inProcess, parseSse, post, REQUEST_ID } from "../helpers.js";

const QUESTION = "Is 17 prime?";
const THOUGHT = `Thinking about "${QUESTION}". No tool, context or schema applies, so I will reply directly.`;
const ANSWER = `Emulated reply to: "${QUESTION}"`;

async function ask(model: string, extra: Record<string, unknown> = {}, emulator = inProcess()) {
  const response = await post(emulator, CHAT, chatBody(QUESTION, { model, ...extra }));
  return { response, body: (await response.json()) as Body };
}

/** A success or error body, as these tests read it. */
interface Body {
  choices: Array<{ message: { content?: unknown } }>;
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    prompt_tokens_details?: { cached_tokens: number };
    completion_tokens_details?: { reasoning_tokens: number };
  };
  error: { message: string };
}

/** The deltas of a streamed reply, merged field by field. */
async function streamed(model: string) {
  const response = await post(inProcess(), CHAT, chatBody(QUESTION, { model, stream: true }));
  const events = parseSse(await response.text()).filter((e) => e !== "[DONE]");
  const merged: Record<string, string> = {};
  let pieces = 0;
  for (const event of events) {
    const delta = (event.choices as Array<{ delta: Record<string, unknown> }>)[0]?.delta ?? {};
    for (const [field, value] of Object.entries(delta)) {
      if (typeof value === "string") merged[field] = (merged[field] ?? "") + value;
    }
    if (typeof delta.content === "string" && delta.content !== "") pieces++;
  }
  return { merged, pieces, usage: events.at(-1)?.usage as Record<string, unknown> };
}

describe("where each thinking model writes its reasoning", () => {
  it.each([
    [THINKING_MODEL, { content: ANSWER, reasoning_content: THOUGHT }],
    [R1_MODEL, { content: ANSWER, reasoning_content: THOUGHT }],
    [VLLM_REASONING_MODEL, { content: ANSWER, reasoning: THOUGHT }],
    [THINK_TAGS_MODEL, { content: `<think>\n${THOUGHT}\n</think>\n\n${ANSWER}` }],
    [OPENED_THINK_TAGS_MODEL, { content: `${THOUGHT}\n</think>\n\n${ANSWER}` }],
  ])("%s, invoked and streamed", async (model, message) => {
    const { body } = await ask(model);
    expect(body.choices[0]!.message).toEqual({ role: "assistant", ...message });
    const { merged, pieces } = await streamed(model);
    expect(merged).toEqual({ role: "assistant", ...message });
    // Tags arrive in token-sized pieces, split wherever the tokenizer splits them.
    expect(pieces).toBeGreaterThan(5);
  });

  it("counts the reasoning as output and says how much of it there was", async () => {
    const { body } = await ask(THINKING_MODEL);
    const reasoning = body.usage.completion_tokens_details!.reasoning_tokens;
    expect(reasoning).toBeGreaterThan(10);
    expect(body.usage.completion_tokens).toBeGreaterThan(reasoning);
  });

  it.each([
    ["thinking: { type: disabled } (DeepSeek, GLM)", { thinking: { type: "disabled" } }],
    ["enable_thinking: false (Qwen3 on DashScope)", { enable_thinking: false }],
    [
      "chat_template_kwargs.enable_thinking: false (vLLM, SGLang)",
      { chat_template_kwargs: { enable_thinking: false } },
    ],
  ])("thinks not at all when %s", async (_switch, extra) => {
    for (const model of [THINKING_MODEL, THINK_TAGS_MODEL]) {
      const { body } = await ask(model, extra);
      expect(body.choices[0]!.message).toEqual({ role: "assistant", content: ANSWER });
      expect(body.usage).not.toHaveProperty("completion_tokens_details");
    }
  });
});

describe("reasoning sent back to the models", () => {
  const tools = [
    functionTool("get_weather", "Get the weather for a city", { city: { type: "string" } }),
  ];
  const toolCall = {
    id: "call_1",
    type: "function",
    function: { name: "get_weather", arguments: '{"city":"Paris"}' },
  };
  const turn = (assistant: Record<string, unknown>) => [
    { role: "user", content: "What is the weather in Paris?" },
    { role: "assistant", content: null, tool_calls: [toolCall], ...assistant },
    { role: "tool", tool_call_id: "call_1", content: "Sunny" },
  ];

  it("the thinker answers DeepSeek's 400 to a tool call of the turn sent back without its reasoning", async () => {
    const emulator = inProcess();
    const { response, body } = await ask(THINKING_MODEL, { tools, messages: turn({}) }, emulator);
    expect(response.status).toBe(400);
    const requestId = response.headers.get("x-gateway-request-id");
    expect(requestId).toMatch(REQUEST_ID);
    expect(body).toEqual({
      error: {
        code: "invalid_request_error",
        message: `The reasoning_content in the thinking mode must be passed back to the API. (request id: ${requestId})`,
        type: "invalid_request_error",
        param: "",
      },
    });
    expect(emulator.state.lastRequest()).toMatchObject({ status: 400, cost: 0 });
  });

  it("the thinker answers once the reasoning is back, and needs none from earlier turns", async () => {
    const back = await ask(THINKING_MODEL, {
      tools,
      messages: turn({ reasoning_content: "Look it up." }),
    });
    expect(back.response.status).toBe(200);
    expect(back.body.choices[0]!.message.content).toBe("get_weather returned: Sunny");
    const nextTurn = await ask(THINKING_MODEL, {
      tools,
      messages: [
        ...turn({}),
        { role: "assistant", content: "Sunny." },
        { role: "user", content: "Thanks!" },
      ],
    });
    expect(nextTurn.response.status).toBe(200);
    // Nor with thinking switched off.
    const off = await ask(THINKING_MODEL, {
      tools,
      messages: turn({}),
      thinking: { type: "disabled" },
    });
    expect(off.response.status).toBe(200);
  });

  it("R1 answers 400 to any input message that carries reasoning, and serves the turn without it", async () => {
    const refused = await ask(R1_MODEL, {
      tools,
      messages: turn({ reasoning_content: "Look it up." }),
    });
    expect(refused.response.status).toBe(400);
    expect(refused.body.error.message).toMatch(
      /^reasoning_content is for display only and is not accepted in input messages; remove it from the messages you send\. \(request id: \d{32}\)$/,
    );
    const served = await ask(R1_MODEL, { tools, messages: turn({}) });
    expect(served.response.status).toBe(200);
  });
});

describe("cached prompt tokens", () => {
  // A system prompt long enough to fill some 64-token blocks.
  const system = {
    role: "system",
    content: `You are a careful assistant. ${"Answer briefly and cite the context. ".repeat(20)}`,
  };

  it("reports the prefix read before in blocks of 64, and debits it at cachedInput", async () => {
    const emulator = inProcess();
    const first = await ask(
      THINKING_MODEL,
      { messages: [system, { role: "user", content: QUESTION }] },
      emulator,
    );
    expect(first.body.usage).not.toHaveProperty("prompt_tokens_details");
    const credit = emulator.state.credit;
    const second = await ask(
      THINKING_MODEL,
      { messages: [system, { role: "user", content: "Is 19 prime?" }] },
      emulator,
    );
    const { prompt_tokens: prompt, completion_tokens: completion } = second.body.usage;
    const cached = second.body.usage.prompt_tokens_details!.cached_tokens;
    expect(cached % 64).toBe(0);
    expect(cached).toBeGreaterThan(0);
    expect(cached).toBeLessThan(prompt);
    // DeepSeek-like prices: 0.28 a million, 0.028 cached, 0.42 out.
    const cost = ((prompt - cached) * 0.28 + cached * 0.028 + completion * 0.42) / 1e6;
    expect(credit - emulator.state.credit).toBeCloseTo(cost, 15);
    expect(emulator.state.lastRequest()?.cost).toBeCloseTo(cost, 15);
  });

  it("forgets on reset, and never caches for a model without promptCache", async () => {
    const emulator = inProcess();
    const messages = [system, { role: "user", content: QUESTION }];
    await ask(THINKING_MODEL, { messages }, emulator);
    emulator.state.reset();
    expect((await ask(THINKING_MODEL, { messages }, emulator)).body.usage).not.toHaveProperty(
      "prompt_tokens_details",
    );
    await ask("emulator-chat", { messages }, emulator);
    expect((await ask("emulator-chat", { messages }, emulator)).body.usage).not.toHaveProperty(
      "prompt_tokens_details",
    );
  });
});

describe("configuring a thinking model", () => {
  it("takes reasoning, promptCache and prices.cachedInput, and checks them", () => {
    const state = new EmulatorState({
      models: [
        {
          id: "house-thinker",
          prices: { input: 1, output: 2, cachedInput: 0.1 },
          reasoning: { format: "tags", input: "refuse" },
          promptCache: true,
        },
      ],
    });
    expect(state.model("house-thinker")).toEqual({
      id: "house-thinker",
      prices: { input: 1, output: 2, cachedInput: 0.1 },
      reasoning: { format: "tags", input: "refuse" },
      promptCache: true,
      endpointTypes: ["openai"],
    });
    for (const [model, message] of [
      [
        { id: "m", reasoning: { format: "xml" } },
        "models[0].reasoning.format must be one of reasoning_content, reasoning, tags, opened-tags",
      ],
      [
        { id: "m", reasoning: { format: "tags", input: "maybe" } },
        "models[0].reasoning.input must be one of ignore, require, refuse",
      ],
      [
        { id: "m", reasoning: { format: "tags", style: 1 } },
        "models[0].reasoning.style is not a field; reasoning has format, input",
      ],
      [
        { id: "m", promptCache: "yes" },
        'models[0].promptCache must be true, false or "breakpoints"',
      ],
      [
        { id: "m", prices: { input: 1, output: 1, cachedInput: -1 } },
        "models[0].prices.cachedInput must be a finite number >= 0",
      ],
    ] as const) {
      expect(() => new EmulatorState({ models: [model as never] })).toThrow(
        new EmulatorConfigError(message),
      );
    }
  });

  it("profiles each thinking model as a client must declare it", () => {
    const profiles = createEmulator().state.modelProfiles();
    expect(profiles[R1_MODEL]).toMatchObject({
      reasoningOutput: true,
      reasoningRoundTrip: "never",
    });
    expect(profiles[OPENED_THINK_TAGS_MODEL]).toMatchObject({ reasoningTags: "opened" });
    expect(profiles[THINKING_MODEL]).not.toHaveProperty("reasoningRoundTrip");
  });
});
