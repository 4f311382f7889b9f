/**
 * @module Benchmark 3, time to a typed error for each non-retryable row: those of the interface
 * document (docs/service-contract.md#errors, docs/service-contract.md#limits-and-retries) and the gateway's own (a 500 `invalid_request`, a 403 `access_denied`, a
 * redirect loop, …): `ChatInferenceService` with its defaults vs `ChatOpenAI`, whose retries are
 * capped (`maxRetries` 0 for the time of one attempt, 1 to measure one backoff); the time of its
 * default configuration (6 retries) is computed from those, not waited out.
 */

import type { Fetch } from "../src/transport/fetch.js";
import { scaled } from "./lib/config.js";
import { chatOpenAI, ours, PROMPT, type Target } from "./lib/contenders.js";
import { type BenchContext, emulatorTarget, fixedTarget } from "./lib/context.js";
import type { Section } from "./lib/report.js";
import { collectInterleaved, type Measured } from "./lib/rounds.js";
import { ms, ratio, seconds, summarize } from "./lib/stats.js";

/** LangChain's `AsyncCaller` defaults (p-retry): 6 retries, minTimeout 1000 ms, factor 2, randomize ×1–2. */
const LC_RETRIES = 6;
const LC_MIN_TIMEOUT_MS = 1_000;
const LC_FACTOR = 2;
/** Σ minTimeout × factor^(k−1) for k = 1…6: the backoff total before jitter. */
const LC_BACKOFF_BASE_MS = Array.from(
  { length: LC_RETRIES },
  (_, k) => LC_MIN_TIMEOUT_MS * LC_FACTOR ** k,
).reduce((a, b) => a + b, 0);

interface Row {
  label: string;
  target: (ctx: BenchContext) => Target;
}

/** A proxy that drops the final "s" of the path: the docs/service-contract.md#errors 404 on a server reachable only that way. */
const singularPath: Fetch = (input, init) => {
  const rewrite = (url: string) => url.replace(/\/chat\/completions$/, "/chat/completion");
  if (typeof input === "string") return fetch(rewrite(input), init);
  if (input instanceof URL) return fetch(rewrite(input.href), init);
  return fetch(new Request(rewrite(input.url), input), init);
};

/** The gateway's non-retryable replies: row label → the emulator's fault (and fixed route `g-<fault>`). */
const GATEWAY_ROWS: ReadonlyArray<[string, string]> = [
  ["403 access_denied", "access_denied"],
  ["403 empty code (model not allowed)", "403-model"],
  ["403 pre_consume_token_quota_failed", "pre_consume_token_quota_failed"],
  ["403 insufficient_user_quota (pre-charge)", "insufficient_user_quota"],
  ["500 invalid_request", "invalid_request"],
  ["500 sensitive_words_detected", "sensitive_words_detected"],
  ["400 model_price_error", "model_price_error"],
  ["413 read_request_body_failed", "read_request_body_failed"],
  ["501 api_not_implemented", "api_not_implemented"],
  ["400 context_length_exceeded", "context_length_exceeded"],
  ["200 HTML labelled JSON", "html-json"],
];

/** A fetch that asks the emulator for `fault` on every request (both contenders use it). */
function withFault(fault: string): Fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("X-Emulator-Fault", fault);
    return fetch(input, { ...init, headers });
  };
}

function emulatorRows(): Row[] {
  return [
    {
      label: "401 invalid key",
      target: (c) => ({ ...emulatorTarget(c.servers), apiKey: "sk-bad" }),
    },
    {
      label: "403 insufficient_user_quota",
      target: (c) => ({ ...emulatorTarget(c.servers), baseURL: c.servers.brokeEmulatorBaseURL }),
    },
    {
      label: "404 invalid URL",
      target: (c) => ({ ...emulatorTarget(c.servers), fetch: singularPath }),
    },
    {
      label: "503 model_not_found",
      target: (c) => emulatorTarget(c.servers, "no-such-model"),
    },
    {
      label: "200 HTML",
      target: (c) => ({
        ...emulatorTarget(c.servers),
        baseURL: c.servers.emulatorBaseURL.replace("/inference/v1", "/console/inference/v1"),
      }),
    },
    ...GATEWAY_ROWS.map(
      ([label, fault]): Row => ({
        label,
        target: (c) => ({ ...emulatorTarget(c.servers), fetch: withFault(fault) }),
      }),
    ),
    {
      label: "redirect loop",
      target: (c) => ({ ...emulatorTarget(c.servers), fetch: withFault("redirect-loop") }),
    },
  ];
}

