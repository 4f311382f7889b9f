/**
 * `withStructuredOutput` on the wire: the method chosen by the profile, the one step down from
 * `jsonSchema` to a forced tool call (and when it is not taken), strict schemas and the nulls of
 * their optional fields, the honest failure, and the usage of every attempt.
 */
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import nock from "nock";
import { LengthFinishReasonError } from "openai/error";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ChatInferenceService,
  type ChatInferenceServiceFields,
} from "../../../src/apis/chat/chat_models.js";
import { STRUCTURED_OUTPUT_STEP_DOWN_EVENT } from "../../../src/apis/chat/step_down.js";
import { createEmulator } from "../../../src/emulator/index.js";
import {
  BadRequestError,
  ConfigurationError,
  ContextLengthExceededError,
  ResponseFormatError,
  StructuredOutputError,
} from "../../../src/errors/errors.js";
import { GATEWAY_CODES } from "../../../src/errors/gateway_codes.js";
import { UsageTracker } from "../../../src/spend/usage_tracker.js";
import { sampleText } from "../../helpers/fixtures.js";
import { installOtel } from "../../helpers/otel.js";
import { BASE, chatCompletion, intercept, KEY, type Reply } from "../../helpers/wire.js";
import { expectConsole } from "../../setup/quiet.js";

const CHAT = "/inference/v1/chat/completions";

// biome-ignore lint/suspicious/noExplicitAny: a JSON schema as the test reads it, at any depth
type JsonSchema = Record<string, any>;

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

const Person = z.object({ name: z.string(), age: z.number() });
const PROMPT = "Ada is 36";

function model(fields: Omit<ChatInferenceServiceFields, "model"> = {}) {
  return new ChatInferenceService("test-model", {
    apiKey: KEY,
    baseURL: BASE,
    maxRetries: 0,
    ...fields,
  });
}

/** A model whose profile says it honours `json_schema`. */
function jsonSchemaModel(fields: Omit<ChatInferenceServiceFields, "model"> = {}) {
  return model({ profiles: { "test-model": { structuredOutput: true } }, ...fields });
}

const headers = (id: string) => ({
  "Content-Type": "application/json",
  "X-Gateway-Request-Id": id,
});

/** A 200 whose content is `content`. */
function said(content: string, id: string, extra: Record<string, unknown> = {}): Reply {
  return [200, chatCompletion({ content }, extra), headers(id)];
}

/** A 200 that calls `name` with `args`. */
function called(args: unknown, id: string, name = "extract"): Reply {
  const call = {
    id: "call_1",
    type: "function",
    function: { name, arguments: JSON.stringify(args) },
  };
  return [200, chatCompletion({ content: null, tool_calls: [call] }), headers(id)];
}

/** The row's sample body, as the service sends it, with status and headers. */
function refused(code: string, message: RegExp | undefined, id: string): Reply {
  const row = GATEWAY_CODES.find(
    (r) => r.code === code && String(r.message?.pattern) === String(message),
  )!;
  return [
    row.status[0],
    sampleText(row.sample, { requestId: id, model: "test-model" }),
    headers(id),
  ];
}

async function caught(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail");
}

