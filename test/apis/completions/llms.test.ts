import { inspect } from "node:util";
import { load } from "@langchain/core/load";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createEmulator, DEFAULT_SERVICE_NAME } from "../../../src/emulator/index.js";
import {
  AuthenticationError,
  BaseURLError,
  ConfigurationError,
  DedicatedEndpointLLM,
  type DedicatedEndpointLLMFields,
  EndpointNotReadyError,
  type InferenceServiceError,
  MalformedResponseError,
  ServiceConnectionError,
  ServiceNameError,
  ServiceUnavailableError,
} from "../../../src/index.js";

const BASE = "https://svc.test";
const PATH = "/inference/v1/completions";
const KEY = "sk-dedicated-9f4c7e21";
const TENANT = "tenant-7f3a";
const ALIAS = "summarizer-qz";
const SERVICE = `${TENANT}.${ALIAS}`;
const FAST = { initialDelayMs: 1, maxDelayMs: 2 };

nock.disableNetConnect();

beforeEach(() => {
  // Isolate from the machine's environment; readEnv treats "" as unset.
  for (const name of [
    "INFERENCE_SERVICE_API_KEY",
    "INFERENCE_SERVICE_BASE_URL",
    "INFERENCE_SERVICE_TENANT_ID",
    "INFERENCE_SERVICE_JOB_ALIAS",
  ]) {
    vi.stubEnv(name, "");
  }
});

afterEach(() => {
  nock.cleanAll();
});

interface Recorded {
  headers: Record<string, unknown>;
  body: Record<string, unknown>;
}

/** A nock scope on the service that records every request it receives. */
function service() {
  const scope = nock(BASE);
  const requests: Recorded[] = [];
  scope.on("request", (req: { headers: Record<string, unknown> }, _i: unknown, body: string) => {
    requests.push({ headers: { ...req.headers }, body: body ? JSON.parse(body) : {} });
  });
  return { scope, requests };
}

function llm(fields: DedicatedEndpointLLMFields = {}) {
  return new DedicatedEndpointLLM({
    apiKey: KEY,
    baseURL: BASE,
    serviceName: SERVICE,
    retry: FAST,
    ...fields,
  });
}

function completion(text: string, extra: Record<string, unknown> = {}) {
  return {
    id: "cmpl-1",
    object: "text_completion",
    choices: [{ index: 0, text, finish_reason: "stop" }],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    ...extra,
  };
}

function sse(events: unknown[], done = true): string {
  return (
    events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") + (done ? "data: [DONE]\n\n" : "")
  );
}

const SSE_HEADERS = { "Content-Type": "text/event-stream", "X-Gateway-Request-Id": "req-stream-1" };

/** Reads a stream to its end, returning the texts. */
async function drain(stream: Promise<AsyncIterable<string>>): Promise<string[]> {
  const out: string[] = [];
  for await (const text of await stream) out.push(text);
  return out;
}

async function caught(promise: Promise<unknown>): Promise<InferenceServiceError> {
  try {
    await promise;
  } catch (error) {
    return error as InferenceServiceError;
  }
  throw new Error("expected the call to fail");
}

describe("Service-Name on the wire (docs/service-contract.md#dedicated-endpoints)", () => {
  it("sends serviceName, the bearer key and JSON content type; the body holds prompt, max_tokens, temperature, stop and no model", async () => {
    const { scope, requests } = service();
    scope.post(PATH).reply(200, completion(" Paris."));
    const model = llm({ maxTokens: 16, temperature: 0.2, stop: ["\n"] });

    expect(await model.invoke("The capital of France is")).toBe(" Paris.");

    expect(requests).toHaveLength(1);
    expect(requests[0]?.headers).toMatchObject({
      "service-name": SERVICE,
      authorization: `Bearer ${KEY}`,
      "content-type": "application/json",
    });
    expect(requests[0]?.body).toEqual({
      prompt: "The capital of France is",
      max_tokens: 16,
      temperature: 0.2,
      stop: ["\n"],
    });
  });

  it("builds Service-Name from tenantId and jobAlias with one dot", async () => {
    const { scope, requests } = service();
    scope.post(PATH).reply(200, completion("ok"));

    await llm({ serviceName: undefined, tenantId: TENANT, jobAlias: ALIAS }).invoke("hi");

    expect(requests[0]?.headers["service-name"]).toBe(SERVICE);
  });

  it("reads tenant, job alias, key and base URL from the INFERENCE_SERVICE_* variables", async () => {
    vi.stubEnv("INFERENCE_SERVICE_TENANT_ID", "t-env");
    vi.stubEnv("INFERENCE_SERVICE_JOB_ALIAS", "alias-env");
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", "sk-from-env-1234");
    vi.stubEnv("INFERENCE_SERVICE_BASE_URL", `${BASE}/inference/v1`);
    const { scope, requests } = service();
    scope.post(PATH).reply(200, completion("ok"));

    const model = new DedicatedEndpointLLM();
    await model.invoke("hi");

    expect(model.serviceName).toBe("t-env.alias-env");
    expect(requests[0]?.headers).toMatchObject({
      "service-name": "t-env.alias-env",
      authorization: "Bearer sk-from-env-1234",
    });
  });

  it("prefers an explicit serviceName over the env variables", async () => {
    vi.stubEnv("INFERENCE_SERVICE_TENANT_ID", "t-env");
    vi.stubEnv("INFERENCE_SERVICE_JOB_ALIAS", "alias-env");
    const { scope, requests } = service();
    scope.post(PATH).reply(200, completion("ok"));

    await llm().invoke("hi");

    expect(requests[0]?.headers["service-name"]).toBe(SERVICE);
  });

  it("sends a per-call serviceName instead of the model's, and names it in errors", async () => {
    const { scope, requests } = service();
    scope.post(PATH).reply(200, completion("ok"));
    scope.post(PATH).reply(404, "");
    const model = llm();

    await model.invoke("hi", { serviceName: "tenant-7f3a.other-job" });
    const error = await caught(model.invoke("hi", { serviceName: "tenant-7f3a.missing" }));

    expect(requests.map((r) => r.headers["service-name"])).toEqual([
      "tenant-7f3a.other-job",
      "tenant-7f3a.missing",
    ]);
    expect(error).toBeInstanceOf(ServiceNameError);
    expect(error.message).toContain('"tenant-7f3a.missing"');
    expect(error.message).not.toContain(SERVICE);
  });

  it("accepts serviceName together with tenantId and jobAlias when they agree", () => {
    expect(llm({ tenantId: TENANT, jobAlias: ALIAS }).serviceName).toBe(SERVICE);
  });

  it.each([
    ["tenantId", { tenantId: "other-tenant" }],
    ["jobAlias", { jobAlias: "other-job" }],
    ["both", { tenantId: ALIAS, jobAlias: TENANT }],
  ])("rejects serviceName that disagrees with %s", (_label, parts) => {
    expect(() => llm(parts)).toThrow(ConfigurationError);
    expect(() => llm(parts)).toThrow(/serviceName.*disagrees/);
  });
});

