/**
 * Secret canary (issues 8, 12): a recognisable API key, a configured header value and a per-call
 * header value are sent on every call, and must never come back out — not in errors (message,
 * `String`, stack, `JSON.stringify`, `toJSON`, `util.inspect` as `console.error` prints it), not
 * in the JSON or `util.inspect` of the models, of bound models or of their `lc_kwargs`, not in
 * what LangSmith and callbacks receive (run inputs, params, metadata, `extraParams`, errors), not
 * in logs, not in what `diagnose()` reports, not in OpenTelemetry spans, events or metrics (with
 * content capture on, the most they record) — on every error row of docs/service-contract.md#errors and docs/service-contract.md#limits-and-retries and the gateway's
 * own, on both surfaces, invoked and streamed, from the emulator as it is and from a service that
 * echoes the secrets back in its messages. Any eight characters of a secret count, so a secret cut
 * short by a preview is a leak too.
 *
 * What is secret: the API key, `configuration.defaultHeaders` values and per-call header values
 * (`options.headers`). The Service-Name
 * (tenant ID and job alias) is not: it routes a call but grants nothing without a key, and errors
 * name it on purpose so the user can see which endpoint failed (docs/service-contract.md#errors, rule 7), as LangSmith does
 * (`ls_model_name`). So this test does not look for it.
 */
import { format, inspect } from "node:util";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { awaitAllCallbacks } from "@langchain/core/callbacks/promises";
import { RunCollectorCallbackHandler } from "@langchain/core/tracers/run_collector";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  createEmulator,
  DEFAULT_EMBEDDING_MODEL,
  DEFAULT_MODEL,
  DEFAULT_SERVICE_NAME,
  type EmulatorState,
  FAULT_HEADER,
  PENDING_SERVICE_NAME,
} from "../src/emulator/index.js";
import {
  ChatInferenceService,
  DedicatedEndpointLLM,
  type Diagnosis,
  diagnose,
  InferenceServiceEmbeddings,
} from "../src/index.js";
import type { Fetch } from "../src/transport/fetch.js";
import { useOtel } from "./helpers/otel.js";

const API_KEY = "sk-CANARY-7f3a9c2e5b1d4086e2a1";
const HEADER_VALUE = "hdr-CANARY-b8e1f04d9a27c3";
const CALL_HEADER_VALUE = "call-CANARY-5d0c93e7a4f1b6";
/** Per-call request options, as a program passes them to `invoke` or `withConfig`. */
const CALL_OPTIONS = { options: { headers: { "X-Call-Token": CALL_HEADER_VALUE } } };
/** Any 8 characters of a secret, so that a cut or partly masked secret counts as a leak too. */
const FRAGMENTS = [API_KEY, HEADER_VALUE, CALL_HEADER_VALUE].flatMap((secret) =>
  Array.from({ length: secret.length - 7 }, (_, i) => secret.slice(i, i + 8)),
);

const emulator = createEmulator({ keys: [{ secret: API_KEY, id: "canary" }] });

type SurfaceName = "hosted" | "dedicated";
type Mode = "invoke" | "stream";

