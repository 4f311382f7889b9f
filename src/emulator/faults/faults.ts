/** @module Fault injection: per request with `X-Emulator-Fault`, or at random from a seeded generator. */

import { MAX_TIMER_MS } from "../../utils/sleep.js";
import {
  EmulatorConfigError,
  optionalArray,
  optionalNumber,
  requireRecord,
  requireString,
} from "../validate.js";
import { GATEWAY_FAULTS } from "./gateway_faults.js";

/** Request header that injects faults into one request, e.g. `X-Emulator-Fault: 503` or `latency=200, truncate`. */
export const FAULT_HEADER = "X-Emulator-Fault";

/**
 * The gateway's error replies beyond docs/service-contract.md#errors (see `gateway_faults.ts` and docs/emulator.md), named
 * after the gateway's code where there is one.
 */
export type GatewayFaultKind = keyof typeof GATEWAY_FAULTS;

/**
 * - `429`: rate limited, with `Retry-After`;
 * - `500` / `502` / `503`: transient server errors, code `upstream_error` (never `model_not_found`);
 * - `latency=<ms>`: answer that much later (combines with the others);
 * - `reset`: close the connection with no response;
 * - `truncate`: cut the response in the middle (no `[DONE]`, or half a JSON body);
 * - `stream-error`: two chunks, then an SSE error event, then the end (a 500 on a non-streamed call);
 * - `stall`: send the headers, then nothing, never ending; `stall-mid`: half the events (or half
 *   the JSON), then nothing;
 * - `empty`: a 200 with no body at all (no events on a stream);
 * - `no-choices`: a 200 whose answer has no choices (`choices: []`; a stream of the usage chunk only);
 * - `redirect-loop`: a 307 back to the same path, for ever;
 * - `shuffle`: an embeddings answer lists its items out of order, each keeping its `index`
 *   (other routes are answered as usual);
 * - `ignore-response-format`: a chat answer in prose whatever the `response_format`, as from a
 *   channel that does not read the field;
 * - the gateway's replies of {@link GatewayFaultKind}.
 */
export type FaultKind =
  | "429"
  | "500"
  | "502"
  | "503"
  | "reset"
  | "truncate"
  | "stream-error"
  | "stall"
  | "stall-mid"
  | "empty"
  | "no-choices"
  | "redirect-loop"
  | "shuffle"
  | "ignore-response-format"
  | GatewayFaultKind
  | `latency=${number}`;

/** Random faults; with `rate` 0 (the default) only the header injects any. */
export interface FaultOptions {
  /** Probability in [0, 1] that an authenticated inference request gets a fault. Default 0. */
  rate?: number;
  /** The kinds drawn from, uniformly. Default `["429", "502", "503", "reset", "truncate"]`. */
  kinds?: FaultKind[];
  /** Seed of the generator, so a soak test sees the same faults every run. Default 1. */
  seed?: number;
  /** `Retry-After` of injected 429s, in seconds. Default 1. */
  retryAfterSeconds?: number;
}

export type Fault =
  | { type: "status"; status: 429 | 500 | 502 | 503 }
  | { type: "reset" }
  | { type: "truncate" }
  | { type: "stream-error" }
  | { type: "stall"; mid: boolean }
  | { type: "empty" }
  | { type: "no-choices" }
  | { type: "redirect-loop" }
  | { type: "shuffle" }
  | { type: "ignore-response-format" }
  | { type: "gateway"; name: GatewayFaultKind };

/** What to do to one request. */
export interface FaultPlan {
  fault: Fault | undefined;
  latencyMs: number;
  /** The fault as written (`"503"`, `"latency=200,truncate"`), for the request log. */
  label: string | undefined;
}

const NO_FAULT: FaultPlan = Object.freeze({ fault: undefined, latencyMs: 0, label: undefined });
const DEFAULT_KINDS: readonly FaultKind[] = ["429", "502", "503", "reset", "truncate"];

/** A fault of the emulator's own: what it does to a call, and that in a line for people. */
interface OwnFault {
  fault: Fault;
  /**
   * One line that says what a client gets: the console shows it beside the fault's switch, and
   * docs/emulator.md's table is generated from it (`code` in backticks).
   */
  summary: string;
}

const status = (code: 429 | 500 | 502 | 503, summary: string): OwnFault => ({
  fault: { type: "status", status: code },
  summary,
});

