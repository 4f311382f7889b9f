/**
 * @module Where `ChatInferenceService` leans on its base classes, every reliance in one list, and
 * the one piece of state that must cross them. CI runs the suite against the lowest and newest
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
 * 5. `toJSON`, `lc_serializable_keys` and `lc_secrets`, adjusted in `serialisation.ts`;
 * 6. `_getCallOptionsForTracing` and `getLsParams`, whose output is adjusted (redacted headers,
 *    this package's provider name).
 *
 * And on `@langchain/core`'s `BaseChatModel` for:
 * 7. calling `_generate` and `_streamResponseChunks` with the call's run manager;
 * 8. calling `_streamChatModelEvents` from `_generateUncached` WITHOUT it, when a handler prefers
 *    chat-model stream events (LangGraph's messages streaming): the run rides in the call options
 *    under {@link RUN}, the one carrier key, set by the model's `_generateUncached`.
 */
import type { MeteredRun } from "../../spend/call_meter.js";

/** The call options key that carries the run from `_generateUncached` to `_streamChatModelEvents`. */
const RUN = Symbol("inference-service.run");

type RunCarrier = { [RUN]?: MeteredRun };

/** The call options with `run` in them, for core to hand on to `_streamChatModelEvents`. */
export function withRun<T extends object>(options: T, run: MeteredRun): T {
  return { ...options, [RUN]: run };
}

/** The run `_generateUncached` put in the call options, if any. */
export function runOf(options: object): MeteredRun | undefined {
  return (options as RunCarrier)[RUN];
}
