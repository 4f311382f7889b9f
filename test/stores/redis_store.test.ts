import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { inspect } from "node:util";
import { getRetryable } from "@langchain/core/errors";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ChatInferenceService } from "../../src/apis/chat/chat_models.js";
import {
  createEmulator,
  DEFAULT_MODEL,
  type InProcessEmulator,
  startEmulator,
} from "../../src/emulator/index.js";
import {
  BudgetExceededError,
  ConfigurationError,
  UsageStoreError,
} from "../../src/errors/errors.js";
import { UsageTracker } from "../../src/spend/usage_tracker.js";
import {
  BUDGET_STATE,
  PENALIZE_RATE,
  RELEASE_RATE,
  RELEASE_RESERVES,
  RESERVE,
  SETTLE,
  TAKE_RATE,
} from "../../src/stores/redis_scripts.js";
import { RedisStore, type RedisStoreOptions } from "../../src/stores/redis_store.js";
import { REDIS_SERVER, type RedisServer, startRedis, warnIfNoRedis } from "../helpers/redis.js";
import { describeStoreContract } from "../helpers/store_cases.js";

warnIfNoRedis("redis_store.test.ts");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `read` until `done` holds of its answer or 10 s pass; answers the last reading. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const until = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await sleep(20);
  }
}

/**
 * A real client whose reserves go through `intercept`, which sends each (`send`) when it likes
 * and answers what it likes: a reserve held back, or answered late, as a paused node or a
 * failover does. Every other command goes straight through.
 */
function interceptReserves(
  client: Redis,
  intercept: (send: () => Promise<unknown>) => Promise<unknown>,
): Redis {
  const scripts = new Map<string, string>();
  return new Proxy(client, {
    get(target, property) {
      if (property === "defineCommand") {
        return (name: string, definition: { lua: string }) => {
          scripts.set(name, definition.lua);
          target.defineCommand(name, definition);
        };
      }
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (typeof property === "string" && scripts.get(property) === RESERVE) {
        return (...args: unknown[]) => intercept(() => value.apply(target, args));
      }
      return value.bind(target);
    },
  });
}

