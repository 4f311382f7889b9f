/**
 * @module The Lua scripts of `RedisStore`: each budget and rate-limit operation runs as one
 * script, so Redis applies it atomically however many processes call at once. They mirror
 * `fitsBudget` (usage_store.ts) and `takeSlot` / `penalize` / `releaseSlot` (pacing.ts) line for line; the store's
 * tests run the same cases against both stores to keep them equal.
 *
 * Numbers travel as strings: Redis turns a Lua number it returns into an integer, and
 * `%.17g` keeps every bit of a double.
 */
import { MAX_HOLES } from "./pacing.js";

/**
 * Budget keys: KEYS[1] the budget hash (spent, reserved), KEYS[2] holds (id → amount), KEYS[3]
 * leases (id → expiry).
 */
const BUDGET_PRELUDE = `
local function num(v) return tonumber(v) or 0 end
local function fmt(x) return string.format('%.17g', x) end
local spent = num(redis.call('HGET', KEYS[1], 'spent'))
local reserved = num(redis.call('HGET', KEYS[1], 'reserved'))
-- A hold whose lease ran out belongs to a process that died mid-call: count it as spent in full.
local function expire(now)
  local stale = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
  for _, id in ipairs(stale) do
    local held = num(redis.call('HGET', KEYS[2], id))
    spent = spent + held
    reserved = reserved - held
    redis.call('HDEL', KEYS[2], id)
    redis.call('ZREM', KEYS[3], id)
  end
end
local function save()
  -- Adding and subtracting floats leaves dust: no hold means nothing reserved.
  if redis.call('HLEN', KEYS[2]) == 0 then reserved = 0 end
  redis.call('HSET', KEYS[1], 'spent', fmt(spent), 'reserved', fmt(reserved))
end
`;

/**
 * KEYS[4]: the reservation's tombstone (see RELEASE_RESERVES). ARGV: id, amount, budget, now,
 * leaseMs → { granted (1/0), spent, reserved }.
 */
export const RESERVE = `${BUDGET_PRELUDE}
local amount = tonumber(ARGV[2])
local budget = tonumber(ARGV[3])
local now = tonumber(ARGV[4])
expire(now)
local committed = spent + reserved
local slack = 1e-9 * math.max(1, budget)
-- Released already: its caller got no answer and gave up, so this reserve ran late; hold nothing.
local released = redis.call('EXISTS', KEYS[4]) == 1
local granted = not released and committed < budget - slack / 2 and committed + amount <= budget + slack
if granted then
  redis.call('HSET', KEYS[2], ARGV[1], fmt(amount))
  redis.call('ZADD', KEYS[3], now + tonumber(ARGV[5]), ARGV[1])
  reserved = reserved + amount
end
save()
return { granted and 1 or 0, fmt(spent), fmt(reserved) }
`;

/** ARGV: id ('' to charge without a hold), cost → {}. An unknown id (lease ran out) is charged in full. */
export const SETTLE = `${BUDGET_PRELUDE}
local held = redis.call('HGET', KEYS[2], ARGV[1])
if held then
  reserved = reserved - tonumber(held)
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
end
spent = spent + tonumber(ARGV[2])
save()
return {}
`;

/**
 * Releases reservations whose reserve got no answer: the caller gave up, so the call was not sent
 * (or, failing open, was sent unguarded and is charged by its settle). KEYS[4…]: one tombstone per
 * ID. ARGV: ttlMs, id… → {}. A hold found is dropped without a charge; the tombstone, kept ttlMs,
 * makes a reserve that runs after this one (a command still on its way) hold nothing. Leases are
 * left alone: the hold of a call never sent is released even once its lease has run out.
 */
export const RELEASE_RESERVES = `${BUDGET_PRELUDE}
for i = 2, #ARGV do
  local held = redis.call('HGET', KEYS[2], ARGV[i])
  if held then
    reserved = reserved - tonumber(held)
    redis.call('HDEL', KEYS[2], ARGV[i])
    redis.call('ZREM', KEYS[3], ARGV[i])
  end
  redis.call('SET', KEYS[i + 2], '1', 'PX', ARGV[1])
end
save()
return {}
`;