/** One way a call can end, and how to put the service in that state. */
interface Row {
  name: string;
  /** The error class names each surface may end in; a surface not listed does not have the row. */
  hosted?: string[];
  dedicated?: string[];
  setup?: (state: EmulatorState) => void;
  /** Sent as `X-Emulator-Fault`. */
  fault?: string;
  model?: string;
  serviceName?: string;
  /** Rewrites the request path on its way to the emulator. */
  path?: (path: string) => string;
  /** Replaces the request body. */
  body?: string;
  /** Answers instead of the emulator; `echo` is the text an echoing service adds. */
  reply?: (echo: string) => Response;
  /** The service sends no text an echo could go into (no response, a cut one, or a success). */
  silent?: boolean;
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

const ROWS: Row[] = [
  { name: "200 answer", hosted: [], dedicated: [], silent: true },
  {
    name: "401 invalid key",
    setup: (state) => state.removeKey("canary"),
    hosted: ["AuthenticationError"],
    dedicated: ["AuthenticationError"],
  },
  {
    name: "401 key without the Inference Service permission",
    setup: (state) => {
      state.removeKey("canary");
      state.addKey({ secret: API_KEY, id: "no-permission", permissions: [] });
    },
    dedicated: ["AuthenticationError"],
  },
  {
    name: "403 insufficient_user_quota",
    setup: (state) => state.setCredit(0),
    hosted: ["InsufficientCreditError"],
  },
  {
    name: "403 with another code",
    reply: (echo) =>
      json(403, {
        error: { code: "access_denied", message: `forbidden${echo} (request id: r-1)`, type: "x" },
      }),
    hosted: ["PermissionDeniedError"],
    dedicated: ["PermissionDeniedError"],
  },
  {
    name: "404 invalid URL (singular /chat/completion)",
    path: (path) => path.replace(/completions$/, "completion"),
    hosted: ["InvalidURLError"],
  },
  {
    name: "404 unknown Service-Name",
    serviceName: "tenant-demo.no-such-job",
    dedicated: ["ServiceNameError"],
  },
  { name: "503 model_not_found", model: "no-such-model", hosted: ["ModelNotFoundError"] },
  {
    name: "200 HTML page (base URL without /v1)",
    path: (path) => path.replace("/inference/v1/", "/inference/"),
    hosted: ["BaseURLError"],
    dedicated: ["BaseURLError"],
  },
  {
    name: "Pending endpoint (closed without a response)",
    serviceName: PENDING_SERVICE_NAME,
    dedicated: ["EndpointNotReadyError"],
    silent: true,
  },
  {
    name: "empty 200",
    reply: () => new Response("", { status: 200 }),
    dedicated: ["EndpointNotReadyError"],
    silent: true,
  },
  {
    name: "400 invalid body",
    body: "{not json",
    hosted: ["BadRequestError"],
    dedicated: ["BadRequestError"],
  },
  { name: "429", fault: "429", hosted: ["RateLimitError"], dedicated: ["RateLimitError"] },
  {
    name: "502",
    fault: "502",
    hosted: ["ServiceUnavailableError"],
    dedicated: ["ServiceUnavailableError"],
  },
  {
    name: "503 upstream error",
    fault: "503",
    hosted: ["ServiceUnavailableError"],
    dedicated: ["ServiceUnavailableError"],
  },
  {
    name: "connection reset",
    fault: "reset",
    hosted: ["ServiceConnectionError"],
    dedicated: ["EndpointNotReadyError"],
    silent: true,
  },
  {
    // The dedicated class differs between invoke and stream (see soak.test.ts); not this test's topic.
    name: "truncated body",
    fault: "truncate",
    hosted: ["ServiceConnectionError"],
    dedicated: ["ServiceConnectionError", "EndpointNotReadyError"],
    silent: true,
  },
  {
    name: "error event in the stream (500 when not streamed)",
    fault: "stream-error",
    hosted: ["ServiceUnavailableError"],
    dedicated: ["ServiceUnavailableError"],
  },
  ...(
    [
      ["403 access_denied", "access_denied", "PermissionDeniedError"],
      [
        "403 pre_consume_token_quota_failed",
        "pre_consume_token_quota_failed",
        "KeyQuotaExceededError",
      ],
      ["500 sensitive_words_detected", "sensitive_words_detected", "ContentFilterError"],
      ["400 context_length_exceeded", "context_length_exceeded", "ContextLengthExceededError"],
      ["503 system_cpu_overloaded", "system_cpu_overloaded", "ServiceUnavailableError"],
      ["200 with an error object", "200-error", "ServiceUnavailableError"],
      ["503 JSON labelled text/event-stream", "503-sse", "ServiceUnavailableError"],
      ["200 HTML labelled JSON", "html-json", "BaseURLError"],
      ["redirect loop", "redirect-loop", "BaseURLError"],
    ] as const
  ).map(
    ([name, fault, cls]): Row => ({
      name,
      fault,
      hosted: [cls],
      dedicated: [cls],
      // Neither has a message an echo could go into.
      silent: fault === "html-json" || fault === "redirect-loop",
    }),
  ),
];

/** What the service saw of one request: proof that the secrets really went out. */
interface Sent {
  authorization: string | null;
  orgToken: string | null;
  callToken: string | null;
}

/**
 * The service under test: the in-process emulator put into `row`'s state, answering as it is or,
 * with `echo`, adding the request's Authorization and X-Org-Token values to every error message,
 * HTML page and stream error event it sends.
 */
function service(row: Row, echo: boolean, sent: Sent[]): Fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const authorization = request.headers.get("authorization");
    const orgToken = request.headers.get("x-org-token");
    const callToken = request.headers.get("x-call-token");
    sent.push({ authorization, orgToken, callToken });
    const echoed = echo
      ? ` [echo: Authorization: ${authorization}; X-Org-Token: ${orgToken}; X-Call-Token: ${callToken}]`
      : "";
    if (row.reply) return row.reply(echoed);
    const url = new URL(request.url);
    if (row.path) url.pathname = row.path(url.pathname);
    const headers = new Headers(request.headers);
    if (row.fault) headers.set(FAULT_HEADER, row.fault);
    const response = await emulator.fetch(url, {
      method: request.method,
      headers,
      body: row.body ?? (await request.text()),
      signal: request.signal,
    });
    const cut = row.fault === "truncate" || row.fault === "reset";
    return echo && !cut ? withEcho(response, echoed) : response;
  };
}

