/**
 * @module Test helper: a real `redis-server` (the Debian package) on a free port of 127.0.0.1,
 * started by the test and stopped after it. No mocks: the Redis store's atomicity is what is
 * under test. Where the binary cannot be found, `REDIS_SERVER` is undefined and the suites skip
 * with a visible message.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createServer } from "node:net";

/** The first of `candidates` (a variable's value, a name on the PATH, a path) that runs. */
export function findBinary(candidates: (string | undefined)[]): string | undefined {
  for (const candidate of candidates) {
    if (!candidate) continue;
    try {
      execFileSync(candidate, ["--version"], { stdio: "ignore" });
      return candidate;
    } catch {
      // try the next one
    }
  }
  return undefined;
}

/** The `redis-server` binary, or undefined when it cannot be had. */
export const REDIS_SERVER = findBinary([
  process.env.REDIS_SERVER_BIN,
  "redis-server",
  "/usr/bin/redis-server",
]);

/** Says, once per suite, why it is skipped (vitest's skip alone is easy to miss). */
export function warnIfNoRedis(suite: string): void {
  if (REDIS_SERVER !== undefined) return;
  console.warn(
    `[${suite}] SKIPPED: redis-server not found. Install it (apt-get install -y redis-server) or set REDIS_SERVER_BIN; .ci/run installs it.`,
  );
}

/** A running `redis-server`. */
export interface RedisServer {
  port: number;
  url: string;
  stop(): Promise<void>;
}

/**
 * A port that was free a moment ago: redis-server cannot listen on port 0 and report the port it
 * got, so ask the OS for one, release it, and let the server take it (retried if someone else did).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Starts `binary` on `port` (no persistence, on 127.0.0.1) and resolves once it accepts connections. */
export function launch(
  binary: string,
  port: number,
  extra: readonly string[],
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      binary,
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--daemonize",
        "no",
        "--loglevel",
        "notice",
        ...extra,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    const onData = (data: Buffer) => {
      output += data.toString();
      if (/ready to accept connections/i.test(output)) {
        child.stdout?.off("data", onData);
        resolve(child);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (data: Buffer) => {
      output += data.toString();
    });
    child.once("exit", (code) =>
      reject(new Error(`redis-server exited with code ${code} on port ${port}: ${output.trim()}`)),
    );
  });
}

/**
 * Starts a fresh, empty redis-server (no persistence) on a free port; `extra` are more of its
 * command-line options (e.g. `["--requirepass", "…"]`).
 */
export async function startRedis(extra: readonly string[] = []): Promise<RedisServer> {
  if (REDIS_SERVER === undefined) throw new Error("redis-server is not installed");
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    try {
      const child = await launch(REDIS_SERVER, port, extra);
      return {
        port,
        url: `redis://127.0.0.1:${port}`,
        stop: () =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once("exit", () => resolve());
            child.kill("SIGTERM");
          }),
      };
    } catch (error) {
      lastError = error; // most likely the port was taken in between: try another
    }
  }
  throw lastError;
}
