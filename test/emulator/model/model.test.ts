import { describe, expect, it } from "vitest";
import { z } from "zod";
import { NO_ANSWER_IN_CONTEXT } from "../../../src/emulator/model/context.js";
import { completePrompt, replyToChat } from "../../../src/emulator/model/model.js";
import { parseChatRequest } from "../../../src/emulator/model/requests.js";
import { functionTool } from "../helpers.js";

const WEATHER = functionTool("get_weather", "Get the current weather for a city", {
  city: { type: "string" },
  unit: { type: "string", enum: ["fahrenheit", "celsius"] },
});
const ADD = functionTool("add", "Add two numbers", {
  a: { type: "number" },
  b: { type: "number" },
});
const SEARCH = functionTool("search_docs", "Search the documentation", {
  query: { type: "string" },
});

function reply(messages: unknown[], extra: Record<string, unknown> = {}) {
  return replyToChat(
    parseChatRequest(JSON.stringify({ model: "emulator-chat", messages, ...extra })),
  );
}
const user = (content: string) => ({ role: "user", content });
const argsOf = (result: ReturnType<typeof reply>) =>
  JSON.parse(result.toolCalls[0]!.function.arguments) as unknown;

describe("the deterministic model's tool rules", () => {
  it("calls the tool whose name and description best match the message, with values from it", () => {
    const result = reply([user("What's the weather in Paris in celsius?")], {
      tools: [ADD, WEATHER, SEARCH],
    });
    expect(result.content).toBe("");
    expect(result.toolCalls).toEqual([
      {
        id: expect.stringMatching(/^call_[0-9a-f]{24}$/),
        type: "function",
        function: { name: "get_weather", arguments: '{"city":"Paris","unit":"celsius"}' },
      },
    ]);
  });

  it("fills numeric arguments from the numbers in the message, synonyms included", () => {
    const result = reply([user("What is 3 plus 4.5?")], { tools: [WEATHER, ADD] });
    expect(result.toolCalls[0]!.function.name).toBe("add");
    expect(argsOf(result)).toEqual({ a: 3, b: 4.5 });
  });

  it("passes a quoted string to a query argument", () => {
    const result = reply([user('Search the docs for "rate limits"')], { tools: [WEATHER, SEARCH] });
    expect(result.toolCalls[0]!.function).toEqual({
      name: "search_docs",
      arguments: '{"query":"rate limits"}',
    });
  });

  it("answers in text when no offered tool shares a word with the message", () => {
    const result = reply([user("Good morning")], { tools: [WEATHER, ADD] });
    expect(result.toolCalls).toEqual([]);
    expect(result.content).toBe('Emulated reply to: "Good morning"');
  });

  it("calls the tool that tool_choice names, even when another matches better", () => {
    const result = reply([user("What's the weather in Paris?")], {
      tools: [WEATHER, ADD],
      tool_choice: { type: "function", function: { name: "add" } },
    });
    expect(result.toolCalls[0]!.function.name).toBe("add");
    // Required fields are always filled: with no number in the message, a plausible default.
    expect(argsOf(result)).toEqual({ a: 1, b: 1 });
  });

  it('calls a tool for tool_choice "required" even when none matches', () => {
    const result = reply([user("Good morning")], {
      tools: [WEATHER, ADD],
      tool_choice: "required",
    });
    expect(result.toolCalls[0]!.function).toEqual({
      name: "get_weather",
      arguments: '{"city":"Paris","unit":"fahrenheit"}',
    });
  });

  it('never calls a tool for tool_choice "none"', () => {
    const result = reply([user("What's the weather in Paris?")], {
      tools: [WEATHER],
      tool_choice: "none",
    });
    expect(result.toolCalls).toEqual([]);
    expect(result.content).toBe('Emulated reply to: "What\'s the weather in Paris?"');
  });

  it("answers with the tool results once the last turns are tool messages", () => {
    const result = reply(
      [
        user("What's the weather in Paris?"),
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "get_weather", arguments: '{"city":"Paris"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: "Sunny, 21°C" },
      ],
      { tools: [WEATHER] },
    );
    expect(result).toEqual({
      reasoning: undefined,
      content: "get_weather returned: Sunny, 21°C",
      toolCalls: [],
    });
  });

  it("gives the same output, tool-call ID included, for the same input", () => {
    const messages = [user("What's the weather in Paris?")];
    expect(reply(messages, { tools: [WEATHER] })).toEqual(reply(messages, { tools: [WEATHER] }));
  });
});