const MALFORMED: Array<[string, unknown]> = [
  ["CR/LF header injection", `${SERVICE}\r\nX-Evil: 1`],
  ["bare LF", `${TENANT}.sum\nmarizer`],
  ["bare CR", `${TENANT}\r.${ALIAS}`],
  ["two dots", `${TENANT}.${ALIAS}.extra`],
  ["consecutive dots", `${TENANT}..${ALIAS}`],
  ["leading dot", `.${ALIAS}`],
  ["trailing dot", `${TENANT}.`],
  ["no dot", `${TENANT}${ALIAS}`],
  ["space inside", `${TENANT}.my job`],
  ["leading space", ` ${SERVICE}`],
  ["trailing space", `${SERVICE} `],
  ["tab", `${TENANT}.\t${ALIAS}`],
  ["no-break space U+00A0", `${TENANT}.\u00a0${ALIAS}`],
  ["em space U+2003", `${TENANT}\u2003.${ALIAS}`],
  ["zero-width space U+200B", `${TENANT}.${ALIAS}\u200b`],
  ["non-ASCII letter", `${TENANT}.résumé`],
  ["NUL", `${TENANT}.a\u0000b`],
  ["DEL", `${TENANT}.a\u007fb`],
  ["empty string", ""],
  ["a lone dot", "."],
  ["two lone dots", ".."],
  ["a number", 42],
  ["null", null],
  ["an object", { tenant: TENANT }],
];

describe("a malformed Service-Name never reaches the wire", () => {
  it.each(MALFORMED)("rejects %s at construction", (_label, value) => {
    const { scope, requests } = service();
    scope.post(PATH).reply(200, completion("must not be sent"));

    const error = (() => {
      try {
        llm({ serviceName: value as string });
      } catch (e) {
        return e as ConfigurationError;
      }
      throw new Error("expected a ConfigurationError");
    })();

    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.option).toBe("serviceName");
    expect(error.message).toContain("<TENANT_ID>.<JOB_ALIAS_NAME>");
    expect(requests).toHaveLength(0);
    expect(nock.pendingMocks()).toHaveLength(1);
  });

  it.each(MALFORMED)(
    "rejects %s as a per-call override without a request",
    async (_label, value) => {
      const { scope, requests } = service();
      scope.post(PATH).reply(200, completion("must not be sent"));
      const model = llm();

      const invoked = await caught(model.invoke("hi", { serviceName: value as string }));
      const streamed = await caught(drain(model.stream("hi", { serviceName: value as string })));

      for (const error of [invoked, streamed]) {
        expect(error).toBeInstanceOf(ConfigurationError);
        expect((error as unknown as ConfigurationError).option).toBe("serviceName");
      }
      expect(requests).toHaveLength(0);
      expect(nock.pendingMocks()).toHaveLength(1);
    },
  );

  it.each([
    ["tenantId", { tenantId: "ten.ant", jobAlias: ALIAS }],
    ["tenantId", { tenantId: "", jobAlias: ALIAS }],
    ["jobAlias", { tenantId: TENANT, jobAlias: "job.alias" }],
    ["jobAlias", { tenantId: TENANT, jobAlias: "" }],
    ["jobAlias", { tenantId: TENANT, jobAlias: "job\r\nX-Evil: 1" }],
    ["tenantId", { tenantId: "t\u00a0x", jobAlias: ALIAS }],
  ])("rejects a malformed part, naming %s", (option, parts) => {
    expect(() => llm({ serviceName: undefined, ...parts })).toThrow(
      expect.objectContaining({ name: "ConfigurationError", option }),
    );
  });

  it("trims a pasted line break from the env variables, as from every other variable", () => {
    vi.stubEnv("INFERENCE_SERVICE_TENANT_ID", ` ${TENANT}\r\n`);
    vi.stubEnv("INFERENCE_SERVICE_JOB_ALIAS", `${ALIAS}\n`);
    expect(llm({ serviceName: undefined }).serviceName).toBe(`${TENANT}.${ALIAS}`);
  });

  it("names the env variable a malformed part came from", () => {
    vi.stubEnv("INFERENCE_SERVICE_TENANT_ID", TENANT);
    vi.stubEnv("INFERENCE_SERVICE_JOB_ALIAS", "job alias");
    expect(() => llm({ serviceName: undefined })).toThrow(
      expect.objectContaining({
        option: "jobAlias",
        envVar: "INFERENCE_SERVICE_JOB_ALIAS",
        message: expect.stringMatching(/^`INFERENCE_SERVICE_JOB_ALIAS` may only contain/),
      }),
    );
  });

  it("names the missing part and its env variable when the endpoint is not named", () => {
    vi.stubEnv("INFERENCE_SERVICE_TENANT_ID", TENANT);
    expect(() => llm({ serviceName: undefined })).toThrow(
      expect.objectContaining({ option: "jobAlias", envVar: "INFERENCE_SERVICE_JOB_ALIAS" }),
    );
  });
});

