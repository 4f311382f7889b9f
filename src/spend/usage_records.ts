/**
 * @module What a `UsageTracker` keeps and shows: one record per finished run, totals summed per
 * model, and the plain-text summary table.
 */
import { withoutUndefined } from "../utils/without_undefined.js";
import type { RunUsage } from "./usage.js";

/**
 * How a call's tokens and cost were settled: where the figures of its usage record (and its
 * reservation in a budget) come from.
 *
 * - `"reported"` — the usage the service reported: the answer's `usage`, a stream's usage chunk
 *   (for another LangChain model, the usage it reported).
 * - `"estimated"` — the service reported none (an answer without `usage`, a stream without a
 *   usage chunk, or one that failed before it): this package's estimate, the prompt as counted
 *   before sending plus the output as far as it was read.
 * - `"upper-bound"` — nothing says what the service billed: the call was stopped by its signal
 *   while its request was on its way or its answer coming, or its stream was left or stopped
 *   before its usage chunk (the service bills what it relayed before it noticed, which may be the
 *   whole answer). Counted at the worst case it reserved (the prompt's estimate plus
 *   `maxTokens`, or the tracker's `defaultReplyTokens`, per choice): the most it can have cost.
 * - `"refused"` — a tracker's budget refused the call before it was sent (`BudgetExceededError`):
 *   nothing sent, nothing counted. Totals count it in `refused`, not in `failed`.
 * - `"none"` — nothing to count: LangChain's cache answered, the call was stopped before it was
 *   sent or failed before any output (the service bills no request it refuses), its start
 *   failed, or another LangChain model reported no usage.
 */
export type Settlement = "reported" | "estimated" | "upper-bound" | "refused" | "none";

/** How much a settlement weighs when a call's attempts settled differently (see {@link settledAs}). */
const WEIGHT: Readonly<Record<Settlement, number>> = {
  none: 0,
  refused: 1,
  reported: 2,
  estimated: 3,
  "upper-bound": 4,
};

/**
 * How a call is settled once one more of its attempts settled `next`: an attempt that counted
 * something outweighs one that counted nothing, and the least certain count wins (one estimated
 * attempt makes the call's tokens an estimate).
 */
export function settledAs(so: Settlement | undefined, next: Settlement): Settlement {
  return so === undefined || WEIGHT[next] > WEIGHT[so] ? next : so;
}

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
   * `((input − read − written) × price.input + read × price.cachedInput + (written − hour) ×
   * price.cacheWrite + hour × price.cacheWrite1h + output × price.output) / 1e6`, where `read` is
   * `inputTokenDetails.cache_read`, `written` its `cache_creation` and `hour` its
   * `ephemeral_1h_input_tokens`; absent when the model has no price.
   */
  cost?: number;
  /**
   * Set when the call failed. A call the service refused counts no tokens; a stream that failed
   * midway counts what it streamed (`estimated` unless its usage chunk came). A call a budget
   * refused has its `BudgetExceededError` here and `settlement: "refused"`: totals count it in
   * `refused`, not in `failed`.
   */
  error?: { name: string; message: string };
  /** Set when LangChain's cache answered: no request was sent, no tokens counted. */
  cached?: true;
  /**
   * Set when the stream was not read to its end (`break`, `return`, a consumer that stopped
   * reading, a signal): counted at its usage chunk if it came, else at its worst case
   * (`settlement: "upper-bound"`).
   */
  abandoned?: true;
  /**
   * Set when the caller's signal stopped the call. Not a failure: no `error`. A request sent and
   * then cancelled before its answer, or a stream stopped before its usage chunk, counts its
   * worst case, since the service may have billed it (`upper-bound`).
   */
  aborted?: true;
  /**
   * Set when the tokens are this package's estimate, not the service's count: `settlement` is
   * `"estimated"` or `"upper-bound"`.
   */
  estimated?: true;
  /** Where the tokens and the cost come from: see {@link Settlement}. */
  settlement: Settlement;
}

