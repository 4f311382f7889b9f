/** @module Shared setup of the CLI tests: one emulator on port 0, its env, and captured output. */
import { afterAll, beforeAll, beforeEach, vi } from "vitest";
import type { CommandIO } from "../../src/cli/args.js";
import { type RunningEmulator, startEmulator } from "../../src/emulator/index.js";

/**
 * Starts an emulator for the file and, before each test, resets it and points the env variables
 * at it (base URL and demo key; no tenant or job alias). Returns a getter for the running emulator.
 */
export function useEmulator(): () => RunningEmulator {
  let emulator: RunningEmulator | undefined;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
  });
  afterAll(async () => {
    await emulator?.close();
  });
  beforeEach(() => {
    emulator!.state.reset();
    vi.stubEnv("INFERENCE_SERVICE_BASE_URL", emulator!.baseURL);
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", emulator!.apiKey);
    vi.stubEnv("INFERENCE_SERVICE_TENANT_ID", "");
    vi.stubEnv("INFERENCE_SERVICE_JOB_ALIAS", "");
  });
  return () => emulator!;
}

/** Runs a command in-process with spies as its stdout and stderr. */
export async function capture(
  command: (argv: string[], io: CommandIO) => Promise<number>,
  argv: string[],
) {
  const stdout = vi.fn<(text: string) => void>();
  const stderr = vi.fn<(text: string) => void>();
  const code = await command(argv, { stdout, stderr });
  const join = (spy: typeof stdout) => spy.mock.calls.map(([text]) => text).join("");
  const out = join(stdout);
  return { code, out, err: join(stderr), lines: out.split("\n"), writes: stdout.mock.calls.length };
}