async function withEcho(response: Response, echoed: string): Promise<Response> {
  const type = response.headers.get("content-type") ?? "";
  const isStreamError = type.includes("event-stream") && response.ok;
  const isErrorObject = response.ok && type.includes("json") && !isStreamError;
  if (response.ok && !type.includes("html") && !isStreamError && !isErrorObject) return response;
  let text = await response.text();
  const quoted = JSON.stringify(echoed).slice(1, -1);
  if (type.includes("html")) text = `<p>${echoed}</p>${text}`;
  else text = text.replace(/("message":"[^"]*)/g, `$1${quoted}`);
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(text, { status: response.status, headers });
}

function chatModel(fetch: Fetch, model = DEFAULT_MODEL) {
  return new ChatInferenceService(model, {
    apiKey: API_KEY,
    baseURL: emulator.baseURL,
    fetch,
    maxRetries: 0,
    captureContent: true,
    configuration: { defaultHeaders: { "X-Org-Token": HEADER_VALUE } },
  });
}

function endpointModel(fetch: Fetch, serviceName = DEFAULT_SERVICE_NAME) {
  return new DedicatedEndpointLLM({
    serviceName,
    apiKey: API_KEY,
    baseURL: emulator.baseURL,
    fetch,
    maxRetries: 0,
    captureContent: true,
  });
}

/** Every way an error gets shown: by programs, by `console.error`, by JSON loggers. */
function errorViews(error: unknown): Record<string, string> {
  const e = error as Error & { toJSON?: () => unknown };
  return {
    message: e.message,
    string: String(e),
    stack: String(e.stack),
    json: JSON.stringify(e),
    toJSON: JSON.stringify(e.toJSON?.()),
    inspect: inspect(e, { depth: 8 }),
  };
}

/** Everything LangSmith and other callback handlers receive during one call. */
function recorders() {
  const collector = new RunCollectorCallbackHandler();
  const received: unknown[] = [];
  const handler = BaseCallbackHandler.fromMethods({
    handleChatModelStart(llm, messages, _runId, _parent, extraParams, tags, metadata, runName) {
      received.push({ llm, messages, extraParams, tags, metadata, runName });
    },
    handleLLMStart(llm, prompts, _runId, _parent, extraParams, tags, metadata, runName) {
      received.push({ llm, prompts, extraParams, tags, metadata, runName });
    },
    handleLLMError(error, _runId, _parent, tags, extraParams) {
      received.push({ error: errorViews(error), tags, extraParams });
    },
  });
  return {
    callbacks: [collector, handler],
    /** Runs traced and callback events received: proof that the capture saw the call. */
    counts: () => ({ runs: collector.tracedRuns.length, events: received.length }),
    views: (): Record<string, string> => ({
      "LangSmith runs (JSON)": JSON.stringify(collector.tracedRuns),
      "callback arguments": inspect(received, { depth: 12 }),
    }),
  };
}

/** Collects everything written through `console.*` until the spies are restored. */
function spyOnConsole(): string[] {
  const lines: string[] = [];
  for (const method of ["log", "info", "warn", "error", "debug", "trace"] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      lines.push(format(...args));
    });
  }
  return lines;
}

