import { AIMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ChatInferenceService } from "../../../src/apis/chat/chat_models.js";
import { createEmulator } from "../../../src/emulator/index.js";
import { replyToChat } from "../../../src/emulator/model/model.js";
import { parseChatRequest } from "../../../src/emulator/model/requests.js";
import { isFinalAnswerTool, planToolCalls } from "../../../src/emulator/model/tool_plan.js";
import type { ToolSpec } from "../../../src/emulator/model/tools.js";
import { functionTool } from "../helpers.js";

const spec = (name: string, description: string, properties: Record<string, unknown>): ToolSpec =>
  functionTool(name, description, properties).function;
const WEATHER = spec("get_weather", "Get the current weather for a city", {
  city: { type: "string" },
});
const TIME = spec("get_time", "Get the current time in a city", { city: { type: "string" } });
const ADD = spec("add", "Add two numbers", { a: { type: "number" }, b: { type: "number" } });
const SEARCH = spec("search_docs", "Search the documentation", { query: { type: "string" } });

const plan = (tools: ToolSpec[], message: string, parallel = true) =>
  planToolCalls(tools, message, { parallel, mustCall: false, seed: "s" }).map((call) => [
    call.function.name,
    JSON.parse(call.function.arguments) as unknown,
  ]);

describe("planToolCalls: one call per thing the message asks for", () => {
  it("gathers the names of a very long ask without spreading them into one call", () => {
    // The first ask calls the tool and names nothing; the next names 150,000 places, which join
    // that call: spread into one push(), they overflowed the call stack.
    const message = `What's the weather and in ${"Paris / ".repeat(150_000)}?`;
    const calls = planToolCalls([WEATHER], message, {
      parallel: false,
      mustCall: false,
      seed: "s",
    });
    expect(calls.map((call) => call.function.name)).toEqual(["get_weather"]);
  });

  it("calls the same tool once per place named: weather in Paris and Tokyo", () => {
    expect(plan([WEATHER, TIME], "What's the weather in Paris and Tokyo?")).toEqual([
      ["get_weather", { city: "Paris" }],
      ["get_weather", { city: "Tokyo" }],
    ]);
  });

  it("calls each tool an ask names, with the place each ask names", () => {
    expect(plan([WEATHER, TIME], "What's the weather in Paris and the time in Tokyo?")).toEqual([
      ["get_weather", { city: "Paris" }],
      ["get_time", { city: "Tokyo" }],
    ]);
  });

  it("reads a list of three places and a question spread over two sentences", () => {
    expect(plan([WEATHER], "Weather for Paris, Tokyo and Rome please")).toEqual([
      ["get_weather", { city: "Paris" }],
      ["get_weather", { city: "Tokyo" }],
      ["get_weather", { city: "Rome" }],
    ]);
    expect(plan([WEATHER], "What's the weather in Paris? And in Tokyo?")).toEqual([
      ["get_weather", { city: "Paris" }],
      ["get_weather", { city: "Tokyo" }],
    ]);
  });

  it("passes LangChain's standard parallel tool-calling prompt: weather and time for one city", () => {
    const prompt =
      "What's the weather and current time in San Francisco?\n" +
      "Ensure you ALWAYS call the 'get_current_weather' tool for weather and 'get_current_time' tool for time.";
    const weather = spec("get_current_weather", "Get the current weather in a given location", {
      location: { type: "string" },
    });
    const time = spec("get_current_time", "Get the current time in a given location", {
      location: { type: "string" },
    });
    expect(plan([weather, time], prompt)).toEqual([
      ["get_current_weather", { location: "San Francisco" }],
      ["get_current_time", { location: "San Francisco" }],
    ]);
  });

  it("keeps one call when the second part only adds an argument: add 3 and 4", () => {
    expect(plan([ADD, WEATHER], "add 3 and 4")).toEqual([["add", { a: 3, b: 4 }]]);
  });

  it("never splits inside quotes", () => {
    expect(plan([SEARCH], 'Search the docs for "cats and dogs"')).toEqual([
      ["search_docs", { query: "cats and dogs" }],
    ]);
  });

  it("makes one call, the first, with parallel_tool_calls false", () => {
    expect(plan([WEATHER], "What's the weather in Paris and Tokyo?", false)).toEqual([
      ["get_weather", { city: "Paris" }],
    ]);
  });

  it("gives each parallel call its own deterministic ID", () => {
    const calls = planToolCalls([WEATHER], "Weather in Paris and Tokyo", {
      parallel: true,
      mustCall: false,
      seed: "s",
    });
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);
    expect(
      planToolCalls([WEATHER], "Weather in Paris and Tokyo", {
        parallel: true,
        mustCall: false,
        seed: "s",
      }),
    ).toEqual(calls);
  });
});

describe("isFinalAnswerTool", () => {
  it("recognises LangChain's responseFormat tools and the usual final-answer names", () => {
    const final = (name: string, description = "") =>
      isFinalAnswerTool(spec(name, description, {}));
    expect(final("extract-3")).toBe(true);
    expect(
      final("WeatherReport", "Tool for extracting structured output from the model's response."),
    ).toBe(true);
    expect(final("final_answer")).toBe(true);
    expect(final("respond")).toBe(true);
    expect(final("get_weather", "Get the current weather")).toBe(false);
  });
});

