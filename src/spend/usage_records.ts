/**
 * @module What a `UsageTracker` keeps and shows: one record per finished run, totals summed per
 * model, and the plain-text summary table.
 */
import { withoutUndefined } from "../utils/without_undefined.js";
import type { RunUsage } from "./usage.js";

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
  /**
   * Set when the stream was not read to its end (`break`, `return`, a consumer that stopped
   * reading, a signal): counted as far as it was read.
   */
  abandoned?: true;
  /**
   * Set when the caller's signal stopped the call. Not a failure: no `error`. A request sent and
   * then cancelled before its answer counts its worst case, since the service may have billed
   * it (`estimated`); a stream counts what arrived.
   */
  aborted?: true;
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

/** Totals as they are counted: every field, the cached tokens included. */
export type Tally = Required<Omit<UsageTotals, "cost">>;

export function emptyTally(): Tally {
  return {
    calls: 0,
    failed: 0,
    inputTokens: 0,
    cachedInputTokens: 0,
    outputTokens: 0,
    totalTokens: 0,
  };
}

export function addTally(into: Tally, add: Tally): void {
  into.calls += add.calls;
  into.failed += add.failed;
  into.inputTokens += add.inputTokens;
  into.cachedInputTokens += add.cachedInputTokens;
  into.outputTokens += add.outputTokens;
  into.totalTokens += add.totalTokens;
}

/** What one finished run adds to its model's totals. */
export function tallyOf(record: UsageRecord): Tally {
  return {
    calls: 1,
    failed: record.error ? 1 : 0,
    inputTokens: record.inputTokens,
    cachedInputTokens: record.inputTokenDetails?.cache_read ?? 0,
    outputTokens: record.outputTokens,
    totalTokens: record.totalTokens,
  };
}

/** Totals as they are shown: cached tokens only once some were reported, the cost when priced. */
export function withCost(tally: Tally, cost: number | undefined): UsageTotals {
  const { cachedInputTokens, ...shown } = tally;
  return withoutUndefined({
    ...shown,
    ...(cachedInputTokens > 0 ? { cachedInputTokens } : {}),
    cost,
  });
}

/** Six significant digits, without float noise such as 0.00011149999999999999. */
export function formatAmount(value: number): string {
  return String(Number(value.toPrecision(6)));
}

/** What the summary shows besides the totals: the budget and what was spent of it. */
export interface SummaryBudget {
  budget: number;
  spent: number;
}

/**
 * A plain-text table of usage per model, a total row and, with a budget, what is left. The
 * cached column appears once a model reported cached prompt tokens (they are in `input`).
 */
export function summaryTable(
  byModel: Record<string, UsageTotals>,
  totals: UsageTotals,
  currency: string | undefined,
  budget: SummaryBudget | undefined,
): string {
  const unit = currency ? ` (${currency})` : "";
  const cached = totals.cachedInputTokens !== undefined;
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
  const header = ["model", "calls", "failed", "input"];
  header.push(...(cached ? ["cached"] : []), "output", "total", `cost${unit}`);
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
