/**
 * @module Throughput of the emulator's node:http server: non-streamed chat completions per second
 * and latency percentiles on loopback with keep-alive (issue goal: ≥ 5,000 req/s on 2 cores).
 *
 * The server runs in a child process so client and server each get a core, as a real app and the
 * emulator would. Run alone with `npx tsx bench/emulator.ts [seconds] [concurrency]`.
 */

import { fork } from "node:child_process";
import { Agent, request } from "node:http";
import { fileURLToPath } from "node:url";

export interface EmulatorThroughput {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
}

const BODY = JSON.stringify({
  model: "emulator-chat",
  messages: [
    { role: "system", content: "You are a helpful assistant." },
    { role: "user", content: "What is the capital of France?" },
  ],
  max_tokens: 32,
});

/** Starts the emulator in a child process, loads it for `seconds` after a warm-up, and stops it. */
export async function measureEmulatorThroughput(
  seconds = 5,
  concurrency = 64,
): Promise<EmulatorThroughput> {
  const child = fork(fileURLToPath(import.meta.url), ["--serve"], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  try {
    const baseURL = await new Promise<string>((resolve, reject) => {
      child.once("message", (message) => resolve(String(message)));
      child.once("exit", (code) => reject(new Error(`emulator exited with code ${code}`)));
    });
    const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
    const url = new URL(`${baseURL}/chat/completions`);
    await load(url, agent, concurrency, 1_000);
    const started = performance.now();
    const latencies = await load(url, agent, concurrency, seconds * 1_000);
    const elapsed = (performance.now() - started) / 1_000;
    agent.destroy();
    latencies.sort((a, b) => a - b);
    const at = (q: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? 0;
    return {
      requestsPerSecond: latencies.length / elapsed,
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      requests: latencies.length,
    };
  } finally {
    child.kill();
  }
}

async function load(url: URL, agent: Agent, concurrency: number, ms: number): Promise<number[]> {
  const latencies: number[] = [];
  const end = performance.now() + ms;
  const worker = async () => {
    while (performance.now() < end) latencies.push(await post(url, agent));
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return latencies;
}

function post(url: URL, agent: Agent): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: "POST",
      agent,
      headers: {
        authorization: "Bearer sk-emulator-demo",
        "content-type": "application/json",
        "content-length": Buffer.byteLength(BODY),
      },
    });
    req.on("error", reject);
    req.on("response", (res) => {
      res.resume();
      res.on("end", () =>
        res.statusCode === 200
          ? resolve(performance.now() - started)
          : reject(new Error(`emulator answered ${res.statusCode}`)),
      );
    });
    req.end(BODY);
  });
}

if (process.argv.includes("--serve")) {
  const { startEmulator } = await import("../src/emulator/index.js");
  const emulator = await startEmulator();
  process.send?.(emulator.baseURL);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [seconds = "5", concurrency = "64"] = process.argv.slice(2);
  const result = await measureEmulatorThroughput(Number(seconds), Number(concurrency));
  console.log(
    `emulator, non-streamed chat: ${result.requestsPerSecond.toFixed(0)} req/s, ` +
      `p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms (${result.requests} requests)`,
  );
}
