/**
 * @module The OpenTelemetry API as this package reaches it: through the API's own global registry,
 * where the app's copy of `@opentelemetry/api` keeps the tracer provider, meter provider and
 * context manager the app registered (`trace.setGlobalTracerProvider`, `NodeSDK.start()`, …).
 * Nothing is imported, so the main entry runs — and costs nothing — where the API is not
 * installed: an optional peer imported statically would fail to load there, and one imported
 * dynamically would fail a bundler's build and leave the first calls untraced. The types below
 * are the parts of the API's stable 1.x interfaces this package calls, written out so that no
 * declaration of the package names `@opentelemetry/api` (docs/observability.md explains the choice).
 */

/** An attribute's value, as the API takes it. */
export type AttributeValue = string | number | boolean | string[] | number[] | boolean[];

/** Attributes of a span, event or measurement. */
export type Attributes = Record<string, AttributeValue | undefined>;

/** The API's `Context`: an immutable map the active span rides in. */
export interface OtelContext {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): OtelContext;
  deleteValue(key: symbol): OtelContext;
}

/** The API's `Span`, the calls made on it. */
export interface OtelSpan {
  setAttribute(key: string, value: AttributeValue): unknown;
  setAttributes(attributes: Attributes): unknown;
  addEvent(name: string, attributes?: Attributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  isRecording(): boolean;
  end(): void;
}

/** The API's `Tracer`. */
export interface OtelTracer {
  startSpan(
    name: string,
    options?: { kind?: number; attributes?: Attributes },
    context?: OtelContext,
  ): OtelSpan;
}

/** The API's `Histogram`. */
export interface OtelHistogram {
  record(value: number, attributes?: Attributes): void;
}

/** The API's `ObservableResult`: what an observable instrument's callback reports its values to. */
export interface OtelObservableResult {
  observe(value: number, attributes?: Attributes): void;
}

/** The API's `ObservableCounter`: reports its values from a callback, when a reader collects. */
export interface OtelObservableCounter {
  addCallback(callback: (result: OtelObservableResult) => void): void;
}

/** Options of a metric instrument. */
export interface InstrumentOptions {
  description?: string;
  unit?: string;
  advice?: { explicitBucketBoundaries?: number[] };
}

/** The API's `Meter`. */
export interface OtelMeter {
  createHistogram(name: string, options?: InstrumentOptions): OtelHistogram;
  createObservableCounter(name: string, options?: InstrumentOptions): OtelObservableCounter;
}

/** What the app registered, as the API's registry holds it (each part only when registered). */
export interface OtelRegistry {
  version?: string;
  trace?: { getTracer(name: string, version?: string): OtelTracer };
  metrics?: { getMeter(name: string, version?: string): OtelMeter };
  context?: {
    active(): OtelContext;
    // biome-ignore lint/suspicious/noExplicitAny: the API's own signature
    with<F extends (...args: any[]) => any>(context: OtelContext, fn: F): ReturnType<F>;
  };
}

/** Where every 1.x copy of `@opentelemetry/api` registers the app's providers. */
const REGISTRY = Symbol.for("opentelemetry.js.api.1");

/** The key the API keeps a context's span under (its `createContextKey` is `Symbol.for`). */
export const SPAN_KEY = Symbol.for("OpenTelemetry Context Key SPAN");

/** `SpanKind.CLIENT` of the API. */
export const SPAN_KIND_CLIENT = 2;
/** `SpanStatusCode.ERROR` of the API. */
export const STATUS_ERROR = 2;

/**
 * What the app registered with `@opentelemetry/api`; undefined when the API is not installed or
 * nothing was registered. One property read: it runs on every call.
 */
export function otelRegistry(): OtelRegistry | undefined {
  return (globalThis as { [REGISTRY]?: OtelRegistry })[REGISTRY];
}

/** An immutable context, as the API's root context: the parent of a span when no manager is registered. */
class Context implements OtelContext {
  readonly #values: Map<symbol, unknown>;

  constructor(values?: Map<symbol, unknown>) {
    this.#values = values ?? new Map();
  }

  getValue(key: symbol): unknown {
    return this.#values.get(key);
  }

  setValue(key: symbol, value: unknown): OtelContext {
    return new Context(new Map(this.#values).set(key, value));
  }

  deleteValue(key: symbol): OtelContext {
    const values = new Map(this.#values);
    values.delete(key);
    return new Context(values);
  }
}

/** The context with no value: what the API's `context.active()` is without a context manager. */
export const ROOT_CONTEXT: OtelContext = new Context();
