/**
 * @module The package's tracer and metric instruments, made once per provider the app registered.
 * The counters are observable counters over the package's own tallies (see `tally.ts`). An
 * instrument the meter fails to make is replaced by one that records nothing, so that one broken
 * instrument neither stops the others nor is asked for again on every call.
 */
import { PACKAGE_NAME } from "../constants.js";
import { VERSION } from "../version.js";
import { telemetryFailed } from "./failures.js";
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

/** What stands for a histogram the meter failed to make. */
const NO_HISTOGRAM: OtelHistogram = { record() {} };

function histogram(meter: OtelMeter, row: MetricRow): OtelHistogram {
  const { description, unit, buckets } = row;
  const advice = buckets ? { explicitBucketBoundaries: [...buckets] } : undefined;
  try {
    return meter.createHistogram(row.name, { description, unit, ...(advice ? { advice } : {}) });
  } catch (error) {
    telemetryFailed("get a meter or its instruments", error);
    return NO_HISTOGRAM;
  }
}

/**
 * A tally the meter reports as the counter `row` each time the app's reader collects; one the
 * meter failed to register still adds up, and is never reported.
 */
function counter(meter: OtelMeter, row: MetricRow): Tally {
  const tally = new Tally();
  try {
    meter
      .createObservableCounter(row.name, { description: row.description, unit: row.unit })
      .addCallback((result) => tally.observe(result));
  } catch (error) {
    telemetryFailed("get a meter or its instruments", error);
  }
  return tally;
}

/**
 * The package's instruments from `provider`, made on its first call. Throws when the provider
 * gives no meter (nothing is kept then: the next call asks again).
 */
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
