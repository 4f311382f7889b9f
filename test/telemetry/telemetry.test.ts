/**
 * When a request is traced at all: only when the app registered a tracer or meter provider with
 * `@opentelemetry/api` and the model did not turn telemetry off — and then as far as the app
 * registered (spans without metrics, metrics without spans, no context manager, a sampler that
 * records nothing). With nothing registered, nothing is built.
 */
import { diag, trace } from "@opentelemetry/api";
import { AlwaysOffSampler } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createEmulator, DEFAULT_MODEL } from "../../src/emulator/index.js";
import { ChatInferenceService } from "../../src/index.js";
import * as callTrace from "../../src/telemetry/call_trace.js";
import { otelRegistry } from "../../src/telemetry/otel.js";
import { Telemetry } from "../../src/telemetry/telemetry.js";
import { VERSION } from "../../src/version.js";
import { type InstalledOtel, installOtel, parentOf } from "../helpers/otel.js";

const emulator = createEmulator();
const REGISTRY = Symbol.for("opentelemetry.js.api.1");

let otel: InstalledOtel | undefined;
afterEach(async () => {
  await otel?.uninstall();
  otel = undefined;
  vi.restoreAllMocks();
});

const chat = (fields: Record<string, unknown> = {}) =>
  new ChatInferenceService(DEFAULT_MODEL, {
    apiKey: emulator.apiKey,
    baseURL: emulator.baseURL,
    fetch: emulator.fetch,
    maxRetries: 0,
    ...fields,
  });

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream) {
    // read to the end
  }
}

const telemetry = () =>
  new Telemetry({ operation: "chat", url: "https://svc.test/inference/v1/chat/completions" });

describe("with nothing registered", () => {
  it("where nothing was ever registered (no registry on globalThis), calls run and nothing is built", async () => {
    const saved = (globalThis as Record<symbol, unknown>)[REGISTRY];
    delete (globalThis as Record<symbol, unknown>)[REGISTRY];
    try {
      const begin = vi.spyOn(callTrace.CallTrace.prototype, "begin");
      expect(otelRegistry()).toBeUndefined();
      expect(telemetry().trace()).toBeUndefined();
      const reply = await chat().invoke("Hello");
      await drain(await chat().stream("Hello"));
      expect(reply.content).toContain("Hello");
      expect(begin).not.toHaveBeenCalled();
    } finally {
      if (saved !== undefined) (globalThis as Record<symbol, unknown>)[REGISTRY] = saved;
    }
  });

  it("where the API is loaded but registered only a logger, nothing is built", async () => {
    diag.setLogger({ error() {}, warn() {}, info() {}, debug() {}, verbose() {} });
    try {
      expect((globalThis as Record<symbol, unknown>)[REGISTRY]).toMatchObject({
        version: expect.any(String),
      });
      expect(otelRegistry()).toBeUndefined();
      expect(telemetry().trace()).toBeUndefined();
    } finally {
      diag.disable();
    }
  });
});

describe("with the SDK registered", () => {
  it("`telemetry: false` turns a model's spans and metrics off", async () => {
    otel = installOtel();
    await chat({ telemetry: false }).invoke("Hello");
    await drain(await chat({ telemetry: false }).stream("Hello"));
    expect(otel.spans()).toEqual([]);
    expect([...(await otel.metrics()).keys()]).toEqual([]);
  });

  it("a meter provider alone: metrics, and no span", async () => {
    otel = installOtel({ traces: false });
    await chat().invoke("Hello");
    expect(otel.spans()).toEqual([]);
    const metrics = await otel.metrics();
    expect(metrics.get("gen_ai.client.operation.duration")?.points).toHaveLength(1);
    expect(metrics.get("inference_service.client.attempts")?.points).toHaveLength(1);
  });

  it("a tracer provider alone: spans, and no metric", async () => {
    otel = installOtel({ meters: false });
    await chat().invoke("Hello");
    expect(otel.spans()).toHaveLength(2);
    expect([...(await otel.metrics()).keys()]).toEqual([]);
  });

  it("no context manager: the call's span is a root, its attempts still its children", async () => {
    otel = installOtel({ contextManager: false });
    await chat().invoke("Hello");
    const [attempt, call] = otel.spans();
    expect(call!.name).toBe(`chat ${DEFAULT_MODEL}`);
    expect(parentOf(call!)).toBeUndefined();
    expect(parentOf(attempt!)).toBe(call!.spanContext().spanId);
  });

  it("a sampler that records nothing: the call's span only is started, no attempt span", async () => {
    otel = installOtel({ sampler: new AlwaysOffSampler() });
    // The SDK hands out one tracer per name and version: the package's own.
    const tracer = trace.getTracer("langchain-inference-service", VERSION);
    const startSpan = vi.spyOn(tracer, "startSpan");
    await chat({ captureContent: true }).invoke("Hello");
    expect(otel.spans()).toEqual([]);
    expect(startSpan).toHaveBeenCalledTimes(1);
    const [name, options] = startSpan.mock.calls[0]!;
    expect(name).toBe(`chat ${DEFAULT_MODEL}`);
    // The attributes a sampler decides by, and nothing read from the request.
    expect(Object.keys(options?.attributes ?? {}).sort()).toEqual([
      "gen_ai.operation.name",
      "gen_ai.provider.name",
      "gen_ai.request.model",
      "server.address",
      "server.port",
    ]);
    // Still counted for the metrics.
    expect((await otel.metrics()).get("inference_service.client.attempts")?.points).toHaveLength(1);
  });

  it("a provider registered after the model was built is used from its next call", async () => {
    const model = chat();
    await model.invoke("Hello");
    otel = installOtel();
    await model.invoke("Hello");
    expect(otel.spans().map((span) => span.name)).toEqual([
      "POST /inference/v1/chat/completions",
      `chat ${DEFAULT_MODEL}`,
    ]);
  });
});
