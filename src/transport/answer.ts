/**
 * @module The checks of a 2xx answer both models, the embeddings, the reranker and `diagnose` make: a chat completion must have
 * a non-empty `choices` array (docs/service-contract.md#errors, rule 4); a `/completions` answer, whose body docs/service-contract.md#dedicated-endpoints leaves "not
 * shown", is read tolerantly, and so are `/embeddings` and `/rerank` answers, which the contract does not show.
 */
import type { Generation } from "@langchain/core/outputs";
import {
  errorObjectFailure,
  type FailureContext,
  headerRequestId,
  toServiceError,
} from "../errors/mapper.js";
import { tokenUsageFromWire } from "../spend/usage.js";
import { decodeFloat32 } from "../utils/float32.js";
import { withoutUndefined } from "../utils/without_undefined.js";

/** One entry of `choices`, in the completions, chat or chat-stream shape. */
export interface RawChoice {
  text?: unknown;
  message?: { content?: unknown };
  delta?: { content?: unknown };
  finish_reason?: string | null;
}

/**
 * A chat completion as the hosted surface must answer it: with a non-empty `choices` array
 * (docs/service-contract.md#errors, rule 4) each of which carries an answer
 * ({@link carriesAnswer}); anything else is a `MalformedResponseError`, never an empty reply.
 * Returns `data` unchanged.
 */
