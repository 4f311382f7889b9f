/**
 * @module Pacing: the arithmetic of one rate limit — slots handed out in order (GCRA), paused by
 * a 429's `Retry-After`, cut multiplicatively and recovering linearly (AIMD). Pure functions on
 * a plain state, so the in-memory store runs them directly and the Redis store's Lua script
 * mirrors them line for line.
 */
import type { RateGrant, RatePenalty, RateRelease, RateSpan, RateTake } from "./usage_store.js";

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
  /** Slots handed out in the current and previous one-second windows. */
  windowStart: number;
  current: number;
  previous: number;
  /** Requests the service answered in the same two windows (the rate it accepts). */
  acceptedCurrent: number;
  acceptedPrevious: number;
  /**
   * Slots given back before the last one of their bucket, by start: each comes back once the
   * slots after it have (a slot is never handed out twice).
   */
  requestHoles: RateSpan[];
  tokenHoles: RateSpan[];
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
    acceptedCurrent: 0,
    acceptedPrevious: 0,
    requestHoles: [],
    tokenHoles: [],
  };
}

const WINDOW_MS = 1000;
/** Cuts never take a rate below this share of the configured one, nor a learned rate below 1/min. */
const MIN_FACTOR = 0.01;
const MIN_LEARNED = 1 / 60_000;
/** Holes kept per bucket: each take reads them, so they stay few; the oldest goes first. */
export const MAX_HOLES = 64;

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

/** Moves the two one-second windows on to the one `now` falls in. */
function roll(state: PacingState, now: number): void {
  const window = Math.floor(now / WINDOW_MS) * WINDOW_MS;
  if (window === state.windowStart) return;
  const next = window === state.windowStart + WINDOW_MS;
  state.previous = next ? state.current : 0;
  state.acceptedPrevious = next ? state.acceptedCurrent : 0;
  state.current = 0;
  state.acceptedCurrent = 0;
  state.windowStart = window;
}

/**
 * The rate the service showed it accepts, per millisecond, over about the last second: the
 * requests it answered, else (none reported yet) the slots handed out.
 */
function observedRate(state: PacingState, now: number): number {
  roll(state, now);
  const weight = 1 - (now - state.windowStart) / WINDOW_MS;
  const accepted = state.acceptedPrevious * weight + state.acceptedCurrent;
  const slots = state.previous * weight + state.current;
  return (accepted > 0 ? accepted : slots) / WINDOW_MS;
}

/**
 * Hands out the next slot and returns how long to wait for it. A request goes when the request
 * bucket allows (`burst` at once, then one per `1 / rate`) and the tokens of earlier requests
 * are paid for at the token rate; a request larger than the token rate allows at once still
 * goes, alone, when its turn comes.
 */
export function takeSlot(state: PacingState, take: RateTake): Omit<RateGrant, "epoch"> {
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
  let requestSpan: RateSpan | undefined;
  let tokenSpan: RateSpan | undefined;
  // Each span runs from the bucket's end before the take to its end after: spans follow one
  // another exactly, so giving one back undoes its take to the bit.
  if (requestRate !== undefined) {
    const before = state.requestTat;
    state.requestTat = Math.max(before, start) + 1 / requestRate;
    requestSpan = [before, state.requestTat];
  }
  if (tokenRate !== undefined && take.tokens > 0) {
    const before = state.tokenTat;
    state.tokenTat = Math.max(before, start) + take.tokens / tokenRate;
    tokenSpan = [before, state.tokenTat];
  }
  // Holes that ended before now can no longer come back: their time has passed anyway.
  state.requestHoles = state.requestHoles.filter((hole) => hole[1] > now);
  state.tokenHoles = state.tokenHoles.filter((hole) => hole[1] > now);
  roll(state, now);
  state.current += 1;
  state.acceptedCurrent += take.accepted;
  return {
    waitMs: start - now,
    ...(requestSpan && { requestSpan }),
    ...(tokenSpan && { tokenSpan }),
  };
}

/**
 * Gives back the slot of a call cancelled before its turn (see `UsageStore.releaseRate`): in
 * each bucket, the last slot moves the bucket's end back to where it was before the slot was
 * taken, then any holes that end there come back too; an earlier slot waits as a hole. A slot of an older epoch is ignored: the
 * cut that started the new one forgot it.
 */
export function releaseSlot(state: PacingState, release: RateRelease): void {
  if (release.epoch !== state.epoch) return;
  if (release.requestSpan) {
    state.requestTat = giveBack(state.requestTat, state.requestHoles, release.requestSpan);
  }
  if (release.tokenSpan) {
    state.tokenTat = giveBack(state.tokenTat, state.tokenHoles, release.tokenSpan);
  }
}

/** A bucket's end once `span` is given back; `holes` (sorted by start) change in place. */
function giveBack(end: number, holes: RateSpan[], span: RateSpan): number {
  if (span[1] !== end) {
    const at = holes.findIndex((hole) => hole[0] > span[0]);
    holes.splice(at < 0 ? holes.length : at, 0, span);
    if (holes.length > MAX_HOLES) holes.shift();
    return end;
  }
  let back = span[0];
  while (holes.length > 0 && holes[holes.length - 1]![1] === back) back = holes.pop()![0];
  return back;
}

/**
 * A 429: every slot waits out the pause; the first 429 of an epoch also cuts the rate to
 * `decrease ×` the lower of the current rate and the rate the service was observed to accept
 * over the last second (it just showed it takes no more). Slots already handed out are
 * forgotten: their holders take new ones at the new rate.
 */
export function penalize(state: PacingState, penalty: RatePenalty): void {
  const { now, recoveryMs } = penalty;
  roll(state, now);
  state.acceptedCurrent += penalty.accepted;
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
  state.requestHoles = [];
  state.tokenHoles = [];
  state.epoch += 1;
}
