/**
 * `npm run test:fast`: the suite's config, with files that leave nothing behind in their process
 * run several to a process (`isolate: false`), so that the package and its dependencies are
 * imported once per worker rather than once per file — importing them was over half of the
 * suite's time. Each file goes to one of three projects, by what it (or a helper under test/ it
 * imports) touches of the process:
 * - `shared`: nothing beyond what test/setup/shared.ts undoes after each file (timers, spies,
 *   stubbed variables); it also fails a file that loaded nock after all;
 * - `nock`: nock and nothing else; test/setup/nock.ts gives each file nock as a fresh import
 *   would (active, no interceptors, net connect allowed) and takes it down after the file;
 * - `isolated`, a process per file: module mocks, the OpenTelemetry globals, stubbed or spied
 *   globals, or process.env or globalThis written directly.
 * `npm test` (CI) keeps every file isolated.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { defineConfig, mergeConfig } from "vitest/config";
import suite from "./vitest.config.js";

const NOCK = /from "nock"/;

/** What makes a file need a process of its own. */
const PROCESS_WIDE = [
  /\bvi\.(mock|doMock|stubGlobal)\(/,
  // A spy on a global timer taken under fake timers would put the fake back when restored.
  /\bvi\.spyOn\(globalThis\b/,
  /from "@opentelemetry\/(api|sdk-[\w-]+|context-async-hooks)"/,
  /\bglobalThis(\.\w+|\[[^\]]+\])\s*=[^=]/,
  /\bprocess\.env(\.\w+|\[[^\]]+\])\s*=[^=]|\bdelete process\.env/,
];

/** The text of `file` and of every test helper it imports, transitively. */
function sources(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const text = readFileSync(file, "utf8");
  const helpers = [...text.matchAll(/from "(\.{1,2}\/[^"]+)"/g)]
    .map(([, specifier]) => resolve(dirname(file), specifier!).replace(/\.js$/, ".ts"))
    .filter((target) => target.startsWith(TEST) && existsSync(target));
  return [text, ...helpers.flatMap((target) => sources(target, seen))];
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
const projectOf = (file: string) => {
  const texts = sources(resolve(file));
  const uses = (pattern: RegExp) => texts.some((text) => pattern.test(text));
  if (PROCESS_WIDE.some(uses)) return "isolated";
  return uses(NOCK) ? "nock" : "shared";
};
const projects = new Map(files.map((file) => [file, projectOf(file)]));
/** Every file but `name`'s: a project inherits the suite's `include`. */
const others = (name: string) => files.filter((file) => projects.get(file) !== name);
const setup = ["test/setup/shared.ts"];

export default mergeConfig(
  suite,
  defineConfig({
    test: {
      exclude: SLOW,
      projects: [
        { extends: true, test: { name: "isolated", exclude: others("isolated") } },
        {
          extends: true,
          test: {
            name: "nock",
            exclude: others("nock"),
            isolate: false,
            setupFiles: [...setup, "test/setup/nock.ts"],
          },
        },
        {
          extends: true,
          test: {
            name: "shared",
            exclude: others("shared"),
            isolate: false,
            setupFiles: [...setup, "test/setup/no_nock.ts"],
          },
        },
      ],
    },
  }),
);
