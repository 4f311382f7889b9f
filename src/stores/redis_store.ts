/**
 * @module `langchain-inference-service/redis`: `RedisStore`, a {@link UsageStore} on Redis, so
 * N processes share one budget and one rate limit. Node-only (its client, ioredis, uses
 * `node:net`), hence its own subpath; `ioredis` is an optional peer dependency.
 */
import { createHash } from "node:crypto";
import { type Cluster, Redis } from "ioredis";
import { z } from "zod";
import { optionsSchema, parseOptions, timeoutMs } from "../config/options.js";
import { UsageStoreError } from "../errors/errors.js";
import { MAX_TIMER_MS } from "../utils/sleep.js";
import { LostReserves } from "./lost_reserves.js";
import {
  BUDGET_STATE,
  PENALIZE_RATE,
  RELEASE_RATE,
  RELEASE_RESERVES,
  RESERVE,
  SETTLE,
  TAKE_RATE,
} from "./redis_scripts.js";
import type {
  BudgetReservation,
  BudgetState,
  RateGrant,
  RatePenalty,
  RateRelease,
  RateSpan,
  RateTake,
  ReserveOutcome,
  UsageStore,
} from "./usage_store.js";

/** Options of {@link RedisStore}; each is checked when the store is built. */
export const redisStoreOptions = optionsSchema({
  /**
   * An ioredis client (or cluster) you configured — TLS, password, Sentinel. The store never
   * closes it; it adds its scripts to it as commands (`defineCommand`, named
   * `inferenceService…`). @default none: give this or `url`
   */
  client: z
    .custom<Redis | Cluster>(
      (v) => typeof (v as { defineCommand?: unknown } | null)?.defineCommand === "function",
    )
    .describe("an ioredis client (new Redis(…)) or cluster")
    .optional(),
  /**
   * A Redis URL (`redis://user:password@host:6379/0`); the store creates its own client and
   * `close()` quits it. @default env `REDIS_URL` when neither `client` nor `url` is given
   */
  url: z.string().min(1).describe("a Redis URL such as redis://localhost:6379").optional(),
  /** Prefix of every key the store writes, so several apps can share one Redis. @default "inference-service:" */
  prefix: z.string().describe("a string").default("inference-service:"),
  /**
   * Milliseconds one operation may take before it counts as an outage; at most 2147483647
   * (about 24.8 days). @default 1000
   */
  timeoutMs: timeoutMs.default(1000),
  /**
   * On an outage (Redis unreachable, timed out, or answering with an error): `false` fails the
   * call with a `UsageStoreError` before anything is sent; `true` sends it unguarded — no
   * reservation, no rate limit — and reports the error to `onError`. @default false
   */
  failOpen: z.boolean().describe("true or false").default(false),
  /** Called with each error the store fails open on (and nothing else). @default none */
  onError: z
    .custom<(error: UsageStoreError) => void>((v) => typeof v === "function")
    .describe("a function")
    .optional(),
  /**
   * How long a reservation is held before it counts as spent in full: a process that dies
   * mid-call never settles, and its worst case is charged instead of lost. Longer than your
   * longest call; any length, as Redis keeps the lease, not a timer. Also how long the store
   * keeps trying to release a reservation whose reserve got no answer. @default 600000 (10 minutes)
   */
  reservationLeaseMs: z
    .number()
    .positive()
    .describe("a number of milliseconds > 0")
    .default(600_000),
}).strict();

/** Options of {@link RedisStore}; each is checked when the store is built. */
export type RedisStoreOptions = z.input<typeof redisStoreOptions>;

/** Idle rate-limit state expires after this: by then every slot and cut is long past. */
const RATE_TTL_MS = 3_600_000;

const SPEC = { owner: "RedisStore", schema: redisStoreOptions };

/**
 * Each script as a command of the client (ioredis's `defineCommand`), named after its text so
 * that two versions of this package on one client never run each other's. Such a command goes,
 * like any other, to the node that holds its keys' slot (on a Cluster) and runs by its SHA;
 * the first time on each connection, and again after a `NOSCRIPT`, ioredis sends the text.
 */
