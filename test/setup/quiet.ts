/**
 * @module A passing run is quiet: every test file loads this first (`setupFiles` in
 * vitest.config.ts). A test that writes to `console.error` or `console.warn`, or during which the
 * process emits a warning (`MaxListenersExceededWarning`…), fails with what was written. A test
 * that makes something log on purpose (a callback handler that throws: LangChain logs "Error in
 * handler …") says so with {@link expectConsole}: the line is then kept out of the output, and the
 * test fails if it never came.
 *
 * Output outside a test (a file's "SKIPPED: redis-server not found" notice) is left alone, and so
 * are `console.log` and `console.info` (a test's own figures).
 *
 * Where files share a process (`npm run test:fast`'s shared files, vitest.fast.config.ts), this
 * runs once per file: the console and the warning listener are set up by the first run only, and
 * every run's hooks read and write that one state.
 */
import { afterAll, afterEach, beforeEach } from "vitest";

type Channel = "error" | "warn";

interface Expected {
  channel: Channel;
  pattern: RegExp;
  seen: number;
}

interface Quiet {
  /** What the current test said it would write, and what it wrote unasked. */
  expected: Expected[];
  unexpected: string[];
  inTest: boolean;
  /** Warnings that came between tests (they are emitted a tick late): reported by the next check. */
  pendingWarnings: string[];
}

const QUIET = Symbol.for("langchain-inference-service/test/quiet");
const holder = globalThis as { [QUIET]?: Quiet };
holder[QUIET] ??= install();
const quiet: Quiet = holder[QUIET];

/**
 * Declares that the current test makes `console[channel]` write a line matching `pattern`: the
 * line is swallowed instead of failing the test, and the test fails if no such line came.
 */
export function expectConsole(channel: Channel, pattern: RegExp): void {
  if (!quiet.inTest) throw new Error("expectConsole() belongs inside a test");
  if (!quiet.expected.some((e) => e.channel === channel && e.pattern.source === pattern.source)) {
    quiet.expected.push({ channel, pattern, seen: 0 });
  }
}

const format = (args: readonly unknown[]) =>
  args.map((arg) => (arg instanceof Error ? (arg.stack ?? String(arg)) : String(arg))).join(" ");

/** Wraps the console and listens for warnings, once per process. */
function install(): Quiet {
  const state: Quiet = { expected: [], unexpected: [], inTest: false, pendingWarnings: [] };
  for (const channel of ["error", "warn"] as const) {
    const original = console[channel].bind(console);
    console[channel] = (...args: unknown[]) => {
      if (!state.inTest) return original(...args);
      const text = format(args);
      const match = state.expected.find((e) => e.channel === channel && e.pattern.test(text));
      if (match) {
        match.seen++;
        return;
      }
      state.unexpected.push(`console.${channel}: ${text}`);
      original(...args);
    };
  }

  // Node prints a warning itself as well: the listener only notes it for the check.
  process.on("warning", (warning) => {
    // A feature Node itself flags as experimental is Node's business, not the package's.
    if (warning.name === "ExperimentalWarning") return;
    const text = `process warning: ${warning.stack ?? `${warning.name}: ${warning.message}`}`;
    if (state.inTest) state.unexpected.push(text);
    else state.pendingWarnings.push(text);
  });
  return state;
}

beforeEach(() => {
  quiet.inTest = true;
  quiet.expected = [];
  quiet.unexpected = quiet.pendingWarnings;
  quiet.pendingWarnings = [];
});

afterEach(() => {
  quiet.inTest = false;
  const missing = quiet.expected.filter((e) => e.seen === 0);
  const problems = [
    ...quiet.unexpected,
    ...missing.map((e) => `expected console.${e.channel} matching ${e.pattern}, none came`),
  ];
  quiet.expected = [];
  quiet.unexpected = [];
  refuse(problems);
});

afterAll(async () => {
  // A warning emitted by the file's last test arrives a tick after it ended.
  await new Promise((resolve) => process.nextTick(resolve));
  const late = quiet.pendingWarnings;
  quiet.pendingWarnings = [];
  refuse(late);
});

function refuse(problems: readonly string[]): void {
  if (problems.length === 0) return;
  throw new Error(
    `A passing test is quiet: capture what a test writes on purpose with expectConsole() (test/setup/quiet.ts), or fix what writes it.\n${problems.join("\n")}`,
  );
}