function fixedRows(): Row[] {
  return [
    ["401 invalid key", "e401"],
    ["403 insufficient_user_quota", "e403"],
    ["404 invalid URL", "e404"],
    ["503 model_not_found", "e503"],
    ["200 HTML", "html"],
    ...GATEWAY_ROWS.map(([label, fault]) => [label, `g-${fault}`]),
    ["redirect loop", "loop"],
  ].map(([label, route]) => ({ label: label!, target: (c) => fixedTarget(c.servers, route!) }));
}

/** The class a program would see: constructor name, plus LangChain's error code when set. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return typeof error;
  const code = (error as { lc_error_code?: unknown }).lc_error_code;
  return typeof code === "string" ? `${error.constructor.name} (${code})` : error.constructor.name;
}

/** Runs one call that must fail; returns the error and how many HTTP requests it made. */
async function probe(
  make: (target: Target) => { invoke: (input: string) => Promise<unknown> },
  target: Target,
): Promise<{ error: string; attempts: number; elapsedMs: number }> {
  let attempts = 0;
  const base = target.fetch ?? fetch;
  const counting: Fetch = (input, init) => {
    attempts++;
    return base(input, init);
  };
  const started = performance.now();
  try {
    await make({ ...target, fetch: counting }).invoke(PROMPT);
  } catch (error) {
    return { error: describe(error), attempts, elapsedMs: performance.now() - started };
  }
  throw new Error(`${target.label} ${target.baseURL}: the call did not fail`);
}

/** Times a call that must fail. */
function failing(name: string, model: { invoke: (input: string) => Promise<unknown> }) {
  return {
    name,
    run: async () => {
      const started = performance.now();
      try {
        await model.invoke(PROMPT);
      } catch {
        return performance.now() - started;
      }
      throw new Error(`${name}: the call did not fail`);
    },
  } satisfies Measured<number>;
}

interface RowResult {
  server: string;
  label: string;
  oursClass: string;
  oursAttempts: number;
  baselineClass: string;
  /** Requests `ChatOpenAI` made with `maxRetries: 1`: 2 when it retries the row. */
  baselineAttempts: number;
  oursMs: number;
  oursP95: number;
  attemptMs: number;
  /** `ChatOpenAI` with `maxRetries: 1`, measured. */
  cappedMs: number;
  /** Its one backoff (capped − 2 attempts); NaN when the row is not retried. */
  backoffMs: number[];
  samples: number;
}

async function measureRow(ctx: BenchContext, row: Row, server: string): Promise<RowResult> {
  const target = row.target(ctx);
  const ourProbe = await probe((t) => ours(t), target);
  const capped = await probe((t) => chatOpenAI(t, { maxRetries: 1 }), target);
  const options = { warmup: scaled(10, 2), rounds: scaled(10, 5), perRound: scaled(10, 2) };
  ctx.progress(`time to error: ${server}, ${row.label}`);
  const times = await collectInterleaved(
    [failing("ours", ours(target)), failing("attempt", chatOpenAI(target, { maxRetries: 0 }))],
    options,
  );
  const oursStats = summarize(times.get("ours")!);
  const attemptMs = summarize(times.get("attempt")!).median;
  let cappedTimes = times.get("attempt")!;
  let backoffMs: number[] = [];
  if (capped.attempts > 1) {
    // Each capped call waits one real backoff (1–2 s): a handful is enough to show it.
    const retried = chatOpenAI(target, { maxRetries: 1 });
    cappedTimes = [capped.elapsedMs];
    for (let i = 1; i < scaled(5, 2); i++) cappedTimes.push(await failing("capped", retried).run());
    backoffMs = cappedTimes.map((t) => t - 2 * attemptMs);
  }
  return {
    server,
    label: row.label,
    oursClass: ourProbe.error,
    oursAttempts: ourProbe.attempts,
    baselineClass: capped.error,
    baselineAttempts: capped.attempts,
    oursMs: oursStats.median,
    oursP95: oursStats.p95,
    attemptMs,
    cappedMs: summarize(cappedTimes).median,
    backoffMs,
    samples: oursStats.n,
  };
}

