/**
 * @module `CallTrace`: the telemetry of one request of a model — its CLIENT span (a child of the
 * app's active span), a child span per HTTP attempt, the meter's reservations, refusals and
 * rate-limiter waits as events, and its metrics — ended once, however the request ends: answered,
 * failed, or, for a stream, read to its end, failed, left or aborted. Built only when the app
 * registered a tracer or meter provider; nothing here runs otherwise.
 *
 * Every method is a boundary: whatever the app's tracer, meter or context manager throws — or the
 * reading of an odd answer — is caught here, reported once (`failures.ts`) and ignored, so that
 * telemetry never changes a call's result, its billing or its settlement.
 */
import { LS_PROVIDER } from "../constants.js";
import { BudgetExceededError, InferenceServiceError } from "../errors/errors.js";
import type { MeterObserver, StreamEnd } from "../spend/call_meter.js";
import { type Settlement, settledAs } from "../spend/usage_records.js";
import { type AttemptParent, AttemptTrace } from "./attempt_trace.js";
import { inputMessages, ReplyContent } from "./content.js";
import { telemetryFailed } from "./failures.js";
import { type Instruments, instrumentsOf } from "./instruments.js";
import { bounded } from "./limits.js";
import { ATTR, EVENTS } from "./names.js";
import {
  type Attributes,
  type Context,
  type OtelRegistry,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  type Tracer,
  trace,
} from "./otel.js";
import { addError, endSpan, errorStatus, errorType, statusOf } from "./span_errors.js";
import type { Tally } from "./tally.js";
import { AnswerFacts, addRequestAttributes } from "./wire.js";

/**
 * Attribute sets that a channel's metrics record call after call — a few per model and outcome —
 * each made once: a measurement costs no new object. Past a bound (an unusual variety of models
 * or errors) a set is made anew each time instead of kept.
 */
export class AttributeSets {
  readonly #sets = new Map<string, Attributes>();

  /** The set under `key`, made by `make` the first time. */
  get(key: string, make: () => Attributes): Attributes {
    let found = this.#sets.get(key);
    if (found === undefined) {
      found = make();
      if (this.#sets.size < 256) this.#sets.set(key, found);
    }
    return found;
  }
}

/** What every request of one channel shares: the API, where it is, and whether content is recorded. */
export interface TraceTarget {
  /** `gen_ai.operation.name`. */
  operation: string;
  /** The API's URL: the base URL and the API's path (no credential, no query: see `base_url.ts`). */
  url: string;
  /** The URL's path, the attempts' `url.template`. */
  template: string;
  address: string;
  port: number;
  captureContent: boolean;
  /** The attribute sets its calls' metrics share. */
  sets: AttributeSets;
}

/** Whom a request is for, as the channel's failure context names it. */
export interface TraceAddressee {
  model?: string;
  serviceName?: string;
}

/** The telemetry of one request: see the module's comment. */
export class CallTrace implements MeterObserver, AttemptParent {
  readonly #target: TraceTarget;
  readonly #otel: OtelRegistry;
  #span?: Span;
  /** The context with the call's span in it: the attempts' parent. */
  #parent?: Context;
  #instruments?: Instruments;
  /** The attributes every metric of the call carries, and the key of that set. */
  #metric?: Attributes;
  #model = "";
  #start = 0;
  #attempts = 0;
  readonly #facts = new AnswerFacts();
  #reply?: ReplyContent;
  #requestId?: string;
  #cost?: number;
  #currency?: string;
  /** How the meter settled the call, when a tracker metered it. */
  #settlement?: Settlement;
  #timeToFirstChunk?: number;
  #state: "new" | "begun" | "ended" = "new";

  constructor(target: TraceTarget, otel: OtelRegistry) {
    this.#target = target;
    this.#otel = otel;
  }

