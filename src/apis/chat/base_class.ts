/**
 * @module Where `ChatInferenceService` leans on its base classes, every reliance in one list, and
 * the one workaround core forces on it (item 8). CI runs the suite against the lowest and newest
 * `@langchain/core` and `@langchain/openai` the ranges allow (`.ci/compat`), so a release that
 * changes one of these shows at once.
 *
 * The model sends every request itself, through its channel (`transport/channel.ts`), from its own
 * `_generate`, `_streamResponseChunks`, `_streamChatModelEvents` and `completionWithRetry`. It
 * relies on `@langchain/openai`'s `ChatOpenAICompletions` for:
 * 1. `invocationParams(options, { streaming })`: the request's fields from the model's and the
 *    call's options (tools, `tool_choice`, `response_format`, stop, sampling, stream options);
 * 2. `convertMessagesToCompletionsMessageParams`, `convertCompletionsMessageToBaseMessage` and
 *    `convertCompletionsDeltaToBaseMessageChunk` (public exports): messages both ways;
 * 3. `bindTools`, which binds its options through `this.withConfig` (`withStructuredOutput` is
 *    this package's own, `structured_output.ts`: it binds through `withConfig` too, and the
 *    request's fields still come from 1);
 * 4. its constructor, given a placeholder key: it keeps the key it is given on public fields;
 * 5. `toJSON`, adjusted in `serialisation.ts` (its `lc_secrets`, which name OPENAI_API_KEY, are
 *    left as they are: the adjusted output names this package's variable), and
 *    `lc_serializable_keys`, the list the constructor cuts `lc_kwargs` to (with this package's own
 *    options in place of those it owns);
 * 6. `_getCallOptionsForTracing` and `getLsParams`, whose output is adjusted (redacted headers,
 *    this package's provider name).
 *
 * And on `@langchain/core`'s `BaseChatModel` for:
 * 7. calling `_generate` and `_streamResponseChunks` with the call's run manager;
 * 8. calling `_streamChatModelEvents` from `_generateUncached` WITHOUT it, when a handler prefers
 *    chat-model stream events (LangGraph's messages streaming), but with the very call options
 *    object `_generateUncached` was given. This is the one workaround core forces on the model:
 *    the model's `_generateUncached` keeps the run by that object ({@link keepRun}), and
 *    `_streamChatModelEvents` looks it up ({@link runOf}), so the request is still reserved with
 *    the run's trackers before it is sent. Nothing rides inside the options: a `WeakMap` holds the
 *    run for as long as core holds the options, and no longer.
 */
import type { MeteredRun } from "../../spend/call_meter.js";

/** Each call's run, by the call options object core hands on (see item 8). */
const runs = new WeakMap<object, MeteredRun>();

/** Keeps `run` for the call whose options are `options`, for `_streamChatModelEvents`. */
export function keepRun(options: object, run: MeteredRun | undefined): void {
  if (run !== undefined) runs.set(options, run);
}

/** The run `_generateUncached` kept for these call options, if any. */
export function runOf(options: object): MeteredRun | undefined {
  return runs.get(options);
}