describe("withStructuredOutput: the method", () => {
  it("forces a tool call when the profile does not say structuredOutput: true (the default)", async () => {
    const seen = intercept(CHAT, called({ name: "Ada", age: 36 }, "req-1"));
    const result = await model().withStructuredOutput(Person).invoke(PROMPT);
    expect(result).toEqual({ name: "Ada", age: 36 });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.body.tool_choice).toEqual({ type: "function", function: { name: "extract" } });
    expect(seen[0]?.body.tools).toMatchObject([
      { type: "function", function: { name: "extract" } },
    ]);
    expect(seen[0]?.body).not.toHaveProperty("response_format");
  });

  it("sends a json_schema response_format when the profile says structuredOutput: true", async () => {
    const seen = intercept(CHAT, said('{"name":"Ada","age":36}', "req-1"));
    const { raw, parsed } = await jsonSchemaModel()
      .withStructuredOutput(Person, { name: "Person", includeRaw: true })
      .invoke(PROMPT);
    expect(parsed).toEqual({ name: "Ada", age: 36 });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.body.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "Person", strict: true },
    });
    expect(seen[0]?.body).not.toHaveProperty("tools");
    expect(raw.response_metadata).toMatchObject({
      structuredOutputMethod: "jsonSchema",
      requestId: "req-1",
    });
    expect(raw.response_metadata).not.toHaveProperty("structuredOutputStepDown");
  });

  it.each([
    ["functionCalling", true, "tools"],
    ["jsonSchema", false, "response_format"],
    ["jsonMode", true, "response_format"],
  ] as const)(
    "an explicit method %s wins over the profile (structuredOutput: %s)",
    async (method, flag, field) => {
      const answer =
        method === "functionCalling"
          ? called({ name: "Ada", age: 36 }, "r")
          : said('{"name":"Ada","age":36}', "r");
      const seen = intercept(CHAT, answer);
      const chat = model({ profiles: { "test-model": { structuredOutput: flag } } });
      await expect(chat.withStructuredOutput(Person, { method }).invoke(PROMPT)).resolves.toEqual({
        name: "Ada",
        age: 36,
      });
      expect(seen).toHaveLength(1);
      expect(seen[0]?.body).toHaveProperty(field);
      if (method === "jsonMode")
        expect(seen[0]?.body.response_format).toEqual({ type: "json_object" });
    },
  );

  it.each([
    [{ method: "xml" }, "method"],
    [{ method: "jsonMode", strict: true }, "strict"],
    [{ includeRaw: "yes" }, "includeRaw"],
    [{ name: "" }, "name"],
  ])(
    "refuses %j with a ConfigurationError naming the option, before any request",
    (config, option) => {
      const seen = intercept(CHAT, said("{}", "r"));
      const error = (() => {
        try {
          model().withStructuredOutput(Person, config as object);
        } catch (e) {
          return e;
        }
      })();
      expect(ConfigurationError.isInstance(error)).toBe(true);
      expect((error as ConfigurationError).option).toBe(option);
      expect(seen).toHaveLength(0);
    },
  );
});

/**
 * A `jsonSchema` call whose first answer is `first` and second a call of the tool: it must come
 * back parsed after two requests. Returns the raw message and the requests.
 */
async function steppedDown(first: Reply) {
  const seen = intercept(CHAT, first, called({ name: "Ada", age: 36 }, "req-2"));
  const { raw, parsed } = await jsonSchemaModel()
    .withStructuredOutput(Person, { includeRaw: true })
    .invoke(PROMPT);
  expect(parsed).toEqual({ name: "Ada", age: 36 });
  expect(seen).toHaveLength(2);
  return { metadata: raw.response_metadata as Record<string, unknown>, seen };
}

