import { afterEach, describe, expect, it } from "vitest";
import {
  DEFAULT_SERVICE_NAME,
  EXPIRED_API_KEY,
  NO_PERMISSION_API_KEY,
  OPENED_THINK_TAGS_MODEL,
  PENDING_SERVICE_NAME,
  R1_MODEL,
  REASONING_MODEL,
  THINK_TAGS_MODEL,
  THINKING_MODEL,
  VLLM_REASONING_MODEL,
} from "../../../src/emulator/index.js";
import {
  bearer,
  CHAT,
  COMPLETIONS,
  chatBody,
  inProcess,
  parseSse,
  post,
  REQUEST_ID,
  TRANSPORTS,
  useEmulator,
} from "../helpers.js";

const requestIdOf = (response: Response) => response.headers.get("x-gateway-request-id") ?? "";
/** The docs/service-contract.md#errors 401 body, with the response's own request ID. */
const invalidTokenBody = (response: Response) => ({
  error: {
    code: "",
    message: `Invalid token (request id: ${requestIdOf(response)})`,
    type: "new_api_error",
  },
});

describe.each(TRANSPORTS)(
  "service contract docs/service-contract.md#errors over the %s",
  (_name, make) => {
    const emulator = useEmulator(make);

    it("answers a missing key and an invalid key with the same 401 body except the request ID", async () => {
      const missing = await post(emulator, CHAT, chatBody(), {});
      const invalid = await post(emulator, CHAT, chatBody(), bearer("sk-wrong"));
      const [missingId, invalidId] = [requestIdOf(missing), requestIdOf(invalid)];
      expect([missing.status, invalid.status]).toEqual([401, 401]);
      expect(await missing.json()).toEqual({
        error: {
          code: "",
          message: `Invalid token (request id: ${missingId})`,
          type: "new_api_error",
        },
      });
      const invalidText = await invalid.text();
      expect(invalidText).toBe(
        `{"error":{"code":"","message":"Invalid token (request id: ${invalidId})","type":"new_api_error"}}`,
      );
      expect(missingId).not.toBe(invalidId);
    });

    it("gives an expired key the same 401 on both surfaces", async () => {
      const hosted = await post(emulator, CHAT, chatBody(), bearer(EXPIRED_API_KEY));
      const dedicated = await post(
        emulator,
        COMPLETIONS,
        { prompt: "Hi" },
        { ...bearer(EXPIRED_API_KEY), "service-name": DEFAULT_SERVICE_NAME },
      );
      for (const response of [hosted, dedicated]) {
        expect(response.status).toBe(401);
        expect(await response.json()).toEqual(invalidTokenBody(response));
      }
    });

    it("refuses a key without the Inference Service permission on the dedicated surface only", async () => {
      const dedicated = await post(
        emulator,
        COMPLETIONS,
        { prompt: "Hi" },
        { ...bearer(NO_PERMISSION_API_KEY), "service-name": DEFAULT_SERVICE_NAME },
      );
      expect(dedicated.status).toBe(401);
      expect(await dedicated.json()).toEqual(invalidTokenBody(dedicated));
      const hosted = await post(emulator, CHAT, chatBody(), bearer(NO_PERMISSION_API_KEY));
      expect(hosted.status).toBe(200);
    });

    it("answers 403 insufficient_user_quota in Simplified Chinese with param when credit is zero", async () => {
      emulator.state.setCredit(0);
      const response = await post(emulator, CHAT, chatBody());
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({
        error: {
          code: "insufficient_user_quota",
          message: `用户额度不足, 剩余额度: ¥0.000000 (request id: ${requestIdOf(response)})`,
          type: "new_api_error",
          param: "",
        },
      });
    });

    it.each([
      ["POST", "/inference/v1/chat/completion", "/v1/chat/completion"],
      [
        "POST",
        "/inference/v1/chat/completions/chat/completions",
        "/v1/chat/completions/chat/completions",
      ],
      ["GET", "/inference/v1/chat/completions", "/v1/chat/completions"],
      ["POST", "/inference/v1/models?x=1", "/v1/models"],
    ])(
      "answers %s %s with 404 Invalid URL showing the path after /inference",
      async (method, path, shown) => {
        const response = await emulator.fetch(`${emulator.url}${path}`, {
          method,
          headers: bearer(),
          ...(method === "POST" ? { body: JSON.stringify(chatBody()) } : {}),
        });
        expect(response.status).toBe(404);
        expect(response.headers.get("x-gateway-request-id")).toMatch(REQUEST_ID);
        // docs/service-contract.md#errors, rule 5: the 404 body is the one without the request ID.
        expect(await response.text()).toBe(
          `{"error":{"code":"","message":"Invalid URL (${method} ${shown})","type":"invalid_request_error","param":""}}`,
        );
      },
    );

    it("answers 503 model_not_found for an unknown model, without param", async () => {
      const response = await post(emulator, CHAT, chatBody("Hi", { model: "no-such-model" }));
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({
        error: {
          code: "model_not_found",
          message: `No available channel for model no-such-model under group default (request id: ${requestIdOf(response)})`,
          type: "new_api_error",
        },
      });
    });

    it.each(["/inference/chat/completions", "/chat/completions", "/", "/v1/chat/completions"])(
      "serves the HTML console page with 200 for %s (a base missing /inference/v1)",
      async (path) => {
        const response = await post(emulator, path, chatBody());
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
        expect(response.headers.get("x-gateway-request-id")).toMatch(REQUEST_ID);
        expect(await response.text()).toMatch(/^<!doctype html>/);
      },
    );

    it("sends a fresh X-Gateway-Request-Id on every response", async () => {
      const responses = [
        await post(emulator, CHAT, chatBody()),
        await post(emulator, CHAT, chatBody(), {}),
        await post(emulator, "/inference/v1/nope", {}),
        await post(emulator, "/", {}),
        await emulator.fetch(`${emulator.url}/_emulator/state`),
      ];
      const ids = responses.map(requestIdOf);
      for (const id of ids) expect(id).toMatch(REQUEST_ID);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it("never returns the client's X-Client-Request-Id or X-Request-Id (docs/service-contract.md#errors, rule 6)", async () => {
      const response = await post(emulator, CHAT, chatBody("Hi", { model: "no-such-model" }), {
        ...bearer(),
        "x-client-request-id": "client-abc-123",
        "x-request-id": "client-def-456",
      });
      expect(response.status).toBe(503);
      const headerValues = [...response.headers].map(([, value]) => value).join("\n");
      const body = await response.text();
      for (const id of ["client-abc-123", "client-def-456"]) {
        expect(headerValues).not.toContain(id);
        expect(body).not.toContain(id);
      }
      expect(response.headers.has("x-client-request-id")).toBe(false);
      expect(response.headers.has("x-request-id")).toBe(false);
    });

    it.each([
      ["missing", undefined],
      ["without a dot", "tenant-demo"],
      ["with an empty alias", "tenant-demo."],
      ["with an empty tenant", ".demo-endpoint"],
      ["with two dots", "tenant-demo.demo-endpoint.x"],
      ["with an unknown alias", "tenant-demo.unknown"],
      ["with an unknown tenant", "other-tenant.demo-endpoint"],
    ])("answers 404 for a Service-Name %s", async (_case, serviceName) => {
      const headers =
        serviceName === undefined ? bearer() : { ...bearer(), "service-name": serviceName };
      const response = await post(emulator, COMPLETIONS, { prompt: "Hi" }, headers);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({
        error: {
          code: "",
          message: "Invalid URL (POST /v1/completions)",
          type: "invalid_request_error",
          param: "",
        },
      });
    });

    it("closes the connection with no response for a Pending endpoint (docs/service-contract.md#endpoint-states)", async () => {
      const call = post(
        emulator,
        COMPLETIONS,
        { prompt: "Hi" },
        { ...bearer(), "service-name": PENDING_SERVICE_NAME },
      );
      await expect(call).rejects.toThrow(TypeError);
      await expect(call).rejects.toThrow("fetch failed");
      expect(emulator.state.lastRequest()).toMatchObject({
        status: 0,
        serviceName: PENDING_SERVICE_NAME,
      });
    });

    it("answers 400 invalid_request for a body that is not a chat request", async () => {
      const response = await post(emulator, CHAT, "{not json");
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: {
          code: "invalid_request",
          message: `Request body is not valid JSON (request id: ${requestIdOf(response)})`,
          type: "new_api_error",
          param: "",
        },
      });
    });
  },
);