// Every call is traced, as in an app that registered the OpenTelemetry SDK.
const otel = useOtel();

/** Everything OpenTelemetry recorded since the last reset: spans (attributes, events, status) and metrics. */
async function telemetryViews(): Promise<Record<string, string>> {
  const spans = otel.spans();
  expect(spans.length, "the call was traced").toBeGreaterThan(0);
  return {
    "OpenTelemetry spans": JSON.stringify(
      spans.map(({ name, attributes, events, status }) => ({ name, attributes, events, status })),
    ),
    "OpenTelemetry metrics": JSON.stringify([...(await otel.metrics())]),
  };
}

function expectNoCanary(views: Record<string, string | undefined>): void {
  for (const [where, text] of Object.entries(views)) {
    const leaked = FRAGMENTS.find((fragment) => text?.includes(fragment));
    expect(leaked, `${where}: ${text}`).toBeUndefined();
  }
}

beforeEach(() => emulator.state.reset());
afterEach(() => {
  vi.restoreAllMocks();
});

const cases = (["hosted", "dedicated"] as const).flatMap((surface: SurfaceName) =>
  (["invoke", "stream"] as const).flatMap((mode: Mode) =>
    ROWS.filter((row) => row[surface] !== undefined).map(
      (row) => [surface, mode, row.name, row] as const,
    ),
  ),
);

describe.each([
  ["the emulator", false],
  ["a service that echoes the secrets in its messages", true],
] as const)("secrets against %s", (_service, echo) => {
  it.each(cases)(
    "%s %s, %s: the key and header value stay out of errors, runs, callbacks and logs",
    async (surface, mode, _name, row) => {
      row.setup?.(emulator.state);
      const sent: Sent[] = [];
      const fetch = service(row, echo, sent);
      const logs = spyOnConsole();
      const { callbacks, counts, views } = recorders();
      const outputs: unknown[] = [];
      const drain = async (stream: AsyncIterable<unknown>) => {
        for await (const chunk of stream) outputs.push(chunk);
      };
      let error: unknown;
      try {
        if (surface === "hosted") {
          const model = chatModel(fetch, row.model);
          const options = { callbacks, ...CALL_OPTIONS };
          if (mode === "invoke") outputs.push(await model.invoke("Hello there", options));
          else await drain(await model.stream("Hello there", options));
        } else {
          const model = endpointModel(fetch, row.serviceName);
          if (mode === "invoke") outputs.push(await model.invoke("Hello there", { callbacks }));
          else await drain(await model.stream("Hello there", { callbacks }));
        }
      } catch (thrown) {
        error = thrown;
      }
      await awaitAllCallbacks();
      vi.restoreAllMocks();

      const expected = row[surface] ?? [];
      if (expected.length === 0) expect(error).toBeUndefined();
      else expect(expected, String(error)).toContain((error as Error | undefined)?.name);
      // The secrets did go out on the wire, so their absence below means something.
      expect(sent[0]?.authorization).toBe(`Bearer ${API_KEY}`);
      if (surface === "hosted") {
        expect(sent[0]?.orgToken).toBe(HEADER_VALUE);
        expect(sent[0]?.callToken).toBe(CALL_HEADER_VALUE);
      }
      expect(counts()).toEqual({ runs: 1, events: error === undefined ? 1 : 2 });
      const run = views()["LangSmith runs (JSON)"];
      expect(run).toContain('"ls_provider":"inference-service"');
      if (error !== undefined) expect(run).toContain((error as Error).name);
      // The echo reached the error and was redacted there.
      if (echo && !row.silent) expect(JSON.stringify(error)).toContain("[redacted]");
      expectNoCanary({
        ...(error === undefined ? { output: JSON.stringify(outputs) } : errorViews(error)),
        ...views(),
        logs: logs.join("\n"),
        ...(await telemetryViews()),
      });
    },
  );
});

