/** @module `withUsage`: a {@link UsageTracker} scoped to a block of code. */
import type { CallbackManager, Callbacks } from "@langchain/core/callbacks/manager";
import {
  type AsyncLocalStorageInterface,
  AsyncLocalStorageProviderSingleton,
  MockAsyncLocalStorage,
} from "@langchain/core/singletons";
import { describeValue } from "../config/options.js";
import { ConfigurationError } from "../errors/errors.js";
import { UsageTracker } from "./usage_tracker.js";
import type { UsageTrackerOptions } from "./usage_tracker_options.js";

/** What {@link withUsage} returns. */
export interface WithUsageResult<T> {
  result: T;
  /** The tracker that counted the block's model calls. */
  usage: UsageTracker;
}

/**
 * Runs `fn` with a {@link UsageTracker} and returns its result with the usage of every model
 * call made inside — calls given no `callbacks` included, where the runtime has
 * `AsyncLocalStorage` (Node, Deno, Bun, edge runtimes). There, the first call turns on
 * LangChain's implicit config, as importing `@langchain/core/context` or LangGraph does.
 *
 * A call given its own `callbacks` replaces the scope's, so add the tracker to them; where
 * `AsyncLocalStorage` is missing (browsers), pass `callbacks: [tracker]` to every call. To keep
 * what was counted when `fn` throws (a `BudgetExceededError`, say), pass your own tracker.
 *
 * @example
 * ```ts
 * const { result, usage } = await withUsage(() => agent.invoke({ messages }), {
 *   prices: { "emulator-chat": { input: 0.5, output: 1.5 } },
 * });
 * console.log(usage.summary());
 * ```
 */
export async function withUsage<T>(
  fn: (tracker: UsageTracker) => T | Promise<T>,
  trackerOrOptions?: UsageTracker | UsageTrackerOptions,
): Promise<WithUsageResult<T>> {
  if (typeof fn !== "function") {
    throw new ConfigurationError(
      "fn",
      `\`fn\` must be a function, the block whose model calls are counted (withUsage(() => model.invoke("hi"))); got ${describeValue(fn)}.`,
    );
  }
  const usage =
    trackerOrOptions instanceof UsageTracker
      ? trackerOrOptions
      : new UsageTracker(trackerOrOptions);
  const result = await inScope(usage, () => fn(usage));
  return { result, usage };
}

/** Adds `handler` to the implicit config every runnable called from `fn` starts from. */
function inScope<T>(handler: UsageTracker, fn: () => T): T {
  if (!enableAsyncContext()) return fn();
  const provider = AsyncLocalStorageProviderSingleton;
  // Inside a runnable or an outer scope, the implicit config already has callbacks: keep them.
  const { runId: _runId, runName: _runName, ...parent } = provider.getRunnableConfig() ?? {};
  const callbacks = withHandler(parent.callbacks as Callbacks | undefined, handler);
  return provider.runWithConfig({ ...parent, callbacks }, fn);
}

function withHandler(callbacks: Callbacks | undefined, handler: UsageTracker): Callbacks {
  if (callbacks === undefined) return [handler];
  if (Array.isArray(callbacks)) {
    return callbacks.includes(handler) ? callbacks : [...callbacks, handler];
  }
  return (callbacks as CallbackManager).copy([handler], true);
}

type StorageClass = new () => AsyncLocalStorageInterface;

/**
 * LangChain keeps its implicit config in a global `AsyncLocalStorage` that only
 * `@langchain/core/context` or LangGraph create. The class is looked up at run time (edge
 * runtimes expose it as a global; Node ≥ 20.16, Deno and Bun through `getBuiltinModule`), never
 * imported, so the main entry still loads in runtimes that lack it.
 */
function enableAsyncContext(): boolean {
  const provider = AsyncLocalStorageProviderSingleton;
  if (!(provider.getInstance() instanceof MockAsyncLocalStorage)) return true;
  const runtime = globalThis as {
    AsyncLocalStorage?: StorageClass;
    process?: { getBuiltinModule?: (id: string) => { AsyncLocalStorage?: StorageClass } };
  };
  const Storage =
    runtime.AsyncLocalStorage ??
    runtime.process?.getBuiltinModule?.("async_hooks")?.AsyncLocalStorage;
  if (Storage === undefined) return false;
  provider.initializeGlobalInstance(new Storage());
  return true;
}
