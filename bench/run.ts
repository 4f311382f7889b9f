/**
 * @module `npm run bench`: runs every benchmark (or those named: `npm run bench -- per-call errors`),
 * prints each table as it is done, and writes `bench/RESULTS.md`. These are figures, never
 * assertions (STYLE.md convention 11): nothing here fails on timing.
 *
 * `BENCH_QUICK=1` shrinks iterations about tenfold and writes `bench/RESULTS.quick.md` instead, so a
 * smoke run never replaces the full results. A run of a subset prints only.
 */

import { writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { batch } from "./batch.js";
import { coldImportBench } from "./cold_import.js";
import { embeddings } from "./embeddings.js";
import { measureEmulatorThroughput } from "./emulator.js";
import { fleet } from "./fleet.js";
import { QUICK } from "./lib/config.js";
import type { BenchContext } from "./lib/context.js";
import { describeRun, load } from "./lib/machine.js";
import { renderSection, renderTable, type Section } from "./lib/report.js";
import { type Servers, startServers } from "./lib/servers.js";
import { int, ms, ratio } from "./lib/stats.js";
import { perCall } from "./per_call.js";
import { rateLimit } from "./rate_limit.js";
import { reasoning } from "./reasoning.js";
import { record } from "./record.js";
import { rerank } from "./rerank.js";
import { responses } from "./responses.js";
import { streaming } from "./streaming.js";
import { telemetryOverhead } from "./telemetry.js";
import { timeToError } from "./time_to_error.js";

const EMULATOR_GOAL_RPS = 5_000;

/** Benchmark 6: the emulator's own throughput, measured by `bench/emulator.ts`. */
async function emulatorThroughput(ctx: Pick<BenchContext, "progress">): Promise<Section> {
  const seconds = QUICK ? 1 : 5;
  const rows: string[][] = [];
  const summary: string[] = [];
  for (const concurrency of [64, 1]) {
    ctx.progress(`emulator throughput: ${seconds} s at concurrency ${concurrency}`);
    const r = await measureEmulatorThroughput(seconds, concurrency);
    summary.push(
      concurrency > 1
        ? `Emulator: **${int(r.requestsPerSecond)} req/s** at concurrency ${concurrency} ` +
            `(${ratio(r.requestsPerSecond, EMULATOR_GOAL_RPS)} the 5,000 goal), p50 ${ms(r.p50Ms)}`
        : `unloaded p50 ${ms(r.p50Ms)}.`,
    );
    rows.push([
      String(concurrency),
      int(r.requestsPerSecond),
      ms(r.p50Ms),
      ms(r.p99Ms),
      int(r.requests),
      concurrency > 1 ? ratio(r.requestsPerSecond, EMULATOR_GOAL_RPS) : "–",
    ]);
  }
  return {
    name: "emulator",
    heading: "6. Emulator throughput",
    tables: [
      {
        title: "Emulator, non-streamed chat completions on loopback",
        how:
          "`measureEmulatorThroughput` (bench/emulator.ts): the emulator in a child process, a " +
          `\`node:http\` keep-alive client at the given concurrency for ${seconds} s after 1 s of warm-up; ` +
          "concurrency 1 gives the unloaded latency.",
        goal: `≥ ${int(EMULATOR_GOAL_RPS)} req/s on 2 cores (issue 5); last column = req/s ÷ goal, under load.`,
        summary: [summary.join("; ")],
        headers: ["concurrency", "req/s", "p50", "p99", "requests", "× goal"],
        rows,
      },
    ],
  };
}

interface Benchmark {
  name: string;
  needsServers: boolean;
  run: (ctx: BenchContext) => Promise<Section>;
}

const BENCHMARKS: Benchmark[] = [
  { name: "per-call", needsServers: true, run: perCall },
  { name: "streaming", needsServers: true, run: streaming },
  { name: "errors", needsServers: true, run: timeToError },
  { name: "batch", needsServers: true, run: batch },
  { name: "import", needsServers: false, run: coldImportBench },
  { name: "emulator", needsServers: false, run: emulatorThroughput },
  { name: "rate-limit", needsServers: false, run: rateLimit },
  { name: "fleet", needsServers: false, run: fleet },
  { name: "reasoning", needsServers: true, run: reasoning },
  { name: "embeddings", needsServers: true, run: embeddings },
  { name: "record", needsServers: true, run: record },
  { name: "rerank", needsServers: true, run: rerank },
  { name: "telemetry", needsServers: true, run: telemetryOverhead },
  { name: "responses", needsServers: true, run: responses },
];

function usage(): string {
  return `usage: npm run bench [-- <name>…]   names: ${BENCHMARKS.map((b) => b.name).join(", ")}\n`;
}

async function main(): Promise<number> {
  const names = process.argv.slice(2);
  if (names.includes("--help") || names.includes("-h")) {
    process.stdout.write(usage());
    return 0;
  }
  const unknown = names.filter((n) => !BENCHMARKS.some((b) => b.name === n));
  if (unknown.length > 0) {
    process.stderr.write(`unknown benchmark: ${unknown.join(", ")}\n${usage()}`);
    return 2;
  }
  const selected =
    names.length === 0 ? BENCHMARKS : BENCHMARKS.filter((b) => names.includes(b.name));
  const command = `${QUICK ? "BENCH_QUICK=1 " : ""}npm run bench${names.length ? ` -- ${names.join(" ")}` : ""}`;
  const started = performance.now();
  const loadAtStart = load();
  const progress = (line: string) => process.stderr.write(`… ${line}\n`);
  let servers: Servers | undefined;
  const sections: Section[] = [];
  try {
    for (const benchmark of selected) {
      if (benchmark.needsServers && !servers) servers = await startServers();
      const section = await benchmark.run({ servers: servers as Servers, progress });
      for (const table of section.tables) process.stdout.write(`\n${renderTable(table)}\n`);
      sections.push(section);
    }
  } finally {
    await servers?.close();
  }
  const minutes = (performance.now() - started) / 60_000;
  progress(`done in ${minutes.toFixed(1)} min`);
  if (names.length > 0) {
    progress("a subset was run: results printed only, RESULTS.md left as it is");
    return 0;
  }
  const here = dirname(fileURLToPath(import.meta.url));
  const out = join(here, QUICK ? "RESULTS.quick.md" : "RESULTS.md");
  const markdown = [
    "# Benchmark results",
    "",
    ...describeRun(command, loadAtStart),
    `- **Duration:** ${minutes.toFixed(1)} min${QUICK ? " — **quick run**: about a tenth of the iterations, figures indicative only" : ""}`,
    "",
    "Benchmarks are figures, not tests (STYLE.md convention 11): each ratio is against a baseline " +
      "measured in the same run, in the same process, against the same server. Servers: the " +
      "package's emulator and a minimal fixed-response `node:http` server (bench/lib/fixed_server.ts), " +
      "both on 127.0.0.1 in a child process.",
    "",
    "## Summary",
    "",
    ...sections.flatMap((s) => s.tables.flatMap((t) => t.summary ?? [])).map((line) => `- ${line}`),
    "",
    ...sections.map(renderSection),
  ].join("\n");
  writeFileSync(out, markdown);
  progress(`wrote ${relative(process.cwd(), out)}`);
  return 0;
}

process.exitCode = await main();
