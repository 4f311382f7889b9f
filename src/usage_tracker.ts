/**
 * @module `UsageTracker`: a callback handler that counts the tokens, cost and request IDs of LLM
 * and chat-model runs, with local prices and a budget guard.
 */
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { Serialized } from "@langchain/core/load/serializable";
import type { BaseMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import { BudgetExceededError } from "./errors.js";
import { validateUsageTrackerOptions } from "./options.js";
import {
  modelOfRun,
  NO_USAGE,
  type RunUsage,
  requestIdOfError,
  requestIdOfResult,
  runUsageFromResult,
} from "./usage.js";
import { withoutUndefined } from "./without_undefined.js";

/** Price of one model per million tokens, in the unit of your choice (e.g. the Wallet's credit). */
export interface ModelPrice {
  /** Per million input (prompt) tokens. */
  input: number;
  /** Per million output (completion) tokens, reasoning included. */
  output: number;
}

/** Token usage of one LLM or chat-model run, as the tracker recorded it. */
export interface UsageRecord extends RunUsage {
  /** LangChain's run ID of the model call. */
  runId: string;
  /** The chain, agent step or tool run that made the call; absent for a top-level call. */
  parentRunId?: string;
  /** Model ID (hosted surface), Service-Name (dedicated surface) or, failing both, the class name. */
  model: string;
  /** The service's request ID (`X-Gateway-Request-Id`, §7 rule 5): quote it to support. */
  requestId?: string;
  /** From the start of the run to its end, in whole milliseconds. */
  durationMs: number;
  /** `(input × price.input + output × price.output) / 1e6`; absent when the model has no price. */
  cost?: number;
  /** Set when the call failed; such a call counts no tokens. */
  error?: { name: string; message: string };
  /** Set when LangChain's cache answered: no request was sent, no tokens counted. */
  cached?: true;
}

/** Usage summed over runs (all of them, or one model's). */
export interface UsageTotals {
  /** Finished runs, failed ones included. */
  calls: number;
  failed: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Cost of the priced models' runs; absent when no run had a price. */
  cost?: number;
}

/** A JSON-ready copy of a tracker's state. */
export interface UsageSnapshot {
  totals: UsageTotals;
  byModel: Record<string, UsageTotals>;
  records: UsageRecord[];
  budget?: number;
  currency?: string;
}

/** Options of {@link UsageTracker} (and of {@link withUsage}). */
export interface UsageTrackerOptions {
  /**
   * Price per million tokens of each model ID (hosted surface) or Service-Name (dedicated
   * surface). Cost is computed locally from these; a model without a price counts tokens only.
   * @default {} (no costs)
   */
  prices?: Readonly<Record<string, ModelPrice>>;
  /**
   * Local spending limit, in the unit of `prices`. Once the cost counted reaches it, the next
   * model call throws {@link BudgetExceededError} before any request is sent. Needs `prices`.
   * @default none
   */
  budget?: number;
  /** Unit label of prices and budget for `summary()` and errors, e.g. `"credit"`. @default none */
  currency?: string;
  /** Called once per finished run (failed ones too), for live dashboards. @default none */
  onUsage?: (record: UsageRecord) => void;
  /** How many records `records` keeps (oldest dropped first); totals count every run. @default 10000 */
  maxRecords?: number;
}

type Tally = Omit<UsageTotals, "cost">;

/** What both start callbacks receive after the model and its input (prompts or messages). */
type RunStart = [
  runId: string,
  parentRunId?: string,
  extraParams?: Record<string, unknown>,
  tags?: string[],
  metadata?: Record<string, unknown>,
];

interface PendingRun {
  model: string;
  parentRunId?: string;
  startedAt: number;
}

const DEFAULT_MAX_RECORDS = 10_000;

/**
 * Counts the tokens, cost and request IDs of every LLM and chat-model run it is given as a
 * callback — invoke, batch, stream, and runs nested in chains and agents. It reads only
 * LangChain's standard fields (`usage_metadata`, `llmOutput.tokenUsage`), so it works with any
 * LangChain model, not only this package's.
 *
 * The budget is a local guard computed from your `prices`; the service's Wallet is
 * authoritative and refuses calls with a 403 `insufficient_user_quota` when it runs dry
 * (`InsufficientCreditError`, §2, §7). Calls already in flight when the budget is reached
 * still complete.
 *
 * @example
 * ```ts
 * const usage = new UsageTracker({
 *   prices: { "emulator-chat": { input: 0.5, output: 1.5 } }, // per million tokens
 *   budget: 5,
 *   currency: "credit",
 * });
 * const chain = ChatPromptTemplate.fromTemplate("Explain {topic} in one sentence.")
 *   .pipe(model)
 *   .pipe(new StringOutputParser());
 * await chain.invoke({ topic: "tides" }, { callbacks: [usage] });
 * console.log(usage.summary());
 * // model          calls  failed  input  output  total  cost (credit)
 * // emulator-chat      1       0     13      12     25      0.0000245
 * // total              1       0     13      12     25      0.0000245
 * // budget 5: spent 0.0000245 (0.0%)
 * ```
 */
export class UsageTracker extends BaseCallbackHandler {
  name = "inference_service_usage_tracker";
  /** Handlers run before the call goes on, so totals are final when `invoke` returns. */
  override awaitHandlers = true;
  /** So that `BudgetExceededError` thrown at the start of a run stops the call. */
  override raiseError = true;
  readonly budget?: number;
  readonly currency?: string;
  readonly #prices: ReadonlyMap<string, ModelPrice>;
  readonly #onUsage?: (record: UsageRecord) => void;
  readonly #maxRecords: number;
  readonly #pending = new Map<string, PendingRun>();
  readonly #byModel = new Map<string, Tally>();
  readonly #records: UsageRecord[] = [];

  constructor(options: UsageTrackerOptions = {}) {
    super();
    const valid = validateUsageTrackerOptions(options);
    this.#prices = new Map(Object.entries(valid.prices ?? {}));
    this.budget = valid.budget;
    this.currency = valid.currency;
    this.#onUsage = valid.onUsage;
    this.#maxRecords = valid.maxRecords ?? DEFAULT_MAX_RECORDS;
  }

  /** A tracker is one shared accumulator: LangChain gets the same instance back. */
  override copy(): this {
    return this;
  }

  /** The price given for a model, if any. */
  priceOf(model: string): ModelPrice | undefined {
    return this.#prices.get(model);
  }

  /** The most recent records, oldest first (at most `maxRecords`). */
  get records(): readonly UsageRecord[] {
    return this.#records;
  }

  /** Usage over every finished run since construction or `reset()`. */
  get totals(): UsageTotals {
    const totals: UsageTotals = { ...emptyTally() };
    for (const [model, tally] of this.#byModel) {
      addTally(totals, tally);
      const cost = this.#costOf(model, tally.inputTokens, tally.outputTokens);
      if (cost !== undefined) totals.cost = (totals.cost ?? 0) + cost;
    }
    return totals;
  }

  /** Usage per model ID or Service-Name. */
  byModel(): Record<string, UsageTotals> {
    const result: Record<string, UsageTotals> = {};
    for (const [model, tally] of this.#byModel) {
      const cost = this.#costOf(model, tally.inputTokens, tally.outputTokens);
      result[model] = cost === undefined ? { ...tally } : { ...tally, cost };
    }
    return result;
  }

  /** Cost counted so far (priced models only), the figure the budget is checked against. */
  get spent(): number {
    return this.totals.cost ?? 0;
  }

  /** Forgets finished runs and totals; runs in flight are counted when they end. */
  reset(): void {
    this.#byModel.clear();
    this.#records.length = 0;
  }

  /** A JSON-ready copy of totals, per-model usage and records. */
  snapshot(): UsageSnapshot {
    return withoutUndefined({
      totals: this.totals,
      byModel: this.byModel(),
      records: this.#records.map((record) => ({ ...record })),
      budget: this.budget,
      currency: this.currency,
    });
  }

  /** A plain-text table of usage per model, a total row and, with a budget, what is left. */
  summary(): string {
    const unit = this.currency ? ` (${this.currency})` : "";
    const row = (label: string, t: UsageTotals) => [
      label,
      String(t.calls),
      String(t.failed),
      String(t.inputTokens),
      String(t.outputTokens),
      String(t.totalTokens),
      t.cost === undefined ? "-" : formatAmount(t.cost),
    ];
    const rows = [
      ["model", "calls", "failed", "input", "output", "total", `cost${unit}`],
      ...Object.entries(this.byModel()).map(([model, t]) => row(model, t)),
      row("total", this.totals),
    ];
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    const lines = rows.map((r) =>
      r
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
        .join("  "),
    );
    if (this.budget !== undefined) {
      const spent = this.spent;
      const share = this.budget > 0 ? ` (${((spent / this.budget) * 100).toFixed(1)}%)` : "";
      lines.push(`budget ${formatAmount(this.budget)}: spent ${formatAmount(spent)}${share}`);
    }
    return lines.join("\n");
  }

  override handleChatModelStart(
    llm: Serialized,
    _messages: BaseMessage[][],
    ...run: RunStart
  ): void {
    this.#start(llm, ...run);
  }

  override handleLLMStart(llm: Serialized, _prompts: string[], ...run: RunStart): void {
    this.#start(llm, ...run);
  }

  override handleLLMEnd(
    output: LLMResult,
    runId: string,
    _parentRunId?: string,
    _tags?: string[],
    extraParams?: Record<string, unknown>,
  ): void {
    // A streamed run ends once, with the aggregated message: per-chunk usage is never added.
    if (extraParams?.cached === true) {
      this.#finish(runId, { ...NO_USAGE, cached: true });
      return;
    }
    this.#finish(runId, { ...runUsageFromResult(output), requestId: requestIdOfResult(output) });
  }

  override handleLLMError(err: Error, runId: string): void {
    const error = {
      name: typeof err?.name === "string" ? err.name : "Error",
      message: typeof err?.message === "string" ? err.message : String(err),
    };
    this.#finish(runId, { ...NO_USAGE, requestId: requestIdOfError(err), error });
  }

  #start(
    llm: Serialized,
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ): void {
    const model = modelOfRun(llm, extraParams, metadata);
    if (this.budget !== undefined) {
      const spent = this.spent;
      if (spent >= this.budget) {
        throw new BudgetExceededError({
          budget: this.budget,
          spent,
          currency: this.currency,
          model,
        });
      }
    }
    // The same handler reached twice (scope and explicit callbacks) must count the run once.
    if (this.#pending.has(runId)) return;
    this.#pending.set(runId, { model, parentRunId, startedAt: now() });
  }

  #finish(
    runId: string,
    outcome: RunUsage & Pick<UsageRecord, "requestId" | "error" | "cached">,
  ): void {
    const run = this.#pending.get(runId);
    if (run === undefined) return;
    this.#pending.delete(runId);
    const record: UsageRecord = withoutUndefined({
      runId,
      parentRunId: run.parentRunId,
      model: run.model,
      ...outcome,
      durationMs: Math.max(0, Math.round(now() - run.startedAt)),
      cost: this.#costOf(run.model, outcome.inputTokens, outcome.outputTokens),
    });
    const tally = this.#byModel.get(run.model) ?? emptyTally();
    this.#byModel.set(run.model, tally);
    addTally(tally, {
      calls: 1,
      failed: record.error ? 1 : 0,
      inputTokens: record.inputTokens,
      outputTokens: record.outputTokens,
      totalTokens: record.totalTokens,
    });
    this.#records.push(record);
    if (this.#records.length > this.#maxRecords) {
      this.#records.splice(0, this.#records.length - this.#maxRecords);
    }
    this.#notify(record);
  }

  #notify(record: UsageRecord): void {
    if (!this.#onUsage) return;
    try {
      this.#onUsage(record);
    } catch (error) {
      // The call itself succeeded; a failing dashboard must not turn it into a failure.
      console.warn(`UsageTracker onUsage listener failed: ${String(error)}`);
    }
  }

  #costOf(model: string, inputTokens: number, outputTokens: number): number | undefined {
    const price = this.#prices.get(model);
    if (price === undefined) return undefined;
    return (inputTokens * price.input + outputTokens * price.output) / 1e6;
  }
}

// ---- small helpers ------------------------------------------------------------------------

function emptyTally(): Tally {
  return { calls: 0, failed: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 };
}

function addTally(into: Tally, add: Tally): void {
  into.calls += add.calls;
  into.failed += add.failed;
  into.inputTokens += add.inputTokens;
  into.outputTokens += add.outputTokens;
  into.totalTokens += add.totalTokens;
}

/** Six significant digits, without float noise such as 0.00011149999999999999. */
function formatAmount(value: number): string {
  return String(Number(value.toPrecision(6)));
}

function now(): number {
  return globalThis.performance?.now() ?? Date.now();
}
