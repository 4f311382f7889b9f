/**
 * @module The package's one import of `@opentelemetry/api` (the rest of `telemetry/` takes what it
 * uses from here), and the one question every request asks of it: did the app register a tracer
 * or meter provider? The API's `trace`, `metrics` and `context` answer from its global registry,
 * which every compatible 1.x copy of the API in the process shares — the app's copy and the
 * package's alike. Where nothing is registered they hand out no-ops; the package tells those
 * apart here, so that a request then builds nothing at all (docs/observability.md). */
import {
  type ContextAPI,
  context,
  createNoopMeter,
  type Meter,
  type MeterProvider,
  metrics,
  ProxyTracerProvider,
  type Tracer,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import { PACKAGE_NAME } from "../constants.js";
import { VERSION } from "../version.js";
import { telemetryFailed } from "./failures.js";

export {
  type Attributes,
  type Context,
  createNoopMeter,
  type Histogram,
  type Meter,
  type ObservableResult,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  type SpanStatus,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";

/** The calls the package makes on the API's context: the active one, and running under another. */
type OtelContextManager = Pick<ContextAPI, "active" | "with">;

/** What the app registered, as the package uses it (each part only when registered). */
export interface OtelRegistry {
  /** The package's tracer, from the tracer provider the app registered. */
  tracer?: Tracer;
  /** The package's meter, from the meter provider the app registered. */
  meter?: Meter;
  /** The API's context: the app's context manager, or the API's own when it registered none. */
  context?: OtelContextManager;
}

/** What the API's proxy tracer provider delegates to while no provider is registered. */
const NO_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();
/** The meter the API's default meter provider hands out while none is registered. */
const NO_METER = createNoopMeter();

const tracers = new WeakMap<TracerProvider, Tracer>();
/** The package's meter from each meter provider; null from the API's no-op one. */
const meters = new WeakMap<MeterProvider, Meter | null>();

/**
 * The package's tracer (its name and version are the instrumentation scope) from the tracer
 * provider the app registered; undefined when it registered none. The API hands out its own proxy
 * provider, registered or not: what it delegates to says which.
 */
function registeredTracer(): Tracer | undefined {
  let provider: TracerProvider = trace.getTracerProvider();
  if (provider instanceof ProxyTracerProvider) provider = provider.getDelegate();
  if (provider === NO_TRACER_PROVIDER) return undefined;
  let tracer = tracers.get(provider);
  if (tracer === undefined) {
    tracer = provider.getTracer(PACKAGE_NAME, VERSION);
    tracers.set(provider, tracer);
  }
  return tracer;
}

/**
 * The package's meter from the meter provider the app registered; undefined when it registered
 * none (the API's default provider hands out its no-op meter).
 */
function registeredMeter(): Meter | undefined {
  const provider = metrics.getMeterProvider();
  let meter = meters.get(provider);
  if (meter === undefined) {
    const got = provider.getMeter(PACKAGE_NAME, VERSION);
    meter = got === NO_METER ? null : got;
    meters.set(provider, meter);
  }
  return meter ?? undefined;
}

/**
 * What the app registered with `@opentelemetry/api`; undefined when it registered no tracer or
 * meter provider. Runs on every call: a few property reads and two map lookups. A provider that
 * throws here is reported and taken as not registered, for this call.
 */
export function otelRegistry(): OtelRegistry | undefined {
  let tracer: Tracer | undefined;
  let meter: Meter | undefined;
  try {
    tracer = registeredTracer();
  } catch (error) {
    telemetryFailed("get a tracer", error);
  }
  try {
    meter = registeredMeter();
  } catch (error) {
    telemetryFailed("get a meter or its instruments", error);
  }
  if (tracer === undefined && meter === undefined) return undefined;
  return { tracer, meter, context };
}