describe.each(TRANSPORTS)("GET /inference/v1/models over the %s", (_name, make) => {
  const emulator = useEmulator(make);
  const list = (headers: Record<string, string> = bearer()) =>
    emulator.fetch(`${emulator.url}/inference/v1/models`, { headers });

  it("lists the hosted models as the gateway does: object list, data of id/object/created/owned_by", async () => {
    emulator.state.addModel({ id: "extra-model" });
    const response = await list();
    expect(response.status).toBe(200);
    expect(response.headers.get("x-gateway-request-id")).toMatch(REQUEST_ID);
    const body = (await response.json()) as { data: Array<{ created: number }> };
    const created = body.data[0]!.created;
    expect(Number.isInteger(created) && created > 1_600_000_000).toBe(true);
    expect(body).toEqual({
      success: true,
      object: "list",
      data: [
        "emulator-chat",
        REASONING_MODEL,
        THINKING_MODEL,
        R1_MODEL,
        VLLM_REASONING_MODEL,
        THINK_TAGS_MODEL,
        OPENED_THINK_TAGS_MODEL,
        "emulator-embedding",
        "emulator-rerank",
        "extra-model",
      ].map((id) => ({
        id,
        object: "model",
        created,
        owned_by: "emulator",
        supported_endpoint_types:
          id === "emulator-chat" || id === REASONING_MODEL
            ? ["openai", "openai-response"]
            : id === "emulator-embedding"
              ? ["embeddings"]
              : id === "emulator-rerank"
                ? ["jina-rerank"]
                : ["openai"],
      })),
    });
    // A listing is not an inference call: nothing is logged or debited.
    expect(emulator.state.requests()).toEqual([]);
  });

  it("says in its description that a model configured with ignoresResponseFormat ignores response_format", async () => {
    emulator.state.addModel({ id: "prose-model", ignoresResponseFormat: true });
    const { data } = (await (await list()).json()) as { data: Array<Record<string, unknown>> };
    expect(data.find((model) => model.id === "prose-model")).toMatchObject({
      description:
        "Ignores response_format: answers json_schema and json_object requests in prose.",
    });
    expect(data.filter((model) => "description" in model)).toHaveLength(1);
  });

  it("checks the key as the hosted surface does: the same 401 when missing, invalid or expired", async () => {
    for (const headers of [{}, bearer("sk-wrong"), bearer(EXPIRED_API_KEY)]) {
      const response = await list(headers);
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual(invalidTokenBody(response));
    }
    expect((await list(bearer(NO_PERMISSION_API_KEY))).status).toBe(200);
  });
});