describe("the final-answer tool under tool_choice required", () => {
  const REPORT = functionTool(
    "extract-1",
    "Tool for extracting structured output from the model's response.",
    { city: { type: "string" }, temperature: { type: "number" }, summary: { type: "string" } },
  );
  const WEATHER_TOOL = functionTool("get_weather", "Get the current weather for a city", {
    city: { type: "string" },
  });
  const reply = (messages: unknown[]) =>
    replyToChat(
      parseChatRequest(
        JSON.stringify({
          model: "emulator-chat",
          messages,
          tools: [WEATHER_TOOL, REPORT],
          tool_choice: "required",
        }),
      ),
    );
  const question = { role: "user", content: "What's the weather in Paris?" };

  it("calls the lookup tools first, never the final-answer tool on the first turn", () => {
    expect(reply([question]).toolCalls.map((call) => call.function.name)).toEqual(["get_weather"]);
  });

  it("calls the final-answer tool with values from the question and the results once they are in", () => {
    const result = reply([
      question,
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "c1", type: "function", function: { name: "get_weather", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "Sunny, 21 degrees" },
    ]);
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]!.function.name).toBe("extract-1");
    expect(JSON.parse(result.toolCalls[0]!.function.arguments)).toEqual({
      city: "Paris",
      temperature: 21,
      summary: "get_weather returned: Sunny, 21 degrees",
    });
  });

  it("calls the final-answer tool at once when no other tool fits the question", () => {
    const result = reply([{ role: "user", content: "Good morning" }]);
    expect(result.toolCalls.map((call) => call.function.name)).toEqual(["extract-1"]);
  });
});

describe("through createAgent against the emulator", () => {
  const getWeather = tool(({ city }: { city: string }) => `Sunny, 21 degrees in ${city}`, {
    name: "get_weather",
    description: "Get the current weather for a city",
    schema: z.object({ city: z.string() }),
  });
  const Report = z.object({ city: z.string(), temperature: z.number(), summary: z.string() });

  function setup(profiled: boolean) {
    const emulator = createEmulator();
    const bodies: Array<Record<string, unknown>> = [];
    const model = new ChatInferenceService("emulator-chat", {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch: async (input, init) => {
        bodies.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
        return emulator.fetch(input, init);
      },
      ...(profiled ? { profiles: emulator.state.modelProfiles() } : {}),
    });
    return { model, bodies, emulator };
  }

  it.each([
    [
      "a final-answer tool under tool_choice required (no profile: ToolStrategy)",
      false,
      "required",
    ],
    ["response_format json_schema (profiled: ProviderStrategy)", true, undefined],
  ])("returns the structured response with %s", async (_name, profiled, toolChoice) => {
    const { model, bodies } = setup(profiled);
    const agent = createAgent({ model, tools: [getWeather], responseFormat: Report });
    const result = await agent.invoke({
      messages: [{ role: "user", content: "What's the weather in Paris?" }],
    });

    expect(Report.parse(result.structuredResponse)).toEqual({
      city: "Paris",
      temperature: 21,
      summary: "get_weather returned: Sunny, 21 degrees in Paris",
    });
    // Two model calls: the weather lookup, then the answer; no loop.
    expect(bodies).toHaveLength(2);
    expect(bodies[0]!.tool_choice).toBe(toolChoice);
  });

  it("round-trips parallel tool calls: two lookups in one turn, then an answer quoting both", async () => {
    const { model, bodies, emulator } = setup(false);
    const agent = createAgent({ model, tools: [getWeather] });
    const result = await agent.invoke({
      messages: [{ role: "user", content: "What's the weather in Paris and Tokyo?" }],
    });

    const [call, tool1, tool2, answer] = result.messages.slice(1);
    expect(AIMessage.isInstance(call) && call.tool_calls?.map((c) => c.args)).toEqual([
      { city: "Paris" },
      { city: "Tokyo" },
    ]);
    expect([tool1?.content, tool2?.content]).toEqual([
      "Sunny, 21 degrees in Paris",
      "Sunny, 21 degrees in Tokyo",
    ]);
    expect(answer?.content).toBe(
      "get_weather returned: Sunny, 21 degrees in Paris\nget_weather returned: Sunny, 21 degrees in Tokyo",
    );
    expect(bodies).toHaveLength(2);
    expect(emulator.state.requests().map((entry) => entry.status)).toEqual([200, 200]);
  });

  it("makes one call per turn when the model is bound with parallel_tool_calls false", async () => {
    const { model, bodies } = setup(false);
    const bound = model.bindTools([getWeather], { parallel_tool_calls: false });
    const message = await bound.invoke("What's the weather in Paris and Tokyo?");
    expect(message.tool_calls?.map((c) => c.args)).toEqual([{ city: "Paris" }]);
    expect(bodies[0]!.parallel_tool_calls).toBe(false);
  });
});
