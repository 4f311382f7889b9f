/**
 * @module From the Responses API's answers to LangChain's results, by `@langchain/openai`'s public
 * converters, with what they lose kept: the reply's output items whole in
 * `response_metadata.output` and its reasoning item in `additional_kwargs.reasoning` — from a
 * stream too, where the item with its `encrypted_content` arrives only when it is done
 * (`response.output_item.done`, or the terminal event) — plus the request ID, the model and the
 * usage read by the package's readers.
 */
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { ChatModelStreamEvent } from "@langchain/core/language_models/event";
import { type AIMessage, AIMessageChunk } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import {
  convertOpenAIResponsesStream,
  convertResponsesDeltaToChatGenerationChunk,
  convertResponsesMessageToAIMessage,
} from "@langchain/openai";
import { LS_PROVIDER } from "../../constants.js";
import { abortError } from "../../utils/sleep.js";
import type { Response, ResponseEvent } from "./answer.js";
import { usageMetadataOf } from "./usage.js";

type Fields = Record<string, unknown>;

/** What the messages of one response carry besides the converters' fields. */
export interface ResponsesMeta {
  /** From the `X-Gateway-Request-Id` header. */
  requestId?: string;
  /** The model that answered, as the response names it. */
  model?: string;
}

function metaFields(meta: ResponsesMeta): Fields {
  return addMetaFields({}, meta, meta.model);
}

/** Writes {@link metaFields} into `into`, `model` for the meta's own: no copies, on every answer. */
function addMetaFields(into: Fields, meta: ResponsesMeta, model: string | undefined): Fields {
  into.model_provider = LS_PROVIDER;
  if (model !== undefined) into.model = model;
  if (meta.requestId !== undefined) into.requestId = meta.requestId;
  return into;
}

/** The finish reason of a response, as Chat Completions names it. */
function finishReason(response: Partial<Response>, calls: number): string {
  if (response.status === "incomplete") {
    return response.incomplete_details?.reason === "content_filter" ? "content_filter" : "length";
  }
  return calls > 0 ? "tool_calls" : "stop";
}

/** The text of a reply's message items. */
function outputText(output: readonly Fields[]): string {
  let text = "";
  for (const item of output) {
    if (item.type !== "message" || !Array.isArray(item.content)) continue;
    for (const part of item.content as Fields[])
      if (typeof part?.text === "string") text += part.text;
  }
  return text;
}

/**
 * `additional_kwargs.parsed` of an answer to a json_schema format, where `ChatOpenAI`'s structured
 * output reads it (the content of a Responses message is a list of blocks, not the JSON text).
 */
function parsedOf(structured: boolean, output: readonly Fields[]): Fields {
  if (!structured) return {};
  try {
    return { parsed: JSON.parse(outputText(output)) };
  } catch {
    return {};
  }
}

/** The last reasoning item of a reply's output, where `ChatOpenAI` keeps it. */
function lastReasoning(output: readonly Fields[]): Fields | undefined {
  return output.findLast((item) => item.type === "reasoning");
}

/**
 * `message.text`, read from its content when the text parts are all it can hold: the getter
 * translates the whole message into standard blocks (sorting them by output item) only to keep
 * their text, in content order either way. Tool outputs may add text blocks: then the getter.
 */
function textOf(message: AIMessage): string {
  const content = message.content;
  if (typeof content === "string" || message.additional_kwargs.tool_outputs !== undefined) {
    return message.text;
  }
  let text = "";
  for (const part of content) {
    if (typeof part !== "object" || part === null || part.type !== "text") continue;
    if (typeof part.text !== "string") return message.text;
    text += part.text;
  }
  return text;
}

/**
 * A whole response as LangChain's result: `@langchain/openai`'s message (text and reasoning
 * summary blocks, tool calls, the output items), with the usage read by the package's readers
 * and the request ID.
 */