const COMMANDS = new Map(
  [RESERVE, SETTLE, BUDGET_STATE, TAKE_RATE, RELEASE_RATE, PENALIZE_RATE, RELEASE_RESERVES].map(
    (lua) => [lua, `inferenceService${createHash("sha1").update(lua).digest("hex").slice(0, 16)}`],
  ),
);

/** A client whose scripts `COMMANDS` defined, by name. */
type Commands = Record<string, (...args: (string | number)[]) => Promise<unknown>>;

/**
 * Budgets and rate limits in Redis: every operation is one Lua script, so reservations from
 * any number of processes are atomic — N workers with one `budgetKey` never together commit
 * more than the budget, and N limiters with one `name` hand out one sequence of slots.
 *
 * Keys are `<prefix>budget:{<budgetKey>}…` and `<prefix>rate:{<name>:…}`; the braces keep each
 * budget's keys in one Redis Cluster slot, so each operation runs on the one master that holds
 * them, and a master that stops answering holds up only its own budgets and limits. An outage is
 * a typed `UsageStoreError` (the call is not sent) unless `failOpen` is set — never a silent
 * overspend; a reserve that got no answer is released, so a call never sent is never charged.
 *
 * @example
 * ```ts
 * import { RedisStore } from "langchain-inference-service/redis";
 * const store = new RedisStore({ url: "redis://localhost:6379", prefix: "evals:" });
 * const tracker = new UsageTracker({ prices, budget: 50, store, budgetKey: "nightly" });
 * const limiter = new RateLimiter({ requestsPerMinute: 600, store });
 * // … every worker process does the same; then:
 * await store.close();
 * ```
 */
export class RedisStore implements UsageStore {
  readonly prefix: string;
  readonly #client: Redis | Cluster;
  readonly #owned: boolean;
  readonly #timeoutMs: number;
  readonly #failOpen: boolean;
  readonly #onError?: (error: UsageStoreError) => void;
  readonly #leaseMs: number;
  /** Releases of the reserves that got no answer, until they land. */
  readonly #lost: LostReserves;
  /** The passwords the client holds, which no `UsageStoreError` may show. */
  readonly #secrets: string[];

  constructor(options: RedisStoreOptions = {}) {
    const valid = parseOptions(SPEC, options);
    this.prefix = valid.prefix;
    this.#timeoutMs = valid.timeoutMs;
    this.#failOpen = valid.failOpen;
    this.#onError = valid.onError;
    this.#leaseMs = valid.reservationLeaseMs;
    if (valid.client !== undefined) {
      this.#client = valid.client;
      this.#owned = false;
    } else {
      const url = valid.url ?? globalThis.process?.env?.REDIS_URL ?? "redis://127.0.0.1:6379";
      // Commands wait (queued) while it reconnects; the store's own timeout decides an outage.
      this.#client = new Redis(url, { maxRetriesPerRequest: 1 });
      // Connection errors surface on the commands; without a listener ioredis also logs each one.
      this.#client.on("error", () => {});
      this.#owned = true;
    }
    this.#secrets = passwordsOf(this.#client, valid.url);
    const commands = this.#client as unknown as Commands;
    for (const [lua, name] of COMMANDS) {
      if (typeof commands[name] !== "function") this.#client.defineCommand(name, { lua });
    }
    this.#lost = new LostReserves((key, ids) => this.#releaseReserves(key, ids), this.#timeoutMs);
  }

