/**
 * @module The checks of a Responses API answer: a whole `response` (non-empty `output`, a
 * `failed` one as its typed error) and its stream's events ({@link ResponsesWatch}: the output
 * text so far, a `response.failed` or `error` event as its typed error, the terminal event that
 * says it is complete — the gateway relays these streams without `[DONE]`).
 */
import type { OpenAI } from "openai";
import { type FailureContext, toServiceError } from "../../errors/mapper.js";
import { failure, isFields } from "../../transport/answer.js";
import type { StreamWatch } from "../../transport/stream.js";

export type Response = OpenAI.Responses.Response;
export type ResponseEvent = OpenAI.Responses.ResponseStreamEvent;

/**
 * The status a Responses API error code implies, for an error that arrives without one (in a
 * `failed` response or an event): a rate limit is a 429, the service's own failure a passing
 * 500, anything else (`invalid_prompt`, `invalid_image`, …) a refusal of the request, 400.
 */
function impliedStatus(code: unknown): number {
  if (code === "rate_limit_exceeded") return 429;
  if (code === "server_error" || code === "vector_store_timeout" || code == null) return 500;
  return 400;
}

/**
 * A Responses API error object as the payload the mapper types, with the status it implies; a
 * failure that carries no error says the response failed.
 */
export function errorPayload(error: unknown): { error: Record<string, unknown> } {
  const fields = isFields(error) ? error : { message: String(error ?? "the response failed") };
  return { error: { ...fields, status: impliedStatus(fields.code) } };
}

/**
 * A whole response as the service must answer it: an object with an `output` array; a `failed`
 * one is its error (typed by its code), and one with nothing in its output that did not stop
 * early (`incomplete`) is a `MalformedResponseError`, never an empty reply. Returns `data`.
 */
export function checkResponse(data: unknown, headers: Headers, ctx: FailureContext): Response {
  const refuse = failure(data, headers, ctx);
  if (!isFields(data) || !Array.isArray(data.output)) {
    return refuse("the JSON body is not a response with an `output` array");
  }
  if (data.status === "failed" || isFields(data.error)) {
    throw toServiceError(
      { kind: "stream-error", payload: errorPayload(data.error), headers },
      { ...ctx, responseHeaders: headers },
    );
  }
  if (data.output.length === 0 && data.status !== "incomplete") {
    return refuse("the response's `output` is empty");
  }
  return data as unknown as Response;
}

/** Events that carry output text, by where the text is. */
const TEXT_EVENTS = new Set([
  "response.output_text.delta",
  "response.reasoning_summary_text.delta",
  "response.reasoning_text.delta",
  "response.function_call_arguments.delta",
  "response.refusal.delta",
]);

/**
 * The watch of a Responses API stream: the output text so far (text, reasoning summaries,
 * arguments), a `response.failed` or `error` event as the error it holds, and whether the
 * stream reached its terminal event (`response.completed` or `response.incomplete`): one that
 * ends before it was cut, since these streams carry no `[DONE]`.
 */
export class ResponsesWatch implements StreamWatch<ResponseEvent> {
  partialOutput = "";
  finished = false;
  #answered = false;
  #events = false;

  see(event: ResponseEvent): unknown {
    this.#events = true;
    // An event of a type not known here (or none) matches no branch.
    const { type } = event;
    if (TEXT_EVENTS.has(type)) {
      const delta = (event as { delta?: unknown }).delta;
      if (typeof delta === "string") this.partialOutput += delta;
      this.#answered = true;
    } else if (type === "response.output_item.added") this.#answered = true;
    else if (type === "response.completed" || type === "response.incomplete") {
      this.finished = true;
      const output = (event as { response?: { output?: unknown } }).response?.output;
      this.#answered ||= Array.isArray(output) && output.length > 0;
      this.#answered ||= type === "response.incomplete";
    } else if (type === "response.failed") {
      return errorPayload((event as { response?: { error?: unknown } }).response?.error);
    } else if (type === "error") return errorPayload(event);
    return undefined;
  }

  unanswered(): string | undefined {
    if (this.#answered) return undefined;
    return this.#events
      ? "the stream's events carried no output item, text or complete response"
      : "the stream ended without any event";
  }
}
