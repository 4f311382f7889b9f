/**
 * @module `UsageTracker`: a callback handler that counts the tokens, cost and request IDs of LLM
 * and chat-model runs, with local prices and a budget that reserves each call's worst case.
 */

import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { Serialized } from "@langchain/core/load/serializable";
import type { BaseMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import { z } from "zod";
import { parseOptions } from "../config/options.js";
import { LC_NAMESPACE, SPEND_GUARD_BRAND } from "../constants.js";
import { isAbortError } from "../errors/abort.js";
import { BudgetExceededError } from "../errors/errors.js";
import type { UsageStore } from "../stores/usage_store.js";
import { withoutUndefined } from "../utils/without_undefined.js";
import { Budget, type BudgetStatus } from "./budget.js";
import { type RequestEstimate, requestEstimateSchema, worstCaseOutputTokens } from "./estimate.js";
import { Prices } from "./prices.js";
import type {
  RunEnd,
  SharedBudget,
  SpendGuard,
  SpendReservation,
  TokenCount,
} from "./spend_guard.js";
import {
  cacheTokenDetails,
  modelOfRun,
  NO_USAGE,
  type RunUsage,
  requestIdOfError,
  requestIdOfResult,
  runUsageFromResult,
} from "./usage.js";
import {
  addTally,
  emptyTally,
  type Settlement,
  settledAs,
  summaryTable,
  type Tally,
  tallyOf,
  type UsageRecord,
  type UsageSnapshot,
  type UsageTotals,
  withCost,
} from "./usage_records.js";
import {
  type ModelPrice,
  type UsageTrackerOptions,
  validateUsageTrackerOptions,
} from "./usage_tracker_options.js";

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
  /** A model of this package reserved for the run: its cost reaches the budget by settling. */
  reserved: boolean;
  /** What the run's settled requests used (the tokens of a failed or abandoned stream). */
  metered?: Metered;
}

/** What a run's requests settled to, summed, and the least certain way one of them was settled. */
type Metered = Required<TokenCount> & { settlement: MeteredSettlement };

/** How a request's reservation can settle. */
type MeteredSettlement = Extract<Settlement, "reported" | "estimated" | "upper-bound">;

type Outcome = RunUsage &
  Pick<
    UsageRecord,
    "requestId" | "error" | "cached" | "abandoned" | "aborted" | "estimated" | "settlement"
  >;

const runId = z.string().describe("a string: the run's ID");

/** `endRun(runId, how)`'s arguments. */
const END_RUN = {
  owner: "UsageTracker.endRun",
  schema: z.object({
    runId,
    how: z
      .looseObject({})
      .describe("an object { aborted?, abandoned?, failedToStart?, requestId? }"),
  }),
};

/** `reserve(runId, estimate)`'s arguments, as a caller of another language than TypeScript may give them. */
const RESERVE = {
  owner: "UsageTracker.reserve",
  schema: z.object({
    runId,
    estimate: requestEstimateSchema,
  }),
};