describe.skipIf(REDIS_SERVER === undefined)("RedisStore on a real redis-server", () => {
  let server: RedisServer;
  const stores: RedisStore[] = [];
  let prefixes = 0;

  /** A store with a prefix of its own, so each case starts from empty keys. */
  function store(options: ConstructorParameters<typeof RedisStore>[0] = {}): RedisStore {
    // A generous timeout: other test files load both cores; outages are tested on their own.
    const made = new RedisStore({
      url: server.url,
      prefix: `t${++prefixes}:`,
      timeoutMs: 5000,
      ...options,
    });
    stores.push(made);
    return made;
  }

  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await server?.stop();
  });

  describeStoreContract("RedisStore", () => store());

  it("writes only namespaced keys, each budget's in one cluster slot", async () => {
    const s = store({ prefix: "ns-test:" });
    await s.reserve("nightly", { id: "a", amount: 1, budget: 2 });
    await s.takeRate("default:model:m", {
      now: 0,
      requestRate: 0.01,
      burst: 1,
      tokens: 0,
      recoveryMs: 1000,
      learn: true,
      accepted: 0,
    });
    const client = new Redis(server.url);
    const keys = (await client.keys("*")).filter((k) => k.startsWith("ns-test:")).sort();
    await client.quit();
    expect(keys).toEqual([
      "ns-test:budget:{nightly}",
      "ns-test:budget:{nightly}:holds",
      "ns-test:budget:{nightly}:leases",
      "ns-test:rate:{default:model:m}",
    ]);
  });

  it("counts a hold whose lease ran out (its process died) as spent in full", async () => {
    const s = store({ reservationLeaseMs: 50 });
    await s.reserve("lease", { id: "dead", amount: 2, budget: 5 });
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await s.budgetState("lease")).toEqual({ spent: 2, reserved: 0 });
    // Its late settlement is charged, never subtracted from someone else's hold.
    await s.settle("lease", "dead", 0.5);
    expect(await s.budgetState("lease")).toEqual({ spent: 2.5, reserved: 0 });
  });

  it("shares one budget between two stores (two processes) on the same prefix", async () => {
    const a = store({ prefix: "shared-budget:" });
    const b = new RedisStore({ url: server.url, prefix: "shared-budget:", timeoutMs: 5000 });
    stores.push(b);
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? a : b).reserve("team", { id: `r${i}`, amount: 1, budget: 7 }),
      ),
    );
    expect(outcomes.filter((o) => o.ok)).toHaveLength(7);
  });

  it("does not take a stall of this process (a busy event loop) for an outage of Redis", async () => {
    const s = store({ timeoutMs: 100 });
    await s.charge("stall", 1);
    const pending = s.charge("stall", 1);
    const until = Date.now() + 300;
    while (Date.now() < until) {
      // the event loop is busy past timeoutMs while Redis's answer waits on the socket
    }
    await pending;
    expect(await s.budgetState("stall")).toEqual({ spent: 2, reserved: 0 });
  });

  it("refuses a timeoutMs longer than one timer holds (it would fire at once), naming the option", () => {
    expect(() => store({ timeoutMs: 3e9 })).toThrow(ConfigurationError);
    expect(() => store({ timeoutMs: 3e9 })).toThrow(/`timeoutMs` must be at most 2147483647 ms/);
  });

  it("quits the client it made from url on close(): a later call fails with a UsageStoreError", async () => {
    const s = new RedisStore({ url: server.url, timeoutMs: 5000 });
    await s.charge("closed", 1);
    await s.close();
    await expect(s.charge("closed", 1)).rejects.toBeInstanceOf(UsageStoreError);
  });

  it("loads its scripts again after Redis forgot them (SCRIPT FLUSH, a restart)", async () => {
    const s = store();
    await s.charge("flush", 1);
    const client = new Redis(server.url);
    await client.script("FLUSH");
    await client.quit();
    await s.charge("flush", 1);
    expect(await s.budgetState("flush")).toEqual({ spent: 2, reserved: 0 });
  });

  it("sends a script's text once per connection, then only its SHA", async () => {
    const client = new Redis(server.url);
    const s = new RedisStore({ client, prefix: `t${++prefixes}:` });
    const side = new Redis(server.url);
    await side.config("RESETSTAT");
    for (const id of ["a", "b", "c", "d", "e"]) {
      await s.reserve("sha", { id, amount: 1, budget: 10 });
    }
    const stats = (await side.info("commandstats")) as string;
    await Promise.all([client.quit(), side.quit()]);
    expect(stats).toMatch(/cmdstat_eval:calls=1,/);
    expect(stats).toMatch(/cmdstat_evalsha:calls=4,/);
    expect(stats).not.toMatch(/cmdstat_script/);
  });

  /** A store on its own client, whose reserves `intercept` sends (or withholds) as it likes. */
  function intercepted(
    intercept: (send: () => Promise<unknown>) => Promise<unknown>,
    options: RedisStoreOptions = {},
  ) {
    const client = new Redis(server.url);
    const prefix = `t${++prefixes}:`;
    const made = new RedisStore({
      client: interceptReserves(client, intercept),
      prefix,
      timeoutMs: 100,
      ...options,
    });
    stores.push(made);
    clients.push(client);
    return { store: made, prefix };
  }
  const clients: Redis[] = [];
  afterAll(() => {
    for (const client of clients) client.disconnect();
  });

  it("releases a reserve that ran but whose answer never came: the hold goes, uncharged even past its lease", async () => {
    // Redis runs the reserve at once; its answer comes after the store has given up on it.
    const { store: s } = intercepted(
      (send) => {
        const answer = send();
        return new Promise((resolve) => setTimeout(() => resolve(answer), 400));
      },
      { reservationLeaseMs: 50 },
    );
    const error = await s.reserve("ran", { id: "a", amount: 2, budget: 5 }).catch((e) => e);
    expect(error).toMatchObject({ operation: "reserve" });
    // The release went out right behind the reserve, on the same connection: this reads after it.
    expect(await s.budgetState("ran")).toEqual({ spent: 0, reserved: 0 });
  });

  it("a reserve that runs after its release holds nothing, and the tombstone lasts one lease", async () => {
    let land: () => Promise<unknown> = () => Promise.reject(new Error("no reserve withheld"));
    // The reserve is held back (a paused node, a failover) and runs only when the test says.
    const { store: s, prefix } = intercepted(
      (send) => {
        land = send;
        return new Promise(() => {});
      },
      { reservationLeaseMs: 60_000 },
    );
    const error = await s.reserve("late", { id: "a", amount: 2, budget: 5 }).catch((e) => e);
    expect(error).toMatchObject({ operation: "reserve" });
    const side = new Redis(server.url);
    const tombstone = `${prefix}budget:{late}:released:a`;
    const ttl = await eventually(
      () => side.pttl(tombstone),
      (ms) => ms > 0,
    );
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(await land()).toEqual([0, "0", "0"]);
    await side.quit();
    expect(await s.budgetState("late")).toEqual({ spent: 0, reserved: 0 });
  });

  it("with failOpen, charges the call sent unguarded once, as its settle says, whenever its reserve runs", async () => {
    let land: () => Promise<unknown> = () => Promise.reject(new Error("no reserve withheld"));
    const { store: s } = intercepted(
      (send) => {
        land = send;
        return new Promise(() => {});
      },
      { failOpen: true, onError: () => {} },
    );
    expect(await s.reserve("open", { id: "a", amount: 2, budget: 5 })).toMatchObject({ ok: true });
    await s.settle("open", "a", 1.5);
    await land();
    expect(await s.budgetState("open")).toEqual({ spent: 1.5, reserved: 0 });
  });

  it("keeps a tombstone for a lease of any length (PX takes at most a safe integer)", async () => {
    const { store: s, prefix } = intercepted(() => new Promise(() => {}), {
      reservationLeaseMs: 1e20,
    });
    await s.reserve("any", { id: "a", amount: 1, budget: 5 }).catch(() => {});
    const side = new Redis(server.url);
    const ttl = await eventually(
      () => side.pttl(`${prefix}budget:{any}:released:a`),
      (ms) => ms > 0,
    );
    await side.quit();
    expect(ttl).toBeGreaterThan(1e15);
  });
});

