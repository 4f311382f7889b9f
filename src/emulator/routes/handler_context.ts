/** @module What the emulator's handler and admin API serve from: the state, the fault injector, the clock, the request limits and the newest calls' bodies. */

import type { FaultInjector } from "../faults/faults.js";
import type { RequestDetails } from "../state/request_details.js";
import type { EmulatorState } from "../state/state.js";

/** What the handler serves from; the admin API may swap `faults` at run time. */
export interface HandlerContext {
  state: EmulatorState;
  faults: FaultInjector;
  clock: () => number;
  /** Whether admin requests may name this host in `Host` (see `admin_guard.ts`). */
  trustsHost: (hostname: string) => boolean;
  /** Request bodies larger than this get 413 (the transports stop reading them). */
  maxBodyBytes: number;
  /** The newest calls' requests and replies, for the console's request view. */
  details: RequestDetails;
}