const WEATHER_TOOL = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } } },
  },
};
const FORCE = (name: string) => ({ type: "function", function: { name } });

describe("hosted chat completions", () => {
  const emulator = inProcess();
  afterEach(() => emulator.state.reset());

  it("returns the OpenAI chat.completion shape with usage", async () => {
    const response = await post(emulator, CHAT, chatBody("Hello there"));
    const requestId = requestIdOf(response);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await response.json()).toEqual({
      id: `chatcmpl-${requestId}`,
      object: "chat.completion",
      created: expect.any(Number),
      model: "emulator-chat",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: 'Emulated reply to: "Hello there"' },
          logprobs: null,
          finish_reason: "stop",
        },
      ],
      usage: { prompt_tokens: 9, completion_tokens: 9, total_tokens: 18 },
    });
  });

  it.each([
    ["a function absent from tools", { tools: [WEATHER_TOOL], tool_choice: FORCE("get_time") }],
    ["a function with no tools at all", { tool_choice: FORCE("get_weather") }],
    ["an absent tool as a bare string", { tools: [WEATHER_TOOL], tool_choice: "get_time" }],
  ])(
    "answers 400 invalid_request, param tool_choice, for a tool_choice naming %s",
    async (_label, extra) => {
      const response = await post(emulator, CHAT, chatBody("What time is it?", extra));
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: Record<string, unknown> };
      expect(body).toEqual({
        error: {
          code: "invalid_request",
          message: expect.stringMatching(
            /^tool_choice names the function "get_\w+", which is not in tools/,
          ),
          type: "new_api_error",
          param: "tool_choice",
        },
      });
      expect(emulator.state.lastRequest()).toMatchObject({ status: 400, completionTokens: 0 });
    },
  );

  it("calls a forced tool that is offered", async () => {
    const response = await post(
      emulator,
      CHAT,
      chatBody("Hello", { tools: [WEATHER_TOOL], tool_choice: FORCE("get_weather") }),
    );
    expect(response.status).toBe(200);
    const { choices } = (await response.json()) as {
      choices: Array<{ message: { tool_calls: Array<{ function: { name: string } }> } }>;
    };
    expect(choices[0]!.message.tool_calls[0]!.function.name).toBe("get_weather");
  });

  it("adds reasoning_content for a model whose ID contains 'reason'", async () => {
    const response = await post(
      emulator,
      CHAT,
      chatBody("Hello there", { model: REASONING_MODEL }),
    );
    const { choices } = (await response.json()) as {
      choices: Array<{ message: Record<string, unknown> }>;
    };
    expect(choices[0]!.message).toEqual({
      role: "assistant",
      content: 'Emulated reply to: "Hello there"',
      reasoning_content:
        'Thinking about "Hello there". No tool, context or schema applies, so I will reply directly.',
    });
  });

  it("truncates the output to max_tokens with finish_reason length", async () => {
    const response = await post(emulator, CHAT, chatBody("Hello there", { max_tokens: 3 }));
    const body = (await response.json()) as {
      choices: Array<{ message: { content: string }; finish_reason: string }>;
      usage: { completion_tokens: number };
    };
    expect(body.choices[0]).toMatchObject({
      message: { content: "Emulated reply" },
      finish_reason: "length",
    });
    expect(body.usage.completion_tokens).toBe(3);
  });

  it("accepts max_completion_tokens as max_tokens", async () => {
    const response = await post(
      emulator,
      CHAT,
      chatBody("Hello there", { max_completion_tokens: 1 }),
    );
    const body = (await response.json()) as {
      choices: Array<{ message: { content: string }; finish_reason: string }>;
    };
    expect(body.choices[0]).toMatchObject({ message: { content: "Em" }, finish_reason: "length" });
  });

  it("cuts the output at the first stop sequence", async () => {
    const response = await post(
      emulator,
      CHAT,
      chatBody("Hello there", { stop: [" to", "Hello"] }),
    );
    const body = (await response.json()) as {
      choices: Array<{ message: { content: string }; finish_reason: string }>;
    };
    expect(body.choices[0]).toMatchObject({
      message: { content: "Emulated reply" },
      finish_reason: "stop",
    });
  });
});

