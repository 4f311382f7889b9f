/**
 * @module Adding keys to the emulator over HTTP (`POST /_emulator/keys`), 10,000 of them: the cost
 * of a key must not grow with the keys already held. Prints the time of the last 1,000 keys
 * against the first 1,000 (about 1.0 when each key costs the same; it was 4× to 7× when each
 * addition read every key held). A first 2,000 keys warm the server up and are not timed. Run
 * with `npx tsx bench/emulator_keys.ts [keys]`.
 */

import { Agent, request } from "node:http";
import { startEmulator } from "../src/emulator/index.js";

const BLOCK = 1_000;
const WARM_UP = 2_000;

function addKey(url: URL, agent: Agent, i: number): Promise<void> {
  const body = JSON.stringify({ secret: `sk-bench-${i}`, name: `bench ${i}` });
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: "POST",
      agent,
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
    });
    req.on("error", reject);
    req.on("response", (res) => {
      res.resume();
      res.on("end", () =>
        res.statusCode === 201 ? resolve() : reject(new Error(`answered ${res.statusCode}`)),
      );
    });
    req.end(body);
  });
}

export async function measureKeyAdding(keys = 10_000): Promise<{ blocksMs: number[] }> {
  const emulator = await startEmulator();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(`${emulator.url}/_emulator/keys`);
  const blocksMs: number[] = [];
  try {
    for (let i = 0; i < WARM_UP; i++) await addKey(url, agent, -1 - i);
    for (let start = 0; start < keys; start += BLOCK) {
      const began = performance.now();
      for (let i = start; i < Math.min(keys, start + BLOCK); i++) await addKey(url, agent, i);
      blocksMs.push(performance.now() - began);
    }
  } finally {
    agent.destroy();
    await emulator.close();
  }
  return { blocksMs };
}

const keys = Number(process.argv[2] ?? 10_000);
const { blocksMs } = await measureKeyAdding(keys);
const total = blocksMs.reduce((sum, ms) => sum + ms, 0);
const first = blocksMs[0]!;
const last = blocksMs.at(-1)!;
console.log(
  `emulator, ${keys} keys added over HTTP: ${(total / 1000).toFixed(2)} s in all; ` +
    `last ${BLOCK} / first ${BLOCK}: ${(last / first).toFixed(2)}× ` +
    `(blocks of ${BLOCK}: ${blocksMs.map((ms) => ms.toFixed(0)).join(", ")} ms)`,
);
