/**
 * @module Mid-stream failures: the one pass-through every model stream is read through, which
 * turns a failure while reading (an `{"error": …}` event, a cut or stalled connection) into a
 * typed error that keeps the output received so far and the request ID, and opens a stream
 * inside a retried attempt.
 */

import { asServiceError, type FailureContext, toServiceError } from "../errors/mapper.js";
import { carriesAnswer, type RawChoice, textOfChoice } from "./answer.js";
import { sawDoneEvent } from "./body.js";

/**
 * Passes a stream through unchanged. A plain iterator, not an async generator: it sits on every
 * chunk of every stream. A stream that ends without any choice, or whose choices never carry
 * content, tool calls, reasoning or a finish reason ({@link carriesAnswer}), is a
 * `MalformedResponseError`, as a 200 without a usable choice is on invoke
 * (docs/service-contract.md#errors, rule 4). One that ends with neither a finish reason nor
 * `[DONE]` (`sawDone` says false) was cut, however cleanly its connection closed: a
 * `ServiceConnectionError` keeping what arrived, as a cut JSON body is.
 */
export function tagStream<T extends object>(
  stream: AsyncIterable<T>,
  headers: Headers,
  ctx: FailureContext,
  status = 200,
  sawDone: () => boolean | undefined = () => undefined,
): AsyncIterableIterator<T> {
  const source = stream[Symbol.asyncIterator]();
  const streamCtx: FailureContext = { ...ctx, responseHeaders: headers };
  let partialOutput = "";
  let choices = false;
  let answered = false;
  let finished = false;
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      let result: IteratorResult<T>;
      try {
        result = await source.next();
      } catch (error) {
        throw asServiceError(error, { ...streamCtx, partialOutput, midStream: true });
      }
      if (!result.done) {
        const choice = (result.value as { choices?: RawChoice[] }).choices?.[0];
        if (choice !== undefined) {
          choices = true;
          answered ||= carriesAnswer(choice, "delta");
          finished ||= typeof choice.finish_reason === "string";
          partialOutput += textOfChoice(choice, "delta") ?? "";
        }
      } else if (!answered) {
        const detail = choices
          ? "the stream's choices carried no content, tool calls, reasoning or finish reason"
          : "the stream ended without any choice";
        throw toServiceError({ kind: "malformed", detail, headers, status }, streamCtx);
      } else if (!finished && sawDone() === false) {
        const cause = new Error("the event stream ended without a finish reason or [DONE]");
        throw toServiceError(
          { kind: "network", cause, afterResponse: true, headers },
          { ...streamCtx, partialOutput, midStream: true },
        );
      }
      return result;
    },
    async return(value?: unknown) {
      await source.return?.(value);
      return { done: true, value: undefined };
    },
  };
}

/**
 * A stream whose first event has arrived: call it inside a retried attempt, so that a stream that
 * fails, stalls or ends before its first event is retried like a failed request (nothing has been
 * handed out yet); later events are never retried. A stream with no event at all is the empty
 * response of `status` (a Pending endpoint on the dedicated surface, docs/service-contract.md#endpoint-states).
 */
export async function openStream<T extends object>(
  stream: AsyncIterable<T>,
  response: Pick<Response, "headers" | "status">,
  ctx: FailureContext,
): Promise<AsyncIterableIterator<T>> {
  const { headers, status } = response;
  const source = stream[Symbol.asyncIterator]();
  let first: IteratorResult<T>;
  try {
    first = await source.next();
  } catch (error) {
    throw asServiceError(error, { ...ctx, responseHeaders: headers });
  }
  if (first.done) throw toServiceError({ kind: "empty", status, headers }, ctx);
  let head: IteratorResult<T> | undefined = first;
  const rest: AsyncIterableIterator<T> = {
    [Symbol.asyncIterator]() {
      return this;
    },
    next() {
      const next = head;
      head = undefined;
      return next ? Promise.resolve(next) : source.next();
    },
    async return(value?: unknown) {
      head = undefined;
      return (await source.return?.(value)) ?? { done: true, value: undefined };
    },
  };
  return tagStream(rest, headers, ctx, status, () => sawDoneEvent(response));
}
