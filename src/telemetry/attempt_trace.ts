/** @module `AttemptTrace`: one HTTP attempt of a traced request — its span and its count. */
import { InferenceServiceError } from "../errors/errors.js";
import { telemetryFailed } from "./failures.js";
import { bounded } from "./limits.js";
import { ATTR } from "./names.js";
import type { Attributes, Context, Span } from "./otel.js";
import { addError, endSpan, errorStatus, statusOf } from "./span_errors.js";

/** What an attempt tells the request it belongs to (`CallTrace`). */
export interface AttemptParent {
  /** Whether failures' whole messages are recorded. */
  readonly captureContent: boolean;
  /** Runs `send` with `active` as the active context (see `CallTrace.runIn`). */
  runIn<T>(active: Context | undefined, send: () => Promise<T>): Promise<T>;
  /** An attempt ended: counted, its request ID the call's latest. */
  attempted(requestId: string | undefined, status: number | undefined, type?: string): void;
}

/** One HTTP attempt of a call: its span, if the call's span records, and its count. */
export class AttemptTrace {
  readonly #call: AttemptParent;
  readonly #resend: number;
  readonly #span?: Span;
  /** The context with this attempt's span, made active while it is sent. */
  readonly #active?: Context;

  constructor(call: AttemptParent, resend: number, span?: Span, active?: Context) {
    this.#call = call;
    this.#resend = resend;
    this.#span = span;
    this.#active = active;
  }

  /** How many attempts came before this one. */
  get resendCount(): number {
    return this.#resend;
  }

  /** Sends the attempt with its span active, so spans the app's own instrumentation makes nest under it. */
  run<T>(send: () => Promise<T>): Promise<T> {
    return this.#call.runIn(this.#active, send);
  }

  /** The attempt was answered and its answer passed its checks. */
  succeeded(status: number, requestId: string | undefined): void {
    const span = this.#span;
    const id = requestId === undefined ? undefined : bounded(requestId);
    if (span !== undefined) {
      try {
        span.setAttributes({
          [ATTR.status]: status,
          ...(id !== undefined ? { [ATTR.responseRequestId]: [id] } : {}),
        });
      } catch (error) {
        telemetryFailed("set a span's attributes, events or status", error);
      }
      endSpan(span);
    }
    this.#call.attempted(id, status);
  }

  /** The attempt failed with `error`, the typed error of the attempt. */
  failed(error: unknown): void {
    const status = statusOf(error);
    const requestId = InferenceServiceError.isInstance(error) ? error.requestId : undefined;
    const id = typeof requestId === "string" ? bounded(requestId) : undefined;
    const attributes: Attributes = {};
    const type = addError(attributes, error);
    const span = this.#span;
    if (span !== undefined) {
      try {
        if (status !== undefined) attributes[ATTR.status] = status;
        if (id !== undefined) attributes[ATTR.responseRequestId] = [id];
        span.setAttributes(attributes);
        span.setStatus(errorStatus(error, this.#call.captureContent));
      } catch (failure) {
        telemetryFailed("set a span's attributes, events or status", failure);
      }
      endSpan(span);
    }
    this.#call.attempted(id, status, type);
  }
}
