/** @module What the emulator's handler and admin API serve from: the state, the fault injector and the clock. */

import type { FaultInjector } from "./faults.js";
import type { EmulatorState } from "./state.js";

/** What the handler serves from; the admin API may swap `faults` at run time. */
export interface HandlerContext {
  state: EmulatorState;
  faults: FaultInjector;
  clock: () => number;
}
