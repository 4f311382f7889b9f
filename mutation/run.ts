/**
 * @module `npm run test:mutation`: runs StrykerJS on each core folder in turn (or those named:
 * `npm run test:mutation -- spend stores`), one folder at a time, then prints the score of every
 * module — killed and timed-out mutants over the mutants the tests cover — and fails when one is
 * under 85 %. `--report` skips the runs and prints the table of the reports already written;
 * `--check` only checks that each ignore list names code found on one line of its file; `--force`
 * runs every mutant again, ignoring what the incremental report kept.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
/** The folders, in the order they run; each has `mutation/<name>.config.mjs`. */
const FOLDERS = ["errors", "transport", "spend", "stores", "reasoning"] as const;
/** The lowest score a module may have, in per cent. */
const FLOOR = 85;

/** What this script reads of Stryker's JSON report (mutation-testing-report-schema). */
interface Report {
  files: Record<string, { mutants: Mutant[] }>;
}
interface Mutant {
  mutatorName: string;
  replacement?: string;
  status: string;
  statusReason?: string;
  location: { start: { line: number; column: number } };
}
/** A config's list of equivalent mutants (see mutation/equivalent_mutants.mjs). */
interface EquivalentMutant {
  file: string;
  code: string;
  reason: string;
}

interface Row {
  module: string;
  killed: number;
  survived: number;
  noCoverage: number;
  ignored: number;
  /** Killed and timed out over killed, timed out and survived; undefined when none is covered. */
  score?: number;
}

function rowsOf(report: Report): Row[] {
  return Object.entries(report.files)
    .map(([file, { mutants }]) => {
      const count = (...statuses: string[]) =>
        mutants.filter((m) => statuses.includes(m.status)).length;
      const killed = count("Killed", "Timeout");
      const survived = count("Survived");
      return {
        module: relative(ROOT, join(ROOT, file)),
        killed,
        survived,
        noCoverage: count("NoCoverage"),
        ignored: count("Ignored"),
        score: killed + survived === 0 ? undefined : (100 * killed) / (killed + survived),
      };
    })
    .sort((a, b) => a.module.localeCompare(b.module));
}

/** The surviving mutants, one line each, to write tests for. */
function survivors(report: Report): string[] {
  return Object.entries(report.files).flatMap(([file, { mutants }]) =>
    mutants
      .filter((m) => m.status === "Survived" || m.status === "NoCoverage")
      .map(
        (m) =>
          `  ${file}:${m.location.start.line}:${m.location.start.column} ${m.status} ${m.mutatorName}: ${(m.replacement ?? "").replace(/\s+/g, " ").slice(0, 100)}`,
      ),
  );
}

const squash = (text: string) => text.replace(/\s+/g, " ").trim();

/** The ignore list of a folder's config. */
async function equivalentMutants(name: string): Promise<EquivalentMutant[]> {
  const config = await import(join(ROOT, "mutation", `${name}.config.mjs`));
  return config.default.equivalentMutants ?? [];
}

/**
 * Checked before a run: each entry of the ignore list names code found on exactly one line of
 * its file (the ignorer disables the entry's mutators on that line), so a run is never spent on a
 * list that misses or hits more than was meant.
 */
function misplaced(entries: EquivalentMutant[]): string[] {
  return entries.flatMap((entry) => {
    const path = join(ROOT, entry.file);
    if (!existsSync(path)) return [`${entry.file} does not exist`];
    const source = ts.createSourceFile(
      path,
      readFileSync(path, "utf8"),
      ts.ScriptTarget.Latest,
      true,
    );
    const lines = new Set<number>();
    const visit = (node: ts.Node) => {
      if (squash(node.getText(source)) === squash(entry.code)) {
        lines.add(source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1);
      }
      node.forEachChild(visit);
    };
    visit(source);
    return lines.size === 1
      ? []
      : [
          `\`${entry.code}\` is found on ${lines.size === 0 ? "no line" : `lines ${[...lines].join(", ")}`} of ${entry.file}`,
        ];
  });
}

