/**
 * @module `UsageTracker`: a callback handler that counts the tokens, cost and request IDs of LLM
 * and chat-model runs, with local prices and a budget that reserves each call's worst case.
 */

import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { Serialized } from "@langchain/core/load/serializable";
import type { BaseMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import { z } from "zod";
import { optionsSchema, parseOptions } from "../config/options.js";
import { LC_NAMESPACE, SPEND_GUARD_BRAND } from "../constants.js";
import { BudgetExceededError, ConfigurationError } from "../errors/errors.js";
import { MemoryStore } from "../stores/memory_store.js";
import type { BudgetState, UsageStore } from "../stores/usage_store.js";
import { usageStoreSchema } from "../stores/usage_store.js";
import { withoutUndefined } from "../utils/without_undefined.js";
import {
  defaultReplyTokensSchema,
  type RequestEstimate,
  worstCaseOutputTokens,
} from "./estimate.js";
import type { SpendGuard, SpendReservation, TokenCount } from "./spend_guard.js";
import {
  modelOfRun,
  NO_USAGE,
  type RunUsage,
  requestIdOfError,
  requestIdOfResult,
  runUsageFromResult,
} from "./usage.js";

const pricePerMillion = z
  .number()
  .nonnegative()
  .describe("a number ≥ 0 (price per million tokens)");

const modelPriceShape = optionsSchema({
  /** Per million input (prompt) tokens. */
  input: pricePerMillion,
  /** Per million output (completion) tokens, reasoning included. */
  output: pricePerMillion,
  /**
   * Per million cached input tokens: the part of the prompt the model server read from its
   * prompt cache (`prompt_tokens_details.cached_tokens`, `usage_metadata.input_token_details.cache_read`).
   * @default `input`
   */
  cachedInput: pricePerMillion.optional(),
}).strict();

/** Price of one model per million tokens, in the unit of your choice (e.g. the Wallet's credit). */
export interface ModelPrice extends z.output<typeof modelPriceShape> {}

/** One model's price, typed by name so that `prices` shows its fields' documentation. */
const modelPriceSchema: z.ZodType<ModelPrice, ModelPrice> = modelPriceShape;

/** Token usage of one LLM or chat-model run, as the tracker recorded it. */
export interface UsageRecord extends RunUsage {
  /** LangChain's run ID of the model call. */
  runId: string;
  /** The chain, agent step or tool run that made the call; absent for a top-level call. */
  parentRunId?: string;
  /** Model ID (hosted surface), Service-Name (dedicated surface) or, failing both, the class name. */
  model: string;
  /** The service's request ID (`X-Gateway-Request-Id`, docs/service-contract.md#errors, rule 5): quote it to support. */
  requestId?: string;
  /** From the start of the run to its end, in whole milliseconds. */
  durationMs: number;
  /**
   * `((input − cached) × price.input + cached × price.cachedInput + output × price.output) / 1e6`,
   * where `cached` is `inputTokenDetails.cache_read`; absent when the model has no price.
   */
  cost?: number;
  /**
   * Set when the call failed. A call the service refused counts no tokens; a stream that failed
   * midway counts what it streamed (`estimated` unless its usage chunk came).
   */
  error?: { name: string; message: string };
  /** Set when LangChain's cache answered: no request was sent, no tokens counted. */
  cached?: true;
  /** Set when the stream was left before its end (`break`): counted as far as it was read. */
  abandoned?: true;
  /** Set when the service reported no usage, so the tokens are this package's estimate. */
  estimated?: true;
}

/** Usage summed over runs (all of them, or one model's). */
export interface UsageTotals {
  /** Finished runs, failed ones included. */
  calls: number;
  failed: number;
  inputTokens: number;
  /** Of `inputTokens`, those read from a prompt cache; present once a run reported some. */
  cachedInputTokens?: number;
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

/** Options of {@link UsageTracker} (and of {@link withUsage}); each is checked when the tracker is built. */
export const usageTrackerOptions = optionsSchema({
  /**
   * Price per million tokens of each model ID (hosted surface) or Service-Name (dedicated
   * surface). Cost is computed locally from these; a model without a price counts tokens only.
   * @default {} (no costs)
   */
  prices: z
    .record(z.string(), modelPriceSchema)
    .describe(
      "an object of { input, output, cachedInput? } per model: prices per million tokens, numbers ≥ 0",
    )
    .default(() => ({})),
  /**
   * Spending limit, in the unit of `prices`. Before each request of this package's models (as it
   * leaves the `maxConcurrency` queue) the tracker reserves the request's worst-case cost — its
   * estimated prompt plus `max_tokens` (or `defaultReplyTokens`) per choice — and refuses it with
   * {@link BudgetExceededError}, unsent, when the budget cannot hold it; when the call ends the
   * reservation settles to the real cost. Other LangChain models are checked when their run
   * starts and counted when it ends. Needs `prices`.
   * @default none
   */
  budget: z.number().nonnegative().describe("a number ≥ 0, in the unit of `prices`").optional(),
  /** Unit label of prices and budget for `summary()` and errors, e.g. `"credit"`. @default none */
  currency: z.string().describe("a string").optional(),
  /** Called once per finished run (failed ones too), for live dashboards. @default none */
  onUsage: z
    .custom<(record: UsageRecord) => void>((v) => typeof v === "function")
    .describe("a function")
    .optional(),
  /** How many records `records` keeps (oldest dropped first); totals count every run. @default 10000 */
  maxRecords: z
    .union([z.number().int().nonnegative(), z.literal(Number.POSITIVE_INFINITY)])
    .describe("a whole number ≥ 0, or Infinity")
    .default(10_000),
  /**
   * Where the budget's spend and reservations live. A `RedisStore`
   * (`langchain-inference-service/redis`) shares one budget between processes.
   * @default a new `MemoryStore` (this tracker alone)
   */
  store: usageStoreSchema.default(() => new MemoryStore()),
  /** Names the budget in the store: trackers with one `budgetKey` and one store share one budget. @default "default" */
  budgetKey: z.string().min(1).describe("a non-empty string").default("default"),
  /** Reply tokens reserved for a request that sets no `max_tokens` (a longer reply overshoots). @default 1024 */
  defaultReplyTokens: defaultReplyTokensSchema,
}).strict();

/** Options of {@link UsageTracker} (and of {@link withUsage}); each is checked when the tracker is built. */
export type UsageTrackerOptions = z.input<typeof usageTrackerOptions>;

/** A tracker's budget as its store holds it (shared by every process using the same store and key). */
export interface BudgetStatus extends BudgetState {
  budget?: number;
  /** `budget − spent − reserved`, never below 0; absent without a budget. */
  remaining?: number;
}

type Tally = Required<Omit<UsageTotals, "cost">>;

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
  metered?: Required<TokenCount> & { estimated: boolean };
}

type Outcome = RunUsage &
  Pick<UsageRecord, "requestId" | "error" | "cached" | "abandoned" | "estimated">;

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
  readonly #prices: ReadonlyMap<string, ModelPrice>;
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
    this.#prices = new Map(Object.entries(valid.prices));
    this.budget = valid.budget;
    this.currency = valid.currency;
    this.#onUsage = valid.onUsage;
    this.#maxRecords = valid.maxRecords;
    this.store = valid.store;
    this.budgetKey = valid.budgetKey;
    this.#defaultReplyTokens = valid.defaultReplyTokens;
    Object.defineProperty(this, SPEND_GUARD_BRAND, { value: true });
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
    const totals = emptyTally();
    let cost: number | undefined;
    for (const [model, tally] of this.#byModel) {
      addTally(totals, tally);
      const modelCost = this.#costOf(model, tally);
      if (modelCost !== undefined) cost = (cost ?? 0) + modelCost;
    }
    return withCost(totals, cost);
  }

  /** Usage per model ID or Service-Name. */
  byModel(): Record<string, UsageTotals> {
    const result: Record<string, UsageTotals> = {};
    for (const [model, tally] of this.#byModel) {
      result[model] = withCost(tally, this.#costOf(model, tally));
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
  async budgetStatus(): Promise<BudgetStatus> {
    const state = await this.store.budgetState(this.budgetKey);
    if (this.budget === undefined) return state;
    const remaining = Math.max(0, this.budget - state.spent - state.reserved);
    return { ...state, budget: this.budget, remaining };
  }

  /**
   * Forgets finished runs and totals, and the budget's settled spend (in a shared store, for
   * every process); runs in flight are counted, and settle, when they end.
   */
  async reset(): Promise<void> {
    this.#byModel.clear();
    this.#records.length = 0;
    if (this.budget !== undefined) await this.store.resetBudget(this.budgetKey);
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
    // The cached column only once a model reported cached prompt tokens (they are in `input`).
    const cached = this.totals.cachedInputTokens !== undefined;
    const row = (label: string, t: UsageTotals) => [
      label,
      String(t.calls),
      String(t.failed),
      String(t.inputTokens),
      ...(cached ? [String(t.cachedInputTokens ?? 0)] : []),
      String(t.outputTokens),
      String(t.totalTokens),
      t.cost === undefined ? "-" : formatAmount(t.cost),
    ];
    const rows = [
      [
        "model",
        "calls",
        "failed",
        "input",
        ...(cached ? ["cached"] : []),
        "output",
        "total",
        `cost${unit}`,
      ],
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
      this.#finish(runId, { ...NO_USAGE, cached: true });
      return;
    }
    const run = this.#pending.get(runId);
    const reported = runUsageFromResult(output);
    // No usage reported (a reply or stream without it): what the call path settled to.
    const usage = reported.totalTokens === 0 && run?.metered ? meteredUsage(run.metered) : reported;
    // Runs nobody reserved for (other models) reach the budget here, once they are done.
    if (run !== undefined && !run.reserved) await this.#charge(run.model, tokenCountOf(usage));
    this.#finish(runId, { ...usage, requestId: requestIdOfResult(output) });
  }

  override handleLLMError(err: Error, runId: string): void {
    const error = {
      name: typeof err?.name === "string" ? err.name : "Error",
      message: typeof err?.message === "string" ? err.message : String(err),
    };
    const metered = this.#pending.get(runId)?.metered;
    const usage = metered ? meteredUsage(metered) : NO_USAGE;
    this.#finish(runId, { ...usage, requestId: requestIdOfError(err), error });
  }

  /**
   * Holds the worst-case cost of one request of run `runId` (see `budget`). Called by this
   * package's models for every request attempt, after the concurrency queue and before sending;
   * not needed in user code.
   */
  async reserve(runId: string, estimate: RequestEstimate): Promise<SpendReservation> {
    const run = this.#pending.get(runId);
    if (run !== undefined) run.reserved = true;
    const model = run?.model ?? estimate.model;
    const outputTokens = worstCaseOutputTokens(estimate, this.#defaultReplyTokens);
    // The worst case: no prompt token cached, should the cache cost more.
    const amount = this.#costOf(
      model,
      { inputTokens: estimate.inputTokens, outputTokens },
      { worstCase: true },
    );
    let id: string | undefined;
    if (this.budget !== undefined && amount !== undefined) {
      id = `${runId}:${++this.#reservations}`;
      const outcome = await this.store.reserve(this.budgetKey, {
        id,
        amount,
        budget: this.budget,
      });
      if (!outcome.ok) {
        throw new BudgetExceededError({
          budget: this.budget,
          spent: outcome.spent,
          reserved: outcome.reserved,
          requested: amount,
          currency: this.currency,
          model,
        });
      }
    }
    let settled = false;
    return {
      settle: async (usage, estimated) => {
        if (settled) return;
        settled = true;
        const pending = this.#pending.get(runId);
        if (pending !== undefined) pending.metered = addMetered(pending.metered, usage, estimated);
        if (id === undefined) return;
        const cost = this.#costOf(model, usage) ?? 0;
        await this.#storeQuietly("settle", () => this.store.settle(this.budgetKey, id, cost));
      },
    };
  }

  /** Run `runId` will get no end callback (its stream was left): records it as far as it was read. */
  async abandon(runId: string): Promise<void> {
    const metered = this.#pending.get(runId)?.metered;
    this.#finish(runId, { ...(metered ? meteredUsage(metered) : NO_USAGE), abandoned: true });
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
    if (this.budget !== undefined && llm.id?.[0] !== LC_NAMESPACE && this.#prices.has(model)) {
      const { spent, reserved } = await this.store.budgetState(this.budgetKey);
      if (spent + reserved >= this.budget) {
        throw new BudgetExceededError({
          budget: this.budget,
          spent,
          reserved,
          currency: this.currency,
          model,
        });
      }
    }
    // The same handler reached twice (scope and explicit callbacks) must count the run once.
    if (this.#pending.has(runId)) return;
    this.#pending.set(runId, { model, parentRunId, startedAt: now(), reserved: false });
  }

  #finish(runId: string, outcome: Outcome): void {
    const run = this.#pending.get(runId);
    if (run === undefined) return;
    this.#pending.delete(runId);
    const record: UsageRecord = withoutUndefined({
      runId,
      parentRunId: run.parentRunId,
      model: run.model,
      ...outcome,
      durationMs: Math.max(0, Math.round(now() - run.startedAt)),
      cost: this.#costOf(run.model, tokenCountOf(outcome)),
    });
    const tally = this.#byModel.get(run.model) ?? emptyTally();
    this.#byModel.set(run.model, tally);
    addTally(tally, {
      calls: 1,
      failed: record.error ? 1 : 0,
      inputTokens: record.inputTokens,
      cachedInputTokens: record.inputTokenDetails?.cache_read ?? 0,
      outputTokens: record.outputTokens,
      totalTokens: record.totalTokens,
    });
    this.#records.push(record);
    if (this.#records.length > this.#maxRecords) {
      this.#records.splice(0, this.#records.length - this.#maxRecords);
    }
    this.#notify(record);
  }

  /** Adds the cost of a run nobody reserved for to the budget. */
  async #charge(model: string, usage: TokenCount): Promise<void> {
    if (this.budget === undefined) return;
    const cost = this.#costOf(model, usage);
    if (cost === undefined) return;
    await this.#storeQuietly("charge", () => this.store.charge(this.budgetKey, cost));
  }

  /**
   * Runs a store write whose failure must not fail a call that already happened. Nothing is
   * lost for good: an unsettled reservation stays held (a shared store charges it in full when
   * its lease ends), so the budget errs on the safe side.
   */
  async #storeQuietly(operation: string, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      console.warn(`UsageTracker could not ${operation} with its store: ${String(error)}`);
    }
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

  /**
   * The cost of `usage` at the model's price, its cached prompt tokens at `cachedInput`; with
   * `worstCase`, every prompt token at the dearer of `input` and `cachedInput`.
   */
  #costOf(
    model: string,
    usage: TokenCount,
    { worstCase = false }: { worstCase?: boolean } = {},
  ): number | undefined {
    const price = this.#prices.get(model);
    if (price === undefined) return undefined;
    const cachedPrice = price.cachedInput ?? price.input;
    if (worstCase) {
      const input = Math.max(price.input, cachedPrice);
      return (usage.inputTokens * input + usage.outputTokens * price.output) / 1e6;
    }
    const cached = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens);
    return (
      ((usage.inputTokens - cached) * price.input +
        cached * cachedPrice +
        usage.outputTokens * price.output) /
      1e6
    );
  }
}

