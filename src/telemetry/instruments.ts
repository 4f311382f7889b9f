/**
 * @module The package's tracer and metric instruments, made once per provider the app registered.
 * The counters are observable counters over the package's own tallies (see `tally.ts`).
 */
import { PACKAGE_NAME } from "../constants.js";
import { VERSION } from "../version.js";
import { METRICS, type MetricRow } from "./names.js";
import type { OtelHistogram, OtelMeter, OtelRegistry, OtelTracer } from "./otel.js";
import { Tally } from "./tally.js";

type TracerProvider = NonNullable<OtelRegistry["trace"]>;
type MeterProvider = NonNullable<OtelRegistry["metrics"]>;

/** The metric instruments, by the names of {@link METRICS}. */
export interface Instruments {
  duration: OtelHistogram;
  tokens: OtelHistogram;
  timeToFirstChunk: OtelHistogram;
  attempts: Tally;
  retries: Tally;
  cost: Tally;
}

const tracers = new WeakMap<TracerProvider, OtelTracer>();
const instruments = new WeakMap<MeterProvider, Instruments>();

/** The package's tracer from `provider` (the instrumentation scope is the package and its version). */
export function tracerOf(provider: TracerProvider): OtelTracer {
  let tracer = tracers.get(provider);
  if (tracer === undefined) {
    tracer = provider.getTracer(PACKAGE_NAME, VERSION);
    tracers.set(provider, tracer);
  }
  return tracer;
}

function histogram(meter: OtelMeter, row: MetricRow): OtelHistogram {
  const { description, unit, buckets } = row;
  const advice = buckets ? { explicitBucketBoundaries: [...buckets] } : undefined;
  return meter.createHistogram(row.name, { description, unit, ...(advice ? { advice } : {}) });
}

/** A tally the meter reports as the counter `row` each time the app's reader collects. */
function counter(meter: OtelMeter, row: MetricRow): Tally {
  const tally = new Tally();
  meter
    .createObservableCounter(row.name, { description: row.description, unit: row.unit })
    .addCallback((result) => tally.observe(result));
  return tally;
}

/** The package's instruments from `provider`, made on its first call. */
export function instrumentsOf(provider: MeterProvider): Instruments {
  let found = instruments.get(provider);
  if (found === undefined) {
    const meter = provider.getMeter(PACKAGE_NAME, VERSION);
    found = {
      duration: histogram(meter, METRICS.duration),
      tokens: histogram(meter, METRICS.tokens),
      timeToFirstChunk: histogram(meter, METRICS.timeToFirstChunk),
      attempts: counter(meter, METRICS.attempts),
      retries: counter(meter, METRICS.retries),
      cost: counter(meter, METRICS.cost),
    };
    instruments.set(provider, found);
  }
  return found;
}