/** Entries of the ignore list that no mutant of the run matched: stale, to be removed. */
async function staleEntries(name: string, report: Report): Promise<EquivalentMutant[]> {
  const { ignoreNote } = await import(join(ROOT, "mutation", "equivalent_mutants.mjs"));
  const entries = await equivalentMutants(name);
  return entries.filter((entry) => {
    const note = ignoreNote(entry);
    const mutants = report.files[entry.file]?.mutants ?? [];
    return !mutants.some((m) => m.status === "Ignored" && m.statusReason === note);
  });
}

function reportOf(name: string): Report | undefined {
  const path = join(ROOT, "reports", "mutation", `${name}.json`);
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as Report) : undefined;
}

function table(rows: Row[], minutes: Map<string, number>): string {
  const lines = [
    "| module | killed | survived | no coverage | ignored | score |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map(
      (r) =>
        `| ${r.module} | ${r.killed} | ${r.survived} | ${r.noCoverage} | ${r.ignored} | ${r.score === undefined ? "—" : `${r.score.toFixed(1)} %`} |`,
    ),
  ];
  const times = [...minutes].map(([name, m]) => `${name} ${m.toFixed(1)} min`).join(", ");
  return times ? `${lines.join("\n")}\n\nRun times: ${times}` : lines.join("\n");
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const reportOnly = args.includes("--report");
  const checkOnly = args.includes("--check");
  // Incremental runs know a test by file, line and name: after a test's body changes, --force
  // runs every mutant again instead of reusing what that test killed before.
  const force = args.includes("--force");
  const named = args.filter((a) => !a.startsWith("--"));
  const unknown = named.filter((n) => !(FOLDERS as readonly string[]).includes(n));
  if (unknown.length > 0) {
    console.error(`Unknown folder ${unknown.join(", ")}: name some of ${FOLDERS.join(", ")}.`);
    return 2;
  }
  const folders = named.length > 0 ? named : [...FOLDERS];
  const minutes = new Map<string, number>();
  let failed = false;
  if (!reportOnly) {
    const problems = (
      await Promise.all(folders.map(async (name) => misplaced(await equivalentMutants(name))))
    ).flat();
    if (problems.length > 0) {
      console.error(`The ignore lists need fixing first:\n  ${problems.join("\n  ")}`);
      return 1;
    }
    if (checkOnly) return 0;
    for (const name of folders) {
      const started = Date.now();
      console.log(`\n== mutation: ${name}`);
      const run = spawnSync(
        join(ROOT, "node_modules", ".bin", "stryker"),
        ["run", join("mutation", `${name}.config.mjs`), ...(force ? ["--force"] : [])],
        { cwd: ROOT, stdio: "inherit" },
      );
      minutes.set(name, (Date.now() - started) / 60_000);
      if (run.status !== 0) {
        console.error(`Stryker failed on ${name} (exit ${run.status ?? run.signal}).`);
        failed = true;
      }
    }
  }
  const rows: Row[] = [];
  for (const name of folders) {
    const report = reportOf(name);
    if (!report) {
      console.error(`No report for ${name}: run \`npm run test:mutation -- ${name}\`.`);
      failed = true;
      continue;
    }
    rows.push(...rowsOf(report));
    const left = survivors(report);
    if (left.length > 0) console.log(`\nSurviving mutants of ${name}:\n${left.join("\n")}`);
    for (const entry of await staleEntries(name, report)) {
      console.error(
        `mutation/${name}.config.mjs: no mutant of ${entry.file} matched the ignored code \`${entry.code}\`; remove or fix the entry.`,
      );
      failed = true;
    }
  }
  console.log(`\n${table(rows, minutes)}`);
  const low = rows.filter((r) => r.score !== undefined && r.score < FLOOR);
  if (low.length > 0) {
    console.error(`\nUnder ${FLOOR} %: ${low.map((r) => r.module).join(", ")}.`);
    failed = true;
  }
  return failed ? 1 : 0;
}

process.exitCode = await main();