/**
 * Runs `count` budget workers (test/helpers/redis_budget_worker.ts) and tells them all to start
 * once each is connected, so that their calls overlap; resolves to what each printed.
 */
async function fleet(count: number, env: NodeJS.ProcessEnv): Promise<string[]> {
  const worker = fileURLToPath(new URL("../helpers/redis_budget_worker.ts", import.meta.url));
  const runs = Array.from({ length: count }, () => {
    const child = spawn(process.execPath, ["--import", "tsx", worker], { env });
    let out = "";
    let err = "";
    const ready = new Promise<void>((resolve) => {
      child.stdout.on("data", (chunk) => {
        out += String(chunk);
        if (out.startsWith("ready\n")) resolve();
      });
    });
    child.stderr.on("data", (chunk) => {
      err += String(chunk);
    });
    const ended = new Promise<string>((resolve, reject) => {
      child.on("close", (code) =>
        code === 0 ? resolve(out) : reject(new Error(`a worker exited ${code}: ${out}${err}`)),
      );
    });
    return { child, ready, ended };
  });
  // A worker that fails before it is ready ends the wait with its error.
  await Promise.all(runs.map(({ ready, ended }) => Promise.race([ready, ended])));
  for (const { child } of runs) child.stdin.end("go\n");
  return Promise.all(runs.map(({ ended }) => ended));
}

