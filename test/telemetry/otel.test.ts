/**
 * The package reaches OpenTelemetry through `@opentelemetry/api`'s public exports: these check
 * that what an app registers is found — through the package's copy of the API or through a copy
 * of the app's own, as npm installs two when the versions asked for do not meet — that nothing is
 * found where nothing is registered, and that no source reads the API's private registry.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { context, diag, metrics, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { createEmulator, DEFAULT_MODEL } from "../../src/emulator/index.js";
import { ChatInferenceService } from "../../src/index.js";
import { resetTelemetryWarnings } from "../../src/telemetry/failures.js";
import { otelRegistry } from "../../src/telemetry/otel.js";
import { VERSION } from "../../src/version.js";
import { type InstalledOtel, installOtel, parentOf } from "../helpers/otel.js";

const SCOPE = "langchain-inference-service";

let otel: InstalledOtel | undefined;
afterEach(async () => {
  await otel?.uninstall();
  otel = undefined;
});

describe("otelRegistry", () => {
  it("finds the package's tracer and meter in the providers the app registered, and the API's context", () => {
    otel = installOtel();
    expect(otelRegistry()).toEqual({
      tracer: trace.getTracer(SCOPE, VERSION),
      meter: metrics.getMeter(SCOPE, VERSION),
      context,
    });
  });

  it("finds each provider on its own: a tracer provider alone, a meter provider alone", async () => {
    otel = installOtel({ meters: false });
    expect(otelRegistry()).toMatchObject({ tracer: expect.anything(), meter: undefined });
    await otel.uninstall();
    otel = installOtel({ traces: false });
    expect(otelRegistry()).toMatchObject({ tracer: undefined, meter: expect.anything() });
  });

  it("takes a tracer provider whose getTracer throws as not registered, and keeps the meter", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    otel = installOtel({ traces: false });
    trace.setGlobalTracerProvider({
      getTracer: () => {
        throw new Error("no tracer");
      },
    });
    try {
      expect(otelRegistry()).toEqual({ tracer: undefined, meter: expect.anything(), context });
      expect(warn.mock.calls.map(([message]) => message)).toEqual([
        expect.stringContaining("tried to get a tracer (Error: no tracer)"),
      ]);
    } finally {
      trace.disable();
      resetTelemetryWarnings();
      warn.mockRestore();
    }
  });

  it("finds nothing where nothing is registered: not before, not after, not with only a logger", async () => {
    expect(otelRegistry()).toBeUndefined();
    otel = installOtel();
    await otel.uninstall();
    otel = undefined;
    expect(otelRegistry()).toBeUndefined();
    diag.setLogger({ error() {}, warn() {}, info() {}, debug() {}, verbose() {} });
    try {
      expect(otelRegistry()).toBeUndefined();
    } finally {
      diag.disable();
    }
  });
});

describe("the app's own copy of @opentelemetry/api", () => {
  const emulator = createEmulator();
  const KEY = Symbol.for("opentelemetry.js.api.1");
  const global = globalThis as Record<symbol, unknown>;
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A second copy of the API, at `version`, where npm puts the app's when the package's range and
   * the app's do not meet: the same files in another directory, so another module instance.
   */
  function appCopy(version: string): typeof import("@opentelemetry/api") {
    const app = mkdtempSync(join(tmpdir(), "otel-app-"));
    dirs.push(app);
    const dir = join(app, "node_modules", "@opentelemetry", "api");
    cpSync("node_modules/@opentelemetry/api", dir, { recursive: true });
    writeFileSync(join(dir, "build", "src", "version.js"), `exports.VERSION = "${version}";\n`);
    return createRequire(join(app, "index.js"))("@opentelemetry/api");
  }

  /** Registers the SDK through `api` as an app does, calls a model, and takes it all down. */
  async function traced(api: typeof import("@opentelemetry/api")) {
    // The registry keeps the version of the first copy that registered, even once emptied.
    const saved = global[KEY];
    delete global[KEY];
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const reader = new (class extends MetricReader {
      protected override async onShutdown(): Promise<void> {}
      protected override async onForceFlush(): Promise<void> {}
    })();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const manager = new AsyncLocalStorageContextManager().enable();
    try {
      api.trace.setGlobalTracerProvider(tracerProvider);
      api.metrics.setGlobalMeterProvider(meterProvider);
      api.context.setGlobalContextManager(manager);
      const model = new ChatInferenceService(DEFAULT_MODEL, {
        apiKey: emulator.apiKey,
        baseURL: emulator.baseURL,
        fetch: emulator.fetch,
      });
      const reply = await api.trace
        .getTracer("app")
        .startActiveSpan("handle request", async (span) => {
          try {
            return await model.invoke("Hello");
          } finally {
            span.end();
          }
        });
      const { resourceMetrics } = await reader.collect();
      const scopes = resourceMetrics.scopeMetrics.map(({ scope }) => scope.name);
      return { reply: reply.content, spans: exporter.getFinishedSpans(), scopes };
    } finally {
      api.trace.disable();
      api.metrics.disable();
      api.context.disable();
      manager.disable();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      delete global[KEY];
      if (saved !== undefined) global[KEY] = saved;
    }
  }

  it.each([
    ["the same version as the package's", "1.9.1"],
    ["a newer 1.x than the package's", "1.99.0"],
  ])("at %s: what the app registers with it gets the spans and metrics", async (_name, version) => {
    const api = appCopy(version);
    expect(api.trace).not.toBe(trace);
    const { reply, spans, scopes } = await traced(api);
    expect(reply).toContain("Hello");
    const [attempt, call, request] = spans;
    expect(spans.map((span) => span.name)).toEqual([
      "POST /inference/v1/chat/completions",
      `chat ${DEFAULT_MODEL}`,
      "handle request",
    ]);
    // Under the app's active span, as its context manager holds it.
    expect(parentOf(call!)).toBe(request!.spanContext().spanId);
    expect(parentOf(attempt!)).toBe(call!.spanContext().spanId);
    expect(scopes).toContain(SCOPE);
  });

  it("at an older 1.x than the package's: the API does not share it, and calls run untraced", async () => {
    // The API's own rule: a copy reads only what a copy of its minor version or newer registered.
    // Hence the package's wide range, which lets npm install one copy for both.
    const { reply, spans, scopes } = await traced(appCopy("1.3.0"));
    expect(reply).toContain("Hello");
    expect(spans.map((span) => span.name)).toEqual(["handle request"]);
    expect(scopes).not.toContain(SCOPE);
  });
});

describe("the sources", () => {
  const sources = readdirSync("src", { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => ({ name, code: readFileSync(join("src", name), "utf8") }));

  it("import @opentelemetry/api in src/telemetry/otel.ts only, and no other @opentelemetry package", () => {
    const importing = sources
      .filter(({ code }) => /from\s+"@opentelemetry\/|import\(\s*"@opentelemetry\//.test(code))
      .map(({ name, code }) => [
        name,
        [...code.matchAll(/"(@opentelemetry\/[^"]+)"/g)].map((m) => m[1]),
      ]);
    expect(importing).toEqual([
      ["telemetry/otel.ts", ["@opentelemetry/api", "@opentelemetry/api"]],
    ]);
  });

  it("never read the API's private global registry", () => {
    const reading = sources.filter(({ code }) => code.includes("opentelemetry.js.api"));
    expect(reading.map(({ name }) => name)).toEqual([]);
  });
});