describe("embeddings", () => {
  const rows = ROWS.filter((row) =>
    [
      "200 answer",
      "401 invalid key",
      "400 invalid body",
      "429",
      "502",
      "connection reset",
    ].includes(row.name),
  );

  it.each(
    [false, true].flatMap((echo) =>
      rows.map(
        (row) => [echo ? "an echoing service" : "the emulator", row.name, row, echo] as const,
      ),
    ),
  )(
    "against %s, %s: the key stays out of the error and of telemetry",
    async (_s, _n, row, echo) => {
      row.setup?.(emulator.state);
      const sent: Sent[] = [];
      const embeddings = new InferenceServiceEmbeddings(DEFAULT_EMBEDDING_MODEL, {
        apiKey: API_KEY,
        baseURL: emulator.baseURL,
        fetch: service(row, echo, sent),
        maxRetries: 0,
        captureContent: true,
      });
      const error = await embeddings.embedQuery("Hello there").then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(sent[0]?.authorization).toBe(`Bearer ${API_KEY}`);
      expectNoCanary({
        ...(error === undefined ? {} : errorViews(error)),
        ...(await telemetryViews()),
      });
    },
  );
});

describe("diagnose()", () => {
  const diagnosable = ROWS.filter((row) => row.fault !== "stream-error" && !row.body);

  it.each(
    [false, true].flatMap((echo) =>
      diagnosable.map(
        (row) => [echo ? "an echoing service" : "the emulator", row.name, row, echo] as const,
      ),
    ),
  )("against %s, %s: the key is in no check, fix or detail", async (_service, _name, row, echo) => {
    row.setup?.(emulator.state);
    const sent: Sent[] = [];
    const logs = spyOnConsole();
    const diagnosis: Diagnosis = await diagnose({
      apiKey: API_KEY,
      baseURL: emulator.baseURL,
      fetch: service(row, echo, sent),
      model: row.model ?? DEFAULT_MODEL,
      serviceName: row.serviceName ?? DEFAULT_SERVICE_NAME,
      timeout: 2_000,
    });
    vi.restoreAllMocks();
    // The key did go out, so its absence below means something.
    expect(sent.map((s) => s.authorization)).toContain(`Bearer ${API_KEY}`);
    expectNoCanary({
      diagnosis: JSON.stringify(diagnosis),
      inspect: inspect(diagnosis, { depth: 8 }),
      logs: logs.join("\n"),
      ...(await telemetryViews()),
    });
  });
});

describe("diagnose() on answers that quote the key", () => {
  it.each([
    ["a /completions answer without choices", { note: `Bearer ${API_KEY}` }],
    ["a chat answer without choices", { choices: [], note: `Bearer ${API_KEY}` }],
  ])("keeps the key out of the check of %s", async (_name, body) => {
    const row: Row = { name: "quoting", reply: () => json(200, body) };
    const diagnosis = await diagnose({
      apiKey: API_KEY,
      baseURL: emulator.baseURL,
      fetch: service(row, false, []),
      model: DEFAULT_MODEL,
      serviceName: DEFAULT_SERVICE_NAME,
    });
    const endpoint = diagnosis.checks.find((check) => check.id === "endpoint");
    expect(endpoint?.error?.name).toBe("MalformedResponseError");
    expectNoCanary({ diagnosis: JSON.stringify(diagnosis) });
  });
});

