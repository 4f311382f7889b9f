/**
 * @module What a file leaves behind is undone before the next file of its process, where
 * `npm run test:fast` runs files several to a process (vitest.fast.config.ts): fake timers,
 * spies, stubbed globals and variables.
 */
import { afterAll, vi } from "vitest";

afterAll(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});
