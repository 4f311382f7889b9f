/** @module Fault injection: per request with `X-Emulator-Fault`, or at random from a seeded generator. */

import { MAX_TIMER_MS } from "../../utils/sleep.js";
import type { EmulatorReply, EmulatorResponse } from "../reply.js";
import {
  EmulatorConfigError,
  optionalArray,
  optionalNumber,
  requireRecord,
  requireString,
} from "../validate.js";
import type { FaultContext, FaultDefinition } from "./fault.js";
import { GATEWAY_FAULTS, type GatewayFaultKind } from "./gateway_faults.js";
import { OWN_FAULTS } from "./own_faults.js";

export type { GatewayFaultKind } from "./gateway_faults.js";

/** Request header that injects faults into one request, e.g. `X-Emulator-Fault: 503` or `latency=200, truncate`. */
export const FAULT_HEADER = "X-Emulator-Fault";

/**
 * Every fault, by the name the header takes, in the order of docs/emulator.md's tables: the
 * emulator's own (own_faults.ts), then the gateway's replies (gateway_faults.ts). The fault kinds,
 * the names the header accepts, the console's switches and the docs' tables all come from it.
 */
const FAULTS = { ...OWN_FAULTS, ...GATEWAY_FAULTS } as const;

/** A fault's name, as `X-Emulator-Fault` and `faults.kinds` take it (`latency=<ms>` aside). */
export type FaultName = keyof typeof FAULTS;

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
export type FaultKind = FaultName | `latency=${number}`;

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

/** What to do to one request. */
export interface FaultPlan {
  fault: FaultName | undefined;
  latencyMs: number;
  /** The fault as written (`"503"`, `"latency=200,truncate"`), for the request log. */
  label: string | undefined;
}

const NO_FAULT: FaultPlan = Object.freeze({ fault: undefined, latencyMs: 0, label: undefined });
const DEFAULT_KINDS: readonly FaultKind[] = ["429", "502", "503", "reset", "truncate"];

/** The table, each row read as a fault (the literal rows vary in which of its parts they set). */
const TABLE: Readonly<Record<FaultName, FaultDefinition>> = FAULTS;

/** What `latency=<ms>` does, in the words of the fault table (it is a value, not a fault kind). */
export const LATENCY_SUMMARY =
  "The reply, whatever it is, is sent that much later; combines with the others";

/** Every fault name the header takes, `latency=<ms>` aside. */
export const FAULT_KINDS: readonly string[] = Object.keys(FAULTS);

const summaries = (table: Readonly<Record<string, FaultDefinition>>) =>
  Object.fromEntries(Object.entries(table).map(([name, { summary }]) => [name, summary]));

/** The emulator's own faults, in the order of their table, each with its one-line summary. */
export const OWN_FAULT_SUMMARIES: Readonly<Record<string, string>> = summaries(OWN_FAULTS);

/** What each fault of {@link FAULT_KINDS} does, in a line: what the console shows beside its switch. */
export const FAULT_SUMMARIES: Readonly<Record<string, string>> = summaries(FAULTS);

/**
 * The reply of a fault that answers in place of the call (a status, a gateway error, a reset, a
 * redirect loop); undefined for none, for a gateway error about a part the request does not
 * have, or for one that damages the answer instead (see {@link damage}) or changes how a route
 * reads the request. Replay applies faults with it too.
 */
export function faultReply(
  fault: FaultName | undefined,
  context: FaultContext,
): EmulatorReply | undefined {
  return fault === undefined ? undefined : TABLE[fault].answer?.(context);
}

/**
 * The reply as a fault that damages answers leaves it (`truncate`, `stream-error`, `stall`,
 * `empty`, `no-choices`): the same object when untouched. Replay damages recorded answers with it too.
 */
export function damage(
  reply: EmulatorResponse,
  fault: FaultName | undefined,
  requestId: string,
): EmulatorResponse {
  const harm = fault === undefined ? undefined : TABLE[fault].damage;
  return harm ? harm(reply, requestId) : reply;
}

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
  let fault: FaultName | undefined;
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
function parseFault(name: string): FaultName | number | undefined {
  const latency = /^latency=(\d+(?:\.\d+)?)$/.exec(name);
  if (latency) return Number(latency[1]);
  return Object.hasOwn(FAULTS, name) ? (name as FaultName) : undefined;
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
