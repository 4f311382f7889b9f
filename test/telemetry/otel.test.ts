/**
 * The package reaches `@opentelemetry/api` through the API's own global registry, and types it by
 * hand: these check that what the API registers is found there, that the real API's objects
 * satisfy the hand-written types (the type checker runs this file), and that no source file
 * imports the API — the main entry must load where it is not installed.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  ROOT_CONTEXT as API_ROOT_CONTEXT,
  type Context,
  context,
  metrics,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import {
  type OtelContext,
  type OtelMeter,
  type OtelRegistry,
  type OtelSpan,
  type OtelTracer,
  otelRegistry,
  ROOT_CONTEXT,
  SPAN_KEY,
  SPAN_KIND_CLIENT,
  STATUS_ERROR,
} from "../../src/telemetry/otel.js";
import { installOtel } from "../helpers/otel.js";

describe("the API's registry", () => {
  it("holds what the app registered, where the package reads it", async () => {
    const otel = installOtel();
    try {
      const registry = otelRegistry();
      expect(registry?.trace).toBe(trace.getTracerProvider());
      expect(registry?.metrics).toBe(metrics.getMeterProvider());
      expect(registry?.context).toBeDefined();
    } finally {
      await otel.uninstall();
    }
    expect(otelRegistry()?.trace).toBeUndefined();
  });

  it("uses the API's numbers and context key", () => {
    expect(SPAN_KIND_CLIENT).toBe(SpanKind.CLIENT);
    expect(STATUS_ERROR).toBe(SpanStatusCode.ERROR);
    const span = trace.wrapSpanContext({
      traceId: "1".repeat(32),
      spanId: "2".repeat(16),
      traceFlags: 1,
    });
    expect(API_ROOT_CONTEXT.setValue(SPAN_KEY, span).getValue(SPAN_KEY)).toBe(span);
    expect(trace.getSpan(ROOT_CONTEXT.setValue(SPAN_KEY, span) as Context)).toBe(span);
  });

  it("has a root context that is immutable, as the API's", () => {
    const key = Symbol("k");
    const child = ROOT_CONTEXT.setValue(key, 1);
    expect(ROOT_CONTEXT.getValue(key)).toBeUndefined();
    expect(child.getValue(key)).toBe(1);
    expect(child.deleteValue(key).getValue(key)).toBeUndefined();
    expect(child.getValue(key)).toBe(1);
  });

  it("is typed by hand in a way the real API satisfies", () => {
    // Compile-time checks: each assignment fails the type checker if the types drift apart.
    const tracer: OtelTracer = trace.getTracer("t");
    const span: OtelSpan = tracer.startSpan("s");
    const meter: OtelMeter = metrics.getMeter("m");
    const active: OtelContext = context.active();
    const registry: OtelRegistry = {
      trace: trace.getTracerProvider(),
      metrics: metrics.getMeterProvider(),
      context: {
        active: () => context.active(),
        with: (ctx, fn) => context.with(ctx as Context, fn),
      },
    };
    span.end();
    expect([meter, active, registry]).toHaveLength(3);
  });
});

describe("the sources", () => {
  it("never import @opentelemetry/* (not even its types): the API is an optional peer", () => {
    const importing = readdirSync("src", { recursive: true, encoding: "utf8" })
      .filter((name) => name.endsWith(".ts"))
      .filter((name) =>
        /from\s+"@opentelemetry\/|import\(\s*"@opentelemetry\//.test(
          readFileSync(join("src", name), "utf8"),
        ),
      );
    expect(importing).toEqual([]);
  });
});
