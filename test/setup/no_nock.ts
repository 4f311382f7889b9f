/**
 * @module nock is refused in the files test:fast runs several to a process without it
 * (vitest.fast.config.ts's `shared` project): its interceptors and net-connect switch are the
 * process's. A file that loads it, even through a helper, belongs to the `nock` project; this
 * catches what the config's reading of imports missed.
 */
import { createRequire } from "node:module";
import { afterAll } from "vitest";

const require = createRequire(import.meta.url);
const NOCK = require.resolve("nock");

afterAll(() => {
  if (require.cache[NOCK]) {
    throw new Error(
      "This file loaded nock in a process that files without nock share: nock's interceptors are the process's. vitest.fast.config.ts must put it in the nock project (its reading of imports missed how it reaches nock).",
    );
  }
});