/** ARGV: now, reset (1 forgets spent) → { spent, reserved }. */
export const BUDGET_STATE = `${BUDGET_PRELUDE}
expire(tonumber(ARGV[1]))
if ARGV[2] == '1' then spent = 0 end
save()
return { fmt(spent), fmt(reserved) }
`;

/** Rate keys: KEYS[1] the limit's hash. Field names are those of `PacingState`. */
const RATE_PRELUDE = `
local function fmt(x) return string.format('%.17g', x) end
local FIELDS = { 'requestTat', 'tokenTat', 'pausedUntil', 'epoch', 'factor', 'learned', 'cutAt',
  'windowStart', 'current', 'previous', 'acceptedCurrent', 'acceptedPrevious' }
local DEFAULTS = { 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0 }
local s = {}
local stored = redis.call('HMGET', KEYS[1], unpack(FIELDS))
for i, name in ipairs(FIELDS) do s[name] = tonumber(stored[i]) or DEFAULTS[i] end
local WINDOW_MS = 1000
local MIN_FACTOR = 0.01
local MIN_LEARNED = 1 / 60000
local MAX_HOLES = ${MAX_HOLES}
-- Holes are stored as 'from,to;from,to' (sorted by from), '' for none.
local function readHoles(text)
  local holes = {}
  if text then
    for from, to in string.gmatch(text, '([^,;]+),([^;]+)') do
      holes[#holes + 1] = { tonumber(from), tonumber(to) }
    end
  end
  return holes
end
local function writeHoles(holes)
  local parts = {}
  for i, hole in ipairs(holes) do parts[i] = fmt(hole[1]) .. ',' .. fmt(hole[2]) end
  return table.concat(parts, ';')
end
local storedHoles = redis.call('HMGET', KEYS[1], 'requestHoles', 'tokenHoles')
s.requestHoles = readHoles(storedHoles[1])
s.tokenHoles = readHoles(storedHoles[2])
local function save(ttl)
  local out = {}
  for _, name in ipairs(FIELDS) do
    out[#out + 1] = name
    out[#out + 1] = fmt(s[name])
  end
  out[#out + 1] = 'requestHoles'
  out[#out + 1] = writeHoles(s.requestHoles)
  out[#out + 1] = 'tokenHoles'
  out[#out + 1] = writeHoles(s.tokenHoles)
  redis.call('HSET', KEYS[1], unpack(out))
  redis.call('PEXPIRE', KEYS[1], ttl)
end
local function future(holes, now)
  local kept = {}
  for _, hole in ipairs(holes) do
    if hole[2] > now then kept[#kept + 1] = hole end
  end
  return kept
end
local function recovered(value, now, recoveryMs)
  if now <= s.cutAt or recoveryMs <= 0 then return value end
  return value * (1 + (now - s.cutAt) / recoveryMs)
end
local function factorAt(now, recoveryMs)
  return math.min(1, recovered(s.factor, now, recoveryMs))
end
local function roll(now)
  local window = math.floor(now / WINDOW_MS) * WINDOW_MS
  if window == s.windowStart then return end
  if window == s.windowStart + WINDOW_MS then
    s.previous = s.current
    s.acceptedPrevious = s.acceptedCurrent
  else
    s.previous = 0
    s.acceptedPrevious = 0
  end
  s.current = 0
  s.acceptedCurrent = 0
  s.windowStart = window
end
local function observedRate(now)
  roll(now)
  local weight = 1 - (now - s.windowStart) / WINDOW_MS
  local accepted = s.acceptedPrevious * weight + s.acceptedCurrent
  local slots = s.previous * weight + s.current
  if accepted > 0 then return accepted / WINDOW_MS end
  return slots / WINDOW_MS
end
`;

/**
 * ARGV: now, requestRate ('' = none), burst, tokenRate ('' = none), tokens, recoveryMs,
 * learn (1/0), ttlMs, accepted → { waitMs, epoch, requestSpan, tokenSpan } (a span as
 * 'from,to', '' for none). Mirrors `takeSlot`.
 */