  async reserve(key: string, reservation: BudgetReservation): Promise<ReserveOutcome> {
    const now = Date.now();
    const answer = await this.#run(
      "reserve",
      RESERVE,
      [...this.#budgetKeys(key), this.#releasedKey(key, reservation.id)],
      [
        reservation.id,
        String(reservation.amount),
        String(reservation.budget),
        String(now),
        String(this.#leaseMs),
      ],
      (cause) => {
        // No answer: the reserve may still run (a paused node wakes, a replica takes over) and
        // hold the amount for a call that is not sent, or is sent unguarded and settled as such.
        // Redis answering with an error ran nothing.
        if (!isReplyError(cause)) this.#lost.add(key, reservation.id, now + this.#leaseMs);
      },
    );
    if (answer === undefined) return { ok: true, spent: 0, reserved: 0 };
    const [granted, spent, reserved] = answer as [number, string, string];
    return { ok: granted === 1, spent: Number(spent), reserved: Number(reserved) };
  }

  async settle(key: string, id: string, cost: number): Promise<void> {
    await this.#run("settle", SETTLE, this.#budgetKeys(key), [id, String(cost)]);
  }

  async charge(key: string, cost: number): Promise<void> {
    await this.#run("charge", SETTLE, this.#budgetKeys(key), ["", String(cost)]);
  }

  async budgetState(key: string): Promise<BudgetState> {
    return this.#state(key, false);
  }

  async resetBudget(key: string): Promise<void> {
    await this.#state(key, true);
  }

  async takeRate(key: string, take: RateTake): Promise<RateGrant> {
    const answer = await this.#run(
      "takeRate",
      TAKE_RATE,
      [this.#rateKey(key)],
      [
        String(take.now),
        optional(take.requestRate),
        String(take.burst),
        optional(take.tokenRate),
        String(take.tokens),
        String(take.recoveryMs),
        take.learn ? "1" : "0",
        String(RATE_TTL_MS),
        String(take.accepted),
      ],
    );
    if (answer === undefined) return { waitMs: 0, epoch: 0 };
    const [waitMs, epoch, requestSpan, tokenSpan] = answer as [string, string, string, string];
    return {
      waitMs: Number(waitMs),
      epoch: Number(epoch),
      ...spanField("requestSpan", requestSpan),
      ...spanField("tokenSpan", tokenSpan),
    };
  }

  async releaseRate(key: string, release: RateRelease): Promise<void> {
    await this.#run(
      "releaseRate",
      RELEASE_RATE,
      [this.#rateKey(key)],
      [
        String(release.epoch),
        release.requestSpan ? release.requestSpan.map(String).join(",") : "",
        release.tokenSpan ? release.tokenSpan.map(String).join(",") : "",
        String(RATE_TTL_MS),
      ],
    );
  }

  async penalizeRate(key: string, penalty: RatePenalty): Promise<number> {
    const answer = await this.#run(
      "penalizeRate",
      PENALIZE_RATE,
      [this.#rateKey(key)],
      [
        String(penalty.now),
        String(penalty.pauseMs),
        String(penalty.epoch),
        String(penalty.decrease),
        optional(penalty.requestRate),
        String(penalty.recoveryMs),
        String(RATE_TTL_MS),
        String(penalty.accepted),
      ],
    );
    return answer === undefined ? 0 : Number(answer);
  }

  /**
   * Sends once more the releases of reserves that got no answer and are still pending (each
   * within `timeoutMs`), then quits the client the store created from `url`; a client you gave is
   * left open.
   */
  async close(): Promise<void> {
    await this.#lost.close();
    if (!this.#owned) return;
    try {
      await this.#client.quit();
    } catch {
      this.#client.disconnect();
    }
  }

  async #state(key: string, reset: boolean): Promise<BudgetState> {
    const answer = await this.#run(
      reset ? "resetBudget" : "budgetState",
      BUDGET_STATE,
      this.#budgetKeys(key),
      [String(Date.now()), reset ? "1" : "0"],
    );
    if (answer === undefined) return { spent: 0, reserved: 0 };
    const [spent, reserved] = answer as [string, string];
    return { spent: Number(spent), reserved: Number(reserved) };
  }

