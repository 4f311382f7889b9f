/**
 * @module The official SDK registered as an app registers it, but seen through proxies that note
 * every method called on what the package reaches from the API's registry — the tracer provider,
 * its tracers and spans, the meter provider, its meters, instruments and the results handed to
 * observable callbacks, the context manager and its contexts — and that throw from one chosen
 * method. A test first runs a scenario to learn which methods it calls, then makes each one throw
 * in turn.
 */
import { context, metrics, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

/** What a telemetry method that was told to fail throws. */
export class TelemetryBoom extends Error {
  override name = "TelemetryBoom";
}

/** What each method returns, by the kind of what it is called on: the returned object is watched too. */
const RETURNS: Record<string, string> = {
  "tracerProvider.getTracer": "tracer",
  "tracer.startSpan": "span",
  "meterProvider.getMeter": "meter",
  "meter.createHistogram": "histogram",
  "meter.createCounter": "counter",
  "meter.createUpDownCounter": "counter",
  "meter.createGauge": "gauge",
  "meter.createObservableCounter": "observable",
  "meter.createObservableGauge": "observable",
  "meter.createObservableUpDownCounter": "observable",
  "contextManager.active": "context",
  "contextManager.bind": "context",
  "context.setValue": "context",
  "context.deleteValue": "context",
};

/** A reader whose metrics are read when a test asks. */
class TestReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

/** What {@link installThrowingOtel} registered. */
export interface ThrowingOtel {
  /** Every method called so far, as `kind.method` (`span.end`, `histogram.record`, …). */
  readonly called: Set<string>;
  /** How many times the chosen method threw. */
  readonly thrown: () => number;
  /** Spans ended and exported (those whose methods did not throw). */
  readonly exporter: InMemorySpanExporter;
  /** Collects the metrics, as the app's reader would: its errors are the callbacks' failures. */
  collect(): Promise<unknown[]>;
  uninstall(): Promise<void>;
}

/**
 * Registers a tracer provider, a meter provider and a context manager with `@opentelemetry/api`,
 * each behind a proxy that throws a {@link TelemetryBoom} from `failing` (`kind.method`) every
 * time it is called; with no `failing`, nothing throws and the calls are only noted.
 */
export function installThrowingOtel(failing?: string): ThrowingOtel {
  const called = new Set<string>();
  let thrown = 0;
  const proxies = new WeakSet<object>();

  const watch = <T extends object>(target: T, kind: string): T => {
    if (proxies.has(target)) return target;
    const proxy: T = new Proxy(target, {
      get(object, key) {
        const value = Reflect.get(object, key, object) as unknown;
        if (typeof value !== "function" || typeof key !== "string") return value;
        const name = `${kind}.${key}`;
        return (...args: unknown[]) => {
          called.add(name);
          if (name === failing) {
            thrown++;
            throw new TelemetryBoom(`${name} failed`);
          }
          if (name === "observable.addCallback" && typeof args[0] === "function") {
            const callback = args[0] as (result: object, ...rest: unknown[]) => unknown;
            args[0] = (result: object, ...rest: unknown[]) =>
              callback(watch(result, "observableResult"), ...rest);
          }
          const out = (value as (...a: unknown[]) => unknown).apply(object, args);
          if (out === object) return proxy;
          const returned = RETURNS[name];
          return returned !== undefined && typeof out === "object" && out !== null
            ? watch(out, returned)
            : out;
        };
      },
    });
    proxies.add(proxy);
    return proxy;
  };

  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const manager = new AsyncLocalStorageContextManager().enable();
  const reader = new TestReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  trace.setGlobalTracerProvider(watch(tracerProvider, "tracerProvider"));
  context.setGlobalContextManager(watch(manager, "contextManager"));
  metrics.setGlobalMeterProvider(watch(meterProvider, "meterProvider"));
  return {
    called,
    thrown: () => thrown,
    exporter,
    collect: async () => (await reader.collect()).errors,
    uninstall: async () => {
      trace.disable();
      context.disable();
      metrics.disable();
      manager.disable();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}
