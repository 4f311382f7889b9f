/**
 * @module The package's metric instruments, made once per meter the app's provider gave. The
 * counters are observable counters over the package's own tallies (see `tally.ts`). An instrument
 * the meter fails to make is replaced by the API's no-op one, so that one broken instrument neither
 * stops the others nor is asked for again on every call.
 */
import { telemetryFailed } from "./failures.js";
import { METRICS, type MetricRow } from "./names.js";
import { createNoopMeter, type Histogram, type Meter } from "./otel.js";
import { Tally } from "./tally.js";

/** The metric instruments, by the names of {@link METRICS}. */
export interface Instruments {
  duration: Histogram;
  tokens: Histogram;
  timeToFirstChunk: Histogram;
  attempts: Tally;
  retries: Tally;
  cost: Tally;
}

const instruments = new WeakMap<Meter, Instruments>();

/** What stands for a histogram the meter failed to make: the API's own no-op. */
const NO_HISTOGRAM = createNoopMeter().createHistogram("none");

function histogram(meter: Meter, row: MetricRow): Histogram {
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
function counter(meter: Meter, row: MetricRow): Tally {
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

/** The package's instruments from `meter`, made on its first call. */
export function instrumentsOf(meter: Meter): Instruments {
  let found = instruments.get(meter);
  if (found === undefined) {
    found = {
      duration: histogram(meter, METRICS.duration),
      tokens: histogram(meter, METRICS.tokens),
      timeToFirstChunk: histogram(meter, METRICS.timeToFirstChunk),
      attempts: counter(meter, METRICS.attempts),
      retries: counter(meter, METRICS.retries),
      cost: counter(meter, METRICS.cost),
    };
    instruments.set(meter, found);
  }
  return found;
}