type Usage = { prompt_tokens: number; completion_tokens: number; total_tokens: number };

/** Each choice's streamed text (content for chat, text for completions), by index. */
function streamedTexts(events: ReturnType<typeof parseSse>): Record<number, string> {
  const texts: Record<number, string> = {};
  for (const event of events) {
    if (event === "[DONE]") continue;
    for (const choice of event.choices as Array<Record<string, unknown>>) {
      const index = choice.index as number;
      const delta = choice.delta as { content?: string } | undefined;
      texts[index] = (texts[index] ?? "") + (delta?.content ?? (choice.text as string) ?? "");
    }
  }
  return texts;
}

describe("n choices", () => {
  const emulator = inProcess();
  afterEach(() => emulator.state.reset());

  it("answers n chat choices, indexed, with the completion counted once per choice", async () => {
    const one = (await (await post(emulator, CHAT, chatBody("Hello there"))).json()) as {
      choices: Array<{ message: { content: string } }>;
      usage: Usage;
    };
    const response = await post(emulator, CHAT, chatBody("Hello there", { n: 3 }));
    const three = (await response.json()) as {
      choices: Array<{ index: number; message: { content: string }; finish_reason: string }>;
      usage: Usage;
    };
    expect(three.choices.map((choice) => [choice.index, choice.message.content])).toEqual(
      [0, 1, 2].map((index) => [index, one.choices[0]!.message.content]),
    );
    expect(three.usage).toEqual({
      prompt_tokens: one.usage.prompt_tokens,
      completion_tokens: 3 * one.usage.completion_tokens,
      total_tokens: one.usage.prompt_tokens + 3 * one.usage.completion_tokens,
    });
    expect(emulator.state.lastRequest()).toMatchObject({
      completionTokens: 3 * one.usage.completion_tokens,
      cost: (one.usage.prompt_tokens * 0.5 + 3 * one.usage.completion_tokens * 1.5) / 1e6,
    });
  });

  it("streams n chat choices taking turns, each whole, with the usage of all of them", async () => {
    const plain = (await (await post(emulator, CHAT, chatBody("Tell me a story"))).json()) as {
      choices: Array<{ message: { content: string } }>;
      usage: Usage;
    };
    const response = await post(
      emulator,
      CHAT,
      chatBody("Tell me a story", { n: 2, stream: true }),
    );
    const events = parseSse(await response.text());
    const indexes = events.flatMap((event) =>
      event === "[DONE]" ? [] : (event.choices as Array<{ index: number }>).map((c) => c.index),
    );
    // Taking turns: 0, 1, 0, 1, … — a client that reads choices[0] alone would mix them up.
    expect(indexes.slice(0, 4)).toEqual([0, 1, 0, 1]);
    const content = plain.choices[0]!.message.content;
    expect(streamedTexts(events)).toEqual({ 0: content, 1: content });
    const finishes = events.flatMap((event) =>
      event === "[DONE]"
        ? []
        : (event.choices as Array<{ index: number; finish_reason: string | null }>).filter(
            (choice) => choice.finish_reason !== null,
          ),
    );
    expect(finishes.map((choice) => [choice.index, choice.finish_reason])).toEqual([
      [0, "stop"],
      [1, "stop"],
    ]);
    const usage = events.at(-2) as { choices: unknown[]; usage: Usage };
    expect(usage.choices).toEqual([]);
    expect(usage.usage.completion_tokens).toBe(2 * plain.usage.completion_tokens);
  });

  it("answers n completions per prompt, prompt by prompt, streamed or not", async () => {
    const headers = { ...bearer(), "service-name": DEFAULT_SERVICE_NAME };
    const body = { prompt: ["Once upon a time", "Roses are red"], n: 2 };
    const json = (await (await post(emulator, COMPLETIONS, body, headers)).json()) as {
      choices: Array<{ index: number; text: string }>;
      usage: Usage;
    };
    const once = 'Emulated completion of: "Once upon a time"';
    const roses = 'Emulated completion of: "Roses are red"';
    expect(json.choices.map((choice) => [choice.index, choice.text])).toEqual([
      [0, once],
      [1, once],
      [2, roses],
      [3, roses],
    ]);
    const single = (await (
      await post(emulator, COMPLETIONS, { ...body, n: 1 }, headers)
    ).json()) as { usage: Usage };
    expect(json.usage.prompt_tokens).toBe(single.usage.prompt_tokens);
    expect(json.usage.completion_tokens).toBe(2 * single.usage.completion_tokens);
    const streamed = await post(emulator, COMPLETIONS, { ...body, stream: true }, headers);
    expect(streamedTexts(parseSse(await streamed.text()))).toEqual({
      0: once,
      1: once,
      2: roses,
      3: roses,
    });
  });

  it.each([0, 129, 1.5, "2"])("refuses n = %j with 400 naming n", async (n) => {
    const response = await post(emulator, CHAT, chatBody("Hi", { n }));
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({
      code: "invalid_request",
      param: "n",
      message: expect.stringMatching(/^n must be a whole number from 1 to 128/),
    });
  });
});

