/**
 * @module The attempt pipeline under every channel (`channel.ts`): what each request goes
 * through, attempt by attempt — wait for a slot in the caller's queue, reserve the attempt's
 * worst case and wait for the rate limiter (the meter), send it through the openai SDK and the
 * fetch layer, type whatever fails with the one error mapper, and settle or release what the
 * attempt reserved. Retries are the caller's: only errors marked `retryable` come round again.
 * When the request is traced, each attempt is a span of its own under the call's, and the
 * meter's reservations, waits and the retries' delays are told to the call's trace.
 */
import { asServiceError, type FailureContext, headerRequestId } from "../errors/mapper.js";
import type { CallMeter, MeteredAttempt } from "../spend/call_meter.js";
import type { RequestEstimate } from "../spend/estimate.js";
import type { AttemptTrace } from "../telemetry/attempt_trace.js";
import type { CallTrace } from "../telemetry/call_trace.js";
import { abortError } from "../utils/sleep.js";
import { type ATTEMPT_HEADER, AttemptLog, type AttemptRecord } from "./attempt_log.js";
import type { ServiceCaller } from "./retry.js";

/** A 2xx answer as the openai SDK's `withResponse()` gives it. */
export interface Answer<T> {
  data: T;
  response: Response;
}

/** What one request needs to be sent, retried, metered and typed. */
export interface RequestPlan<T, R> {
  /** Queues the request (`maxConcurrency`) and retries what is retryable. */
  caller: ServiceCaller;
  /** Retries for this request; the caller's own count when undefined. */
  maxRetries?: number;
  /** The caller's cancellation: stops the retries and every wait. */
  signal?: AbortSignal;
  /** What a failure is typed with (surface, model or Service-Name, secrets). */
  ctx: FailureContext;
  /** The call's meter (trackers and rate limiter); undefined when it has neither. */
  meter?: CallMeter;
  /** The request's worst case, for the meter; computed only when there is a meter. */
  estimate?: () => RequestEstimate;
  /** Whether the request asks for a stream (a JSON answer to it is then read as one). */
  stream?: boolean;
  /** The channel's attempts in flight, shared with its fetch layer (a log of its own when none). */
  attempts?: AttemptLog;
  /**
   * Sends the request once, with `attemptHeaders` among its headers: the fetch layer takes them
   * off and notes in the attempt's record the headers of the answer, so a failure the SDK raises
   * later keeps the request ID.
   */
  send: (attemptHeaders: { [ATTEMPT_HEADER]: string }) => Promise<Answer<T>>;
  /**
   * Turns a 2xx answer into the result: checks it, then settles `attempt` to the usage it reports
   * (or, for a stream, hands `attempt` to the meter that reads the stream). A throw here is a
   * failed attempt like any other.
   */
  read: (answer: Answer<T>, attempt: MeteredAttempt | undefined) => Promise<R> | R;
  /** Sees each attempt's typed error before it is judged for a retry. */
  onError?: (error: unknown) => void;
  /** The request's telemetry, begun; undefined when nothing is traced. */
  trace?: CallTrace;
}

/**
 * Sends a request through the pipeline and returns what `plan.read` makes of the first answer
 * that passes, or throws the typed error of the last attempt.
 *
 * @example
 * const completion = await sendRequest({
 *   caller, ctx, attempts, send: (headers) => client.chat.completions.create(body, { headers }).withResponse(),
 *   read: ({ data, response }) => checkChatCompletion(data, response.headers, ctx),
 * });
 */
export function sendRequest<T, R>(plan: RequestPlan<T, R>): Promise<R> {
  const { caller, meter, signal, ctx, trace, attempts = new AttemptLog() } = plan;
  const estimate = meter && plan.estimate?.();
  const onRetry = trace && ((error: unknown, delayMs: number) => trace.retrying(error, delayMs));
  return caller.callWithOptions({ maxRetries: plan.maxRetries, signal, onRetry }, async () => {
    // Out of the concurrency queue: reserve and wait for the limiter, then send.
    const attempt = meter && estimate ? await meter.begin(estimate, signal, trace) : undefined;
    const record: AttemptRecord = { stream: plan.stream === true };
    const attemptHeaders = attempts.open(record);
    let sent = false;
    let answered = false;
    let span: AttemptTrace | undefined;
    try {
      if (signal?.aborted) throw abortError(signal);
      sent = true;
      span = trace?.attempt();
      const answer = await (span
        ? span.run(() => plan.send(attemptHeaders))
        : plan.send(attemptHeaders));
      answered = true;
      const requestId = headerRequestId(answer.response.headers);
      attempt?.answered(requestId);
      const result = await plan.read(answer, attempt);
      span?.succeeded(answer.response.status, requestId);
      return result;
    } catch (error) {
      // Typed here, where the answer's headers (if one began) give the request ID of a failure
      // the SDK raises while reading it.
      const typed = asServiceError(error, { ...ctx, responseHeaders: record.headers });
      span?.failed(typed);
      plan.onError?.(typed);
      // Refused, or cancelled before it was sent: it cost nothing. Cancelled once sent: the
      // service may have answered and billed it — a stream as far as it went (its prompt), any
      // other answer in full (the worst case).
      if (!sent || !signal?.aborted) await attempt?.fail(typed);
      else if (answered && plan.stream) await attempt?.settle(undefined, 0);
      else await attempt?.cancelled();
      throw typed;
    } finally {
      attempts.close(attemptHeaders);
    }
  });
}
