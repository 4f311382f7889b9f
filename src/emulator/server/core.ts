/** @module The emulator's core: the state, fault injector and handler built from options, shared by both transports. */

import { MAX_TIMER_MS } from "../../utils/sleep.js";
import { FaultInjector } from "../faults/faults.js";
import { checkEmulatorOptions, type EmulatorOptions } from "../options.js";
import { trustedHosts } from "../routes/admin_guard.js";
import { createHandler, type Handler } from "../routes/handler.js";
import type { HandlerContext } from "../routes/handler_context.js";
import {
  DEFAULT_API_KEY,
  DEFAULT_MAX_BODY_BYTES,
  INFERENCE_SERVICE_PERMISSION,
} from "../state/defaults.js";
import { RequestDetails } from "../state/request_details.js";
import { EmulatorState } from "../state/state.js";
import { optionalNumber } from "../validate.js";
import { type ReplaySession, replayHandler } from "./replay.js";

/** What both transports (in-process `fetch`, `node:http` server) serve from. */
export interface EmulatorCore {
  context: HandlerContext;
  handle: Handler;
  streamChunkDelayMs: number;
  /** The demo key if configured, else the first key that works on both surfaces. */
  apiKey: string;
  /** With the `replay` option: the cassette, what it has not served, and how to start it over. */
  replay?: ReplaySession;
}

/** Checks options where they enter, with messages naming the option, and builds the core. */
export function createCore(options: EmulatorOptions & { host?: string } = {}): EmulatorCore {
  checkEmulatorOptions(options);
  const clock = options.clock ?? Date.now;
  const state = new EmulatorState(options, { clock, requestLogLimit: options.requestLogLimit });
  const context: HandlerContext = {
    state,
    faults: new FaultInjector(options.faults),
    clock,
    trustsHost: trustedHosts(options.host),
    maxBodyBytes: optionalNumber(options.maxBodyBytes, "maxBodyBytes", 1) ?? DEFAULT_MAX_BODY_BYTES,
    details: new RequestDetails(),
  };
  const generated = createHandler(context);
  const replay =
    options.replay === undefined ? undefined : replayHandler(options.replay, context, generated);
  return {
    context,
    handle: replay?.handle ?? generated,
    ...(replay ? { replay: replay.session } : {}),
    // Capped where a timer overflows (about 24.8 days), which would send every chunk at once.
    streamChunkDelayMs: Math.min(
      optionalNumber(options.streamChunkDelayMs, "streamChunkDelayMs", 0) ?? 0,
      MAX_TIMER_MS,
    ),
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