export const TAKE_RATE = `${RATE_PRELUDE}
local now = tonumber(ARGV[1])
local burst = tonumber(ARGV[3])
local tokens = tonumber(ARGV[5])
local recoveryMs = tonumber(ARGV[6])
local factor = factorAt(now, recoveryMs)
local requestRate = tonumber(ARGV[2])
if requestRate then
  requestRate = requestRate * factor
elseif ARGV[7] == '1' and s.learned > 0 then
  requestRate = recovered(s.learned, now, recoveryMs)
end
local tokenRate = tonumber(ARGV[4])
if tokenRate then tokenRate = tokenRate * factor end
local start = math.max(now, s.pausedUntil)
if requestRate then start = math.max(start, s.requestTat - (burst - 1) / requestRate) end
if tokenRate then start = math.max(start, s.tokenTat) end
local requestSpan = ''
local tokenSpan = ''
if requestRate then
  local before = s.requestTat
  s.requestTat = math.max(before, start) + 1 / requestRate
  requestSpan = fmt(before) .. ',' .. fmt(s.requestTat)
end
if tokenRate and tokens > 0 then
  local before = s.tokenTat
  s.tokenTat = math.max(before, start) + tokens / tokenRate
  tokenSpan = fmt(before) .. ',' .. fmt(s.tokenTat)
end
s.requestHoles = future(s.requestHoles, now)
s.tokenHoles = future(s.tokenHoles, now)
roll(now)
s.current = s.current + 1
s.acceptedCurrent = s.acceptedCurrent + tonumber(ARGV[9])
save(tonumber(ARGV[8]))
return { fmt(start - now), fmt(s.epoch), requestSpan, tokenSpan }
`;

/**
 * ARGV: epoch, requestSpan ('from,to' or ''), tokenSpan (the same), ttlMs → {}. Mirrors
 * `releaseSlot`.
 */
export const RELEASE_RATE = `${RATE_PRELUDE}
local function giveBack(finish, holes, span)
  local from, to = string.match(span, '([^,]+),(.+)')
  from = tonumber(from)
  to = tonumber(to)
  if to ~= finish then
    local at = #holes + 1
    for i, hole in ipairs(holes) do
      if hole[1] > from then
        at = i
        break
      end
    end
    table.insert(holes, at, { from, to })
    if #holes > MAX_HOLES then table.remove(holes, 1) end
    return finish
  end
  local back = from
  while #holes > 0 and holes[#holes][2] == back do back = table.remove(holes)[1] end
  return back
end
if tonumber(ARGV[1]) == s.epoch and redis.call('EXISTS', KEYS[1]) == 1 then
  if ARGV[2] ~= '' then s.requestTat = giveBack(s.requestTat, s.requestHoles, ARGV[2]) end
  if ARGV[3] ~= '' then s.tokenTat = giveBack(s.tokenTat, s.tokenHoles, ARGV[3]) end
  save(tonumber(ARGV[4]))
end
return {}
`;

/**
 * ARGV: now, pauseMs, epoch, decrease, requestRate ('' = none), recoveryMs, ttlMs, accepted
 * → epoch. Mirrors `penalize`.
 */
export const PENALIZE_RATE = `${RATE_PRELUDE}
local now = tonumber(ARGV[1])
local recoveryMs = tonumber(ARGV[6])
local decrease = tonumber(ARGV[4])
roll(now)
s.acceptedCurrent = s.acceptedCurrent + tonumber(ARGV[8])
s.pausedUntil = math.max(s.pausedUntil, now + tonumber(ARGV[2]))
if tonumber(ARGV[3]) == s.epoch then
  local observed = observedRate(now)
  local requestRate = tonumber(ARGV[5])
  if requestRate then
    local current = factorAt(now, recoveryMs)
    local seen = current
    if observed > 0 then seen = observed / requestRate end
    s.factor = math.max(MIN_FACTOR, decrease * math.min(current, seen))
  else
    local base = nil
    if s.learned > 0 then base = recovered(s.learned, now, recoveryMs) end
    if observed > 0 and (base == nil or observed < base) then base = observed end
    if base then s.learned = math.max(MIN_LEARNED, decrease * base) else s.learned = MIN_LEARNED end
  end
  s.cutAt = s.pausedUntil
  s.requestTat = s.pausedUntil
  s.tokenTat = s.pausedUntil
  s.requestHoles = {}
  s.tokenHoles = {}
  s.epoch = s.epoch + 1
end
save(tonumber(ARGV[7]))
return fmt(s.epoch)
`;