  /**
   * The request starts: the call's span, under the app's active span, with the attributes a
   * sampler decides by; the request's parameters (and, when asked, its content) only on a span
   * that records.
   */
  begin(body: Record<string, unknown>, to: TraceAddressee, stream: boolean): void {
    if (this.#state !== "new") return;
    this.#state = "begun";
    this.#start = performance.now();
    const target = this.#target;
    const given = typeof body.model === "string" ? body.model : (to.model ?? to.serviceName);
    const model = given === undefined ? undefined : bounded(given);
    // Shared with the metrics; the SDK copies a span's attributes, so it is never changed.
    const base = target.sets.get(model ?? "", () => ({
      [ATTR.operation]: target.operation,
      [ATTR.provider]: LS_PROVIDER,
      ...(model !== undefined ? { [ATTR.requestModel]: model } : {}),
      [ATTR.serverAddress]: target.address,
      [ATTR.serverPort]: target.port,
    }));
    const { tracer, meter } = this.#otel;
    if (meter !== undefined) {
      try {
        this.#instruments = instrumentsOf(meter);
        this.#metric = base;
        this.#model = model ?? "";
      } catch (error) {
        telemetryFailed("get a meter or its instruments", error);
      }
    }
    if (tracer !== undefined) this.#startSpan(tracer, body, to, stream, model, base);
  }

  /** The call's span, when the app registered a tracer provider (see {@link begin}). */
  #startSpan(
    tracer: Tracer,
    body: Record<string, unknown>,
    to: TraceAddressee,
    stream: boolean,
    model: string | undefined,
    base: Attributes,
  ): void {
    const target = this.#target;
    let span: Span;
    let active: Context | undefined;
    try {
      active = this.#otel.context?.active();
      const name = model === undefined ? target.operation : `${target.operation} ${model}`;
      span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes: base }, active);
    } catch (error) {
      telemetryFailed("start a span", error);
      return;
    }
    try {
      if (!span.isRecording()) return;
    } catch (error) {
      // Taken as recording: a span that was started is ended.
      telemetryFailed("start a span", error);
    }
    this.#span = span;
    try {
      this.#parent = trace.setSpan(active ?? ROOT_CONTEXT, span);
    } catch (error) {
      // The app's context would not take the span: its attempts still nest under it.
      telemetryFailed("start a span", error);
      this.#parent = trace.setSpan(ROOT_CONTEXT, span);
    }
    try {
      const more: Attributes = {};
      if (to.serviceName !== undefined) more[ATTR.serviceName] = bounded(to.serviceName);
      if (stream) more[ATTR.stream] = true;
      addRequestAttributes(body, more);
      if (target.captureContent) {
        const input = inputMessages(body);
        if (input !== undefined) more[ATTR.inputMessages] = input;
        this.#reply = new ReplyContent();
      }
      span.setAttributes(more);
    } catch (error) {
      telemetryFailed("set a span's attributes, events or status", error);
    }
  }

  /** Whether prompts and replies are recorded (and failures' whole messages). */
  get captureContent(): boolean {
    return this.#target.captureContent;
  }

  /** One HTTP attempt starts; undefined when nothing is recorded of it. */
  attempt(): AttemptTrace | undefined {
    const resend = this.#attempts++;
    const span = this.#span;
    if (span === undefined) return this.#instruments ? new AttemptTrace(this, resend) : undefined;
    const target = this.#target;
    let child: Span | undefined;
    let active: Context | undefined;
    try {
      const first = target.sets.get("\u0000attempt", () => ({
        [ATTR.method]: "POST",
        [ATTR.url]: target.url,
        [ATTR.urlTemplate]: target.template,
        [ATTR.serverAddress]: target.address,
        [ATTR.serverPort]: target.port,
      }));
      const attributes = resend === 0 ? first : { ...first, [ATTR.resendCount]: resend };
      const name = `POST ${target.template}`;
      const options = { kind: SpanKind.CLIENT, attributes };
      child = this.#otel.tracer!.startSpan(name, options, this.#parent);
      if (this.#otel.context) active = trace.setSpan(this.#parent!, child);
    } catch (error) {
      // Sent all the same: without its span, or with it but not active while it is sent.
      telemetryFailed("start a span", error);
    }
    return new AttemptTrace(this, resend, child, active);
  }

  /**
   * Runs `send` with `active` as the active context, when the app registered a context manager —
   * once, whatever the manager does: one that throws, or never calls it, still gets it sent.
   */
  runIn<T>(active: Context | undefined, send: () => Promise<T>): Promise<T> {
    const manager = this.#otel.context;
    if (active === undefined || manager === undefined) return send();
    let called = false;
    let sent: Promise<T> | undefined;
    const once = (): Promise<T> => {
      called = true;
      sent ??= send();
      return sent;
    };
    try {
      manager.with(active, once);
    } catch (error) {
      // `send` itself threw: that is the attempt's failure, not the telemetry's.
      if (called && sent === undefined) throw error;
      telemetryFailed("make a span active", error);
    }
    return sent ?? send();
  }

  /** The name of the call's metric set with `key`'s attributes. */
  #metricKey(key: string): string {
    return `${this.#model}\u0000${key}`;
  }

  /** The call's metric attributes and `more`'s, as the shared set named `key` (a `#metricKey`). */
  #metricSet(key: string, more: () => Attributes): Attributes {
    return this.#target.sets.get(key, () => ({ ...this.#metric, ...more() }));
  }

  /** Adds `value` to `tally` under the call's metric set with `key`'s attributes (`more`). */
  #count(tally: Tally, value: number, key: string, more: () => Attributes): void {
    const name = this.#metricKey(key);
    tally.add(value, name, this.#metricSet(name, more));
  }

  /** An attempt ended: its request ID is the call's latest, and it is counted. */
  attempted(requestId: string | undefined, status: number | undefined, type?: string): void {
    if (requestId !== undefined) this.#requestId = bounded(requestId);
    const instruments = this.#instruments;
    if (instruments === undefined) return;
    this.#count(instruments.attempts, 1, `attempt\u0000${status}\u0000${type}`, () => ({
      ...(status !== undefined ? { [ATTR.status]: status } : {}),
      ...(type !== undefined ? { [ATTR.errorType]: type } : {}),
    }));
  }

  /** An attempt failed with a retryable error: the call waits `delayMs`, then sends it again. */
  retrying(error: unknown, delayMs: number): void {
    const type = errorType(error);
    const status = statusOf(error);
    const retryAfter = (error as { retryAfterMs?: unknown } | null | undefined)?.retryAfterMs;
    this.#event(EVENTS.retry.name, {
      "inference_service.retry.delay_ms": Math.round(delayMs),
      "error.type": type,
      ...(status !== undefined ? { "http.response.status_code": status } : {}),
      ...(typeof retryAfter === "number"
        ? { "inference_service.retry.retry_after_ms": retryAfter }
        : {}),
      "http.request.resend_count": this.#attempts,
    });
    const instruments = this.#instruments;
    if (instruments === undefined) return;
    this.#count(instruments.retries, 1, `retry\u0000${type}`, () => ({ [ATTR.errorType]: type }));
  }

  /** Adds an event to the call's span, if it has one. */
  #event(name: string, attributes: Attributes): void {
    try {
      this.#span?.addEvent(name, attributes);
    } catch (error) {
      telemetryFailed("set a span's attributes, events or status", error);
    }
  }

  // ---- what the meter saw (MeterObserver) ------------------------------------------------

  waited(ms: number): void {
    this.#event(EVENTS.limiterWait.name, { "inference_service.wait_ms": ms });
  }

  reserved(amount: number, currency: string | undefined): void {
    this.#event(EVENTS.reserved.name, {
      "inference_service.budget.amount": amount,
      ...(currency !== undefined ? { "inference_service.currency": bounded(currency) } : {}),
    });
  }

  refused(error: unknown): void {
    if (!BudgetExceededError.isInstance(error)) return;
    this.#settlement = settledAs(this.#settlement, "refused");
    this.#event(EVENTS.refused.name, {
      ...(error.requested !== undefined
        ? { "inference_service.budget.amount": error.requested }
        : {}),
      "inference_service.budget.limit": error.budget,
      "inference_service.budget.spent": error.spent,
      "inference_service.budget.held": error.reserved,
      ...(error.currency !== undefined
        ? { "inference_service.currency": bounded(error.currency) }
        : {}),
    });
  }

  settled(how: Settlement, cost: number | undefined, currency: string | undefined): void {
    this.#settlement = settledAs(this.#settlement, how);
    if (cost === undefined) return;
    this.#cost = (this.#cost ?? 0) + cost;
    this.#currency ??= currency === undefined ? undefined : bounded(currency);
  }

  // ---- the answer --------------------------------------------------------------------------

  /** A JSON answer passed its checks: what it says of itself (and, when asked, its content). */
  answered(data: unknown): void {
    try {
      this.#facts.read(data);
      this.#reply?.read(data, false);
    } catch (error) {
      telemetryFailed("read the answer for its span", error);
    }
  }

  /** A stream's first event arrived. */
  opened(): void {
    this.#timeToFirstChunk = (performance.now() - this.#start) / 1000;
  }

  /** One event of the stream, as it is handed out. */
  chunk(data: unknown): void {
    try {
      this.#facts.read(data);
      this.#reply?.read(data, true);
    } catch (error) {
      telemetryFailed("read the answer for its span", error);
    }
  }

  /**
   * The request ended, with `error` if it failed (`how` says how a stream ended): the span gets
   * what the answer said, the cost and the error, and ends; the metrics are recorded. Only the
   * first end counts.
   */
  end(error?: unknown, how?: StreamEnd): void {
    if (this.#state !== "begun") return;
    this.#state = "ended";
    const seconds = (performance.now() - this.#start) / 1000;
    const failed = error !== undefined || how === "failed" || how === "aborted";
    const outcome: Attributes = {};
    let type: string | undefined;
    try {
      if (failed && this.#requestId === undefined && InferenceServiceError.isInstance(error)) {
        const { requestId } = error;
        if (typeof requestId === "string") this.#requestId = bounded(requestId);
      }
      type = failed ? addError(outcome, error ?? new Error()) : undefined;
    } catch (failure) {
      // Whatever a callback threw can end a call, and reading it may throw too.
      telemetryFailed("read what the call failed with", failure);
      type = "_OTHER";
      outcome[ATTR.errorType] = type;
    }
    const span = this.#span;
    if (span !== undefined) {
      try {
        const attributes: Attributes = { ...outcome, [ATTR.attempts]: this.#attempts };
        this.#facts.addTo(attributes);
        if (this.#requestId !== undefined) attributes[ATTR.requestId] = this.#requestId;
        if (this.#timeToFirstChunk !== undefined) {
          attributes[ATTR.timeToFirstChunk] = this.#timeToFirstChunk;
        }
        if (how !== undefined) attributes[ATTR.streamEnd] = how;
        if (this.#cost !== undefined) attributes[ATTR.cost] = this.#cost;
        if (this.#settlement !== undefined) attributes[ATTR.settlement] = this.#settlement;
        if (this.#currency !== undefined) attributes[ATTR.currency] = this.#currency;
        const output = this.#reply?.json();
        if (output !== undefined) attributes[ATTR.outputMessages] = output;
        span.setAttributes(attributes);
        if (type !== undefined) span.setStatus(errorStatus(error, this.#target.captureContent));
      } catch (failure) {
        telemetryFailed("set a span's attributes, events or status", failure);
      }
      endSpan(span);
    }
    try {
      this.#record(seconds, type);
    } catch (failure) {
      telemetryFailed("record a metric", failure);
    }
  }

  #record(seconds: number, type: string | undefined): void {
    const instruments = this.#instruments;
    if (instruments === undefined) return;
    const facts = this.#facts;
    const model = facts.model;
    const answered = (): Attributes => (model === undefined ? {} : { [ATTR.responseModel]: model });
    const key = this.#metricKey(`answer\u0000${model}`);
    const duration =
      type === undefined
        ? this.#metricSet(key, answered)
        : this.#metricSet(`${key}\u0000${type}`, () => ({ ...answered(), [ATTR.errorType]: type }));
    instruments.duration.record(seconds, duration);
    if (facts.inputTokens !== undefined) {
      const set = this.#metricSet(`${key}\u0000input`, () => ({
        ...answered(),
        [ATTR.tokenType]: "input",
      }));
      instruments.tokens.record(facts.inputTokens, set);
    }
    if (facts.outputTokens !== undefined) {
      const set = this.#metricSet(`${key}\u0000output`, () => ({
        ...answered(),
        [ATTR.tokenType]: "output",
      }));
      instruments.tokens.record(facts.outputTokens, set);
    }
    if (this.#timeToFirstChunk !== undefined) {
      instruments.timeToFirstChunk.record(this.#timeToFirstChunk, this.#metricSet(key, answered));
    }
    if (this.#cost !== undefined) {
      const currency = this.#currency;
      const settlement = this.#settlement;
      this.#count(instruments.cost, this.#cost, `cost\u0000${currency}\u0000${settlement}`, () => ({
        ...(currency === undefined ? {} : { [ATTR.currency]: currency }),
        ...(settlement === undefined ? {} : { [ATTR.settlement]: settlement }),
      }));
    }
  }
}
