/** @module Environment variables, read the same way in every runtime. */
import { getEnvironmentVariable } from "@langchain/core/utils/env";

/**
 * Reads an env variable in any runtime (Node, Deno, Bun, workers), trimmed of surrounding
 * whitespace (a pasted newline, a non-breaking space, a BOM) the same way for every variable;
 * empty counts as unset.
 */
export function readEnv(name: string): string | undefined {
  const value = getEnvironmentVariable(name)?.trim();
  return value === undefined || value === "" ? undefined : value;
}