describe("withStructuredOutput: the step down from jsonSchema", () => {
  it("asks once more with a forced tool call when the json_schema answer is prose", async () => {
    const { metadata, seen } = await steppedDown(
      said("Ada is a mathematician who is 36 years old.", "req-1"),
    );
    const [first, second] = seen.map((r) => r.body);
    expect(first?.response_format).toMatchObject({ type: "json_schema" });
    expect(second).not.toHaveProperty("response_format");
    expect(second?.tool_choice).toEqual({ type: "function", function: { name: "extract" } });
    // The same request otherwise: the same messages and model.
    expect(second?.messages).toEqual(first?.messages);
    expect(second?.model).toBe("test-model");
    expect(metadata).toMatchObject({
      requestId: "req-2",
      structuredOutputMethod: "functionCalling",
      structuredOutputStepDown: { from: "jsonSchema", reason: "prose", requestId: "req-1" },
    });
  });

  it.each([
    ["OpenAI's invalid_json_schema", "invalid_json_schema", undefined],
    [
      "DeepSeek's unavailable response_format",
      "invalid_request_error",
      /response_format type is unavailable/i,
    ],
  ])(
    "asks once more with a forced tool call when the service refuses the format: %s",
    async (_name, code, message) => {
      const { metadata, seen } = await steppedDown(refused(code, message, "req-1"));
      expect(seen[0]?.body).toHaveProperty("response_format");
      expect(seen[1]?.body).toHaveProperty("tools");
      expect(metadata.structuredOutputStepDown).toEqual({
        from: "jsonSchema",
        reason: "refused",
        requestId: "req-1",
        code,
      });
    },
  );

  it("also steps down from an explicit method jsonSchema", async () => {
    const seen = intercept(
      CHAT,
      said("Not JSON.", "req-1"),
      called({ name: "Ada", age: 36 }, "req-2"),
    );
    const result = await model()
      .withStructuredOutput(Person, { method: "jsonSchema" })
      .invoke(PROMPT);
    expect(result).toEqual({ name: "Ada", age: 36 });
    expect(seen).toHaveLength(2);
  });

  it.each([
    [
      "the caller's own 400 (context too long)",
      refused("context_length_exceeded", undefined, "req-1"),
      ContextLengthExceededError,
    ],
    [
      "a model server's invalid_request_error about something else",
      [
        400,
        {
          error: {
            message: "Invalid max_tokens value",
            type: "invalid_request_error",
            code: "invalid_request_error",
          },
        },
        headers("req-1"),
      ] as Reply,
      BadRequestError,
    ],
  ])("never steps down on %s: the error, after one request", async (_name, reply, cls) => {
    const seen = intercept(CHAT, reply, called({ name: "Ada", age: 36 }, "req-2"));
    const error = await caught(() => jsonSchemaModel().withStructuredOutput(Person).invoke(PROMPT));
    expect(cls.isInstance(error)).toBe(true);
    expect(ResponseFormatError.isInstance(error)).toBe(false);
    expect(seen).toHaveLength(1);
  });

  it("never steps down from an answer cut short (finish_reason length): JSON that ran out is not prose", async () => {
    const cut = said('{"name":"Ada","a', "req-1", {
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: '{"name":"Ada","a' },
          finish_reason: "length",
        },
      ],
    });
    const seen = intercept(CHAT, cut, called({ name: "Ada", age: 36 }, "req-2"));
    const error = await caught(() => jsonSchemaModel().withStructuredOutput(Person).invoke(PROMPT));
    expect(error).toBeInstanceOf(LengthFinishReasonError);
    expect(seen).toHaveLength(1);
    // Streamed, the cut answer reaches the reader: still no step down, a StructuredOutputError.
    nock.cleanAll();
    const streamed = intercept(CHAT, [
      200,
      `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "test-model", choices: [{ index: 0, delta: { role: "assistant", content: "Ada is" }, finish_reason: "length" }] })}\n\ndata: [DONE]\n\n`,
      { "Content-Type": "text/event-stream", "X-Gateway-Request-Id": "req-3" },
    ]);
    const again = await caught(() =>
      jsonSchemaModel({ streaming: true }).withStructuredOutput(Person).invoke(PROMPT),
    );
    expect(StructuredOutputError.isInstance(again)).toBe(true);
    expect(streamed).toHaveLength(1);
  });

  it("never steps down from JSON that does not fit the schema: a StructuredOutputError after one request", async () => {
    const seen = intercept(
      CHAT,
      said('{"name":"Ada","age":"thirty-six"}', "req-1"),
      called({}, "req-2"),
    );
    const error = await caught(() => jsonSchemaModel().withStructuredOutput(Person).invoke(PROMPT));
    expect(StructuredOutputError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      rawText: '{"name":"Ada","age":"thirty-six"}',
      methods: ["jsonSchema"],
      requestIds: ["req-1"],
    });
    expect((error as StructuredOutputError).message).toContain("age:");
    expect(seen).toHaveLength(1);
  });

  it("decides on each call on its own: no memory of an earlier step down", async () => {
    const seen = intercept(
      CHAT,
      said("Prose.", "req-1"),
      called({ name: "Ada", age: 36 }, "req-2"),
      said('{"name":"Ada","age":36}', "req-3"),
    );
    const extract = jsonSchemaModel().withStructuredOutput(Person);
    await extract.invoke(PROMPT);
    await extract.invoke(PROMPT);
    expect(seen.map((r) => Object.hasOwn(r.body, "response_format"))).toEqual([true, false, true]);
  });

  it("tells the step down to the callbacks as a custom event, and a handler that throws changes nothing", async () => {
    const events: Array<{ name: string; data: unknown }> = [];
    const handler = BaseCallbackHandler.fromMethods({
      handleCustomEvent(name, data) {
        events.push({ name, data });
      },
    });
    const failing = BaseCallbackHandler.fromMethods({
      handleCustomEvent() {
        throw new Error("observer failed");
      },
    });
    expectConsole("warn", /Error in handler Handler, handleCustomEvent: Error: observer failed/);
    const seen = intercept(
      CHAT,
      said("Prose.", "req-1"),
      called({ name: "Ada", age: 36 }, "req-2"),
    );
    const result = await jsonSchemaModel()
      .withStructuredOutput(Person)
      .invoke(PROMPT, { callbacks: [handler, failing] });
    expect(result).toEqual({ name: "Ada", age: 36 });
    expect(seen).toHaveLength(2);
    expect(events).toEqual([
      {
        name: STRUCTURED_OUTPUT_STEP_DOWN_EVENT,
        data: {
          from: "jsonSchema",
          to: "functionCalling",
          reason: "prose",
          requestId: "req-1",
          model: "test-model",
        },
      },
    ]);
  });

  it("meters, reserves and records both attempts like any call", async () => {
    const usage = new UsageTracker({
      prices: { "test-model": { input: 2, output: 8 } },
      budget: 1,
    });
    const tokens = (input: number, output: number) => ({
      usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
    });
    const prose = said("Prose.", "req-1", tokens(20, 5));
    const call = {
      id: "call_1",
      type: "function",
      function: { name: "extract", arguments: '{"name":"Ada","age":36}' },
    };
    const tool: Reply = [
      200,
      chatCompletion({ content: null, tool_calls: [call] }, tokens(30, 10)),
      headers("req-2"),
    ];
    const seen = intercept(CHAT, prose, tool);
    await jsonSchemaModel()
      .withStructuredOutput(Person)
      .invoke(PROMPT, { callbacks: [usage] });
    expect(seen).toHaveLength(2);
    expect(usage.records).toHaveLength(2);
    expect(
      usage.records.map((r) => [r.requestId, r.inputTokens, r.outputTokens, r.settlement]),
    ).toEqual([
      ["req-1", 20, 5, "reported"],
      ["req-2", 30, 10, "reported"],
    ]);
    expect(usage.totals).toMatchObject({ calls: 2, inputTokens: 50, outputTokens: 15 });
    expect(usage.spent).toBeCloseTo((50 * 2 + 15 * 8) / 1e6);
    expect(usage.inFlight).toBe(0);
  });

  it("traces both attempts as calls of their own, each with its request ID", async () => {
    const otel = installOtel();
    try {
      intercept(CHAT, said("Prose.", "req-1"), called({ name: "Ada", age: 36 }, "req-2"));
      await jsonSchemaModel().withStructuredOutput(Person).invoke(PROMPT);
      const calls = otel.spans().filter((span) => span.name === "chat test-model");
      expect(calls.map((span) => span.attributes["inference_service.request_id"])).toEqual([
        "req-1",
        "req-2",
      ]);
    } finally {
      await otel.uninstall();
    }
  });

  it("records the refused attempt as a failed call that counts nothing, then the second", async () => {
    const usage = new UsageTracker();
    intercept(
      CHAT,
      refused("invalid_json_schema", undefined, "req-1"),
      called({ name: "Ada", age: 36 }, "req-2"),
    );
    await jsonSchemaModel()
      .withStructuredOutput(Person)
      .invoke(PROMPT, { callbacks: [usage] });
    expect(usage.records).toHaveLength(2);
    expect(usage.records[0]).toMatchObject({
      totalTokens: 0,
      error: { name: "ResponseFormatError" },
    });
    expect(usage.records[1]).toMatchObject({ requestId: "req-2", totalTokens: 12 });
    expect(usage.records[1]).not.toHaveProperty("error");
  });
});

