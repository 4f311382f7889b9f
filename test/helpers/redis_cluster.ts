/**
 * @module Test helper: a real Redis Cluster on 127.0.0.1 — 6 `redis-server` nodes (3 masters,
 * 3 replicas) on free ports, joined by `redis-cli --cluster create`, no persistence, removed after
 * the suite. Nodes can be paused (SIGSTOP), resumed and killed, to test the Redis store through a
 * stalled node and a failover. Where `redis-server` or `redis-cli` (Debian's `redis-tools`, which
 * `redis-server` depends on) cannot be found, `REDIS_CLUSTER_TOOLS` is false and the suites skip
 * with a visible message.
 */
import { type ChildProcess, execFile, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { findBinary, freePort, launch, REDIS_SERVER } from "./redis.js";

/** The `redis-cli` binary, or undefined when it cannot be had. */
export const REDIS_CLI = findBinary([process.env.REDIS_CLI_BIN, "redis-cli", "/usr/bin/redis-cli"]);

/** The major version of `redis-server`: the nodes take `--cluster-port`, which 7.0 brought. */
function majorVersion(binary: string | undefined): number {
  if (binary === undefined) return 0;
  const text = execFileSync(binary, ["--version"], { encoding: "utf8" });
  return Number(/v=(\d+)\./.exec(text)?.[1] ?? 0);
}

/** Why a cluster cannot be started here, or undefined when it can. */
const MISSING =
  REDIS_SERVER === undefined
    ? "redis-server not found"
    : REDIS_CLI === undefined
      ? "redis-cli not found"
      : majorVersion(REDIS_SERVER) < 7
        ? "redis-server is older than 7.0"
        : undefined;

/** Whether a cluster can be started here: both binaries were found, the server is 7.0 or later. */
export const REDIS_CLUSTER_TOOLS = MISSING === undefined;

/** Says, once per suite, why it is skipped (vitest's skip alone is easy to miss). */
export function warnIfNoRedisCluster(suite: string): void {
  if (MISSING === undefined) return;
  console.warn(
    `[${suite}] SKIPPED: ${MISSING}. Install redis-server 7.0 or later (apt-get install -y redis-server, which brings redis-cli) or set REDIS_SERVER_BIN and REDIS_CLI_BIN; .ci/run installs it.`,
  );
}

/** One node of the cluster: a `redis-server` process this helper started. */
export interface ClusterNode {
  port: number;
  /** Freezes the process (SIGSTOP): its sockets stay open, nothing is answered. */
  pause(): void;
  /** Lets a paused process run again (SIGCONT). */
  resume(): void;
  /** Kills the process at once (SIGKILL), as a crash would. */
  kill(): Promise<void>;
}

/** A master as the cluster sees it now: the slots it serves and its replicas. */
export interface ClusterMaster {
  port: number;
  slots: [number, number][];
  replicas: number[];
}

/** A running cluster. */
export interface RedisCluster {
  /** Where a client starts: every node's host and port. */
  startupNodes: { host: string; port: number }[];
  node(port: number): ClusterNode;
  /** The masters serving slots, as a node still running sees them. */
  masters(): Promise<ClusterMaster[]>;
  /** The hash slot of `key`, as the cluster computes it. */
  keySlot(key: string): Promise<number>;
  /**
   * Resolves once every node says `cluster_state:ok` and sees 3 masters serving slots with 3
   * replicas between them, every replica in sync.
   */
  settled(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const HOST = "127.0.0.1";
const run = promisify(execFile);

/** Processes to kill should the test process exit without stopping them (a paused one included). */
const started = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of started) {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
});

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** A client for one node only, failing fast when the node is gone. */
function nodeClient(port: number): Redis {
  return new Redis({
    host: HOST,
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: true,
    retryStrategy: () => null,
    connectTimeout: 2000,
  }).on("error", () => {});
}

async function onNode<T>(port: number, send: (client: Redis) => Promise<T>): Promise<T> {
  const client = nodeClient(port);
  try {
    return await send(client);
  } finally {
    client.disconnect();
  }
}

/** Starts one node: cluster mode, its own config file in `dir`, its bus on a free port too. */
async function startNode(
  dir: string,
  nodeTimeoutMs: number,
): Promise<ChildProcess & { port: number }> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const [port, busPort] = [await freePort(), await freePort()];
    if (port === busPort) continue;
    try {
      const child = await launch(REDIS_SERVER as string, port, [
        "--cluster-enabled",
        "yes",
        "--cluster-port",
        String(busPort),
        "--cluster-config-file",
        join(dir, `nodes-${port}.conf`),
        "--cluster-node-timeout",
        String(nodeTimeoutMs),
        "--dir",
        dir,
        // A master waits 5 s by default for more replicas before it syncs them: none will come.
        "--repl-diskless-sync-delay",
        "0",
      ]);
      started.add(child);
      return Object.assign(child, { port });
    } catch (error) {
      lastError = error; // most likely a port was taken in between: try others
    }
  }
  throw lastError;
}