/**
 * Counts the tokens, cost and request IDs of every LLM and chat-model run it is given as a
 * callback — invoke, batch, stream, and runs nested in chains and agents. It reads only
 * LangChain's standard fields (`usage_metadata`, `llmOutput.tokenUsage`), so it works with any
 * LangChain model, not only this package's.
 *
 * The budget is a guard computed from your `prices`: each request of this package's models
 * reserves its worst-case cost before it is sent, so however many run at once, the budget is
 * never committed beyond its amount; a reply longer than its reservation (no `max_tokens`) is
 * the only overshoot. The service's Wallet stays authoritative and refuses calls with a 403
 * `insufficient_user_quota` when it runs dry (`InsufficientCreditError`, docs/service-contract.md#resources, docs/service-contract.md#errors).
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
export class UsageTracker extends BaseCallbackHandler implements SpendGuard {
  name = "inference_service_usage_tracker";
  /** Handlers run before the call goes on, so totals are final when `invoke` returns. */
  override awaitHandlers = true;
  /**
   * So that `BudgetExceededError` thrown at the start of another model's run stops the call
   * (this package's models are refused from their call path instead, with nothing logged).
   */
  override raiseError = true;
  readonly budget?: number;
  readonly currency?: string;
  /** Where the budget lives (a `MemoryStore` unless one was given). */
  readonly store: UsageStore;
  readonly budgetKey: string;
  readonly #prices: Prices;
  /** The options a tracker of {@link withBudget} is built with. */
  readonly #pricing: Pick<UsageTrackerOptions, "prices" | "currency" | "defaultReplyTokens">;
  readonly #budget: Budget;
  readonly #onUsage?: (record: UsageRecord) => void;
  readonly #maxRecords: number;
  readonly #defaultReplyTokens: number;
  readonly #pending = new Map<string, PendingRun>();
  readonly #byModel = new Map<string, Tally>();
  readonly #records: UsageRecord[] = [];
  #reservations = 0;

  constructor(options: UsageTrackerOptions = {}) {
    super();
    const valid = validateUsageTrackerOptions(options);
    this.#prices = new Prices(valid.prices);
    this.#pricing = {
      prices: valid.prices,
      currency: valid.currency,
      defaultReplyTokens: valid.defaultReplyTokens,
    };
    this.budget = valid.budget;
    this.currency = valid.currency;
    this.#onUsage = valid.onUsage;
    this.#maxRecords = valid.maxRecords;
    this.store = valid.store;
    this.budgetKey = valid.budgetKey;
    this.#budget = new Budget(valid.store, valid.budgetKey, valid.budget, valid.currency);
    this.#defaultReplyTokens = valid.defaultReplyTokens;
    Object.defineProperty(this, SPEND_GUARD_BRAND, { value: true });
  }

  /** A tracker is one shared accumulator: LangChain gets the same instance back. */
  override copy(): this {
    return this;
  }

  /**
   * The budget this tracker holds reservations in, when it has one: trackers of one call that
   * share a store and a budget key hold each request once (see `budgetKey`).
   */
  get sharedBudget(): SharedBudget | undefined {
    return this.budget === undefined ? undefined : { store: this.store, key: this.budgetKey };
  }

  /**
   * A tracker with this one's prices, currency and `defaultReplyTokens` that counts apart from
   * it — records, totals and budget of its own: `budget` (none if undefined) in `store` (a new
   * `MemoryStore` unless given). The agent middleware gives one to each model call, beside this
   * tracker, to hold a cap of the agent invocation's own; throws `ConfigurationError` (option
   * `budget`) when a budget is asked of a tracker without prices.
   */
  withBudget(budget: number | undefined, store?: UsageStore): UsageTracker {
    return new UsageTracker(withoutUndefined({ ...this.#pricing, budget, store }));
  }

  /** The price given for a model, if any. */
  priceOf(model: string): ModelPrice | undefined {
    return this.#prices.of(model);
  }

  /** The most recent records, oldest first (at most `maxRecords`). */
  get records(): readonly UsageRecord[] {
    return this.#records;
  }

  /** Usage over every finished run since construction or `reset()`. */
  get totals(): UsageTotals {
    const totals = emptyTally();
    let cost: number | undefined;
    for (const [model, tally] of this.#byModel) {
      addTally(totals, tally);
      const modelCost = this.#prices.cost(model, tally);
      if (modelCost !== undefined) cost = (cost ?? 0) + modelCost;
    }
    return withCost(totals, cost);
  }

  /** Usage per model ID or Service-Name. */
  byModel(): Record<string, UsageTotals> {
    const result: Record<string, UsageTotals> = {};
    for (const [model, tally] of this.#byModel) {
      result[model] = withCost(tally, this.#prices.cost(model, tally));
    }
    return result;
  }

  /** Cost of the runs this tracker counted (priced models only); {@link budgetStatus} has the budget's own figures. */
  get spent(): number {
    return this.totals.cost ?? 0;
  }

  /** Runs started and not yet ended, failed or left: 0 once every call is done. */
  get inFlight(): number {
    return this.#pending.size;
  }

  /**
   * The budget as the store holds it: settled spend and reservations of calls in flight — every
   * process's, when the store is shared.
   */
  budgetStatus(): Promise<BudgetStatus> {
    return this.#budget.status();
  }

  /**
   * Forgets finished runs and totals, and the budget's settled spend (in a shared store, for
   * every process); runs in flight are counted, and settle, when they end.
   */
  async reset(): Promise<void> {
    this.#byModel.clear();
    this.#records.length = 0;
    await this.#budget.reset();
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

  /**
   * A plain-text table of usage per model, a total row and, with a budget, what is left. Calls a
   * budget refused, calls stopped before their end and calls whose tokens are estimates get a
   * column each (`refused`, `stopped`, `estimated`) once there is one.
   */
  summary(): string {
    const budget =
      this.budget === undefined ? undefined : { budget: this.budget, spent: this.spent };
    return summaryTable(this.byModel(), this.totals, this.currency, budget);
  }

  override async handleChatModelStart(
    llm: Serialized,
    _messages: BaseMessage[][],
    ...run: RunStart
  ): Promise<void> {
    await this.#start(llm, ...run);
  }

  override async handleLLMStart(
    llm: Serialized,
    _prompts: string[],
    ...run: RunStart
  ): Promise<void> {
    await this.#start(llm, ...run);
  }

  override async handleLLMEnd(
    output: LLMResult,
    runId: string,
    _parentRunId?: string,
    _tags?: string[],
    extraParams?: Record<string, unknown>,
  ): Promise<void> {
    // A streamed run ends once, with the aggregated message: per-chunk usage is never added.
    if (extraParams?.cached === true) {
      this.#finish(runId, { ...NO_USAGE, cached: true, settlement: "none" });
      return;
    }
    const run = this.#pending.get(runId);
    const reported = runUsageFromResult(output);
    // No usage reported (a reply or stream without it): what the call path settled to.
    const usage: Outcome =
      reported.totalTokens === 0 && run?.metered
        ? meteredUsage(run.metered)
        : { ...reported, settlement: reported === NO_USAGE ? "none" : "reported" };
    // Runs nobody reserved for (other models) reach the budget here, once they are done.
    if (run !== undefined && !run.reserved) {
      const cost = this.#prices.cost(run.model, tokenCountOf(usage));
      if (cost !== undefined) await this.#budget.charge(cost);
    }
    this.#finish(runId, { ...usage, requestId: requestIdOfResult(output) });
  }

  /**
   * A failed run, recorded with its error; a cancelled one (its signal aborted) is recorded as
   * `aborted`, not as a failure, and one a budget refused as `settlement: "refused"`. Each counts
   * what its requests used.
   */
  override handleLLMError(err: Error, runId: string): void {
    const usage = usageOf(this.#pending.get(runId)?.metered);
    const requestId = requestIdOfError(err);
    if (isAbortError(err)) {
      this.#finish(runId, { ...usage, requestId, aborted: true });
      return;
    }
    const error = {
      name: typeof err?.name === "string" ? err.name : "Error",
      message: typeof err?.message === "string" ? err.message : String(err),
    };
    // A budget's refusal: nothing was sent, and it is no failure of the call.
    const refused = BudgetExceededError.isInstance(err);
    this.#finish(runId, {
      ...usage,
      requestId,
      error,
      ...(refused ? { settlement: "refused" as const } : {}),
    });
  }

  /**
   * Holds the worst-case cost of one request of run `runId` (see `budget`). Called by this
   * package's models for every request attempt, after the concurrency queue and before sending;
   * not needed in user code.
   */
  async reserve(
    runId: string,
    estimate: RequestEstimate,
    { hold = true }: { hold?: boolean } = {},
  ): Promise<SpendReservation> {
    parseOptions(RESERVE, { runId, estimate });
    const run = this.#pending.get(runId);
    if (run !== undefined) run.reserved = true;
    const model = run?.model ?? estimate.model;
    const outputTokens = worstCaseOutputTokens(estimate, this.#defaultReplyTokens);
    // The worst case: no prompt token cached, should the cache cost more.
    const amount = this.#prices.cost(
      model,
      { inputTokens: estimate.inputTokens, outputTokens },
      { worstCase: true },
    );
    let id: string | undefined;
    if (hold && this.budget !== undefined && amount !== undefined) {
      id = `${runId}:${++this.#reservations}`;
      await this.#budget.hold(id, amount, model);
    }
    let settled = false;
    const settle = async (usage: TokenCount, how: MeteredSettlement, cost: number | undefined) => {
      if (settled) return undefined;
      settled = true;
      const pending = this.#pending.get(runId);
      if (pending !== undefined) pending.metered = addMetered(pending.metered, usage, how);
      if (id !== undefined) await this.#budget.settle(id, cost ?? 0);
      return cost;
    };
    return {
      ...(id !== undefined ? { amount } : {}),
      ...(this.currency !== undefined ? { currency: this.currency } : {}),
      settle: (usage, estimated) =>
        settle(usage, estimated ? "estimated" : "reported", this.#prices.cost(model, usage)),
      settleAsHeld: () =>
        settle({ inputTokens: estimate.inputTokens, outputTokens }, "upper-bound", amount),
    };
  }

  /**
   * Run `runId` will get no end callback (or not before this): records it as far as it was read
   * — a stream left early (`abandoned`), a call stopped by its signal (`aborted`), a run whose
   * start failed (with that error). The first end of a run counts; LangChain's own end, should
   * it come later, is then ignored.
   */
  async endRun(runId: string, how: RunEnd): Promise<void> {
    parseOptions(END_RUN, { runId, how });
    this.#finish(runId, {
      ...usageOf(this.#pending.get(runId)?.metered),
      ...(how.abandoned ? { abandoned: true as const } : {}),
      ...(how.aborted ? { aborted: true as const } : {}),
      ...(how.failedToStart ? { error: how.failedToStart } : {}),
      ...(how.requestId !== undefined ? { requestId: how.requestId } : {}),
    });
  }

  async #start(
    llm: Serialized,
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ): Promise<void> {
    const model = modelOfRun(llm, extraParams, metadata);
    // This package's models reserve from their call path; other models are checked here, where
    // LangChain logs the refusal before rethrowing it.
    if (llm.id?.[0] !== LC_NAMESPACE && this.#prices.of(model) !== undefined) {
      await this.#budget.refuseWhenSpent(model);
    }
    // The same handler reached twice (scope and explicit callbacks) must count the run once.
    if (this.#pending.has(runId)) return;
    this.#pending.set(runId, { model, parentRunId, startedAt: now(), reserved: false });
  }

  #finish(runId: string, outcome: Outcome): void {
    const run = this.#pending.get(runId);
    if (run === undefined) return;
    this.#pending.delete(runId);
    const { settlement, ...usage } = outcome;
    const record: UsageRecord = withoutUndefined({
      runId,
      parentRunId: run.parentRunId,
      model: run.model,
      ...usage,
      durationMs: Math.max(0, Math.round(now() - run.startedAt)),
      cost: this.#prices.cost(run.model, tokenCountOf(outcome)),
      settlement,
    });
    const tally = this.#byModel.get(run.model) ?? emptyTally();
    this.#byModel.set(run.model, tally);
    addTally(tally, tallyOf(record));
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
}

/** What the run's requests used so far, with `usage` added; the least certain settlement wins. */
function addMetered(into: Metered | undefined, usage: TokenCount, how: MeteredSettlement): Metered {
  return {
    inputTokens: (into?.inputTokens ?? 0) + usage.inputTokens,
    cachedInputTokens: (into?.cachedInputTokens ?? 0) + (usage.cachedInputTokens ?? 0),
    cacheWriteTokens: (into?.cacheWriteTokens ?? 0) + (usage.cacheWriteTokens ?? 0),
    cacheWrite1hTokens: (into?.cacheWrite1hTokens ?? 0) + (usage.cacheWrite1hTokens ?? 0),
    outputTokens: (into?.outputTokens ?? 0) + usage.outputTokens,
    settlement: settledAs(into?.settlement, how) as MeteredSettlement,
  };
}

/**
 * A run's usage as its requests settled; none counted when none settled, or when every one was
 * released unused (each attempt refused or failed before any output).
 */
function usageOf(metered: Metered | undefined): Outcome {
  if (
    metered === undefined ||
    (metered.settlement === "reported" && metered.inputTokens + metered.outputTokens === 0)
  ) {
    return { ...NO_USAGE, settlement: "none" };
  }
  return meteredUsage(metered);
}

function meteredUsage(metered: Metered): Outcome {
  const { inputTokens, outputTokens, settlement } = metered;
  const details = cacheTokenDetails({
    read: metered.cachedInputTokens || undefined,
    written: metered.cacheWriteTokens || undefined,
    writtenForAnHour: metered.cacheWrite1hTokens,
  });
  return withoutUndefined({
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    inputTokenDetails: Object.keys(details).length > 0 ? details : undefined,
    estimated: settlement === "reported" ? undefined : (true as const),
    settlement,
  });
}

/**
 * A run's token counts as a cost reads them: its cache reads from `cache_read`, its writes from
 * `cache_creation` and those that live an hour from `ephemeral_1h_input_tokens`.
 */
function tokenCountOf(usage: RunUsage): TokenCount {
  const details = usage.inputTokenDetails;
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cachedInputTokens: details?.cache_read ?? 0,
    cacheWriteTokens: details?.cache_creation ?? 0,
    cacheWrite1hTokens: details?.ephemeral_1h_input_tokens ?? 0,
  };
}

function now(): number {
  return globalThis.performance?.now() ?? Date.now();
}