// ---- small helpers ------------------------------------------------------------------------

function addMetered(
  into: PendingRun["metered"],
  usage: TokenCount,
  estimated: boolean,
): NonNullable<PendingRun["metered"]> {
  return {
    inputTokens: (into?.inputTokens ?? 0) + usage.inputTokens,
    cachedInputTokens: (into?.cachedInputTokens ?? 0) + (usage.cachedInputTokens ?? 0),
    outputTokens: (into?.outputTokens ?? 0) + usage.outputTokens,
    estimated: (into?.estimated ?? false) || estimated,
  };
}

function meteredUsage(metered: NonNullable<PendingRun["metered"]>): Outcome {
  const { inputTokens, outputTokens, cachedInputTokens } = metered;
  return withoutUndefined({
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    inputTokenDetails: cachedInputTokens > 0 ? { cache_read: cachedInputTokens } : undefined,
    estimated: metered.estimated ? (true as const) : undefined,
  });
}

/** A run's token counts as a cost reads them: its cached prompt tokens from `cache_read`. */
function tokenCountOf(usage: RunUsage): TokenCount {
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cachedInputTokens: usage.inputTokenDetails?.cache_read ?? 0,
  };
}

function emptyTally(): Tally {
  return {
    calls: 0,
    failed: 0,
    inputTokens: 0,
    cachedInputTokens: 0,
    outputTokens: 0,
    totalTokens: 0,
  };
}