describe("withStructuredOutput: strict schemas", () => {
  const Profile = z.object({
    name: z.string(),
    nickname: z.string().optional(),
    address: z.object({ city: z.string(), zip: z.string().optional() }).optional(),
    tags: z.array(z.object({ label: z.string(), note: z.string().optional() })),
    maybe: z.string().nullable().optional(),
  });

  it("sends a json_schema that follows OpenAI's strict rules: every property required, optional ones nullable, objects closed", async () => {
    const seen = intercept(
      CHAT,
      said(
        '{"name":"Ada","nickname":null,"address":{"city":"London","zip":null},"tags":[{"label":"x","note":null}],"maybe":null}',
        "r",
      ),
    );
    const result = await jsonSchemaModel()
      .withStructuredOutput(Profile, { strict: true })
      .invoke(PROMPT);
    const format = seen[0]?.body.response_format as {
      json_schema: { strict: boolean; schema: JsonSchema };
    };
    expect(format.json_schema.strict).toBe(true);
    const schema = format.json_schema.schema;
    expect(schema).toMatchObject({
      type: "object",
      additionalProperties: false,
      required: ["name", "nickname", "address", "tags", "maybe"],
    });
    expect(schema.properties.nickname.type).toEqual(["string", "null"]);
    expect(schema.properties.address).toMatchObject({
      anyOf: [
        { type: "object", additionalProperties: false, required: ["city", "zip"] },
        { type: "null" },
      ],
    });
    expect(schema.properties.tags.items).toMatchObject({
      additionalProperties: false,
      required: ["label", "note"],
    });
    // The nulls of the optional fields come back absent; a nullable field keeps its null.
    expect(result).toEqual({
      name: "Ada",
      address: { city: "London" },
      tags: [{ label: "x" }],
      maybe: null,
    });
    expect(Profile.safeParse(result).success).toBe(true);
  });

  it("makes a zod schema's json_schema strict by default, as ChatOpenAI sends it", async () => {
    const seen = intercept(
      CHAT,
      said('{"name":"Ada","nickname":null,"tags":[],"maybe":null,"address":null}', "r"),
    );
    const result = await jsonSchemaModel().withStructuredOutput(Profile).invoke(PROMPT);
    const format = seen[0]?.body.response_format as {
      json_schema: { strict: boolean; schema: { required: string[] } };
    };
    expect(format.json_schema.strict).toBe(true);
    expect(format.json_schema.schema.required).toContain("nickname");
    expect(result).toEqual({ name: "Ada", tags: [], maybe: null });
  });

  it("sends the schema as it is with strict: false", async () => {
    const seen = intercept(CHAT, said('{"name":"Ada","tags":[]}', "r"));
    await jsonSchemaModel().withStructuredOutput(Profile, { strict: false }).invoke(PROMPT);
    const format = seen[0]?.body.response_format as {
      json_schema: { strict: boolean; schema: { required: string[] } };
    };
    expect(format.json_schema.strict).toBe(false);
    expect(format.json_schema.schema.required).toEqual(["name", "tags"]);
  });

  it("prepares a forced tool's parameters with strict: true, and takes the nulls of its optional arguments out", async () => {
    const seen = intercept(
      CHAT,
      called(
        {
          name: "Ada",
          nickname: null,
          address: null,
          tags: [{ label: "x", note: null }],
          maybe: null,
        },
        "r",
      ),
    );
    const result = await model().withStructuredOutput(Profile, { strict: true }).invoke(PROMPT);
    const tools = seen[0]!.body.tools as Array<{
      function: { strict: boolean; parameters: JsonSchema };
    }>;
    const tool = tools[0]!;
    expect(tool.function.strict).toBe(true);
    expect(tool.function.parameters.required).toEqual([
      "name",
      "nickname",
      "address",
      "tags",
      "maybe",
    ]);
    expect(result).toEqual({ name: "Ada", tags: [{ label: "x" }], maybe: null });
  });

  it("leaves a null alone when the schema was not sent strict: the caller's schema judges it", async () => {
    intercept(CHAT, called({ name: "Ada", age: 36, nickname: null }, "r"));
    const Loose = Person.extend({ nickname: z.string().optional() });
    const error = await caught(() => model().withStructuredOutput(Loose).invoke(PROMPT));
    expect(StructuredOutputError.isInstance(error)).toBe(true);
    expect((error as StructuredOutputError).message).toContain("nickname");
  });
});