describe("failures of a dedicated endpoint (docs/service-contract.md#errors, rule 7)", () => {
  it("maps 401 to AuthenticationError naming the Inference Service permission, after one request", async () => {
    const { scope, requests } = service();
    scope
      .post(PATH)
      .times(3)
      .reply(
        401,
        {
          error: { code: "", message: "Invalid token (request id: 2024A1)", type: "new_api_error" },
        },
        { "X-Gateway-Request-Id": "2024A1" },
      );

    const error = await caught(llm({ maxRetries: 2 }).invoke("hi"));

    expect(error).toBeInstanceOf(AuthenticationError);
    expect(AuthenticationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      status: 401,
      requestId: "2024A1",
      retryable: false,
      surface: "dedicated",
    });
    expect(error.hint).toContain("Inference Service permission");
    expect(error.message).not.toContain(KEY);
    expect(requests).toHaveLength(1);
  });

  it("maps 404 to ServiceNameError explaining <TENANT_ID>.<JOB_ALIAS_NAME>, after one request", async () => {
    const { scope, requests } = service();
    scope
      .post(PATH)
      .times(3)
      .reply(404, { error: { code: "", message: "Invalid URL (POST /v1/completions)" } });

    const error = await caught(llm({ maxRetries: 2 }).invoke("hi"));

    expect(error).toBeInstanceOf(ServiceNameError);
    expect(error).toMatchObject({ status: 404, retryable: false });
    expect(error.message).toContain(`"${SERVICE}"`);
    expect(error.hint).toContain("<TENANT_ID>.<JOB_ALIAS_NAME>");
    expect(requests).toHaveLength(1);
  });

  it.each([
    ["a refused connection", (s: nock.Interceptor) => s.replyWithError({ code: "ECONNREFUSED" })],
    [
      "a connection closed without a response",
      (s: nock.Interceptor) => s.replyWithError({ code: "ECONNRESET", message: "socket hang up" }),
    ],
    ["an empty 200", (s: nock.Interceptor) => s.reply(200, "")],
    [
      "an empty 200 labelled JSON",
      (s: nock.Interceptor) => s.reply(200, "", { "Content-Type": "application/json" }),
    ],
  ] as const)(
    "maps %s to EndpointNotReadyError, retried maxRetries times",
    async (_label, reply) => {
      const { scope, requests } = service();
      reply(scope.post(PATH).times(3));

      const error = await caught(llm({ maxRetries: 2 }).invoke("hi"));

      expect(error).toBeInstanceOf(EndpointNotReadyError);
      expect(error).toMatchObject({ retryable: true, surface: "dedicated" });
      // The summary says once that it is Pending; the hint says what to do about it.
      expect(error.summary).toContain("(still Pending)");
      expect(error.message.match(/Pending/g)).toHaveLength(1);
      expect(error.hint).toContain("Scaling");
      expect(error.message).toContain(`"${SERVICE}"`);
      expect(requests).toHaveLength(3);
    },
  );

  it("honours maxRetries per call (0: a single request)", async () => {
    const { scope, requests } = service();
    scope.post(PATH).times(3).replyWithError({ code: "ECONNREFUSED" });

    const error = await caught(llm({ maxRetries: 2 }).invoke("hi", { maxRetries: 0 }));

    expect(error).toBeInstanceOf(EndpointNotReadyError);
    expect(requests).toHaveLength(1);
  });

  it("recovers when a retry succeeds", async () => {
    const { scope, requests } = service();
    scope.post(PATH).replyWithError({ code: "ECONNREFUSED" });
    scope.post(PATH).reply(200, completion("back"));

    expect(await llm({ maxRetries: 1 }).invoke("hi")).toBe("back");
    expect(requests).toHaveLength(2);
  });

  it("maps the same failures when streaming: 401 once, refused 1 + maxRetries times", async () => {
    const { scope, requests } = service();
    scope.post(PATH).reply(401, { error: { code: "", message: "Invalid token" } });
    const model = llm({ maxRetries: 1 });

    const auth = await caught(model.stream("hi"));
    expect(auth).toBeInstanceOf(AuthenticationError);
    expect(requests).toHaveLength(1);

    scope.post(PATH).times(2).replyWithError({ code: "ECONNREFUSED" });
    const pending = await caught(model.stream("hi"));
    expect(pending).toBeInstanceOf(EndpointNotReadyError);
    expect(requests).toHaveLength(3);
  });

  it("treats a stream that ends without any event as the empty answer of a Pending endpoint", async () => {
    const { scope, requests } = service();
    scope.post(PATH).times(2).reply(200, "data: [DONE]\n\n", SSE_HEADERS);

    const error = await caught(drain(llm({ maxRetries: 1 }).stream("hi")));

    expect(error).toBeInstanceOf(EndpointNotReadyError);
    expect(requests).toHaveLength(2);
  });
});

