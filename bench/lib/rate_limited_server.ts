/**
 * @module A `node:http` server that allows `R` requests a second and answers 429 above it, the
 * way a gateway's rate limit does: a token bucket of one second's worth (R requests, refilled
 * continuously), a `Retry-After` in whole seconds (as HTTP allows) and an OpenAI-style error body.
 * Allowed requests get the fixed server's chat completion. It runs in a child process so client
 * and server each get a core; `GET /_stats` counts what it saw, `POST /_reset` refills and zeroes.
 */

import { fork } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { COMPLETION } from "./fixed_server.js";

/** What the server counted since the last reset. */
export interface RateLimitedStats {
  requests: number;
  rejected: number;
}

/** A running rate-limited server. */
export interface RateLimitedServer {
  /** `http://127.0.0.1:<port>/inference/v1`. */
  baseURL: string;
  stats(): Promise<RateLimitedStats>;
  /** Refills the bucket and zeroes the counts. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

const RATE_LIMITED = JSON.stringify({
  error: { code: "rate_limit_exceeded", message: "Too many requests", type: "new_api_error" },
});

async function serve(perSecond: number): Promise<void> {
  let tokens = perSecond;
  let last = performance.now();
  let stats: RateLimitedStats = { requests: 0, rejected: 0 };
  const send = (res: ServerResponse, status: number, body: string, extra = {}) => {
    res.writeHead(status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      ...extra,
    });
    res.end(body);
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.on("error", () => {});
    res.on("error", () => {});
    req.resume();
    req.on("end", () => {
      if (req.url === "/_stats") return send(res, 200, JSON.stringify(stats));
      if (req.url === "/_reset") {
        tokens = perSecond;
        last = performance.now();
        stats = { requests: 0, rejected: 0 };
        return send(res, 200, "{}");
      }
      const now = performance.now();
      tokens = Math.min(perSecond, tokens + ((now - last) * perSecond) / 1000);
      last = now;
      stats.requests++;
      if (tokens < 1) {
        stats.rejected++;
        const waitSeconds = Math.max(1, Math.ceil((1 - tokens) / perSecond));
        return send(res, 429, RATE_LIMITED, { "retry-after": String(waitSeconds) });
      }
      tokens -= 1;
      send(res, 200, COMPLETION);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  process.on("message", (message) => {
    if (message === "close") {
      server.close();
      server.closeAllConnections();
      process.disconnect?.();
    }
  });
  process.on("disconnect", () => process.exit(0));
  process.send?.({ port });
}

/** Starts the server, allowing `perSecond` requests a second, in a child process. */
export async function startRateLimitedServer(perSecond: number): Promise<RateLimitedServer> {
  const child = fork(fileURLToPath(import.meta.url), ["--rate-limited-server", String(perSecond)], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const { port } = await new Promise<{ port: number }>((resolve, reject) => {
    child.once("message", (message) => resolve(message as { port: number }));
    child.once("exit", (code) => reject(new Error(`rate-limited server exited with code ${code}`)));
  });
  const root = `http://127.0.0.1:${port}`;
  return {
    baseURL: `${root}/inference/v1`,
    stats: async () => (await fetch(`${root}/_stats`)).json() as Promise<RateLimitedStats>,
    reset: async () => {
      await fetch(`${root}/_reset`, { method: "POST" });
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.send("close");
      }),
  };
}

const flag = process.argv.indexOf("--rate-limited-server");
if (flag >= 0) await serve(Number(process.argv[flag + 1]));