describe("withStructuredOutput: honest failure", () => {
  it("fails with a StructuredOutputError, not undefined, when a forced tool call is answered in prose", async () => {
    const seen = intercept(CHAT, said("I'd rather just tell you: Ada is 36.", "req-1"));
    const error = await caught(() => model().withStructuredOutput(Person).invoke(PROMPT));
    expect(StructuredOutputError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: "structured_output_unparsable",
      rawText: "I'd rather just tell you: Ada is 36.",
      methods: ["functionCalling"],
      requestId: "req-1",
      requestIds: ["req-1"],
      retryable: false,
      lc_error_code: "OUTPUT_PARSING_FAILURE",
    });
    expect(seen).toHaveLength(1);
  });

  it("fails after exactly two requests when the stepped-down answer is prose too, with both request IDs and the raw text", async () => {
    const seen = intercept(
      CHAT,
      said("Ada is 36.", "req-1"),
      said("Still prose: Ada, 36.", "req-2"),
    );
    const error = await caught(() => jsonSchemaModel().withStructuredOutput(Person).invoke(PROMPT));
    expect(seen).toHaveLength(2);
    expect(StructuredOutputError.isInstance(error)).toBe(true);
    const e = error as StructuredOutputError;
    expect(e).toMatchObject({
      rawText: "Still prose: Ada, 36.",
      methods: ["jsonSchema", "functionCalling"],
      requestIds: ["req-1", "req-2"],
      requestId: "req-2",
      model: "test-model",
    });
    expect(e.message).toContain("request ids req-1, req-2");
    expect(e.summary).toContain("after a prose answer to a json_schema response format");
  });

  it("returns { raw, parsed: null, parsingError } with includeRaw: true, after the same two requests", async () => {
    const seen = intercept(CHAT, said("Ada is 36.", "req-1"), said("Still prose.", "req-2"));
    const result = (await jsonSchemaModel()
      .withStructuredOutput(Person, { includeRaw: true })
      .invoke(PROMPT)) as { raw: BaseMessage; parsed: unknown; parsingError?: unknown };
    expect(seen).toHaveLength(2);
    expect(result.parsed).toBeNull();
    expect(StructuredOutputError.isInstance(result.parsingError)).toBe(true);
    expect(result.parsingError).toMatchObject({
      requestIds: ["req-1", "req-2"],
      rawText: "Still prose.",
    });
    expect(result.raw.text).toBe("Still prose.");
    expect(result.raw.response_metadata).toMatchObject({
      structuredOutputMethod: "functionCalling",
      structuredOutputStepDown: { reason: "prose", requestId: "req-1" },
    });
  });

  it("reads a tool call whose arguments are not JSON as a failure that quotes them", async () => {
    const broken = {
      id: "call_1",
      type: "function",
      function: { name: "extract", arguments: '{"name": "Ada", age: 36' },
    };
    // LangChain's message warns of a tool call it cannot parse.
    expectConsole("warn", /New LangChain packages are available/);
    intercept(CHAT, [
      200,
      chatCompletion({ content: null, tool_calls: [broken] }),
      headers("req-1"),
    ]);
    const error = await caught(() => model().withStructuredOutput(Person).invoke(PROMPT));
    expect(StructuredOutputError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ rawText: '{"name": "Ada", age: 36' });
  });
});

