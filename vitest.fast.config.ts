/**
 * `npm run test:fast`: the suite's config, with the files that leave nothing behind in their
 * process run several to a process (`isolate: false`), so that the package and its dependencies
 * are imported once per worker rather than once per file — importing them was over half of the
 * suite's time. A file stays in a process of its own when it, or a helper under test/ it
 * imports, touches what lives in the process beyond a file's reach: nock (its interceptors and
 * net-connect switch are the process's), module mocks, the OpenTelemetry globals, stubbed
 * or spied globals, or process.env and globalThis written directly. test/setup/shared.ts undoes timers,
 * spies and stubs after each shared file, and fails a shared file that loaded nock after all.
 * `npm test` (CI) keeps every file isolated.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { defineConfig, mergeConfig } from "vitest/config";
import suite from "./vitest.config.js";

/** What makes a file need a process of its own. */
const PROCESS_WIDE = [
  /from "nock"/,
  /\bvi\.(mock|doMock|stubGlobal)\(/,
  // A spy on a global timer taken under fake timers would put the fake back when restored.
  /\bvi\.spyOn\(globalThis\b/,
  /from "@opentelemetry\/(api|sdk-[\w-]+|context-async-hooks)"/,
  /\bglobalThis(\.\w+|\[[^\]]+\])\s*=[^=]/,
  /\bprocess\.env(\.\w+|\[[^\]]+\])\s*=[^=]|\bdelete process\.env/,
];

/** Whether `file`, or a test helper it imports (transitively), matches {@link PROCESS_WIDE}. */
function processWide(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  const text = readFileSync(file, "utf8");
  if (PROCESS_WIDE.some((pattern) => pattern.test(text))) return true;
  for (const [, specifier] of text.matchAll(/from "(\.{1,2}\/[^"]+)"/g)) {
    const target = resolve(dirname(file), specifier!).replace(/\.js$/, ".ts");
    if (target.startsWith(TEST) && existsSync(target) && processWide(target, seen)) return true;
  }
  return false;
}

/**
 * The slow end-to-end files test:fast leaves to `npm test`: the package build, the docs' code
 * blocks, the git install, the examples, the soak, the console's browser test and the Redis
 * Cluster's (a paused master and a failover on six servers).
 */
const SLOW = [
  "test/package.test.ts",
  "test/docs.test.ts",
  "test/git_install.test.ts",
  "test/examples.test.ts",
  "test/soak.test.ts",
  "test/emulator/console.test.ts",
  "test/stores/redis_store_cluster.test.ts",
];

const TEST = resolve("test");
const files = (readdirSync(TEST, { recursive: true }) as string[])
  .filter((name) => name.endsWith(".test.ts"))
  .map((name) => relative(".", join(TEST, name)))
  .filter((file) => !SLOW.includes(file))
  .sort();
const isolated = files.filter((file) => processWide(file));
const shared = files.filter((file) => !isolated.includes(file));

export default mergeConfig(
  suite,
  defineConfig({
    test: {
      exclude: SLOW,
      projects: [
        // A project inherits the suite's `include`: each leaves out the other's files.
        { extends: true, test: { name: "isolated", exclude: shared } },
        {
          extends: true,
          test: {
            name: "shared",
            exclude: isolated,
            isolate: false,
            setupFiles: ["test/setup/shared.ts"],
          },
        },
      ],
    },
  }),
);