/** Usage summed over runs (all of them, or one model's). */
export interface UsageTotals {
  /** Finished runs, failed, refused and stopped ones included. */
  calls: number;
  /** Runs that failed with an error, other than a budget's refusal. */
  failed: number;
  /** Runs a budget refused before they were sent (`settlement: "refused"`); present once some were. */
  refused?: number;
  /**
   * Runs stopped before their end (`aborted` by their signal, or `abandoned`: a stream left
   * early); present once some were.
   */
  stopped?: number;
  /**
   * Runs whose tokens are this package's estimate (`settlement` `"estimated"` or
   * `"upper-bound"`); present once some were.
   */
  estimated?: number;
  inputTokens: number;
  /** Of `inputTokens`, those read from a prompt cache; present once a run reported some. */
  cachedInputTokens?: number;
  /** Of `inputTokens`, those written to a prompt cache; present once a run reported some. */
  cacheWriteTokens?: number;
  /** Of `cacheWriteTokens`, those written to live an hour; present once a run reported some. */
  cacheWrite1hTokens?: number;
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

/** Totals as they are counted: every field, the cached tokens included. */
export type Tally = Required<Omit<UsageTotals, "cost">>;

export function emptyTally(): Tally {
  return {
    calls: 0,
    failed: 0,
    refused: 0,
    stopped: 0,
    estimated: 0,
    inputTokens: 0,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: 0,
    totalTokens: 0,
  };
}

export function addTally(into: Tally, add: Tally): void {
  into.calls += add.calls;
  into.failed += add.failed;
  into.refused += add.refused;
  into.stopped += add.stopped;
  into.estimated += add.estimated;
  into.inputTokens += add.inputTokens;
  into.cachedInputTokens += add.cachedInputTokens;
  into.cacheWriteTokens += add.cacheWriteTokens;
  into.cacheWrite1hTokens += add.cacheWrite1hTokens;
  into.outputTokens += add.outputTokens;
  into.totalTokens += add.totalTokens;
}

/** What one finished run adds to its model's totals. */
export function tallyOf(record: UsageRecord): Tally {
  const refused = record.settlement === "refused";
  return {
    calls: 1,
    failed: record.error && !refused ? 1 : 0,
    refused: refused ? 1 : 0,
    stopped: record.aborted || record.abandoned ? 1 : 0,
    estimated: record.settlement === "estimated" || record.settlement === "upper-bound" ? 1 : 0,
    inputTokens: record.inputTokens,
    cachedInputTokens: record.inputTokenDetails?.cache_read ?? 0,
    cacheWriteTokens: record.inputTokenDetails?.cache_creation ?? 0,
    cacheWrite1hTokens: record.inputTokenDetails?.ephemeral_1h_input_tokens ?? 0,
    outputTokens: record.outputTokens,
    totalTokens: record.totalTokens,
  };
}

/**
 * Totals as they are shown: the refused, stopped and estimated counts and the tokens read from
 * and written to a cache only once there are some, the cost when priced.
 */
export function withCost(tally: Tally, cost: number | undefined): UsageTotals {
  const {
    refused,
    stopped,
    estimated,
    cachedInputTokens,
    cacheWriteTokens,
    cacheWrite1hTokens,
    ...shown
  } = tally;
  return withoutUndefined({
    ...shown,
    ...(refused > 0 ? { refused } : {}),
    ...(stopped > 0 ? { stopped } : {}),
    ...(estimated > 0 ? { estimated } : {}),
    ...(cachedInputTokens > 0 ? { cachedInputTokens } : {}),
    ...(cacheWriteTokens > 0 ? { cacheWriteTokens } : {}),
    ...(cacheWrite1hTokens > 0 ? { cacheWrite1hTokens } : {}),
    cost,
  });
}

/** Six significant digits, without float noise such as 0.00011149999999999999. */
export function formatAmount(value: number): string {
  return String(Number(value.toPrecision(6)));
}

/** The counts of calls the summary shows in a column of their own once some call was counted. */
const COUNTED = ["refused", "stopped", "estimated"] as const;

/** What the summary shows besides the totals: the budget and what was spent of it. */
export interface SummaryBudget {
  budget: number;
  spent: number;
}

/**
 * A plain-text table of usage per model, a total row and, with a budget, what is left. The
 * `refused`, `stopped` and `estimated` columns (calls) appear once some call was, the `cached`
 * column once a model reported prompt tokens read from its cache, the `written` column once one
 * reported prompt tokens written to it (both are in `input`).
 */
export function summaryTable(
  byModel: Record<string, UsageTotals>,
  totals: UsageTotals,
  currency: string | undefined,
  budget: SummaryBudget | undefined,
): string {
  const unit = currency ? ` (${currency})` : "";
  const cached = totals.cachedInputTokens !== undefined;
  const written = totals.cacheWriteTokens !== undefined;
  const counts = COUNTED.filter((key) => totals[key] !== undefined);
  const row = (label: string, t: UsageTotals) => [
    label,
    String(t.calls),
    String(t.failed),
    ...counts.map((key) => String(t[key] ?? 0)),
    String(t.inputTokens),
    ...(cached ? [String(t.cachedInputTokens ?? 0)] : []),
    ...(written ? [String(t.cacheWriteTokens ?? 0)] : []),
    String(t.outputTokens),
    String(t.totalTokens),
    t.cost === undefined ? "-" : formatAmount(t.cost),
  ];
  const header = ["model", "calls", "failed", ...counts, "input"];
  header.push(...(cached ? ["cached"] : []), ...(written ? ["written"] : []));
  header.push("output", "total", `cost${unit}`);
  const rows = [
    header,
    ...Object.entries(byModel).map(([model, t]) => row(model, t)),
    row("total", totals),
  ];
  const widths = header.map((_, i) => rows.reduce((w, r) => Math.max(w, r[i]!.length), 0));
  const lines = rows.map((r) =>
    r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  "),
  );
  if (budget !== undefined) {
    const { spent } = budget;
    const share = budget.budget > 0 ? ` (${((spent / budget.budget) * 100).toFixed(1)}%)` : "";
    lines.push(`budget ${formatAmount(budget.budget)}: spent ${formatAmount(spent)}${share}`);
  }
  return lines.join("\n");
}
