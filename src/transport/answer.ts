/**
 * @module What the checks of every API's 2xx answer share (each API's own check is its folder's
 * `answer.ts`): whether a choice carries an answer, an `{"error": …}` body as that error, the text
 * of a choice in either shape, and a whole completion as the chunks a stream would have carried
 * (for a gateway that ignores `stream: true`).
 */
import { errorObjectFailure, type FailureContext, toServiceError } from "../errors/mapper.js";

/** One entry of `choices`, in the completions, chat or chat-stream shape. */
export interface RawChoice {
  text?: unknown;
  message?: { content?: unknown };
  delta?: { content?: unknown };
  finish_reason?: string | null;
}

/** A string or an array with something in it. */
const filled = (value: unknown) =>
  (typeof value === "string" || Array.isArray(value)) && value.length > 0;

/**
 * Whether one choice carries some of an answer: a chat `message` (or stream `delta`) with
 * content, tool calls, reasoning or a refusal, or one that ended with a finish reason (an answer
 * that is empty, e.g. cut by `max_tokens`); a completions choice with text or a finish reason. An
 * empty choice, a null message or one with nothing in it carries none: a gateway fault, not "".
 */
export function carriesAnswer(choice: unknown, field: "message" | "delta"): boolean {
  if (!isFields(choice)) return false;
  const finished = typeof choice.finish_reason === "string";
  if (typeof choice.text === "string") return finished || choice.text !== "";
  const part = choice[field];
  if (!isFields(part)) return false;
  return (
    finished ||
    filled(part.content) ||
    filled(part.tool_calls) ||
    filled(part.reasoning_content) ||
    filled(part.refusal) ||
    isFields(part.function_call)
  );
}

/** A 2xx body without choices that holds an `{"error": …}` object is that error. */
export function throwErrorObject(
  data: unknown,
  status: number,
  headers: Headers,
  ctx: FailureContext,
) {
  const failure = errorObjectFailure(data, status, headers);
  if (failure) throw toServiceError(failure, ctx);
}

/**
 * How a reader of a 2xx JSON answer refuses it: the `{"error": …}` object it carries as that
 * error, else a `MalformedResponseError` saying `detail`, with the answer's request ID.
 */
export function failure(data: unknown, headers: Headers, ctx: FailureContext) {
  return (detail: string): never => {
    throwErrorObject(data, 200, headers, ctx);
    throw toServiceError({ kind: "malformed", detail, headers, status: 200 }, ctx);
  };
}

type Fields = Record<string, unknown>;

export function isFields(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The chunks a stream would have carried for a whole completion (`chat.completion` or
 * `text_completion`), for a gateway that ignores `stream: true` and answers with the JSON of a
 * non-streamed call: one chunk per choice — a chat message becomes its `delta`, with its content,
 * tool calls (given their `index`), reasoning and finish reason — then a chunk of its usage.
 * A whole Responses API `response` is the event that ends its stream, `response.completed`.
 * Undefined when `data` has no `choices` array and is no `response`.
 */
export function completionAsChunks(data: unknown): Fields[] | undefined {
  if (isFields(data) && data.object === "response") {
    return [
      {
        type: `response.${data.status === "incomplete" ? "incomplete" : "completed"}`,
        response: data,
      },
    ];
  }
  if (!isFields(data) || !Array.isArray(data.choices)) return undefined;
  const { choices, usage, object, ...rest } = data;
  const chat = choices.some((choice) => isFields(choice) && "message" in choice);
  const chunkObject = chat ? "chat.completion.chunk" : (object ?? "text_completion");
  const chunks: Fields[] = choices.map((choice, index) => ({
    ...rest,
    object: chunkObject,
    choices: [chat ? asDeltaChoice(choice, index) : choice],
  }));
  if (usage != null) chunks.push({ ...rest, object: chunkObject, choices: [], usage });
  return chunks;
}

/** A chat choice with its `message` as the `delta` of a stream chunk. */
function asDeltaChoice(choice: unknown, index: number): unknown {
  if (!isFields(choice)) return choice;
  const { message, ...rest } = choice;
  const calls = isFields(message) ? message.tool_calls : undefined;
  const delta =
    isFields(message) && Array.isArray(calls)
      ? {
          ...message,
          tool_calls: calls.map((call, i) => (isFields(call) ? { index: i, ...call } : call)),
        }
      : message;
  return { index, ...rest, delta };
}

/** docs/service-contract.md#dedicated-endpoints shows no response body: the completions shape first, then the chat shape. */
export function textOfChoice(
  choice: RawChoice,
  chatField: "message" | "delta",
): string | undefined {
  if (typeof choice?.text === "string") return choice.text;
  const content = choice?.[chatField]?.content;
  return typeof content === "string" ? content : undefined;
}
