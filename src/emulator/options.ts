/** @module Emulator options: their types, their checks, the JSON config file, and the pieces both transports share. */

import { readFile } from "node:fs/promises";
import { DEFAULT_API_KEY, INFERENCE_SERVICE_PERMISSION } from "./defaults.js";
import { FaultInjector, type FaultOptions } from "./faults.js";
import { createHandler, type Handler, type HandlerContext } from "./handler.js";
import { EmulatorState, type EmulatorStateConfig } from "./state.js";
import { EmulatorConfigError, isRecord, optionalNumber } from "./validate.js";

/**
 * Options of {@link createEmulator}; the JSON config file has the same shape (without `clock`).
 * Each of `keys`, `tenants`, `endpoints`, `models` given replaces its default list.
 */
export interface EmulatorOptions extends EmulatorStateConfig {
  /** Random fault injection. Default: none (faults come only from the `X-Emulator-Fault` header). */
  faults?: FaultOptions;
  /** How many request log entries are kept. Default 1000. */
  requestLogLimit?: number;
  /** Pause between streamed events, in milliseconds, to emulate generation speed. Default 0. */
  streamChunkDelayMs?: number;
  /** Time source for key expiry, `readyAfterMs`, `created` and request IDs. Default `Date.now`. */
  clock?: () => number;
}

/** Options of {@link startEmulator}. */
export interface StartEmulatorOptions extends EmulatorOptions {
  /** TCP port; 0 picks a free one. Default 0. */
  port?: number;
  /** Interface to listen on. Default `127.0.0.1` (loopback only: the admin API has no authentication). */
  host?: string;
}

const KNOWN_OPTIONS = new Set([
  "keys",
  "tenants",
  "endpoints",
  "models",
  "credit",
  "faults",
  "requestLogLimit",
  "streamChunkDelayMs",
  "clock",
  "port",
  "host",
]);

/** The state, fault injector and handler built from options; shared by both transports. */
export interface EmulatorCore {
  context: HandlerContext;
  handle: Handler;
  streamChunkDelayMs: number;
  /** The demo key if configured, else the first key that works on both surfaces. */
  apiKey: string;
}

/** Checks options where they enter, with messages naming the option, and builds the core. */
export function createCore(options: EmulatorOptions = {}): EmulatorCore {
  if (typeof options !== "object" || options === null) {
    throw new EmulatorConfigError("emulator options must be an object");
  }
  const unknown = Object.keys(options).filter((key) => !KNOWN_OPTIONS.has(key));
  if (unknown.length > 0) throw new EmulatorConfigError(`unknown emulator option "${unknown[0]}"`);
  if (options.clock !== undefined && typeof options.clock !== "function") {
    throw new EmulatorConfigError("clock must be a function returning epoch milliseconds");
  }
  const clock = options.clock ?? Date.now;
  const state = new EmulatorState(options, { clock, requestLogLimit: options.requestLogLimit });
  const context: HandlerContext = { state, faults: new FaultInjector(options.faults), clock };
  return {
    context,
    handle: createHandler(context),
    streamChunkDelayMs: optionalNumber(options.streamChunkDelayMs, "streamChunkDelayMs", 0) ?? 0,
    apiKey: defaultApiKey(state),
  };
}

function defaultApiKey(state: EmulatorState): string {
  const keys = state.listKeys().filter((key) => !state.isExpired(key));
  const usable =
    keys.find((key) => key.secret === DEFAULT_API_KEY) ??
    keys.find((key) => key.permissions.includes(INFERENCE_SERVICE_PERMISSION)) ??
    keys[0];
  return usable?.secret ?? "";
}

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
