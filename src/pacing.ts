/**
 * @module Pacing: the arithmetic of one rate limit — slots handed out in order (GCRA), paused by
 * a 429's `Retry-After`, cut multiplicatively and recovering linearly (AIMD). Pure functions on
 * a plain state, so the in-memory store runs them directly and the Redis store's Lua script
 * mirrors them line for line.
 */
import type { RatePenalty, RateTake } from "./usage_store.js";

/** The state of one rate limit. Times are in the callers' clock (milliseconds). */
export interface PacingState {
  /** When the request bucket is next free (GCRA's theoretical arrival time). */
  requestTat: number;
  /** When the token bucket is next free. */
  tokenTat: number;
  /** No slot starts before this (a 429's `Retry-After`). */
  pausedUntil: number;
  /** Bumped by each cut; slots of an older epoch were computed at the old rate. */
  epoch: number;
  /** Multiplier of the configured rates at `cutAt`; 1 until the first cut. */
  factor: number;
  /** Requests per ms learned from 429s when none is configured; 0 until the first cut (no limit). */
  learned: number;
  /** When the last cut took effect; rates climb back linearly from there. */
  cutAt: number;
  /** Slots handed out in the current and previous one-second windows (the observed rate). */
  windowStart: number;
  current: number;
  previous: number;
}

export function newPacingState(): PacingState {
  return {
    requestTat: 0,
    tokenTat: 0,
    pausedUntil: 0,
    epoch: 0,
    factor: 1,
    learned: 0,
    cutAt: 0,
    windowStart: 0,
    current: 0,
    previous: 0,
  };
}

const WINDOW_MS = 1000;
/** Cuts never take a rate below this share of the configured one, nor a learned rate below 1/min. */
const MIN_FACTOR = 0.01;
const MIN_LEARNED = 1 / 60_000;

/**
 * A value cut to `value` at `cutAt` then grows linearly by `value` every `recoveryMs` (so a cut
 * by half is undone after `recoveryMs`): additive increase after a multiplicative decrease.
 */
function recovered(value: number, state: PacingState, now: number, recoveryMs: number): number {
  if (now <= state.cutAt || recoveryMs <= 0) return value;
  return value * (1 + (now - state.cutAt) / recoveryMs);
}

/** The multiplier of the configured rates now (≤ 1). */
function factorAt(state: PacingState, now: number, recoveryMs: number): number {
  return Math.min(1, recovered(state.factor, state, now, recoveryMs));
}

/** Slots handed out over about the last second, per millisecond. */
function observedRate(state: PacingState, now: number): number {
  const window = Math.floor(now / WINDOW_MS) * WINDOW_MS;
  let previous = state.previous;
  let current = state.current;
  if (window === state.windowStart + WINDOW_MS) {
    previous = current;
    current = 0;
  } else if (window !== state.windowStart) {
    previous = 0;
    current = 0;
  }
  const weight = 1 - (now - window) / WINDOW_MS;
  return (previous * weight + current) / WINDOW_MS;
}

function countSlot(state: PacingState, now: number): void {
  const window = Math.floor(now / WINDOW_MS) * WINDOW_MS;
  if (window === state.windowStart) {
    state.current += 1;
    return;
  }
  state.previous = window === state.windowStart + WINDOW_MS ? state.current : 0;
  state.current = 1;
  state.windowStart = window;
}

/**
 * Hands out the next slot and returns how long to wait for it. A request goes when the request
 * bucket allows (`burst` at once, then one per `1 / rate`) and the tokens of earlier requests
 * are paid for at the token rate; a request larger than the token rate allows at once still
 * goes, alone, when its turn comes.
 */
export function takeSlot(state: PacingState, take: RateTake): number {
  const { now } = take;
  const factor = factorAt(state, now, take.recoveryMs);
  const requestRate =
    take.requestRate !== undefined
      ? take.requestRate * factor
      : take.learn && state.learned > 0
        ? recovered(state.learned, state, now, take.recoveryMs)
        : undefined;
  const tokenRate = take.tokenRate !== undefined ? take.tokenRate * factor : undefined;
  let start = Math.max(now, state.pausedUntil);
  if (requestRate !== undefined) {
    start = Math.max(start, state.requestTat - (take.burst - 1) / requestRate);
  }
  if (tokenRate !== undefined) start = Math.max(start, state.tokenTat);
  if (requestRate !== undefined) {
    state.requestTat = Math.max(state.requestTat, start) + 1 / requestRate;
  }
  if (tokenRate !== undefined && take.tokens > 0) {
    state.tokenTat = Math.max(state.tokenTat, start) + take.tokens / tokenRate;
  }
  countSlot(state, now);
  return start - now;
}

/**
 * A 429: every slot waits out the pause; the first 429 of an epoch also cuts the rate to
 * `decrease ×` the lower of the current rate and the rate slots were observed going out at
 * (the service just showed it allows no more). Slots already handed out are forgotten: their
 * holders take new ones at the new rate.
 */
export function penalize(state: PacingState, penalty: RatePenalty): void {
  const { now, recoveryMs } = penalty;
  state.pausedUntil = Math.max(state.pausedUntil, now + penalty.pauseMs);
  if (penalty.epoch !== state.epoch) return;
  const observed = observedRate(state, now);
  if (penalty.requestRate !== undefined) {
    const current = factorAt(state, now, recoveryMs);
    const seen = observed > 0 ? observed / penalty.requestRate : current;
    state.factor = Math.max(MIN_FACTOR, penalty.decrease * Math.min(current, seen));
  } else {
    const current =
      state.learned > 0
        ? recovered(state.learned, state, now, recoveryMs)
        : Number.POSITIVE_INFINITY;
    const base = Math.min(current, observed > 0 ? observed : current);
    state.learned = Number.isFinite(base)
      ? Math.max(MIN_LEARNED, penalty.decrease * base)
      : MIN_LEARNED;
  }
  state.cutAt = state.pausedUntil;
  state.requestTat = state.pausedUntil;
  state.tokenTat = state.pausedUntil;
  state.epoch += 1;
}
