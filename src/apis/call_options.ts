/**
 * @module What one call is given — the call options the package itself reads and the arguments of
 * `rerank`, `embedDocuments` and their siblings — checked where the call enters, as constructor
 * options are: a JavaScript caller's wrong type is a `ConfigurationError` that names the argument
 * and says what to pass, never a `TypeError` from deep inside a request. Options that LangChain
 * reads before the package sees the call (`timeout`, a stream's `callbacks`) are LangChain's to
 * check.
 */
import { z } from "zod";
import { abortSignal, callbacks, parseOptions } from "../config/options.js";
import { retryCount } from "./options.js";

/** The call options every model reads: objects pass with any other field (LangChain's own). */
export const modelCallOptions = {
  /** Stops the call: its request, its retries and every wait. */
  signal: abortSignal.nullish(),
  /** Retries for this call only. */
  maxRetries: retryCount.optional(),
  /** Handlers of this call's run. */
  callbacks: callbacks.optional(),
};

const CHAT_CALL = z.looseObject({
  ...modelCallOptions,
  /** Body fields sent with this call only. */
  modelKwargs: z
    .record(z.string(), z.unknown())
    .describe("an object of request body fields")
    .optional(),
  /** The openai SDK's request options of this call (headers are checked where they are sent). */
  options: z.looseObject({}).describe("an object of the openai SDK's request options").optional(),
});

const LLM_CALL = z.looseObject(modelCallOptions);

/** The fields {@link CHAT_CALL} checks. */
const CHAT_CALL_FIELDS = Object.keys(CHAT_CALL.shape);
const FIELDS_BUT_CALLBACKS = CHAT_CALL_FIELDS.filter((field) => field !== "callbacks");

/** Whether `value` is an object (as a `looseObject` takes one) with none of `fields` set. */
function unset(value: unknown, fields: readonly string[]): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  for (const field of fields)
    if ((value as Record<string, unknown>)[field] !== undefined) return false;
  return true;
}

/** `completionWithRetry(request, requestOptions)`: the SDK's request options, with the package's `maxRetries`. */
const COMPLETION_WITH_RETRY = z.object({
  request: z
    .looseObject({})
    .describe("an object: the chat completion request's body ({ model, messages, … })"),
  requestOptions: z
    .looseObject({
      signal: modelCallOptions.signal,
      maxRetries: modelCallOptions.maxRetries,
    })
    .optional(),
});

/** `getNumTokens(content)`: a message's content. */
const MESSAGE_CONTENT = z.object({
  content: z
    .union([z.string(), z.array(z.unknown())])
    .describe("a message's content: a string or an array of content blocks"),
});

const EMBED_DOCUMENTS = z.object({
  texts: z.array(z.string()).describe("an array of strings (the texts to embed)"),
});

const EMBED_QUERY = z.object({
  text: z.string().describe("a string (the text to embed)"),
});

/** LangChain's own fields of a model's constructor that the package reads as well. */
const LANGCHAIN_FIELDS = z.looseObject({ callbacks: modelCallOptions.callbacks });

/** The `callbacks` given to a chat model's or an LLM's constructor (LangChain's field, which the package reads too). */
export function checkLangChainFields(fields: unknown): void {
  parseOptions({ owner: "the model", schema: LANGCHAIN_FIELDS }, fields);
}

/**
 * The call options of one `ChatInferenceService` call; `run`, when given, holds the handlers of
 * its run, which stand in for the options' own `callbacks`.
 */
export function checkChatCallOptions(options: unknown, run?: { callbacks?: unknown }): void {
  // Most calls set none of the options checked, and then pass whatever else they hold: skipped
  // so (without a copy of the options), as every call enters here and a parse costs microseconds.
  if (run === undefined ? unset(options, CHAT_CALL_FIELDS) : noneSet(options, run)) return;
  const checked =
    run === undefined ? options : { ...(options as object), callbacks: run.callbacks };
  parseOptions({ owner: "a ChatInferenceService call", schema: CHAT_CALL }, checked);
}

/** {@link unset} for `options` whose `callbacks` are `run`'s. */
function noneSet(options: unknown, run: { callbacks?: unknown }): boolean {
  return run.callbacks === undefined && unset(options, FIELDS_BUT_CALLBACKS);
}

/** The call options of one `DedicatedEndpointLLM` call (its `serviceName` is checked where it is read). */
export function checkLLMCallOptions(options: unknown): void {
  parseOptions({ owner: "a DedicatedEndpointLLM call", schema: LLM_CALL }, options);
}

/** `completionWithRetry(request, requestOptions)`'s arguments. */
export function checkCompletionWithRetry(request: unknown, requestOptions: unknown): void {
  parseOptions(
    { owner: "completionWithRetry", schema: COMPLETION_WITH_RETRY },
    { request, requestOptions },
  );
}

/** `getNumTokens(content)`'s argument. */
export function checkMessageContent(content: unknown): void {
  parseOptions({ owner: "getNumTokens", schema: MESSAGE_CONTENT }, { content });
}

/** `embedDocuments(texts)`'s argument. */
export function checkEmbedDocuments(texts: unknown): void {
  parseOptions({ owner: "embedDocuments", schema: EMBED_DOCUMENTS }, { texts });
}

/** `embedQuery(text)`'s argument. */
export function checkEmbedQuery(text: unknown): void {
  parseOptions({ owner: "embedQuery", schema: EMBED_QUERY }, { text });
}
