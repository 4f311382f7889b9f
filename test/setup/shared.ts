/**
 * @module What a shared file leaves behind is undone before the next file of its process
 * (`npm run test:fast` runs the files vitest.fast.config.ts shares in a few long-lived processes):
 * timers, spies, stubbed globals and variables. nock is refused outright: its interceptors and
 * its net-connect switch are the process's, so a file that loads it, even through a helper, must
 * run in a process of its own (the classifier in vitest.fast.config.ts reads helpers too; this
 * catches what it missed).
 */
import { createRequire } from "node:module";
import { afterAll, vi } from "vitest";

const require = createRequire(import.meta.url);
const NOCK = require.resolve("nock");

afterAll(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
  if (require.cache[NOCK]) {
    throw new Error(
      "This file loaded nock in a process that other test files share: nock's interceptors are the process's. vitest.fast.config.ts must run it isolated (its classifier missed how it reaches nock).",
    );
  }
});