describe("reading the /completions answer (docs/service-contract.md#dedicated-endpoints: not shown)", () => {
  it("reads choices[].text, with finish reason, request ID and usage per generation and in llmOutput", async () => {
    const { scope } = service();
    scope.post(PATH).reply(200, completion(" Paris."), { "X-Gateway-Request-Id": "req-42" });

    const result = await llm().generate(["The capital of France is"]);

    expect(result.generations).toEqual([
      [
        {
          text: " Paris.",
          generationInfo: {
            finishReason: "stop",
            requestId: "req-42",
            tokenUsage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 },
          },
        },
      ],
    ]);
    expect(result.llmOutput?.tokenUsage).toEqual({
      promptTokens: 3,
      completionTokens: 2,
      totalTokens: 5,
    });
  });

  it("reads choices[].message.content when the endpoint answers in the chat shape", async () => {
    const { scope } = service();
    scope.post(PATH).reply(200, {
      choices: [{ index: 0, message: { role: "assistant", content: "chat-shaped" } }],
    });

    expect(await llm().invoke("hi")).toBe("chat-shaped");
  });

  it("returns one generation per choice (n > 1 through modelKwargs)", async () => {
    const { scope, requests } = service();
    scope.post(PATH).reply(200, {
      choices: [
        { index: 0, text: "a", finish_reason: "stop" },
        { index: 1, text: "b", finish_reason: "length" },
      ],
    });

    const result = await llm({ modelKwargs: { n: 2, model: "my-model" } }).generate(["x"]);

    expect(result.generations[0]?.map((g) => g.text)).toEqual(["a", "b"]);
    expect(requests[0]?.body).toEqual({ prompt: "x", n: 2, model: "my-model" });
  });

  it.each([
    ["no choices", { result: "hello there" }],
    ["empty choices", { choices: [] }],
    ["choices without text", { choices: [{ index: 0, content: "x" }] }],
    ["JSON null", null],
  ])(
    "throws MalformedResponseError showing the body start for %s, without retrying",
    async (_label, body) => {
      const { scope, requests } = service();
      scope
        .post(PATH)
        .times(3)
        .reply(200, JSON.stringify(body), { "Content-Type": "application/json" });

      const error = await caught(llm({ maxRetries: 2 }).invoke("hi"));

      expect(error).toBeInstanceOf(MalformedResponseError);
      expect(error.retryable).toBe(false);
      expect(error.message).toContain(JSON.stringify(body).slice(0, 20));
      expect(requests).toHaveLength(1);
    },
  );

  it("maps an HTML 200 (base URL without /v1) to BaseURLError", async () => {
    const { scope } = service();
    scope.post(PATH).reply(200, "<!doctype html><html>console</html>", {
      "Content-Type": "text/html",
    });

    expect(await caught(llm().invoke("hi"))).toBeInstanceOf(BaseURLError);
  });
});