export function toChatResult(
  response: Response,
  meta: ResponsesMeta,
  structured: boolean,
): ChatResult {
  const message = convertResponsesMessageToAIMessage(response);
  const usage = usageMetadataOf(response.usage);
  const finish_reason = finishReason(response, message.tool_calls?.length ?? 0);
  // The converter's own message, completed in place: its metadata objects are the ones its
  // serialised form (`lc_kwargs`) holds, and only the usage is replaced in both. A second
  // message built from copies of its fields costs more than the rest of this reading.
  addMetaFields(message.response_metadata, meta, meta.model ?? response.model).finish_reason =
    finish_reason;
  if (structured) {
    Object.assign(
      message.additional_kwargs,
      parsedOf(structured, response.output as unknown as Fields[]),
    );
  }
  message.usage_metadata = usage;
  message.lc_kwargs.usage_metadata = usage;
  return {
    generations: [
      {
        text: textOf(message),
        message,
        generationInfo: { finish_reason },
      },
    ],
    llmOutput: usage
      ? {
          tokenUsage: {
            promptTokens: usage.input_tokens,
            completionTokens: usage.output_tokens,
            totalTokens: usage.total_tokens,
          },
        }
      : {},
  };
}

/**
 * What a stream's events add up to besides their deltas: the output items as they are done, in
 * their places, and whether any delta carried the answer (a gateway that answered with a whole
 * response sends only the terminal event).
 */
export class StreamedOutput {
  readonly #done = new Map<number, Fields>();
  sawDeltas = false;

  /** Reads one event; keeps a finished item (a reasoning item's `encrypted_content` comes with it). */
  read(event: ResponseEvent): void {
    const { type } = event;
    if (type === "response.output_item.done") {
      this.#done.set(event.output_index, event.item as unknown as Fields);
    } else if (
      type === "response.output_text.delta" ||
      type === "response.output_item.added" ||
      type === "response.reasoning_summary_text.delta"
    ) {
      this.sawDeltas = true;
    }
  }

