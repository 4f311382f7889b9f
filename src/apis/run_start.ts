/**
 * @module A run whose start fails: LangChain calls every handler's start in parallel, and when
 * one throws (a handler with `raiseError`), the call fails before the model runs — and the other
 * handlers' runs would stay open forever, with no end callback. The models give each run an ID
 * before LangChain starts it, and when the call fails, end it with the usage trackers: a run
 * that did start was ended by LangChain before the failure reached here, so only one that did
 * not start is still open. A chat call with nothing to end (`needsRunId`) is left to LangChain.
 */
import {
  CallbackManager,
  type CallbackManagerForLLMRun,
  type Callbacks,
} from "@langchain/core/callbacks/manager";
import type { Serialized } from "@langchain/core/load/serializable";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import { hasBrand, LS_PROVIDER, SPEND_GUARD_BRAND } from "../constants.js";
import { prefersStreamEvents } from "../spend/call_meter.js";
import { spendGuardsOf } from "../spend/spend_guard.js";

/** The handlers of a call: its callbacks (a list or a manager) and the model's own. */
function handlersOf(...lists: Array<Callbacks | undefined>): unknown[] {
  return lists.flatMap((callbacks) =>
    callbacks === undefined ? [] : Array.isArray(callbacks) ? callbacks : callbacks.handlers,
  );
}

/**
 * Whether a call's run must have its ID fixed before core starts it: a usage tracker among its
 * handlers may have to end it (see the module), or a handler of chat-model stream events keep
 * it. Most calls have neither; core then starts the run itself, with nothing drawn or wrapped.
 */
export function needsRunId(callbacks: ReadonlyArray<Callbacks | undefined>): boolean {
  // Loops, not a flattened copy of the handlers: this runs on every chat call.
  for (const list of callbacks) {
    if (list === undefined) continue;
    for (const handler of Array.isArray(list) ? list : list.handlers) {
      if (hasBrand(handler, SPEND_GUARD_BRAND) || prefersStreamEvents(handler)) return true;
    }
  }
  return false;
}

/** The run ID a call will start under: the caller's, else a new one. */
function runIdOf(given: string | undefined): string {
  return given ?? globalThis.crypto.randomUUID();
}

/**
 * Starts a run through `start` under a run ID fixed here (the caller's, else a new one); when it
 * fails, ends the run with the trackers among `callbacks` if it is still open (see the module).
 */
export async function startedRun<T>(
  given: string | undefined,
  callbacks: ReadonlyArray<Callbacks | undefined>,
  start: (runId: string) => Promise<T>,
): Promise<T> {
  const runId = runIdOf(given);
  try {
    return await start(runId);
  } catch (error) {
    await endUnstartedRun(runId, error, ...callbacks);
    throw error;
  }
}

/** {@link startedRun} for a stream: its first step is where the run starts. */
export function startedStream<T>(
  given: string | undefined,
  callbacks: ReadonlyArray<Callbacks | undefined>,
  start: (runId: string) => AsyncGenerator<T>,
): AsyncGenerator<T> {
  const runId = runIdOf(given);
  return guardedStart(start(runId), (error) => endUnstartedRun(runId, error, ...callbacks));
}

/** Ends run `runId` with the trackers among `callbacks`, when it is still open after `error`. */
async function endUnstartedRun(
  runId: string,
  error: unknown,
  ...callbacks: Array<Callbacks | undefined>
): Promise<void> {
  const guards = spendGuardsOf(handlersOf(...callbacks));
  if (guards.length === 0) return;
  const failedToStart = {
    name: error instanceof Error ? error.name : "Error",
    message: error instanceof Error ? error.message : String(error),
  };
  await Promise.all(guards.map((guard) => guard.endRun(runId, { failedToStart })));
}

/**
 * A stream of the base class's `_streamIterator`, whose first step — where LangChain starts the
 * run — ends the run with the trackers when it fails. Later steps pass straight through: it adds
 * nothing to a stream's chunks.
 */
function guardedStart<T>(
  inner: AsyncGenerator<T>,
  onFailedStart: (error: unknown) => Promise<void>,
): AsyncGenerator<T> {
  const guarded: AsyncGenerator<T> = {
    next: async (...args) => {
      guarded.next = inner.next.bind(inner);
      try {
        return await inner.next(...args);
      } catch (error) {
        await onFailedStart(error);
        throw error;
      }
    },
    return: (value) => inner.return(value),
    throw: (error) => inner.throw(error),
    [Symbol.asyncIterator]() {
      return guarded;
    },
  };
  return guarded;
}

/** One call of a class LangChain gives no callbacks of its own (embeddings, a reranker), as an LLM run. */
export interface CallRun {
  /** What callbacks see of the class. */
  serialized: Serialized;
  /** The run's name: the class's. */
  name: string;
  model: string;
  /** The one prompt the run shows (one prompt, one run); built only when someone listens. */
  prompt: () => string;
  /** `invocation_params` and the like, as `handleLLMStart` takes them. */
  extraParams: Record<string, unknown>;
  /** The class's own `callbacks` option. */
  own?: Callbacks;
  /**
   * The handlers the call was given (a retriever's run, for a document compressor); when none,
   * those of the run the call is made in, where LangChain's async context is on.
   */
  given?: Callbacks;
}

/**
 * Starts `call` as an LLM run of its handlers; undefined when nobody listens. The run's ID is
 * fixed first, so that a start that fails is ended with the usage trackers (see above).
 */
export async function startCallRun(call: CallRun): Promise<CallbackManagerForLLMRun | undefined> {
  const parent = AsyncLocalStorageProviderSingleton.getRunnableConfig() as
    | { callbacks?: Callbacks; tags?: string[]; metadata?: Record<string, unknown> }
    | undefined;
  const manager = CallbackManager.configure(
    call.given ?? parent?.callbacks,
    call.own,
    parent?.tags,
    undefined,
    parent?.metadata,
    { ls_provider: LS_PROVIDER, ls_model_name: call.model },
  );
  if (manager === undefined) return undefined;
  const [run] = await startedRun(undefined, [manager], (runId) =>
    manager.handleLLMStart(
      call.serialized,
      [call.prompt()],
      runId,
      undefined,
      call.extraParams,
      undefined,
      undefined,
      call.name,
    ),
  );
  return run;
}