describe("serialised models", () => {
  const fetch = service(ROWS[0]!, false, []);
  const chat = chatModel(fetch);
  const llm = endpointModel(fetch);
  const tool = {
    type: "function" as const,
    function: { name: "get_weather", description: "Weather", parameters: { type: "object" } },
  };

  it.each([
    ["the chat model", chat],
    ["bindTools", chat.bindTools([tool])],
    ["withConfig", chat.withConfig({ tags: ["t"], metadata: { user: "u" } })],
    ["withStructuredOutput", chat.withStructuredOutput(z.object({ city: z.string() }))],
    [
      "withStructuredOutput (jsonSchema)",
      chat.withStructuredOutput(z.object({ a: z.number() }), { method: "jsonSchema" }),
    ],
    ["withConfig with per-call headers", chat.withConfig(CALL_OPTIONS)],
    ["bindTools with per-call headers", chat.bindTools([tool], CALL_OPTIONS)],
    [
      "withStructuredOutput on a model bound with per-call headers",
      chat.withConfig(CALL_OPTIONS).withConfig({ tags: ["t"] }),
    ],
    ["the LLM", llm],
    ["LLM withConfig", llm.withConfig({ tags: ["t"] })],
  ])("JSON.stringify and util.inspect of %s hold no key or header value", (_name, runnable) => {
    expectNoCanary({ json: JSON.stringify(runnable), inspect: inspect(runnable, { depth: 12 }) });
  });

  it("keeps the key out of both models' lc_kwargs", () => {
    for (const model of [chat, llm]) {
      expectNoCanary({
        json: JSON.stringify(model.lc_kwargs),
        inspect: inspect(model.lc_kwargs, { depth: 12 }),
      });
    }
  });

  it("still sends per-call headers bound with withConfig", async () => {
    const sent: Sent[] = [];
    await chatModel(service(ROWS[0]!, false, sent))
      .withConfig(CALL_OPTIONS)
      .invoke("Hello there");
    expect(sent[0]?.callToken).toBe(CALL_HEADER_VALUE);
  });

  it("serialises the key of both models as a reference to INFERENCE_SERVICE_API_KEY", () => {
    const secret = { lc: 1, type: "secret", id: ["INFERENCE_SERVICE_API_KEY"] };
    expect(JSON.parse(JSON.stringify(chat)).kwargs.api_key).toEqual(secret);
    expect(JSON.parse(JSON.stringify(llm)).kwargs.api_key).toEqual(secret);
  });

  it("keeps the key out of util.inspect of the LLM (what console.log(llm) prints)", () => {
    expectNoCanary({ inspect: inspect(llm, { depth: 12 }) });
  });

  // The base class keeps the key on public fields it reads; a custom inspect shows neither them
  // nor the header values (`lc_kwargs.configuration`).
  it("keeps the key and header value out of util.inspect of the chat model", () => {
    expectNoCanary({ inspect: inspect(chat, { depth: 12 }) });
  });
});

describe("redaction of fields other than the message", () => {
  // Every string copied from the body is redacted, not only the message.
  it("keeps a key echoed in the body's param or type out of the error", async () => {
    const row: Row = {
      name: "401 echoing param and type",
      reply: () =>
        json(401, {
          error: {
            code: "",
            message: "Invalid token",
            type: `invalid_key Bearer ${API_KEY}`,
            param: `authorization: Bearer ${API_KEY}`,
          },
        }),
    };
    const error = await chatModel(service(row, false, []))
      .invoke("Hello there")
      .catch((thrown: unknown) => thrown);

    expect((error as Error).name).toBe("AuthenticationError");
    expectNoCanary(errorViews(error));
  });
});

describe("redaction at the edge of a body preview", () => {
  /** A body of `length` characters that echoes the key so that a preview of it cuts the key. */
  const echoAt = (offset: number) => `${"x".repeat(offset)} Bearer ${API_KEY} ${"y".repeat(200)}`;

  it.each([
    ["hosted", 70],
    ["hosted", 100],
    ["dedicated", 105],
  ] as const)(
    "keeps the start of a key out of a %s HTML preview that would cut it (offset %i)",
    async (surface, offset) => {
      const row: Row = {
        name: "HTML echo",
        reply: () =>
          new Response(`<p>${echoAt(offset)}</p>`, { headers: { "Content-Type": "text/html" } }),
      };
      const fetch = service(row, false, []);
      const model = surface === "hosted" ? chatModel(fetch) : endpointModel(fetch);
      const error = await model.invoke("Hello there").catch((thrown: unknown) => thrown);

      expect((error as Error).name).toBe("BaseURLError");
      // Redacted first, then cut: the preview shows where the key was, never its start.
      expect((error as Error).message).toContain("Bearer [");
      expectNoCanary(errorViews(error));
    },
  );

  // The quote of a body without usable choices is redacted before it is cut, so no key prefix
  // survives the cut.
  it("keeps the start of a key out of the quote of a /completions body without choices", async () => {
    const row: Row = { name: "JSON echo", reply: () => json(200, { note: echoAt(60) }) };
    const error = await endpointModel(service(row, false, []))
      .invoke("Hello there")
      .catch((thrown: unknown) => thrown);

    expect((error as Error).name).toBe("MalformedResponseError");
    expectNoCanary(errorViews(error));
  });
});