describe.skipIf(REDIS_SERVER === undefined)("RedisStore shared by models and processes", () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** Prices where a call reserves, and costs, exactly 1 (a reply cut at max_tokens 4). */
  const ONE_PER_CALL = { [DEFAULT_MODEL]: { input: 0, output: 250_000 } };

  /** The emulator's chat model, its replies cut at 4 tokens. */
  const cappedModel = (emulator: InProcessEmulator) =>
    new ChatInferenceService(DEFAULT_MODEL, {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch: emulator.fetch,
      maxTokens: 4,
    });

  it("sends 3 of 20 parallel calls when the shared budget holds 3", async () => {
    const emulator = createEmulator();
    const store = new RedisStore({ url: server.url, prefix: "twenty:", timeoutMs: 5000 });
    const usage = new UsageTracker({ prices: ONE_PER_CALL, budget: 3, store });
    const model = cappedModel(emulator);
    const results = await model.batch(
      Array.from({ length: 20 }, (_, i) => `q${i}`),
      { callbacks: [usage] },
      { returnExceptions: true },
    );
    expect(emulator.state.requests()).toHaveLength(3);
    expect(results.filter((r) => BudgetExceededError.isInstance(r))).toHaveLength(17);
    expect(await usage.budgetStatus()).toEqual({ budget: 3, spent: 3, reserved: 0, remaining: 0 });
    await store.close();
  });

  it("4 processes sharing a budget of 10 send 10 requests between them, not 10 each", async () => {
    const emulator = await startEmulator({ port: 0 });
    const env = {
      ...process.env,
      REDIS_URL: server.url,
      PREFIX: "fleet-test:",
      MODEL: DEFAULT_MODEL,
      BUDGET: "10",
      CALLS: "8",
      API_KEY: emulator.apiKey,
      BASE_URL: emulator.baseURL,
    };
    try {
      const outputs = await fleet(4, env);
      const reports = outputs.map((stdout) => JSON.parse(stdout.trim().split("\n").at(-1)!));
      const sent = reports.reduce((sum, r) => sum + r.sent, 0);
      expect(reports.every((r) => r.failed === 0)).toBe(true);
      expect(emulator.state.requests()).toHaveLength(10);
      expect(sent).toBe(10);
      expect(reports.reduce((sum, r) => sum + r.refused, 0)).toBe(22);
      const store = new RedisStore({ url: server.url, prefix: "fleet-test:" });
      expect(await store.budgetState("fleet")).toEqual({ spent: 10, reserved: 0 });
      await store.close();
    } finally {
      await emulator.close();
    }
  }, 60_000);

  it("hands out one sequence of slots to two processes' stores on one limit", async () => {
    const stores = [0, 1].map(
      () => new RedisStore({ url: server.url, prefix: "rate-fleet:", timeoutMs: 5000 }),
    );
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      const grant = await stores[i % 2]!.takeRate("default:model:m", {
        now: 5_000_000,
        requestRate: 600 / 60_000,
        burst: 1,
        tokens: 0,
        recoveryMs: 10_000,
        learn: true,
        accepted: 0,
      });
      waits.push(grant.waitMs);
    }
    expect(waits).toEqual([0, 100, 200, 300, 400, 500]);
    await Promise.all(stores.map((store) => store.close()));
  });

  it("fails a call with one typed UsageStoreError when Redis is down, sending nothing and logging nothing", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const down = await startRedis();
    const emulator = createEmulator();
    const store = new RedisStore({ url: down.url, timeoutMs: 300 });
    const usage = new UsageTracker({ prices: ONE_PER_CALL, budget: 3, store });
    const model = cappedModel(emulator);
    await down.stop();
    const failure = await model.invoke("hi", { callbacks: [usage] }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(UsageStoreError);
    expect(failure).toMatchObject({ operation: "reserve", code: "usage_store_unavailable" });
    expect(getRetryable(failure)).toBe(false);
    expect(emulator.state.requests()).toHaveLength(0);
    expect(error).not.toHaveBeenCalled();
    error.mockRestore();
    await store.close();
  });

  it("with failOpen, sends the call unguarded while Redis is down", async () => {
    const down = await startRedis();
    const emulator = createEmulator();
    const errors: UsageStoreError[] = [];
    const store = new RedisStore({
      url: down.url,
      timeoutMs: 300,
      failOpen: true,
      onError: (e) => errors.push(e),
    });
    const usage = new UsageTracker({ prices: ONE_PER_CALL, budget: 3, store });
    const model = cappedModel(emulator);
    await down.stop();
    await model.invoke("hi", { callbacks: [usage] });
    expect(emulator.state.requests()).toHaveLength(1);
    expect(errors.map((e) => e.operation)).toEqual(["reserve", "settle"]);
    await store.close();
  });
});