/** How many requests ours made: one, save the redirect loop's hops, said as such. */
function requestsSaid(rows: RowResult[]): string {
  const more = rows.filter((r) => r.oursAttempts !== 1);
  if (more.length === 0) return "1 request";
  const why = (label: string) =>
    label === "redirect loop"
      ? "the first request and its 5 redirect hops"
      : label.includes("model_not_found")
        ? "the call and its one GET …/models for the hint"
        : "";
  const labels = [...new Set(more.map((r) => `${r.label}: ${r.oursAttempts}, ${why(r.label)}`))];
  return `1 request (${labels.join("; ")})`;
}

/** `ChatOpenAI`'s default configuration, computed: 7 attempts and 6 backoffs, or 1 attempt. */
function computedDefault(r: RowResult): { expected: number; low: number; high: number } {
  if (r.baselineAttempts <= 1)
    return { expected: r.attemptMs, low: r.attemptMs, high: r.attemptMs };
  const attempts = (LC_RETRIES + 1) * r.attemptMs;
  return {
    expected: attempts + 1.5 * LC_BACKOFF_BASE_MS,
    low: attempts + LC_BACKOFF_BASE_MS,
    high: attempts + 2 * LC_BACKOFF_BASE_MS,
  };
}

export async function timeToError(ctx: BenchContext): Promise<Section> {
  const results: Array<{ server: string; rows: RowResult[] }> = [];
  for (const [server, rows] of [
    ["emulator", emulatorRows()],
    ["fixed server", fixedRows()],
  ] as const) {
    const measured: RowResult[] = [];
    for (const row of rows) measured.push(await measureRow(ctx, row, server));
    results.push({ server, rows: measured });
  }
  const timeRows = results.flatMap(({ server, rows }) =>
    rows.map((r) => {
      const d = computedDefault(r);
      const retried = r.baselineAttempts > 1;
      return [
        server,
        r.label,
        ms(r.oursMs),
        ms(r.oursP95),
        ms(r.attemptMs),
        retried ? ms(r.cappedMs) : `${ms(r.cappedMs)} (not retried: 1 attempt)`,
        retried
          ? `${seconds(d.expected)} (${seconds(d.low)}–${seconds(d.high)})`
          : `${ms(d.expected)} (not retried: 1 attempt)`,
        ratio(r.oursMs, r.attemptMs),
        ratio(r.cappedMs, r.oursMs),
        ratio(d.expected, r.oursMs),
      ];
    }),
  );
  const classRows = results.flatMap(({ server, rows }) =>
    rows.map((r) => [
      server,
      r.label,
      r.oursClass,
      String(r.oursAttempts),
      r.baselineClass,
      String(r.baselineAttempts),
      r.baselineAttempts > 1 ? String(LC_RETRIES + 1) : "1",
    ]),
  );
  const backoffs = results.flatMap(({ rows }) => rows.flatMap((r) => r.backoffMs));
  const all = results.flatMap(({ rows }) => rows);
  const oursRange = `${ms(Math.min(...all.map((r) => r.oursMs)))}–${ms(Math.max(...all.map((r) => r.oursMs)))}`;
  const perRow = (label: string) =>
    all
      .filter((r) => r.label === label)
      .map((r) => `${ratio(r.oursMs, r.attemptMs)}`)
      .join(" / ");
  const retried = all.filter((r) => r.baselineAttempts > 1);
  const summary = [
    `Time to error: ours ${oursRange} on every non-retryable row, with a typed error, after ${requestsSaid(all)}; ` +
      `ours ÷ one ChatOpenAI attempt (emulator / fixed): ${[...new Set(all.map((r) => r.label))]
        .map((label) => `${label} ${perRow(label)}`)
        .join(", ")}.`,
    ...retried.map(
      (r) =>
        `${r.label} (${r.server}): ChatOpenAI retries it — ${ms(r.cappedMs)} at maxRetries 1 (measured, ` +
        `${ratio(r.cappedMs, r.oursMs)} ours), ${seconds(computedDefault(r).expected)} at its defaults ` +
        `(**computed**, ${ratio(computedDefault(r).expected, r.oursMs)} ours).`,
    ),
  ];
  const samples = results[0]?.rows[0]?.samples ?? 0;
  return {
    name: "errors",
    heading: "3. Time to a typed error (non-retryable rows, docs/service-contract.md)",
    tables: [
      {
        title: "Time to error",
        how:
          `${samples} interleaved calls each of ours (defaults: maxRetries 2) and of ChatOpenAI with ` +
          "maxRetries 0 (= one attempt); ChatOpenAI with maxRetries 1 measured separately (a few calls " +
          "when it retries, since each waits a real backoff); ChatOpenAI's default (maxRetries 6) " +
          "**computed**, not measured: 7 × one attempt + Σ 6 backoffs of p-retry (minTimeout 1000 ms, " +
          `factor 2, randomize ×1–2): expected ${seconds(1.5 * LC_BACKOFF_BASE_MS)}, range ` +
          `${seconds(LC_BACKOFF_BASE_MS)}–${seconds(2 * LC_BACKOFF_BASE_MS)}. Ratios: ours ÷ one ChatOpenAI ` +
          "attempt (the cost of typing the error; < 1 = ours faster), then how many times longer " +
          "ChatOpenAI takes to give up, capped and at its defaults.",
        goal: "every row fails on the first response with a typed error (one HTTP request; a redirect loop after 5 hops).",
        summary,
        headers: [
          "server",
          "row",
          "ours median",
          "ours p95",
          "ChatOpenAI 1 attempt",
          "ChatOpenAI maxRetries 1 (measured)",
          "ChatOpenAI default, **computed** (range)",
          "ours ÷ ChatOpenAI 1 attempt",
          "ChatOpenAI maxRetries 1 ÷ ours",
          "ChatOpenAI default ÷ ours",
        ],
        rows: timeRows,
        notes: [
          backoffs.length > 0
            ? `ChatOpenAI's measured first backoff (capped call − 2 attempts): ${backoffs
                .map((b) => ms(b))
                .join(", ")} — p-retry draws it from 1,000–2,000 ms.`
            : "ChatOpenAI retried none of the rows.",
          "The emulator's 404 row goes through a fetch that drops the final `s` of the path (as a " +
            "misconfigured proxy would), used by both sides: our base-URL normalisation fixes every " +
            "404 a base URL alone can cause. Its HTML row uses the base `…/console/inference/v1` on both sides.",
          "The gateway's rows (403 access_denied to 200 HTML labelled JSON, and the redirect loop) come " +
            "from the emulator's `X-Emulator-Fault` replies and from the fixed server's `g-<fault>` " +
            "routes, which send the same bytes. ChatOpenAI's request count on the redirect loop counts " +
            "its calls to fetch: undici follows up to 20 redirects inside each of them.",
        ],
      },
      {
        title: "Error class raised, and HTTP requests made",
        how: "one probe call per row and side, counting requests with a counting `fetch` wrapper.",
        goal: "ours: a typed InferenceServiceError subclass after exactly 1 request.",
        headers: [
          "server",
          "row",
          "ours raises",
          "ours requests",
          "ChatOpenAI raises",
          "ChatOpenAI requests (maxRetries 1)",
          "ChatOpenAI requests at default (computed)",
        ],
        rows: classRows,
      },
    ],
  };
}