describe("streaming (SSE)", () => {
  const EVENTS = [
    { choices: [{ index: 0, text: "Once", finish_reason: null }] },
    { choices: [{ index: 0, text: " upon", finish_reason: null }] },
    { choices: [{ index: 0, text: " a time", finish_reason: "stop" }] },
    { choices: [], usage: { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 } },
  ];

  it("streams token by token, asks for usage and reports it with the request ID at the end", async () => {
    const { scope, requests } = service();
    scope.post(PATH).reply(200, sse(EVENTS), SSE_HEADERS);
    const tokens: string[] = [];
    const ends: unknown[] = [];

    const streamed: string[] = [];
    for await (const text of await llm().stream("Tell me a story", {
      callbacks: [
        {
          handleLLMNewToken: (token) => {
            tokens.push(token);
          },
          handleLLMEnd: (output) => {
            ends.push(output.generations[0]?.[0]);
          },
        },
      ],
    })) {
      streamed.push(text);
    }

    expect(streamed.join("")).toBe("Once upon a time");
    expect(tokens).toEqual(["Once", " upon", " a time"]);
    expect(requests[0]?.body).toMatchObject({
      prompt: "Tell me a story",
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(ends).toEqual([
      {
        text: "Once upon a time",
        generationInfo: {
          requestId: "req-stream-1",
          finishReason: "stop",
          tokenUsage: { promptTokens: 4, completionTokens: 3, totalTokens: 7 },
        },
      },
    ]);
  });

  it("streams inside invoke/generate when streaming is on, emitting each token", async () => {
    const { scope } = service();
    scope.post(PATH).reply(200, sse(EVENTS), SSE_HEADERS);
    const tokens: string[] = [];

    const result = await llm({ streaming: true }).generate(["Tell me a story"], {
      callbacks: [
        {
          handleLLMNewToken: (token) => {
            tokens.push(token);
          },
        },
      ],
    });

    expect(tokens).toEqual(["Once", " upon", " a time"]);
    expect(result.generations[0]?.[0]?.text).toBe("Once upon a time");
    expect(result.llmOutput?.tokenUsage).toEqual({
      promptTokens: 4,
      completionTokens: 3,
      totalTokens: 7,
    });
  });

  it("reads chat-shaped stream deltas too", async () => {
    const { scope } = service();
    scope
      .post(PATH)
      .reply(
        200,
        sse([
          { choices: [{ index: 0, delta: { content: "hi" } }] },
          { choices: [{ index: 0, delta: { content: "!" } }] },
        ]),
        SSE_HEADERS,
      );

    expect((await drain(llm().stream("x"))).join("")).toBe("hi!");
  });

  it("delivers a whole text_completion sent to a stream request as one chunk, with its finish reason, usage and request ID", async () => {
    const { scope } = service();
    // A gateway that ignores `stream: true` answers as to a non-streamed call.
    scope.post(PATH).reply(200, completion("Once upon a time"), {
      "Content-Type": "application/json",
      "X-Gateway-Request-Id": "req-json-1",
    });
    const ends: unknown[] = [];
    const streamed = [];
    for await (const text of await llm().stream("Tell me a story", {
      callbacks: [{ handleLLMEnd: (output) => void ends.push(output.generations[0]?.[0]) }],
    })) {
      streamed.push(text);
    }
    expect(streamed.filter((text) => text !== "")).toEqual(["Once upon a time"]);
    expect(ends).toEqual([
      {
        text: "Once upon a time",
        generationInfo: {
          requestId: "req-json-1",
          finishReason: "stop",
          tokenUsage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 },
        },
      },
    ]);
  });

  it.each([false, true])(
    "a JSON answer cut mid-body is a retryable cut, retried (streamed: %s)",
    async (streamed) => {
      const { scope, requests } = service();
      const headers = { "Content-Type": "application/json", "X-Gateway-Request-Id": "req-cut-1" };
      const cut = JSON.stringify(completion("Once upon a time")).slice(0, 40);
      scope.post(PATH).reply(200, cut, headers);
      scope.post(PATH).reply(200, completion("Once upon a time"), headers);
      const call = (maxRetries: number) =>
        streamed
          ? drain(llm({ maxRetries }).stream("x")).then((texts) => texts.join(""))
          : llm({ maxRetries }).invoke("x");
      const error = await caught(call(0));
      expect(error).toBeInstanceOf(ServiceConnectionError);
      expect(error).toMatchObject({ retryable: true, requestId: "req-cut-1" });
      expect(requests).toHaveLength(1);
      scope.post(PATH).reply(200, cut, headers);
      expect(await call(1)).toBe("Once upon a time");
    },
  );

  it.each([
    ["empty choices", [{ choices: [{}] }]],
    ["null deltas and empty text", [{ choices: [{ delta: null }] }, { choices: [{ text: "" }] }]],
  ])(
    "refuses a stream whose choices carry nothing (%s), as invoke refuses `choices: [{}]`",
    async (_label, events) => {
      const { scope } = service();
      scope.post(PATH).reply(200, sse(events), SSE_HEADERS);
      expect(await caught(drain(llm().stream("x")))).toBeInstanceOf(MalformedResponseError);
      scope.post(PATH).reply(200, { choices: [{}] }, { "Content-Type": "application/json" });
      expect(await caught(llm().invoke("x"))).toBeInstanceOf(MalformedResponseError);
    },
  );

  it("turns an error event mid-stream into a typed error keeping the partial output, without a retry", async () => {
    const { scope, requests } = service();
    scope
      .post(PATH)
      .times(3)
      .reply(
        200,
        sse(
          [
            EVENTS[0],
            EVENTS[1],
            { error: { code: "upstream_error", message: "replica restarted (request id: mid-1)" } },
          ],
          false,
        ),
        SSE_HEADERS,
      );
    const out: string[] = [];

    const error = await caught(
      (async () => {
        for await (const text of await llm({ maxRetries: 2 }).stream("x")) out.push(text);
      })(),
    );

    expect(out).toEqual(["Once", " upon"]);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({
      midStream: true,
      partialOutput: "Once upon",
      code: "upstream_error",
      surface: "dedicated",
    });
    expect(requests).toHaveLength(1);
  });
});

describe("several choices (n > 1) are kept apart, never interleaved", () => {
  const refusal = expect.objectContaining({
    name: "ConfigurationError",
    option: "modelKwargs.n",
    message: expect.stringMatching(
      /^`modelKwargs.n` is 2, but a streamed call .* its 2 choices would interleave\. Call `generate\(\)` without `streaming`/,
    ),
  });

  it("refuses n > 1 on stream() before any request", async () => {
    const { scope, requests } = service();
    scope.post(PATH).reply(200, sse([]), SSE_HEADERS);
    const model = llm({ modelKwargs: { n: 2 } });
    await expect(drain(model.stream("x"))).rejects.toThrow(refusal);
    expect(requests).toHaveLength(0);
  });

  it("refuses n > 1 with streaming: true at construction, and n: 1 streams as before", async () => {
    expect(() => llm({ streaming: true, modelKwargs: { n: 2 } })).toThrow(refusal);
    const { scope, requests } = service();
    scope
      .post(PATH)
      .reply(
        200,
        sse([{ choices: [{ index: 0, text: "a", finish_reason: "stop" }] }]),
        SSE_HEADERS,
      );
    expect(await llm({ streaming: true, modelKwargs: { n: 1 } }).invoke("x")).toBe("a");
    expect(requests[0]?.body).toMatchObject({ n: 1, stream: true });
  });

  it.each([
    [
      "an event of index 1",
      [
        { choices: [{ index: 0, text: "a", finish_reason: null }] },
        { choices: [{ index: 1, text: "b", finish_reason: null }] },
      ],
    ],
    [
      "an event of two choices",
      [
        {
          choices: [
            { index: 0, text: "a", finish_reason: null },
            { index: 1, text: "b", finish_reason: null },
          ],
        },
      ],
    ],
  ])(
    "refuses a stream that carries a second choice unasked (%s) instead of joining it to the first",
    async (_name, events) => {
      const { scope, requests } = service();
      scope.post(PATH).reply(200, sse(events), SSE_HEADERS);
      const out: string[] = [];
      const error = await caught(
        (async () => {
          for await (const text of await llm().stream("x")) out.push(text);
        })(),
      );
      expect(error).toBeInstanceOf(MalformedResponseError);
      expect(error).toMatchObject({
        status: 200,
        requestId: "req-stream-1",
        retryable: false,
        surface: "dedicated",
      });
      expect(error.message).toMatch(
        /the stream carries a choice of index 1, but one choice was asked for/,
      );
      expect(out.join("")).not.toContain("b");
      expect(requests).toHaveLength(1);
    },
  );

  it("against the emulator: n: 2 streamed never reaches it, n: 2 invoked does, as one request", async () => {
    const emulator = createEmulator();
    const model = (fields: DedicatedEndpointLLMFields = {}) =>
      new DedicatedEndpointLLM({
        serviceName: DEFAULT_SERVICE_NAME,
        apiKey: emulator.apiKey,
        baseURL: emulator.baseURL,
        fetch: emulator.fetch,
        ...fields,
      });
    await expect(drain(model({ modelKwargs: { n: 2 } }).stream("x"))).rejects.toThrow(refusal);
    expect(() => model({ streaming: true, modelKwargs: { n: 2 } })).toThrow(refusal);
    expect(emulator.state.requests()).toHaveLength(0);
    const result = await model({ modelKwargs: { n: 2 } }).generate(["Hello"]);
    expect(result.generations[0]?.length).toBeGreaterThanOrEqual(1);
    expect(emulator.state.requests()).toHaveLength(1);
  });
});

describe("batch", () => {
  /** An endpoint that answers each prompt with `echo <prompt>` a little later, counting requests in flight. */
  function slowEndpoint(times: number) {
    const endpoint = { ...service(), inFlight: 0, mostInFlight: 0 };
    endpoint.scope
      .post(PATH)
      .times(times)
      .reply((_uri, body, callback) => {
        endpoint.inFlight += 1;
        endpoint.mostInFlight = Math.max(endpoint.mostInFlight, endpoint.inFlight);
        setTimeout(() => {
          endpoint.inFlight -= 1;
          callback(null, [200, completion(`echo ${(body as { prompt: string }).prompt}`)]);
        }, 5);
      });
    return endpoint;
  }

  it("sends one request per prompt and never more than maxConcurrency at once", async () => {
    const endpoint = slowEndpoint(8);
    const prompts = Array.from({ length: 8 }, (_, i) => `p${i}`);

    const answers = await llm({ maxConcurrency: 2 }).batch(prompts);

    expect(answers).toEqual(prompts.map((p) => `echo ${p}`));
    expect(endpoint.requests.map((r) => r.body.prompt).sort()).toEqual([...prompts].sort());
    expect(endpoint.mostInFlight).toBeLessThanOrEqual(2);
  });

  it("bounds generate() over many prompts the same way and sums their usage", async () => {
    const endpoint = slowEndpoint(5);

    const result = await llm({ maxConcurrency: 3 }).generate(["a", "b", "c", "d", "e"]);

    expect(result.generations.map(([g]) => g?.text)).toEqual(
      ["a", "b", "c", "d", "e"].map((p) => `echo ${p}`),
    );
    expect(result.llmOutput?.tokenUsage).toEqual({
      promptTokens: 15,
      completionTokens: 10,
      totalTokens: 25,
    });
    expect(endpoint.requests).toHaveLength(5);
    expect(endpoint.mostInFlight).toBeLessThanOrEqual(3);
  });
});

describe("waitForReady", () => {
  it("keeps retrying a Pending endpoint past maxRetries until it answers", async () => {
    const { scope, requests } = service();
    scope.post(PATH).times(3).replyWithError({ code: "ECONNREFUSED" });
    scope.post(PATH).reply(200, "");
    scope.post(PATH).reply(200, completion("ready"));

    const text = await llm({ maxRetries: 0, waitForReady: 60_000 }).invoke("ping");

    expect(text).toBe("ready");
    expect(requests).toHaveLength(5);
  });

  it("gives up with EndpointNotReadyError saying how long it waited", async () => {
    const { scope, requests } = service();
    scope.post(PATH).times(10_000).replyWithError({ code: "ECONNREFUSED" });

    const error = await caught(
      // Long enough for a second try on a loaded machine, where the first alone can take 50 ms.
      llm({ waitForReady: 500 }).invoke("ping", { serviceName: "tenant-7f3a.cold" }),
    );

    expect(error).toBeInstanceOf(EndpointNotReadyError);
    expect(error.message).toMatch(
      /still not ready after waiting \d+ ms \(`waitForReady`: 500 ms\)/,
    );
    expect(error.message).toContain('"tenant-7f3a.cold"');
    expect(error.cause).toBeInstanceOf(EndpointNotReadyError);
    expect(requests.length).toBeGreaterThan(1);
  });

  it("does not wait on errors other than a Pending endpoint", async () => {
    const { scope, requests } = service();
    scope
      .post(PATH)
      .times(3)
      .reply(401, { error: { code: "", message: "Invalid token" } });

    const error = await caught(llm({ waitForReady: 60_000 }).invoke("ping"));

    expect(error).toBeInstanceOf(AuthenticationError);
    expect(requests).toHaveLength(1);
  });
});

describe("options are checked where they enter", () => {
  it.each([
    ["maxTokens", { maxTokens: 0 }],
    ["maxTokens", { maxTokens: 1.5 }],
    ["maxTokens", { maxTokens: "10" }],
    ["temperature", { temperature: -0.1 }],
    ["temperature", { temperature: Number.NaN }],
    ["temperature", { temperature: Number.POSITIVE_INFINITY }],
    ["stop", { stop: "\n" }],
    ["stop", { stop: [1] }],
    ["waitForReady", { waitForReady: -1 }],
    ["waitForReady", { waitForReady: Number.NaN }],
    ["modelKwargs", { modelKwargs: [] }],
    ["streaming", { streaming: "yes" }],
    ["maxRetries", { maxRetries: -1 }],
    ["maxConcurrency", { maxConcurrency: 0 }],
    ["timeout", { timeout: 0 }],
    ["idleTimeout", { idleTimeout: -5 }],
    ["apiKey", { apiKey: undefined }],
    ["baseURL", { baseURL: "ftp://svc.test" }],
  ])("rejects a bad %s with a ConfigurationError naming it", (option, fields) => {
    expect(() => llm(fields as DedicatedEndpointLLMFields)).toThrow(
      expect.objectContaining({ name: "ConfigurationError", option }),
    );
  });
});

describe("serialisation, tracing and cancellation", () => {
  it("never serialises the key or the Service-Name, only references to their env variables", () => {
    const model = llm({ maxTokens: 8 });

    const text = JSON.stringify(model);
    const json = model.toJSON();

    for (const secret of [KEY, SERVICE, TENANT, ALIAS]) {
      expect(text).not.toContain(secret);
      expect(JSON.stringify(json)).not.toContain(secret);
    }
    expect(inspect(model, { depth: 10 })).not.toContain(KEY);
    expect(json).toMatchObject({
      type: "constructor",
      id: ["langchain_inference_service", "llms", "DedicatedEndpointLLM"],
      kwargs: {
        api_key: { lc: 1, type: "secret", id: ["INFERENCE_SERVICE_API_KEY"] },
        tenant_id: { lc: 1, type: "secret", id: ["INFERENCE_SERVICE_TENANT_ID"] },
        job_alias: { lc: 1, type: "secret", id: ["INFERENCE_SERVICE_JOB_ALIAS"] },
        max_tokens: 8,
        base_url: `${BASE}/inference/v1`,
      },
    });
  });

  it("loads back from its serialised form, taking key and Service-Name parts from the secrets map", async () => {
    const text = JSON.stringify(llm({ maxTokens: 8, modelKwargs: { top_p: 0.5 } }));

    const loaded = await load<DedicatedEndpointLLM>(text, {
      secretsMap: {
        INFERENCE_SERVICE_API_KEY: "sk-loaded-5678",
        INFERENCE_SERVICE_TENANT_ID: "t-loaded",
        INFERENCE_SERVICE_JOB_ALIAS: "alias-loaded",
      },
      optionalImportsMap: { "langchain_inference_service/llms": { DedicatedEndpointLLM } },
    });

    expect(loaded).toBeInstanceOf(DedicatedEndpointLLM);
    expect(loaded).toMatchObject({
      serviceName: "t-loaded.alias-loaded",
      baseURL: `${BASE}/inference/v1`,
      maxTokens: 8,
      modelKwargs: { top_p: 0.5 },
    });
  });

  it("reads `baseUrl`, the spelling load() gives a serialised `base_url`, as `baseURL`, and serialises it as `base_url` alone", () => {
    vi.stubEnv("INFERENCE_SERVICE_BASE_URL", "https://env-host.test");
    const fromLoadSpelling = new DedicatedEndpointLLM({
      apiKey: KEY,
      baseUrl: BASE,
      serviceName: SERVICE,
      retry: FAST,
    });
    expect(fromLoadSpelling.baseURL).toBe(`${BASE}/inference/v1`);
    expect(fromLoadSpelling.lc_kwargs).not.toHaveProperty("baseUrl");
    expect(fromLoadSpelling.toJSON()).toEqual(llm().toJSON());
    const error = (() => {
      try {
        return llm({ baseUrl: "https://other.test" });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toEqual(
      expect.objectContaining({
        name: "ConfigurationError",
        option: "baseUrl",
        message: expect.stringContaining("Pass it once, as `baseURL`."),
      }),
    );
  });

  it.each([
    [
      "as it was written before `baseUrl` was read",
      () =>
        JSON.stringify({
          lc: 1,
          type: "constructor",
          id: ["langchain_inference_service", "llms", "DedicatedEndpointLLM"],
          kwargs: {
            api_key: { lc: 1, type: "secret", id: ["INFERENCE_SERVICE_API_KEY"] },
            base_url: `${BASE}/inference/v1`,
            max_retries: 2,
            tenant_id: { lc: 1, type: "secret", id: ["INFERENCE_SERVICE_TENANT_ID"] },
            job_alias: { lc: 1, type: "secret", id: ["INFERENCE_SERVICE_JOB_ALIAS"] },
          },
        }),
    ],
    ["as it is written now", () => JSON.stringify(llm())],
  ])(
    "loads back %s to a model that sends to the serialised URL, not the environment's",
    async (_when, written) => {
      // load() hands the constructor `baseUrl`: were it not read, requests would go here.
      vi.stubEnv("INFERENCE_SERVICE_BASE_URL", "https://env-host.test");
      const text = written();
      const loaded = await load<DedicatedEndpointLLM>(text, {
        secretsMap: {
          INFERENCE_SERVICE_API_KEY: KEY,
          INFERENCE_SERVICE_TENANT_ID: TENANT,
          INFERENCE_SERVICE_JOB_ALIAS: ALIAS,
        },
        optionalImportsMap: { "langchain_inference_service/llms": { DedicatedEndpointLLM } },
      });
      expect(loaded.baseURL).toBe(`${BASE}/inference/v1`);
      expect(loaded.toJSON()).toEqual(JSON.parse(text));
      const { scope, requests } = service();
      scope.post(PATH).reply(200, completion(" ok"));
      expect(await loaded.invoke("hi")).toBe(" ok");
      expect(requests).toHaveLength(1);
      expect(requests[0]!.headers["service-name"]).toBe(SERVICE);
    },
  );

  it("reports LangSmith params: provider, the Service-Name as model name, model type llm", async () => {
    const { scope } = service();
    scope.post(PATH).times(2).reply(200, completion("ok"));
    const model = llm({ temperature: 0, maxTokens: 4 });
    const traced: unknown[] = [];
    const handler = {
      handleLLMStart: (...args: unknown[]) => {
        traced.push(args[6]);
      },
    };

    await model.invoke("hi", { callbacks: [handler] });
    await model.invoke("hi", { callbacks: [handler], serviceName: "tenant-7f3a.other" });

    expect(model._llmType()).toBe("inference-service");
    expect(DedicatedEndpointLLM.lc_name()).toBe("DedicatedEndpointLLM");
    expect(traced).toEqual([
      expect.objectContaining({
        ls_provider: "inference-service",
        ls_model_name: SERVICE,
        ls_model_type: "llm",
        ls_temperature: 0,
        ls_max_tokens: 4,
      }),
      expect.objectContaining({ ls_model_name: "tenant-7f3a.other" }),
    ]);
  });

  it("cancels an in-flight request on abort without retrying it", async () => {
    const { scope, requests } = service();
    const controller = new AbortController();
    scope
      .post(PATH)
      .times(3)
      .reply((_uri, _body, callback) => {
        controller.abort();
        setTimeout(() => callback(null, [200, completion("too late")]), 5);
      });

    const error = await caught(llm({ maxRetries: 2 }).invoke("hi", { signal: controller.signal }));

    expect((error as Error).name).toMatch(/Abort/);
    expect(requests).toHaveLength(1);
  });

  it("sends nothing when the signal is already aborted", async () => {
    const { scope, requests } = service();
    scope.post(PATH).reply(200, completion("x"));
    const controller = new AbortController();
    controller.abort();

    await expect(llm().invoke("hi", { signal: controller.signal })).rejects.toThrow();
    expect(requests).toHaveLength(0);
  });
});