describe("metering and credit", () => {
  const emulator = inProcess();
  afterEach(() => emulator.state.reset());

  it("debits exactly prompt × input + completion × output per million tokens", async () => {
    const before = emulator.state.credit;
    const response = await post(emulator, CHAT, chatBody("What does metering cost?"));
    const { usage } = (await response.json()) as {
      usage: { prompt_tokens: number; completion_tokens: number };
    };
    // emulator-chat costs 0.5 per million input tokens and 1.5 per million output tokens.
    const cost = (usage.prompt_tokens * 0.5 + usage.completion_tokens * 1.5) / 1e6;
    expect(emulator.state.credit).toBe(before - cost);
    expect(emulator.state.lastRequest()).toMatchObject({
      surface: "hosted",
      model: "emulator-chat",
      keyId: "key-demo",
      promptTokens: usage.prompt_tokens,
      completionTokens: usage.completion_tokens,
      totalTokens: usage.prompt_tokens + usage.completion_tokens,
      cost,
      status: 200,
    });
  });

  it("lets the call that runs credit out succeed and answers the next one 403", async () => {
    emulator.state.setCredit(0.000001);
    const last = await post(emulator, CHAT, chatBody());
    expect(last.status).toBe(200);
    expect(emulator.state.credit).toBeLessThan(0);
    const refused = await post(emulator, CHAT, chatBody());
    expect(refused.status).toBe(403);
    const { error } = (await refused.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("insufficient_user_quota");
    expect(error.message).toContain(`¥${emulator.state.credit.toFixed(6)} `);
    expect(emulator.state.lastRequest()).toMatchObject({ status: 403, cost: 0, totalTokens: 0 });
  });

  it("checks the model before the credit", async () => {
    emulator.state.setCredit(0);
    const response = await post(emulator, CHAT, chatBody("Hi", { model: "no-such-model" }));
    expect(response.status).toBe(503);
  });

  it("meters dedicated calls in tokens without debiting credit", async () => {
    const before = emulator.state.credit;
    const response = await post(
      emulator,
      COMPLETIONS,
      { prompt: "Once upon a time" },
      { ...bearer(), "service-name": DEFAULT_SERVICE_NAME },
    );
    const { usage } = (await response.json()) as { usage: { total_tokens: number } };
    expect(emulator.state.credit).toBe(before);
    expect(emulator.state.lastRequest()).toMatchObject({
      surface: "dedicated",
      serviceName: DEFAULT_SERVICE_NAME,
      totalTokens: usage.total_tokens,
      cost: 0,
      status: 200,
    });
  });

  it("logs every inference request, failures included, with its status", async () => {
    await post(emulator, CHAT, chatBody(), {});
    await post(emulator, CHAT, chatBody("Hi", { model: "no-such-model" }));
    await post(emulator, CHAT, chatBody());
    await post(emulator, "/", {});
    expect(emulator.state.requests().map((entry) => [entry.status, entry.model])).toEqual([
      [401, undefined],
      [503, "no-such-model"],
      [200, "emulator-chat"],
    ]);
  });
});

describe("dedicated completions", () => {
  it("returns a text_completion with the Service-Name as model and one choice per prompt", async () => {
    const emulator = inProcess();
    const response = await post(
      emulator,
      COMPLETIONS,
      { prompt: ["Once upon a time", "Roses are red"], max_tokens: 64 },
      { ...bearer(), "service-name": DEFAULT_SERVICE_NAME },
    );
    expect(await response.json()).toEqual({
      id: `cmpl-${requestIdOf(response)}`,
      object: "text_completion",
      created: expect.any(Number),
      model: DEFAULT_SERVICE_NAME,
      choices: [
        {
          index: 0,
          text: 'Emulated completion of: "Once upon a time"',
          logprobs: null,
          finish_reason: "stop",
        },
        {
          index: 1,
          text: 'Emulated completion of: "Roses are red"',
          logprobs: null,
          finish_reason: "stop",
        },
      ],
      usage: { prompt_tokens: 8, completion_tokens: 22, total_tokens: 30 },
    });
  });

  it("turns a readyAfterMs endpoint Running once its delay has passed", async () => {
    let now = 1_000_000;
    const emulator = inProcess({
      clock: () => now,
      endpoints: [{ tenantId: "acme", jobAlias: "warming", readyAfterMs: 5_000 }],
    });
    const call = () =>
      post(
        emulator,
        COMPLETIONS,
        { prompt: "Hi" },
        { ...bearer(), "service-name": "acme.warming" },
      );
    expect(emulator.state.endpoint("acme.warming")).toMatchObject({
      state: "Pending",
      scaling: "0/1",
    });
    await expect(call()).rejects.toThrow("fetch failed");
    now += 4_999;
    await expect(call()).rejects.toThrow("fetch failed");
    now += 1;
    expect((await call()).status).toBe(200);
    expect(emulator.state.endpoint("acme.warming")).toEqual({
      serviceName: "acme.warming",
      tenantId: "acme",
      jobAlias: "warming",
      replicas: 1,
      state: "Running",
      scaling: "1/1",
    });
  });
});
