/**
 * @module The official OpenTelemetry SDK registered as an app registers it — a tracer provider
 * with an in-memory span exporter, the async-hooks context manager (so spans nest under the
 * active one), and a meter provider with a reader collected on demand — and taken down again.
 */
import { context, DiagLogLevel, diag, metrics, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  type DataPoint,
  DataPointType,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  type Sampler,
  SimpleSpanProcessor,
  type Span,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, beforeEach } from "vitest";

/** Spans started and not yet ended: what a span that is never ended leaves behind. */
class OpenSpans implements SpanProcessor {
  readonly open = new Set<Span>();
  onStart(span: Span): void {
    this.open.add(span);
  }
  onEnd(span: ReadableSpan): void {
    this.open.delete(span as Span);
  }
  async forceFlush(): Promise<void> {}
  async shutdown(): Promise<void> {}
}

/** A reader whose metrics are read when a test asks (`collect()`). */
class TestReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

/** One metric as a test reads it: its unit and its data points. */
export interface CollectedMetric {
  unit: string;
  /** The data's kind as exporters see it: `SUM`, `HISTOGRAM`, … */
  type: string;
  /** For sums: whether they only grow. */
  monotonic?: boolean;
  points: DataPoint<unknown>[];
}

/** What {@link installOtel} registered, and how to read it. */
export interface InstalledOtel {
  exporter: InMemorySpanExporter;
  /** Every span ended so far. */
  spans(): ReadableSpan[];
  /** The package's metrics, by name. */
  metrics(): Promise<Map<string, CollectedMetric>>;
  /** The names of the spans started and not ended. */
  open(): string[];
  /**
   * What the SDK warned about: a span ended twice, or changed once ended ("Can not execute the
   * operation on ended Span"), a bad attribute.
   */
  warnings: string[];
  /** Forgets the spans ended so far, and the warnings. */
  reset(): void;
  /** Takes everything down: the API's registry is empty again. */
  uninstall(): Promise<void>;
}

/** What {@link installOtel} registers. */
export interface OtelSetup {
  traces?: boolean;
  meters?: boolean;
  /** Register the async-hooks context manager (with `traces`). @default true */
  contextManager?: boolean;
  sampler?: Sampler;
}

/** Registers the SDK's tracer provider, context manager and meter provider globally. */
export function installOtel({
  traces = true,
  meters = true,
  contextManager = true,
  sampler,
}: OtelSetup = {}): InstalledOtel {
  const exporter = new InMemorySpanExporter();
  const openSpans = new OpenSpans();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [openSpans, new SimpleSpanProcessor(exporter)],
    ...(sampler ? { sampler } : {}),
  });
  const manager = new AsyncLocalStorageContextManager().enable();
  const reader = new TestReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const warnings: string[] = [];
  const note = (message: string, ...args: unknown[]) => {
    warnings.push([message, ...args].join(" "));
  };
  diag.setLogger(
    { error: note, warn: note, info: () => {}, debug: () => {}, verbose: () => {} },
    DiagLogLevel.WARN,
  );
  if (traces) {
    trace.setGlobalTracerProvider(tracerProvider);
    if (contextManager) context.setGlobalContextManager(manager);
  }
  if (meters) metrics.setGlobalMeterProvider(meterProvider);
  return {
    exporter,
    spans: () => exporter.getFinishedSpans(),
    open: () => [...openSpans.open].map((span) => span.name),
    warnings,
    metrics: async () => {
      const { resourceMetrics } = await reader.collect();
      return metricsByName(resourceMetrics);
    },
    reset: () => {
      exporter.reset();
      warnings.length = 0;
    },
    uninstall: async () => {
      trace.disable();
      context.disable();
      metrics.disable();
      diag.disable();
      manager.disable();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

function metricsByName(resourceMetrics: ResourceMetrics): Map<string, CollectedMetric> {
  const found = new Map<string, CollectedMetric>();
  for (const scope of resourceMetrics.scopeMetrics) {
    if (scope.scope.name !== "langchain-inference-service") continue;
    for (const metric of scope.metrics) {
      found.set(metric.descriptor.name, {
        unit: metric.descriptor.unit,
        type: DataPointType[metric.dataPointType],
        ...("isMonotonic" in metric ? { monotonic: metric.isMonotonic } : {}),
        points: metric.dataPoints as DataPoint<unknown>[],
      });
    }
  }
  return found;
}

/** {@link InstalledOtel}, for the tests of one file, and taken down and registered anew on demand. */
export interface UsedOtel extends InstalledOtel {
  /** A fresh SDK in place of the current one (metrics add up for the life of a provider). */
  reinstall(): Promise<void>;
}

/**
 * Registers the SDK for the tests of the calling file: before them, reset before each, taken
 * down after them.
 */
export function useOtel(setup: OtelSetup = {}): UsedOtel {
  let current: InstalledOtel | undefined;
  beforeAll(() => {
    current = installOtel(setup);
  });
  afterAll(async () => {
    await current?.uninstall();
  });
  beforeEach(() => current?.reset());
  const now = () => current!;
  return {
    get exporter() {
      return now().exporter;
    },
    get warnings() {
      return now().warnings;
    },
    spans: () => now().spans(),
    metrics: () => now().metrics(),
    open: () => now().open(),
    reset: () => now().reset(),
    uninstall: () => now().uninstall(),
    reinstall: async () => {
      await current?.uninstall();
      current = installOtel(setup);
    },
  };
}

/** The span's parent span ID, if it has a parent. */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}