/** The faults of the emulator's own, by the name `X-Emulator-Fault` takes. */
const OWN_FAULTS: Readonly<Record<string, OwnFault>> = {
  "429": status(
    429,
    "429 `rate_limit_exceeded` with `Retry-After: <retryAfterSeconds>`: a rate limit, to retry after the wait",
  ),
  "500": status(500, "500 `upstream_error`: a transient server error, which clients may retry"),
  "502": status(502, "502 `upstream_error`: a transient server error, which clients may retry"),
  "503": status(
    503,
    "503 `upstream_error` (never `model_not_found`): a transient server error, which clients may retry",
  ),
  reset: {
    fault: { type: "reset" },
    summary:
      'The connection is reset with no response (in-process: `TypeError("fetch failed")`, cause `ECONNRESET`)',
  },
  truncate: {
    fault: { type: "truncate" },
    summary:
      "The reply stops halfway and the connection dies: half a stream's events (no `[DONE]`), or half a JSON body",
  },
  "stream-error": {
    fault: { type: "stream-error" },
    summary:
      "A stream sends two chunks, then an SSE `error` event, and ends without `[DONE]`; a call not streamed gets 500 `upstream_error`",
  },
  stall: {
    fault: { type: "stall", mid: false },
    summary: "The status and headers, then nothing, never ending: only a client's timeout ends it",
  },
  "stall-mid": {
    fault: { type: "stall", mid: true },
    summary: "Half the events (or half the JSON), then nothing, never ending",
  },
  empty: {
    fault: { type: "empty" },
    summary: "200 with no body at all: a stream with no event, not even `[DONE]`",
  },
  "no-choices": {
    fault: { type: "no-choices" },
    summary:
      "200 with no `choices` (no `output` on /responses); a stream sends only its usage or its first and last events",
  },
  "redirect-loop": {
    fault: { type: "redirect-loop" },
    summary: "307 with `Location` set to the request's own path, for ever",
  },
  shuffle: {
    fault: { type: "shuffle" },
    summary:
      "An embeddings answer lists its items out of order, each keeping its `index`; other routes answer as usual",
  },
  "ignore-response-format": {
    fault: { type: "ignore-response-format" },
    summary:
      "A chat answer ignores `response_format` and comes in prose, a billed 200, as from a channel that does not read the field",
  },
};

/** What `latency=<ms>` does, in the words of the fault table (it is a value, not a fault kind). */
export const LATENCY_SUMMARY =
  "The reply, whatever it is, is sent that much later; combines with the others";

const FIXED: Readonly<Record<string, Fault>> = {
  ...Object.fromEntries(Object.entries(OWN_FAULTS).map(([name, { fault }]) => [name, fault])),
  ...Object.fromEntries(
    Object.keys(GATEWAY_FAULTS).map((name) => [
      name,
      { type: "gateway", name: name as GatewayFaultKind },
    ]),
  ),
};

/** Every fault name the header takes, `latency=<ms>` aside. */
export const FAULT_KINDS: readonly string[] = Object.keys(FIXED);

/** The emulator's own faults, in the order of their table, each with its one-line summary. */
export const OWN_FAULT_SUMMARIES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(OWN_FAULTS).map(([name, { summary }]) => [name, summary]),
);

/** What each fault of {@link FAULT_KINDS} does, in a line: what the console shows beside its switch. */
export const FAULT_SUMMARIES: Readonly<Record<string, string>> = {
  ...OWN_FAULT_SUMMARIES,
  ...Object.fromEntries(
    Object.entries(GATEWAY_FAULTS).map(([name, { summary }]) => [name, summary]),
  ),
};

/** Thrown for an `X-Emulator-Fault` value the emulator does not know (answered with 400). */
export class UnknownFaultError extends Error {
  override readonly name = "UnknownFaultError";
}

export class FaultInjector {
  readonly rate: number;
  readonly kinds: readonly FaultKind[];
  readonly retryAfterSeconds: number;
  #random: () => number;

  constructor(options: FaultOptions = {}) {
    requireRecord(options, "faults");
    this.rate = optionalNumber(options.rate, "faults.rate", 0) ?? 0;
    if (this.rate > 1) throw new EmulatorConfigError("faults.rate must be between 0 and 1");
    const kinds = optionalArray(options.kinds, "faults.kinds") ?? DEFAULT_KINDS;
    this.kinds = kinds.map((kind, i) => {
      const name = requireString(kind, `faults.kinds[${i}]`);
      if (parseFault(name) === undefined)
        throw new EmulatorConfigError(`faults.kinds[${i}] "${name}" is not a fault kind`);
      return name as FaultKind;
    });
    if (this.kinds.length === 0 && this.rate > 0)
      throw new EmulatorConfigError("faults.kinds must not be empty");
    this.retryAfterSeconds =
      optionalNumber(options.retryAfterSeconds, "faults.retryAfterSeconds", 0) ?? 1;
    this.#random = mulberry32(optionalNumber(options.seed, "faults.seed") ?? 1);
  }

  /** The faults for one request: those the header names, else (at `rate`) one drawn at random. */
  plan(header: string | undefined): FaultPlan {
    if (header !== undefined && header.trim() !== "") return parseHeader(header);
    if (this.rate === 0 || this.#random() >= this.rate) return NO_FAULT;
    const kind = this.kinds[Math.floor(this.#random() * this.kinds.length)] ?? this.kinds[0]!;
    return parseHeader(kind);
  }
}

function parseHeader(header: string): FaultPlan {
  let fault: Fault | undefined;
  let latencyMs = 0;
  for (const item of header.split(",")) {
    const parsed = parseFault(item.trim());
    if (parsed === undefined) {
      throw new UnknownFaultError(
        `Unknown ${FAULT_HEADER} value "${item.trim()}"; expected latency=<ms> or one of ${FAULT_KINDS.join(", ")}`,
      );
    }
    if (typeof parsed === "number") latencyMs += parsed;
    else fault ??= parsed;
  }
  // A timer overflows past MAX_TIMER_MS (about 24.8 days) and fires at once: hold that long.
  return { fault, latencyMs: Math.min(latencyMs, MAX_TIMER_MS), label: header.trim() };
}

/** A fault, a latency in milliseconds, or undefined for an unknown name. */
function parseFault(name: string): Fault | number | undefined {
  const latency = /^latency=(\d+(?:\.\d+)?)$/.exec(name);
  if (latency) return Number(latency[1]);
  return FIXED[name];
}

/** Small, fast, seedable PRNG (public domain); `Math.random` cannot be seeded. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