export function checkChatCompletion<T>(data: T, headers: Headers, ctx: FailureContext): T {
  const choices = (data as { choices?: unknown } | null | undefined)?.choices;
  const some = Array.isArray(choices) && choices.length > 0;
  if (some && choices.every((choice) => carriesAnswer(choice, "message"))) return data;
  throwErrorObject(data, 200, headers, ctx);
  throw toServiceError(
    {
      kind: "malformed",
      detail: some
        ? "a choice has no message with content, tool calls, reasoning or a finish reason"
        : "the JSON body has no non-empty `choices` array",
      headers,
      status: 200,
    },
    ctx,
  );
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
function throwErrorObject(data: unknown, status: number, headers: Headers, ctx: FailureContext) {
  const failure = errorObjectFailure(data, status, headers);
  if (failure) throw toServiceError(failure, ctx);
}

/**
 * How a reader of a 2xx JSON answer refuses it: the `{"error": …}` object it carries as that
 * error, else a `MalformedResponseError` saying `detail`, with the answer's request ID.
 */
function failure(data: unknown, headers: Headers, ctx: FailureContext) {
  return (detail: string): never => {
    throwErrorObject(data, 200, headers, ctx);
    throw toServiceError({ kind: "malformed", detail, headers, status: 200 }, ctx);
  };
}

type Fields = Record<string, unknown>;

function isFields(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The chunks a stream would have carried for a whole completion (`chat.completion` or
 * `text_completion`), for a gateway that ignores `stream: true` and answers with the JSON of a
 * non-streamed call: one chunk per choice — a chat message becomes its `delta`, with its content,
 * tool calls (given their `index`), reasoning and finish reason — then a chunk of its usage.
 * Undefined when `data` has no `choices` array.
 */
export function completionAsChunks(data: unknown): Fields[] | undefined {
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

/**
 * The generations of one non-streamed answer, each with its finish reason, the request ID
 * (`X-Gateway-Request-Id`, docs/service-contract.md#errors, rule 5) and the answer's usage. An empty body is the empty answer of
 * a Pending endpoint (docs/service-contract.md#endpoint-states); a body without readable choices is a `MalformedResponseError`.
 */
export function parseCompletion(
  data: unknown,
  response: Response,
  ctx: FailureContext,
): Generation[] {
  // The SDK turns an empty JSON body into `undefined`: the empty answer of a Pending endpoint (docs/service-contract.md#endpoint-states).
  if (data === undefined || data === "") {
    throw toServiceError(
      { kind: "empty", status: response.status, headers: response.headers },
      ctx,
    );
  }
  const choices = (data as { choices?: unknown } | null)?.choices;
  const texts = Array.isArray(choices)
    ? choices.map((choice: RawChoice) => textOfChoice(choice, "message"))
    : [];
  const unread = texts.length === 0 || texts.some((text) => text === undefined);
  // An empty text counts only with a finish reason, as in a stream (`carriesAnswer`).
  if (unread || !(choices as unknown[]).every((choice) => carriesAnswer(choice, "message"))) {
    throwErrorObject(data, response.status, response.headers, ctx);
    // The mapper quotes the start of the body, redacting secrets before it cuts.
    throw toServiceError(
      {
        kind: "malformed",
        detail: unread
          ? "the JSON body has neither choices[].text nor choices[].message.content"
          : "a choice has an empty text and no finish reason",
        body: data,
        headers: response.headers,
        status: response.status,
      },
      ctx,
    );
  }
  const requestId = headerRequestId(response.headers);
  const tokenUsage = tokenUsageFromWire((data as { usage?: unknown }).usage);
  return (choices as RawChoice[]).map((choice, i) => ({
    text: texts[i] ?? "",
    generationInfo: withoutUndefined({
      finishReason: choice.finish_reason ?? undefined,
      requestId,
      tokenUsage,
    }),
  }));
}

/** One item of an embeddings answer's `data`, as OpenAI-style servers write it. */
interface RawEmbedding {
  index?: unknown;
  embedding?: unknown;
}

/** The length every vector of an embeddings answer must have, and where it comes from. */
export interface VectorLength {
  length: number;
  /** Ends "… where" in the error: "`dimensions` asked for", "the call's earlier vectors have". */
  source: string;
}

/**
 * The vectors of a 2xx `/embeddings` answer, placed by each item's `index` — never by the order
 * the items arrive in, which a server is free to change. Each `embedding` may be an array of
 * numbers or a base64 string of float32 little-endian values, whatever `encoding_format` asked,
 * and either is checked the same way: at least one number, every one finite. Items without any
 * `index` are taken in their order (a server that leaves the field out); anything else — not
 * `count` items, an index missing, repeated or out of range, a vector that is not numbers, empty
 * or holds NaN or ±Infinity, vectors of different lengths or not of `expected.length` (the
 * `dimensions` asked for, the length of the call's earlier batches) — is a
 * `MalformedResponseError`, and an `{"error": …}` body is that error.
 */
export function readEmbeddings(
  data: unknown,
  headers: Headers,
  ctx: FailureContext,
  count: number,
  expected?: VectorLength,
): number[][] {
  const items = (data as { data?: unknown } | null | undefined)?.data;
  const fail = failure(data, headers, ctx);
  if (!Array.isArray(items)) return fail("the JSON body has no `data` array of embeddings");
  if (items.length !== count) {
    return fail(`\`data\` holds ${items.length} embeddings for ${count} inputs`);
  }
  const indexed = items.some((item: RawEmbedding) => item?.index !== undefined);
  const vectors = new Array<number[] | undefined>(count);
  let first: number | undefined;
  for (const [position, item] of (items as RawEmbedding[]).entries()) {
    const index = indexed ? item?.index : position;
    if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= count) {
      fail(`\`data[${position}].index\` is not a position of the inputs (0 to ${count - 1})`);
    }
    if (vectors[index as number] !== undefined) {
      fail(`two items of \`data\` have the index ${index as number}`);
    }
    const vector = vectorOf(item?.embedding);
    if (typeof vector === "string") return fail(`\`data[${position}].embedding\` ${vector}`);
    if (expected !== undefined && vector.length !== expected.length) {
      fail(
        `\`data[${position}].embedding\` has ${vector.length} dimensions where ${expected.source} ${expected.length}`,
      );
    }
    if (first !== undefined && vector.length !== first) {
      fail("the embeddings are not all of one length");
    }
    first = vector.length;
    vectors[index as number] = vector;
  }
  return vectors as number[][];
}

/** The numbers of one `embedding`, in either encoding, or what is wrong with it. */
function vectorOf(embedding: unknown): number[] | string {
  const numbers = typeof embedding === "string" ? decodeFloat32(embedding) : embedding;
  if (!Array.isArray(numbers) || !numbers.every((x) => typeof x === "number")) {
    return "is neither numbers nor base64 float32";
  }
  if (numbers.length === 0) return "is empty";
  if (!numbers.every(Number.isFinite)) return "holds NaN or ±Infinity";
  return numbers as number[];
}

/** One result of a rerank answer: a document's position among those sent, and its relevance. */
export interface RerankResult {
  index: number;
  relevanceScore: number;
}

/**
 * The results of a 2xx `/rerank` answer (the Jina and Cohere shape), in the service's order —
 * best first; the order is the service's to decide and is kept. `results` must hold exactly
 * `expected` items (`top_n` of the `count` documents, or one per document), each with an `index`
 * that is a position of the documents, no index twice, and a `relevance_score` that is a finite
 * number; anything else is a `MalformedResponseError`, never a document dropped or placed twice,
 * and an `{"error": …}` body is that error.
 */
export function readRerank(
  data: unknown,
  headers: Headers,
  ctx: FailureContext,
  count: number,
  expected: number,
): RerankResult[] {
  const items = (data as { results?: unknown } | null | undefined)?.results;
  const fail = failure(data, headers, ctx);
  if (!Array.isArray(items)) return fail("the JSON body has no `results` array");
  if (items.length !== expected) {
    const asked =
      expected === count ? `${count} documents` : `top_n ${expected} of ${count} documents`;
    return fail(`\`results\` holds ${items.length} results for ${asked}`);
  }
  const seen = new Set<number>();
  return items.map((item: unknown, position) => {
    const { index, relevance_score: score } = isFields(item) ? item : {};
    if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= count) {
      fail(`\`results[${position}].index\` is not a position of the documents (0 to ${count - 1})`);
    }
    if (seen.has(index as number)) fail(`two results have the index ${index as number}`);
    seen.add(index as number);
    if (typeof score !== "number" || !Number.isFinite(score)) {
      fail(`\`results[${position}].relevance_score\` is not a finite number`);
    }
    return { index: index as number, relevanceScore: score as number };
  });
}