  #budgetKeys(key: string): string[] {
    const base = `${this.prefix}budget:{${key}}`;
    return [base, `${base}:holds`, `${base}:leases`];
  }

  /** The tombstone of a reservation released after its reserve got no answer (same slot). */
  #releasedKey(key: string, id: string): string {
    return `${this.prefix}budget:{${key}}:released:${id}`;
  }

  #rateKey(key: string): string {
    return `${this.prefix}rate:{${key}}`;
  }

  /** One release of reservations `ids` of budget `key` (see `LostReserves`). */
  #releaseReserves(key: string, ids: string[]): Promise<unknown> {
    // A tombstone outlives the lease, rounded up to a whole millisecond (PX takes an integer).
    const ttl = String(Math.min(Math.ceil(this.#leaseMs), Number.MAX_SAFE_INTEGER));
    return this.#eval(
      "releaseReserves",
      RELEASE_RESERVES,
      [...this.#budgetKeys(key), ...ids.map((id) => this.#releasedKey(key, id))],
      [ttl, ...ids],
    );
  }

  /**
   * Runs a script within `timeoutMs`. An outage (told first to `onFailure`) throws a
   * `UsageStoreError`, or with `failOpen` reports it and answers undefined.
   */
  async #run(
    operation: string,
    source: string,
    keys: string[],
    args: string[],
    onFailure?: (cause: unknown) => void,
  ): Promise<unknown | undefined> {
    try {
      return await this.#eval(operation, source, keys, args);
    } catch (cause) {
      onFailure?.(cause);
      const error = new UsageStoreError({
        store: "redis",
        operation,
        cause,
        secrets: this.#secrets,
      });
      if (!this.#failOpen) throw error;
      this.#onError?.(error);
      return undefined;
    }
  }

  /**
   * Sends the script's command in this very tick (no await before it): a release made on an
   * abort goes out before any command made after the abort. Nothing is shared between commands
   * — no load of a script, no state forgotten on an error —, so a node that does not answer
   * holds up only the commands on its own keys.
   */
  async #eval(operation: string, source: string, keys: string[], args: string[]): Promise<unknown> {
    const client = this.#client as unknown as Commands;
    const sent = client[COMMANDS.get(source) as string]!(keys.length, ...keys, ...args);
    return withTimeout(sent, this.#timeoutMs, operation);
  }
}

/** Whether Redis answered with an error (so the script did not run), rather than not at all. */
function isReplyError(error: unknown): boolean {
  return (error as Error | null)?.name === "ReplyError";
}

/** `{ [name]: span }` for a span the script sent as "from,to"; nothing for "". */
function spanField(name: "requestSpan" | "tokenSpan", text: string | undefined) {
  if (!text) return {};
  const span = text.split(",").map(Number) as RateSpan;
  return { [name]: span };
}

/**
 * The passwords of a client (a node's, a cluster's nodes', Sentinel's) and of the URL it was
 * made from, as given and as the URL encodes them.
 */
function passwordsOf(client: Redis | Cluster, url: string | undefined): string[] {
  const options = (client as unknown as { options?: Record<string, unknown> }).options ?? {};
  const nodes = (options.redisOptions ?? {}) as Record<string, unknown>;
  const given = [options.password, options.sentinelPassword, nodes.password];
  if (url !== undefined) {
    try {
      const parsed = new URL(url);
      given.push(parsed.password, decodeURIComponent(parsed.password));
    } catch {
      // Not a URL the WHATWG parser reads: ioredis parsed it into `options` above.
    }
  }
  const passwords = given.filter((p): p is string => typeof p === "string" && p !== "");
  return [...new Set(passwords.flatMap((p) => [p, encodeURIComponent(p)]))];
}

function optional(value: number | undefined): string {
  return value === undefined ? "" : String(value);
}

/**
 * `promise`, or an error once `ms` have passed without an answer. When the timer fires, the
 * answer may already be waiting on the socket (the event loop was busy, e.g. building a
 * tokenizer): one turn of I/O is let through first, so a stall in this process is not taken for
 * an outage of Redis.
 */
function withTimeout<T>(promise: Promise<T>, ms: number, operation: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    // A timer past MAX_TIMER_MS overflows and fires at once; that long is never, in practice.
    timer = setTimeout(
      () => setImmediate(() => reject(new Error(`no answer to ${operation} within ${ms} ms`))),
      Math.min(ms, MAX_TIMER_MS),
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