  /**
   * The reply's output items: the terminal event's, each reasoning item completed by the one
   * that was done in its place when the terminal event left out its `encrypted_content`; the
   * done items, in order, when the terminal event lists none.
   */
  items(final: Partial<Response> | undefined): Fields[] {
    const listed = (final?.output ?? []) as unknown as Fields[];
    const done = [...this.#done.entries()].sort(([a], [b]) => a - b).map(([, item]) => item);
    if (listed.length === 0) return done;
    return listed.map((item, index) => {
      const finished = this.#done.get(index);
      if (item.type !== "reasoning" || typeof item.encrypted_content === "string") return item;
      return finished?.type === "reasoning" && finished.id === item.id ? finished : item;
    });
  }
}

/**
 * The chunk that ends a stream: the reply's output items, its reasoning item, the usage and the
 * finish reason; with the text and tool calls too when no delta carried them.
 */
function finalChunk(
  event: ResponseEvent,
  output: StreamedOutput,
  structured: boolean,
  info: Fields,
): ChatGenerationChunk {
  const response = (event as { response?: Partial<Response> }).response ?? {};
  const items = output.items(response);
  const reasoning = lastReasoning(items);
  const usage = usageMetadataOf(response.usage);
  const whole = output.sawDeltas
    ? undefined
    : convertResponsesMessageToAIMessage({ ...response, output: items } as unknown as Response);
  const calls = whole?.tool_calls ?? [];
  const called = calls.length > 0 || items.some((item) => item.type === "function_call");
  const message = new AIMessageChunk({
    id: response.id,
    content: whole ? (whole.content as AIMessageChunk["content"]) : [],
    tool_call_chunks: calls.map((call, index) => ({
      type: "tool_call_chunk",
      id: call.id,
      name: call.name,
      args: JSON.stringify(call.args),
      index,
    })),
    additional_kwargs: { ...(reasoning ? { reasoning } : {}), ...parsedOf(structured, items) },
    response_metadata: {
      id: response.id,
      status: response.status,
      ...(response.incomplete_details ? { incomplete_details: response.incomplete_details } : {}),
      output: items,
      model_provider: LS_PROVIDER,
      // LangChain's merging of chunks keeps only the cache's reads and writes of the usage: the
      // split of the writes by lifetime is read again from the usage as it came.
      ...(response.usage ? { usage: response.usage } : {}),
    },
    ...(usage ? { usage_metadata: usage } : {}),
  });
  const finish_reason = finishReason(response, called ? 1 : 0);
  return new ChatGenerationChunk({
    message,
    text: whole?.text ?? "",
    generationInfo: { ...info, finish_reason },
  });
}

/**
 * One event as a LangChain chunk, by `@langchain/openai`'s converter (text, tool-call and
 * reasoning-summary deltas), without the reasoning it keeps in `additional_kwargs` — merged
 * across chunks it would lose the item's `encrypted_content`; the final chunk carries it whole.
 * A text delta, nearly every event of a reply, is built here directly: the same chunk, for less.
 */
function deltaChunk(event: ResponseEvent, info: Fields): ChatGenerationChunk | undefined {
  if (event.type === "response.output_text.delta") {
    const message = new AIMessageChunk({
      content: [{ type: "text", text: event.delta, index: event.content_index }],
      response_metadata: { model_provider: LS_PROVIDER },
    });
    return new ChatGenerationChunk({ message, text: event.delta, generationInfo: info });
  }
  const chunk = convertResponsesDeltaToChatGenerationChunk(event);
  if (!chunk) return undefined;
  const message = chunk.message as AIMessageChunk;
  const { reasoning: _reasoning, ...kwargs } = message.additional_kwargs;
  const content = message.content;
  const calls = message.tool_call_chunks ?? [];
  const empty =
    (Array.isArray(content) ? content.length === 0 : content === "") && calls.length === 0;
  if (empty && Object.keys(kwargs).length === 0) return undefined;
  message.additional_kwargs = kwargs;
  message.response_metadata = { model_provider: LS_PROVIDER };
  chunk.generationInfo = { ...chunk.generationInfo, ...info };
  return chunk;
}

/**
 * A stream's events as LangChain chunks: the deltas as they come, each token to
 * `handleLLMNewToken`, the request ID and model on the first chunk, and the final chunk with the
 * output items, the reasoning item whole, the usage and the finish reason. A stream stopped by
 * `signal` ends with the signal's own error.
 */
export async function* toGenerationChunks(
  events: AsyncIterable<ResponseEvent>,
  meta: ResponsesMeta,
  signal: AbortSignal | undefined,
  runManager: CallbackManagerForLLMRun | undefined,
  { promptIndex = 0, structured = false }: { promptIndex?: number; structured?: boolean } = {},
): AsyncGenerator<ChatGenerationChunk> {
  const output = new StreamedOutput();
  let first = true;
  for await (const event of events) {
    if (signal?.aborted) throw abortError(signal);
    output.read(event);
    if (event.type === "response.created" && meta.model === undefined)
      meta.model = event.response.model;
    const terminal = event.type === "response.completed" || event.type === "response.incomplete";
    const info = { prompt: promptIndex, completion: 0 };
    const chunk = terminal ? finalChunk(event, output, structured, info) : deltaChunk(event, info);
    if (!chunk) continue;
    if (first) {
      Object.assign(chunk.message.response_metadata, metaFields(meta));
      first = false;
    }
    yield chunk;
    await runManager?.handleLLMNewToken(
      chunk.text,
      { prompt: promptIndex, completion: 0 },
      undefined,
      undefined,
      undefined,
      { chunk },
    );
  }
  if (signal?.aborted) throw abortError(signal);
}

/**
 * LangChain's chat-model stream events of a stream, built by `@langchain/openai`'s converter,
 * with the output items (reasoning whole), the request ID and the model in the finished
 * message's metadata. Stops quietly at an abort: core raises it once the events stop.
 */
export async function* toChatModelEvents(
  events: AsyncIterable<ResponseEvent>,
  meta: ResponsesMeta,
  signal: AbortSignal | undefined,
  streamUsage: boolean | undefined,
): AsyncGenerator<ChatModelStreamEvent> {
  const output = new StreamedOutput();
  let final: Partial<Response> | undefined;
  async function* untilAborted(): AsyncGenerator<ResponseEvent> {
    for await (const event of events) {
      if (signal?.aborted) return;
      output.read(event);
      if (event.type === "response.created" && meta.model === undefined)
        meta.model = event.response.model;
      if (event.type === "response.completed" || event.type === "response.incomplete") {
        final = event.response;
      }
      yield event;
    }
  }
  const converted = convertOpenAIResponsesStream(untilAborted(), {
    streamUsage: streamUsage ?? true,
    provider: LS_PROVIDER,
  });
  for await (const event of converted) {
    if (event.event !== "message-finish") yield event;
    else {
      const responseMetadata = {
        ...event.responseMetadata,
        ...metaFields(meta),
        output: output.items(final),
      };
      yield { ...event, responseMetadata };
    }
  }
}
