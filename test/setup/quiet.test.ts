/**
 * The quiet rule holds: a test that writes an error or a warning unasked, or during which Node
 * warns, fails; a test that expects its line passes, and fails when the line never comes.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

interface Report {
  testResults: Array<{
    assertionResults: Array<{ title: string; status: string; failureMessages: string[] }>;
  }>;
}

it("fails each noisy test of its fixture and passes the one that expects its line", async () => {
  const run = await promisify(execFile)(
    process.execPath,
    [
      "node_modules/vitest/vitest.mjs",
      "run",
      "--config",
      "test/setup/fixtures/vitest.config.ts",
      "--reporter=json",
    ],
    { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" } },
  ).catch((failed: { stdout: string }) => failed);
  const report = JSON.parse(run.stdout) as Report;
  const results = Object.fromEntries(
    report.testResults[0]!.assertionResults.map((r) => [r.title, r]),
  );
  expect(Object.fromEntries(Object.entries(results).map(([t, r]) => [t, r.status]))).toEqual({
    "writes to console.error unasked": "failed",
    "writes to console.warn unasked": "failed",
    "makes Node warn of a listener leak": "failed",
    "expects a line that never comes": "failed",
    "expects the line it writes": "passed",
  });
  expect(results["writes to console.error unasked"]!.failureMessages.join()).toContain(
    "console.error: something went wrong",
  );
  expect(results["makes Node warn of a listener leak"]!.failureMessages.join()).toContain(
    "MaxListenersExceededWarning",
  );
  expect(results["expects a line that never comes"]!.failureMessages.join()).toContain(
    "expected console.error matching /^Error in handler/, none came",
  );
});
