// Cross-runtime smoke of the BUILT main entry (run by `.ci/cross-runtime` under this machine's Node, Node 22,
// Bun and Deno against the emulator): invoke, stream, and typed errors with their class and hint.
// Only web APIs, the package and its OpenTelemetry API here, so it runs unchanged in every runtime. Configuration comes
// from the INFERENCE_SERVICE_* variables, so reading the environment is checked as well.
// Prints one JSON line { runtime, version, ok, checks: [{ name, ok, detail }] }; exits 1 on failure.
import { trace } from "@opentelemetry/api";
import {
  AuthenticationError,
  ChatInferenceService,
  DedicatedEndpointLLM,
  EndpointNotReadyError,
  InferenceServiceError,
  initChatInferenceService,
  ModelNotFoundError,
  ServiceConnectionError,
  VERSION,
} from "../../dist/index.js";

const runtime = globalThis.Deno
  ? `deno ${globalThis.Deno.version.deno}`
  : globalThis.Bun
    ? `bun ${globalThis.Bun.version}`
    : `node ${globalThis.process.version}`;
const REQUEST_ID = /^\d{32}$/;
const PROMPT = "Hello there";
const checks = [];

/** A fetch that asks the emulator for one fault on every request. */
const withFault = (fault) => (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set("X-Emulator-Fault", fault);
  return fetch(input, { ...init, headers });
};
const signal = () => AbortSignal.timeout(15_000);

async function check(name, run) {
  try {
    const detail = await run();
    checks.push({ name, ok: true, detail });
  } catch (error) {
    checks.push({ name, ok: false, detail: String(error?.stack ?? error) });
  }
}

function expectEqual(actual, expected, what) {
  if (actual !== expected) {
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}

/** The call's rejection, which must be a typed error of `cls` whose message carries its hint. */
async function typedError(call, cls, fields = {}) {
  const error = await call().then(
    () => {
      throw new Error(`resolved; expected ${cls.name}`);
    },
    (thrown) => thrown,
  );
  if (
    !(error instanceof cls) ||
    !cls.isInstance(error) ||
    !InferenceServiceError.isInstance(error)
  ) {
    throw new Error(`expected ${cls.name}, got ${error?.name}: ${error?.message}`);
  }
  if (!error.hint || !error.message.includes(error.hint)) throw new Error("no hint in the message");
  for (const [key, value] of Object.entries(fields)) expectEqual(error[key], value, key);
  return `${error.name} (retryable ${error.retryable}): ${error.hint}`;
}

const chat = (fields = {}) =>
  new ChatInferenceService("emulator-chat", { maxRetries: 0, ...fields });
const llm = (fields = {}) => new DedicatedEndpointLLM({ maxRetries: 0, ...fields });

await check("chat invoke", async () => {
  const reply = await chat().invoke(PROMPT, { signal: signal() });
  expectEqual(reply.content, `Emulated reply to: "${PROMPT}"`, "content");
  if (!REQUEST_ID.test(reply.response_metadata.requestId)) throw new Error("no request ID");
  return reply.content;
});

await check("chat stream", async () => {
  let text = "";
  let chunks = 0;
  for await (const chunk of await chat().stream(PROMPT, { signal: signal() })) {
    text += chunk.text;
    chunks++;
  }
  expectEqual(text, `Emulated reply to: "${PROMPT}"`, "streamed text");
  if (chunks < 3) throw new Error(`only ${chunks} chunks`);
  return `${chunks} chunks`;
});

// The reasoning block relies on core's translator Map on globalThis: checked in every runtime.
await check("reasoning block and profile, from a model string", async () => {
  const model = initChatInferenceService("inference-service:emulator-reasoner", {
    maxRetries: 0,
    profiles: { "emulator-reasoner": { maxInputTokens: 65536 } },
  });
  expectEqual(model.profile.maxInputTokens, 65536, "profile.maxInputTokens");
  const reply = await model.invoke(PROMPT, { signal: signal() });
  const types = reply.contentBlocks.map((block) => block.type).join(",");
  expectEqual(types, "reasoning,text", "contentBlocks types");
  return types;
});

await check("dedicated invoke", async () => {
  const text = await llm().invoke(PROMPT, { signal: signal() });
  expectEqual(text, `Emulated completion of: "${PROMPT}"`, "completion");
  return text;
});

await check("dedicated stream", async () => {
  let text = "";
  for await (const piece of await llm().stream(PROMPT, { signal: signal() })) text += piece;
  expectEqual(text, `Emulated completion of: "${PROMPT}"`, "streamed completion");
  return text;
});

await check("503 model_not_found", () =>
  typedError(() => new ChatInferenceService("no-such-model").invoke(PROMPT), ModelNotFoundError, {
    status: 503,
    code: "model_not_found",
    retryable: false,
  }),
);

await check("401 invalid key", () =>
  typedError(() => chat({ apiKey: "sk-not-a-key" }).invoke(PROMPT), AuthenticationError, {
    status: 401,
    retryable: false,
  }),
);

await check("Pending endpoint (connection closed)", () =>
  typedError(
    () => llm({ serviceName: "tenant-demo.pending-endpoint" }).invoke(PROMPT),
    EndpointNotReadyError,
    { retryable: true },
  ),
);

await check("connection reset", () =>
  typedError(() => chat({ fetch: withFault("reset") }).invoke(PROMPT), ServiceConnectionError),
);

await check("body cut mid-way", () =>
  typedError(() => chat({ fetch: withFault("truncate") }).invoke(PROMPT), ServiceConnectionError),
);

await check("stream cut mid-way", async () => {
  let received = "";
  // Where the cut lands is the runtime's: Node hands out the events that arrived before the
  // reset, Bun may drop them. A cut after events is mid-stream and keeps them; a cut before the
  // first event is the failure of the request itself (retried when maxRetries allows).
  let error;
  const detail = await typedError(async () => {
    try {
      for await (const chunk of await chat({ fetch: withFault("truncate") }).stream(PROMPT)) {
        received += chunk.text;
      }
    } catch (thrown) {
      error = thrown;
      throw thrown;
    }
  }, ServiceConnectionError);
  expectEqual(error.midStream, received !== "", "midStream");
  if (received !== "") expectEqual(error.partialOutput, received, "partialOutput");
  return `${detail} after ${JSON.stringify(received)}`;
});

// OpenTelemetry through @opentelemetry/api, the package's dependency: a tracer provider the app
// registers with the API (here a hand-written one, no SDK) gets the spans in every runtime.
await check("telemetry through @opentelemetry/api", async () => {
  const ended = [];
  const span = (name, options) => ({
    setAttribute() {},
    setAttributes() {},
    addEvent() {},
    setStatus() {},
    isRecording: () => true,
    end: () => ended.push({ name, kind: options?.kind }),
  });
  trace.setGlobalTracerProvider({ getTracer: () => ({ startSpan: span }) });
  try {
    await chat().invoke(PROMPT, { signal: signal() });
  } finally {
    trace.disable();
  }
  const names = ended.map((s) => `${s.name} (kind ${s.kind})`).join(", ");
  expectEqual(
    names,
    "POST /inference/v1/chat/completions (kind 2), chat emulator-chat (kind 2)",
    "spans",
  );
  return names;
});

const ok = checks.every((c) => c.ok);
console.log(JSON.stringify({ runtime, version: VERSION, ok, checks }));
if (!ok) throw new Error(`${checks.filter((c) => !c.ok).length} smoke check(s) failed`);
