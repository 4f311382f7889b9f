/** @module The emulator's JSON config file (the CLI's `--config`): read, parsed and checked at its top level. */

import { readFile } from "node:fs/promises";
import type { StartEmulatorOptions } from "./options.js";
import { EmulatorConfigError, isRecord } from "./validate.js";

/**
 * Reads a JSON config file with the shape of {@link StartEmulatorOptions} (the CLI's `--config`).
 *
 * @example
 * // emulator.json: { "credit": 0.5, "models": [{ "id": "my-model", "prices": { "input": 2, "output": 8 } }] }
 * const emulator = await startEmulator(await loadEmulatorConfig("emulator.json"));
 */
export async function loadEmulatorConfig(file: string): Promise<StartEmulatorOptions> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new EmulatorConfigError(
      `cannot read emulator config ${file}: ${(error as Error).message}`,
    );
  }
  if (!isRecord(parsed))
    throw new EmulatorConfigError(`emulator config ${file} must hold a JSON object`);
  if ("clock" in parsed)
    throw new EmulatorConfigError(`emulator config ${file}: clock cannot be set from JSON`);
  return parsed as StartEmulatorOptions;
}
