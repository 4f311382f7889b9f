/** @module What every benchmark receives: the running servers, targets built from them, and a logger. */

import type { Target } from "./contenders.js";
import { FIXED_MODEL } from "./fixed_server.js";
import type { Servers } from "./servers.js";

export interface BenchContext {
  servers: Servers;
  /** Progress lines (stderr), so stdout carries only the tables. */
  progress: (line: string) => void;
}

/** The emulator's hosted surface with its demo key and model. */
export function emulatorTarget(servers: Servers, model = "emulator-chat"): Target {
  return {
    label: "emulator",
    baseURL: servers.emulatorBaseURL,
    apiKey: servers.emulatorApiKey,
    model,
  };
}

/** One route of the fixed server (`json`, `e401`, `sse-…`, …). */
export function fixedTarget(servers: Servers, route: string): Target {
  return {
    label: "fixed server",
    baseURL: `${servers.fixedURL}/${route}/inference/v1`,
    apiKey: "sk-bench-fixed",
    model: FIXED_MODEL,
  };
}