function addTally(into: Tally, add: Tally): void {
  into.calls += add.calls;
  into.failed += add.failed;
  into.inputTokens += add.inputTokens;
  into.cachedInputTokens += add.cachedInputTokens;
  into.outputTokens += add.outputTokens;
  into.totalTokens += add.totalTokens;
}

/** Totals as they are shown: cached tokens only once some were reported, the cost when priced. */
function withCost(tally: Tally, cost: number | undefined): UsageTotals {
  const { cachedInputTokens, ...shown } = tally;
  return withoutUndefined({
    ...shown,
    ...(cachedInputTokens > 0 ? { cachedInputTokens } : {}),
    cost,
  });
}

/** Six significant digits, without float noise such as 0.00011149999999999999. */
function formatAmount(value: number): string {
  return String(Number(value.toPrecision(6)));
}

function now(): number {
  return globalThis.performance?.now() ?? Date.now();
}

// ---- options ------------------------------------------------------------------------------

const SPEC = {
  owner: "UsageTracker",
  schema: usageTrackerOptions,
  takes:
    "prices, budget, currency, onUsage, maxRecords, store, budgetKey, defaultReplyTokens, and prices of { input, output, cachedInput }",
};

/**
 * Checks a `UsageTracker`'s options where they enter and returns them with their defaults; the
 * error names the option (`prices.<model>.input`).
 */
export function validateUsageTrackerOptions(
  options: unknown,
): z.output<typeof usageTrackerOptions> {
  const checked = parseOptions(SPEC, options);
  if (checked.budget !== undefined && Object.keys(checked.prices).length === 0) {
    throw new ConfigurationError(
      "budget",
      "`budget` needs `prices`: without a price no call has a cost, so the budget is never reached.",
    );
  }
  return checked;
}
