/**
 * @module What the package does when telemetry fails: a tracer, meter, context manager or metric
 * reader of the app's `@opentelemetry/api` setup that throws — or the package's own reading of an
 * answer for a span — is caught where the package calls it, reported once per kind of failure (a
 * console warning, never one per call) and ignored. What observes a call never changes its
 * result, its billing or its settlement (docs/observability.md#when-telemetry-fails).
 */

/** What the package was doing with telemetry when it failed: one warning for each. */
export type TelemetryStep =
  | "get a tracer"
  | "start a span"
  | "make a span active"
  | "set a span's attributes, events or status"
  | "end a span"
  | "read the answer for its span"
  | "read what the call failed with"
  | "get a meter or its instruments"
  | "record a metric"
  | "report the counters to the metric reader";

const reported = new Set<TelemetryStep>();

/** Why it failed, in a few words: the error's class and message, never a stack. */
function reason(error: unknown): string {
  try {
    if (error instanceof Error) return `${error.name}: ${error.message}`;
    return String(error);
  } catch {
    return "an error that cannot be shown";
  }
}

/**
 * Notes that telemetry failed at `step`: warns the first time for each step, and never throws —
 * it is called from the `catch` blocks on the path of every call.
 */
export function telemetryFailed(step: TelemetryStep, error: unknown): void {
  if (reported.has(step)) return;
  reported.add(step);
  try {
    console.warn(
      `langchain-inference-service: telemetry failed while the package tried to ${step} ` +
        `(${reason(error)}). The calls go on unchanged, without this telemetry; this kind of ` +
        "failure is not reported again. Check the tracer and meter providers your app registers " +
        "with @opentelemetry/api.",
    );
  } catch {
    // A console that throws is no reason to fail a call either.
  }
}

/** Forgets which failures were reported, so that the next one warns again (tests). */
export function resetTelemetryWarnings(): void {
  reported.clear();
}