describe("the deterministic model's structured output", () => {
  const Person = z.object({
    name: z.string(),
    age: z.number().int().min(0).max(150),
    city: z.string(),
    employed: z.boolean(),
    languages: z.array(z.enum(["english", "german", "french"])),
    nickname: z.string().nullable(),
    address: z.object({ street: z.string(), zip: z.string().max(5) }),
  });

  it("returns a JSON instance valid against a json_schema response format, with values from the message", () => {
    const result = reply(
      [user("My name is Bob, I am 42 years old, I live in Berlin and speak german.")],
      {
        response_format: {
          type: "json_schema",
          json_schema: { name: "person", schema: z.toJSONSchema(Person) },
        },
      },
    );
    const parsed = Person.parse(JSON.parse(result.content));
    expect(parsed).toMatchObject({ name: "Bob", age: 42, city: "Berlin", languages: ["german"] });
  });

  it("returns {answer} for a json_object response format", () => {
    const result = reply([user("Say hi in JSON")], { response_format: { type: "json_object" } });
    expect(JSON.parse(result.content)).toEqual({ answer: 'Emulated reply to: "Say hi in JSON"' });
  });
});

describe("the deterministic model's context rule", () => {
  const context =
    "Context: Paris is the capital of France. The Eiffel Tower is 330 metres tall. Berlin is the capital of Germany.";

  it("answers with the context sentence sharing the most words with the question", () => {
    const result = reply([
      { role: "system", content: `Answer the question using only the context.\n\n${context}` },
      user("How tall is the Eiffel Tower?"),
    ]);
    expect(result.content).toBe("The Eiffel Tower is 330 metres tall.");
  });

  it("reads a context and a Question: label in one user message", () => {
    const result = reply([user(`${context}\n\nQuestion: What is the capital of Germany?`)]);
    expect(result.content).toBe("Berlin is the capital of Germany.");
  });

  it("says the context has no answer when no sentence matches", () => {
    const result = reply([user(`${context}\n\nQuestion: Who wrote Hamlet?`)]);
    expect(result.content).toBe(NO_ANSWER_IN_CONTEXT);
  });

  it("treats several unlabelled sentences before a question as passages", () => {
    const result = reply([user("Cats sleep a lot. Dogs bark at strangers. Why do dogs bark?")]);
    expect(result.content).toBe("Dogs bark at strangers.");
  });

  it("completes a dedicated-endpoint prompt by the same rule, else with an echo of its start", () => {
    expect(completePrompt(`${context}\nQuestion: How tall is the Eiffel Tower?\nAnswer:`)).toBe(
      "The Eiffel Tower is 330 metres tall.",
    );
    expect(completePrompt("Write a haiku about the sea and the sky and the long night")).toBe(
      'Emulated completion of: "Write a haiku about the sea and the…"',
    );
  });
});

describe("the deterministic model's fallback", () => {
  it("replies with the first words of the last user message", () => {
    expect(reply([user("Tell me a story about a brave little toaster on a trip")]).content).toBe(
      'Emulated reply to: "Tell me a story about a brave little…"',
    );
  });

  it("adds reasoning text naming the rule for reasoning models", () => {
    const result = replyToChat(
      parseChatRequest(
        JSON.stringify({
          model: "emulator-reasoner",
          messages: [user("Add 2 and 3")],
          tools: [ADD],
        }),
      ),
    );
    expect(result.reasoning).toBe(
      'Thinking about "Add 2 and 3". It matches an offered tool, so I will call it.',
    );
  });
});