/**
 * Starts a fresh cluster of 6 nodes — 3 masters, each with one replica — and resolves once every
 * node agrees that it serves all 16384 slots and every replica has synced. `nodeTimeoutMs` is
 * `cluster-node-timeout`: how long a node may be silent before the others fail it over.
 */
export async function startRedisCluster({ nodeTimeoutMs = 5000 } = {}): Promise<RedisCluster> {
  if (!REDIS_CLUSTER_TOOLS) throw new Error("redis-server or redis-cli is not installed");
  const dir = mkdtempSync(join(tmpdir(), "redis-cluster-"));
  const children: (ChildProcess & { port: number })[] = [];
  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            started.delete(child);
            if (!isRunning(child)) return resolve();
            child.once("exit", () => resolve());
            child.kill("SIGCONT"); // a paused process would not act on SIGTERM
            child.kill("SIGTERM");
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    children.push(
      ...(await Promise.all(Array.from({ length: 6 }, () => startNode(dir, nodeTimeoutMs)))),
    );
    await run(
      REDIS_CLI as string,
      [
        "--cluster",
        "create",
        ...children.map((c) => `${HOST}:${c.port}`),
        "--cluster-replicas",
        "1",
        "--cluster-yes",
      ],
      { timeout: 60_000 },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const byPort = new Map(children.map((child) => [child.port, child]));
  const running = () => children.filter(isRunning).map((c) => c.port);

  const cluster: RedisCluster = {
    startupNodes: children.map((c) => ({ host: HOST, port: c.port })),
    node(port) {
      const child = byPort.get(port);
      if (child === undefined) throw new Error(`no node on port ${port}`);
      return {
        port,
        pause: () => child.kill("SIGSTOP"),
        resume: () => child.kill("SIGCONT"),
        kill: () =>
          new Promise<void>((resolve) => {
            started.delete(child);
            if (!isRunning(child)) return resolve();
            child.once("exit", () => resolve());
            child.kill("SIGKILL");
          }),
      };
    },
    async masters() {
      let lastError: unknown;
      for (const port of running()) {
        try {
          const text = (await onNode(port, (c) => c.cluster("NODES"))) as string;
          return parseMasters(text).filter((m) => m.slots.length > 0);
        } catch (error) {
          lastError = error; // a paused node: ask the next
        }
      }
      throw lastError;
    },
    async keySlot(key) {
      for (const port of running()) {
        try {
          return Number(await onNode(port, (c) => c.cluster("KEYSLOT", key)));
        } catch {
          // a paused node: ask the next
        }
      }
      throw new Error("no node answered CLUSTER KEYSLOT");
    },
    async settled(timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const states = await Promise.all(
          running().map((port) =>
            onNode(port, async (c) => {
              const info = (await c.cluster("INFO")) as string;
              const seen = parseMasters((await c.cluster("NODES")) as string).filter(
                (m) => m.slots.length > 0,
              );
              const replication = (await c.info("replication")) as string;
              return (
                /cluster_state:ok/.test(info) &&
                seen.length === 3 &&
                seen.every((m) => m.replicas.length === 1) &&
                (/role:master/.test(replication) || /master_link_status:up/.test(replication))
              );
            }).catch(() => false),
          ),
        );
        if (states.every(Boolean)) return;
        if (Date.now() > until)
          throw new Error(`the cluster did not settle within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    stop,
  };
  try {
    await cluster.settled();
  } catch (error) {
    await stop();
    throw error;
  }
  return cluster;
}

/** The masters of a `CLUSTER NODES` answer, with their slot ranges and their replicas' ports. */
function parseMasters(text: string): ClusterMaster[] {
  const rows = text
    .trim()
    .split("\n")
    .map((line) => line.split(" "));
  const portOf = (address: string) => Number(address.split("@")[0]!.split(":").at(-1));
  const masters = rows.filter(
    ([, , flags]) => flags!.split(",").includes("master") && !flags!.includes("fail"),
  );
  const replicaRows = rows.filter(
    ([, , flags]) => flags!.includes("slave") && !flags!.includes("fail"),
  );
  return masters.map(([id, address, , , , , , , ...slots]) => ({
    port: portOf(address!),
    slots: slots
      .filter((range) => !range.startsWith("["))
      .map((range) => {
        const [from, to = from] = range.split("-").map(Number) as [number, number?];
        return [from, to] as [number, number];
      }),
    replicas: replicaRows
      .filter(([, , , masterId]) => masterId === id)
      .map(([, address]) => portOf(address!)),
  }));
}

/**
 * A budget key (what goes between the braces of the store's keys) whose slot `master` serves:
 * keys `<stem>0`, `<stem>1`, … are tried until one lands there.
 */
export async function keyOn(
  cluster: RedisCluster,
  master: ClusterMaster,
  stem: string,
): Promise<string> {
  for (let i = 0; i < 1000; i++) {
    const key = `${stem}${i}`;
    const slot = await cluster.keySlot(key);
    if (master.slots.some(([from, to]) => slot >= from && slot <= to)) return key;
  }
  throw new Error(`no key ${stem}… found on the master of port ${master.port}`);
}
