/**
 * @module What one fault of `X-Emulator-Fault` is: a line for people, and what it does to a call —
 * written once, for every route, for replayed answers, and for both transports (which render the
 * reply it leaves: see `server/wire.ts`).
 */

import type { EmulatorReply, EmulatorResponse } from "../reply.js";

/** What a fault that answers in place of a call may read of the call. */
export interface FaultContext {
  requestId: string;
  /** The request body as sent: a gateway reply may name its model, or be about one part of it. */
  body: string;
  /** The request's path and query, as sent. */
  url: string;
  /** `Retry-After` of an injected 429, in seconds. */
  retryAfterSeconds: number;
}

/**
 * One fault. One that neither answers nor damages changes how a route reads the request or
 * lists its answer (`shuffle`, `ignore-response-format`): the route asks `call.fault` for it.
 */
export interface FaultDefinition {
  /**
   * What a client gets, in one line: the console shows it beside the fault's switch, and
   * docs/emulator.md's tables are generated from it (`code` in backticks).
   */
  summary: string;
  /** The reply sent in place of the call's; undefined lets the call go on. */
  answer?: (context: FaultContext) => EmulatorReply | undefined;
  /** The call's answer as the fault leaves it (the same object when untouched). */
  damage?: (reply: EmulatorResponse, requestId: string) => EmulatorResponse;
}