describe.skipIf(REDIS_SERVER === undefined)("RedisStore when Redis is down", () => {
  it("fails with a typed UsageStoreError within timeoutMs", async () => {
    const server = await startRedis();
    const s = new RedisStore({ url: server.url, timeoutMs: 300 });
    await s.charge("x", 1);
    await server.stop();
    const error = await s.reserve("x", { id: "a", amount: 1, budget: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageStoreError);
    expect(error).toMatchObject({
      name: "UsageStoreError",
      code: "usage_store_unavailable",
      store: "redis",
      operation: "reserve",
    });
    expect(UsageStoreError.isInstance(error)).toBe(true);
    expect((error as UsageStoreError).hint).toMatch(/failOpen/);
    await s.close();
  });

  it("with failOpen, grants everything and reports each error to onError", async () => {
    const server = await startRedis();
    const errors: UsageStoreError[] = [];
    const s = new RedisStore({
      url: server.url,
      timeoutMs: 300,
      failOpen: true,
      onError: (e) => errors.push(e),
    });
    await server.stop();
    expect(await s.reserve("x", { id: "a", amount: 9, budget: 1 })).toMatchObject({ ok: true });
    const grant = await s.takeRate("x", {
      now: 0,
      requestRate: 0.001,
      burst: 1,
      tokens: 0,
      recoveryMs: 1,
      learn: false,
      accepted: 0,
    });
    expect(grant.waitMs).toBe(0);
    expect(errors.map((e) => e.operation)).toEqual(["reserve", "takeRate"]);
    await s.close();
  });
});

describe.skipIf(REDIS_SERVER === undefined)("RedisStore with a password", () => {
  const PASSWORD = "right-pass-2f9c41";
  const WRONG = "wrong-pass-7d03b8";
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedis(["--requirepass", PASSWORD]);
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** Every way a program might print or ship the error, the whole cause chain included. */
  function everyView(error: unknown): string {
    const views: string[] = [];
    for (let e = error, depth = 0; e !== undefined && depth < 10; depth++) {
      views.push(inspect(e, { depth: Number.POSITIVE_INFINITY, showHidden: true }));
      views.push(JSON.stringify(e) ?? "", String(e));
      if (typeof e === "object" && e !== null) {
        for (const name of Object.getOwnPropertyNames(e)) {
          views.push(inspect((e as Record<string, unknown>)[name], { depth: Infinity }));
        }
      }
      e = (e as { cause?: unknown } | null)?.cause;
    }
    return views.join("\n");
  }

  it.each([
    ["a URL", () => new RedisStore({ url: `redis://:${WRONG}@127.0.0.1:${server.port}` })],
    [
      "a client",
      () =>
        new RedisStore({
          client: new Redis({ port: server.port, password: WRONG, maxRetriesPerRequest: 1 }).on(
            "error",
            () => {},
          ),
        }),
    ],
  ])(
    "keeps a wrong password given in %s out of its UsageStoreError at any depth",
    async (_how, make) => {
      const errors: UsageStoreError[] = [];
      const failing = make();
      const error = await failing
        .reserve("k", { id: "a", amount: 1, budget: 2 })
        .catch((e: unknown) => e);
      expect(UsageStoreError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toMatch(/WRONGPASS|NOAUTH|auth/i);
      const view = everyView(error);
      expect(view).not.toContain(WRONG);
      expect(view).not.toContain(PASSWORD);
      const open = new RedisStore({
        url: `redis://:${WRONG}@127.0.0.1:${server.port}`,
        failOpen: true,
        onError: (e) => errors.push(e),
      });
      await open.charge("k", 1);
      expect(errors).toHaveLength(1);
      expect(everyView(errors[0])).not.toContain(WRONG);
      await Promise.all([failing.close(), open.close()]);
    },
  );

  it("works with the right password", async () => {
    const s = new RedisStore({ url: `redis://:${PASSWORD}@127.0.0.1:${server.port}` });
    await s.charge("ok", 2);
    expect(await s.budgetState("ok")).toEqual({ spent: 2, reserved: 0 });
    await s.close();
  });
});

describe("RedisStore options", () => {
  it.each([
    [{ prefix: 3 }, "prefix"],
    [{ timeoutMs: 0 }, "timeoutMs"],
    // Each operation's timeout is a timer: Node runs one over 2^31 − 1 ms after 1 ms.
    [{ timeoutMs: 2 ** 31 }, "timeoutMs"],
    [{ failOpen: "yes" }, "failOpen"],
    [{ client: {} }, "client"],
    [{ client: null }, "client"],
    [{ onError: "log" }, "onError"],
    [{ reservationLeaseMs: -1 }, "reservationLeaseMs"],
    [{ host: "x" }, "host"],
  ])("rejects %j at construction, naming the option", (options, option) => {
    expect(() => new RedisStore(options as never)).toThrow(expect.objectContaining({ option }));
  });
});

/** Each script's operation, by its text: what a recording client names a command it is sent. */
const SCRIPT_NAMES = new Map([
  [RESERVE, "reserve"],
  [SETTLE, "settle"],
  [BUDGET_STATE, "budgetState"],
  [TAKE_RATE, "takeRate"],
  [RELEASE_RATE, "releaseRate"],
  [PENALIZE_RATE, "penalizeRate"],
  [RELEASE_RESERVES, "releaseReserves"],
]);

/** A command a recording client was sent: the script's operation, its keys and its arguments. */
interface Sent {
  script: string;
  keys: string[];
  args: string[];
}

/**
 * A client that records the commands it is sent and answers as `answer` says: for what a real
 * Redis does not do on demand (hang, fail with a given text). Scripts come to it as ioredis's
 * `defineCommand` defines them: one method each, called with the number of keys, the keys and the
 * arguments.
 */
function recordingClient(
  answer: (script: string, keys: string[]) => Promise<unknown>,
  options = {},
) {
  const sent: string[] = [];
  const commands: Sent[] = [];
  const client = {
    options,
    sent,
    commands,
    defineCommand: (name: string, { lua }: { lua: string }) => {
      const script = SCRIPT_NAMES.get(lua) ?? "unknown script";
      (client as Record<string, unknown>)[name] = (count: number, ...rest: string[]) => {
        const keys = rest.slice(0, count);
        sent.push(script);
        commands.push({ script, keys, args: rest.slice(count) });
        return answer(script, keys);
      };
    },
    quit: () => {
      sent.push("quit");
      return Promise.resolve("OK");
    },
    disconnect: () => sent.push("disconnect"),
  };
  return client;
}

const GRANTED = () => Promise.resolve([1, "0", "1"]);

/** An error Redis answered with (the script did not run), as ioredis makes one. */
function replyError(message: string): Error {
  return Object.assign(new Error(message), { name: "ReplyError" });
}

describe("RedisStore over a client it is given", () => {
  it("defines each script once on the client and runs it by name, keys first", async () => {
    const client = recordingClient(GRANTED);
    const define = vi.spyOn(client, "defineCommand");
    const s = new RedisStore({ client: client as never, prefix: "p:" });
    new RedisStore({ client: client as never, prefix: "q:" });
    expect(define).toHaveBeenCalledTimes(7);
    await s.reserve("k", { id: "a", amount: 1, budget: 5 });
    expect(client.commands).toEqual([
      {
        script: "reserve",
        keys: [
          "p:budget:{k}",
          "p:budget:{k}:holds",
          "p:budget:{k}:leases",
          "p:budget:{k}:released:a",
        ],
        args: ["a", "1", "5", expect.stringMatching(/^\d+$/), "600000"],
      },
    ]);
  });

  it("shares nothing between commands: a budget whose node never answers holds up no other", async () => {
    const client = recordingClient((_script, keys) =>
      keys[0]!.includes("{stalled}") ? new Promise(() => {}) : GRANTED(),
    );
    const s = new RedisStore({ client: client as never, timeoutMs: 20 });
    const stalled = await Promise.all(
      ["a", "b"].map((id) => s.reserve("stalled", { id, amount: 1, budget: 5 }).catch((e) => e)),
    );
    expect(stalled.every((e) => UsageStoreError.isInstance(e))).toBe(true);
    const healthy = await Promise.all(
      ["c", "d", "e"].map((id) => s.reserve("healthy", { id, amount: 1, budget: 5 })),
    );
    expect(healthy.map((o) => o.ok)).toEqual([true, true, true]);
    // Nothing but each operation's own command (and the stalled reserves' releases).
    expect(client.commands.map((c) => `${c.script} ${c.keys[0]}`)).toEqual([
      "reserve inference-service:budget:{stalled}",
      "reserve inference-service:budget:{stalled}",
      "releaseReserves inference-service:budget:{stalled}",
      "releaseReserves inference-service:budget:{stalled}",
      ...Array(3).fill("reserve inference-service:budget:{healthy}"),
    ]);
  });

  it("fails a call with the error Redis answered, and releases nothing: the script did not run", async () => {
    const client = recordingClient(() => Promise.reject(replyError("ERR something broke")));
    const s = new RedisStore({ client: client as never });
    const error = await s.reserve("k", { id: "a", amount: 1, budget: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageStoreError);
    expect((error as Error).message).toContain("ERR something broke");
    expect(client.sent).toEqual(["reserve"]);
  });

  it("releases a reserve that got no answer right behind it, before the caller hears of the failure", async () => {
    const client = recordingClient((script) =>
      script === "reserve" ? new Promise(() => {}) : Promise.resolve([]),
    );
    const s = new RedisStore({
      client: client as never,
      prefix: "p:",
      timeoutMs: 20,
      reservationLeaseMs: 1500.5,
    });
    let sentBeforeFailure: string[] = [];
    const error = await s.reserve("k", { id: "a", amount: 1, budget: 5 }).catch((e: unknown) => {
      sentBeforeFailure = [...client.sent];
      return e;
    });
    expect(error).toMatchObject({ operation: "reserve" });
    expect(sentBeforeFailure).toEqual(["reserve", "releaseReserves"]);
    // Its tombstone lasts a lease, in whole milliseconds.
    expect(client.commands[1]).toEqual({
      script: "releaseReserves",
      keys: [
        "p:budget:{k}",
        "p:budget:{k}:holds",
        "p:budget:{k}:leases",
        "p:budget:{k}:released:a",
      ],
      args: ["1501", "a"],
    });
  });

  it.each([
    ["the connection dropped (the reserve may have run)", false],
    ["failing open (the call goes unguarded; its settle charges it)", true],
  ])("releases a reserve when %s", async (_when, failOpen) => {
    const client = recordingClient((script) =>
      script === "reserve" ? Promise.reject(new Error("Connection is closed.")) : GRANTED(),
    );
    const s = new RedisStore({ client: client as never, failOpen });
    await s.reserve("k", { id: "a", amount: 1, budget: 5 }).catch(() => {});
    expect(client.sent).toEqual(["reserve", "releaseReserves"]);
  });

  it("sends the releases still pending once more on close(), then quits the client it made", async () => {
    let releases = 0;
    const client = recordingClient((script) => {
      if (script === "reserve") return Promise.reject(new Error("Connection is closed."));
      return ++releases === 1 ? Promise.reject(new Error("Connection is closed.")) : GRANTED();
    });
    const s = new RedisStore({ client: client as never, timeoutMs: 60_000 });
    await s.reserve("k", { id: "a", amount: 1, budget: 5 }).catch(() => {});
    await s.close();
    expect(client.sent).toEqual(["reserve", "releaseReserves", "releaseReserves"]);
  });

  it("fails with a UsageStoreError, releasing the reserve, even when the client rejects with no error at all", async () => {
    const client = recordingClient((script) =>
      script === "reserve" ? Promise.reject(null) : GRANTED(),
    );
    const s = new RedisStore({ client: client as never });
    const error = await s.reserve("k", { id: "a", amount: 1, budget: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageStoreError);
    expect(client.sent).toEqual(["reserve", "releaseReserves"]);
  });

  it("names the operation that failed in each UsageStoreError", async () => {
    const client = recordingClient(() => Promise.reject(new Error("connect ECONNREFUSED")));
    const s = new RedisStore({ client: client as never });
    const take = {
      now: 0,
      burst: 1,
      tokens: 0,
      recoveryMs: 1,
      learn: true,
      accepted: 0,
    };
    const calls = [
      () => s.reserve("k", { id: "a", amount: 1, budget: 5 }),
      () => s.settle("k", "a", 1),
      () => s.charge("k", 1),
      () => s.budgetState("k"),
      () => s.resetBudget("k"),
      () => s.takeRate("k", take),
      () => s.releaseRate("k", { epoch: 0 }),
      () => s.penalizeRate("k", { ...take, pauseMs: 0, epoch: 0, decrease: 0.5 }),
    ];
    const operations = [];
    for (const call of calls) {
      operations.push(((await call().catch((e: unknown) => e)) as UsageStoreError).operation);
    }
    expect(operations).toEqual([
      "reserve",
      "settle",
      "charge",
      "budgetState",
      "resetBudget",
      "takeRate",
      "releaseRate",
      "penalizeRate",
    ]);
  });

  it("with failOpen and no onError, answers every operation as a store with nothing in it", async () => {
    const client = recordingClient(() => Promise.reject(new Error("connect ECONNREFUSED")));
    const s = new RedisStore({ client: client as never, failOpen: true });
    expect(await s.reserve("k", { id: "a", amount: 9, budget: 1 })).toEqual({
      ok: true,
      spent: 0,
      reserved: 0,
    });
    expect(await s.budgetState("k")).toEqual({ spent: 0, reserved: 0 });
    const penalty = { now: 0, pauseMs: 0, epoch: 3, decrease: 0.5, recoveryMs: 1, accepted: 0 };
    expect(await s.penalizeRate("k", penalty)).toBe(0);
  });

  it("fails a command Redis never answers after timeoutMs, saying so", async () => {
    const client = recordingClient(() => new Promise(() => {}));
    const s = new RedisStore({ client: client as never, timeoutMs: 20 });
    const error = await s.reserve("k", { id: "a", amount: 1, budget: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageStoreError);
    expect((error as Error).message).toContain("no answer to reserve within 20 ms");
  });

  it("leaves no timer behind once Redis has answered", async () => {
    vi.useFakeTimers();
    try {
      const s = new RedisStore({ client: recordingClient(GRANTED) as never });
      await s.reserve("k", { id: "a", amount: 1, budget: 5 });
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("keeps the passwords of the client and of the url out of an error that quotes them", async () => {
    const passwords = {
      password: "client/pass-4f1a",
      sentinelPassword: "sentinel-pass-8b2c",
      redisOptions: { password: "node-pass-3d9e" },
    };
    const inUrl = "url-pass%41-7c5f"; // as written in the URL; "url-passA-7c5f" decoded
    const quoted = [
      passwords.password,
      encodeURIComponent(passwords.password),
      passwords.sentinelPassword,
      passwords.redisOptions.password,
      inUrl,
      decodeURIComponent(inUrl),
    ];
    const client = recordingClient(
      () => Promise.reject(new Error(`AUTH failed: ${quoted.join(" ")}`)),
      passwords,
    );
    const s = new RedisStore({
      client: client as never,
      url: `redis://:${inUrl}@127.0.0.1:6379`,
    });
    const error = await s.charge("k", 1).catch((e: unknown) => e);
    const text = `${(error as Error).message} ${String((error as Error).cause)}`;
    expect(text).toContain("AUTH failed");
    for (const secret of quoted) expect(text).not.toContain(secret);
  });

  it("leaves a client it was given open on close()", async () => {
    const client = recordingClient(GRANTED);
    await new RedisStore({ client: client as never }).close();
    expect(client.sent).toEqual([]);
  });
});