describe("structured output against the emulator", () => {
  const Sum = z.object({ a: z.number(), b: z.number() });
  const ASK = "Add 3 and 4. Answer in JSON with the keys `a` and `b`.";

  function emulated(id: string, emulator: ReturnType<typeof createEmulator>, fields = {}) {
    return new ChatInferenceService(id, {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch: emulator.fetch,
      profiles: emulator.state.modelProfiles(),
      ...fields,
    });
  }

  it("steps down for a model whose /models entry says it ignores response_format: two billed calls, one answer", async () => {
    const emulator = createEmulator();
    emulator.state.addModel({
      id: "prose-model",
      ignoresResponseFormat: true,
      profile: { structuredOutput: true, toolCalling: true },
    });
    const { raw, parsed } = await emulated("prose-model", emulator)
      .withStructuredOutput(Sum, { includeRaw: true })
      .invoke(ASK);
    expect(Sum.safeParse(parsed).success).toBe(true);
    expect(raw.response_metadata).toMatchObject({
      structuredOutputMethod: "functionCalling",
      structuredOutputStepDown: { from: "jsonSchema", reason: "prose" },
    });
    const calls = emulator.state.requests();
    expect(calls).toHaveLength(2);
    expect(calls.every((call) => call.status === 200 && call.cost > 0)).toBe(true);
  });

  it.each(["ignore-response-format", "invalid_json_schema", "invalid_request_error"])(
    "steps down under X-Emulator-Fault: %s, whose second request is answered",
    async (fault) => {
      const emulator = createEmulator();
      const chat = emulated("emulator-chat", emulator, {
        configuration: { defaultHeaders: { "X-Emulator-Fault": fault } },
      });
      const result = await chat.withStructuredOutput(Sum).invoke(ASK);
      expect(result).toEqual({ a: 3, b: 4 });
      expect(emulator.state.requests().map((call) => call.status)).toEqual([
        fault === "ignore-response-format" ? 200 : 400,
        200,
      ]);
    },
  );

  it("answers with json_schema alone for a model that honours it", async () => {
    const emulator = createEmulator();
    const result = await emulated("emulator-chat", emulator).withStructuredOutput(Sum).invoke(ASK);
    expect(result).toEqual({ a: 3, b: 4 });
    expect(emulator.state.requests()).toHaveLength(1);
  });

  it.each([
    ["with structuredOutput: true (the provider strategy)", true, "response_format"],
    ["without it (the tool strategy)", false, "tools"],
  ])("keeps createAgent's responseFormat working %s", async (_name, flag, field) => {
    const emulator = createEmulator();
    const sent: Array<Record<string, unknown>> = [];
    const model = new ChatInferenceService("emulator-chat", {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch: async (input, init) => {
        sent.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
        return emulator.fetch(input, init);
      },
      profiles: { "emulator-chat": { structuredOutput: flag } },
    });
    const Report = z.object({
      city: z.string(),
      temperature: z.number(),
      note: z.string().optional(),
    });
    const getWeather = tool(({ city }) => `Sunny, 21 degrees in ${city}`, {
      name: "get_weather",
      description: "Get the current weather for a city",
      schema: z.object({ city: z.string() }),
    });
    const agent = createAgent({ model, tools: [getWeather], responseFormat: Report });
    const result = await agent.invoke({
      messages: [{ role: "user", content: "What's the weather in Paris?" }],
    });
    expect(Report.safeParse(result.structuredResponse).success).toBe(true);
    expect(result.structuredResponse).toMatchObject({ city: "Paris", temperature: 21 });
    expect(sent.at(-1)).toHaveProperty(field);
  });
});
