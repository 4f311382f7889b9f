/**
 * @module Benchmark 11, record and replay: what the recording proxy adds to a non-streamed call
 * and to a stream's time to first token (each against the same upstream called directly, in the
 * same rounds), and how many requests per second a replaying emulator answers.
 *
 * Run alone with `npm run bench -- record`.
 */

import { fork } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { emptyCassette, serializeCassette } from "../src/cassette/cassette.js";
import { entryOf } from "../src/cassette/entry.js";
import { startRecorder } from "../src/testing/index.js";
import { QUICK, scaled } from "./lib/config.js";
import { fetchCall, ours, PROMPT, type Target } from "./lib/contenders.js";
import { type BenchContext, fixedTarget } from "./lib/context.js";
import { sseRoute } from "./lib/fixed_server.js";
import type { Section, Table } from "./lib/report.js";
import { collectInterleaved, timeRounds } from "./lib/rounds.js";
import { int, ms, pairedRatio, ratio, summarize } from "./lib/stats.js";

const OVERHEAD_GOAL_MS = 1;
const TTFT_GOAL = 1.05;
const REPLAY_GOAL_RPS = 5_000;
/** A model's time to its first token, for the paced upstream (a short prompt on a fast model). */
const FIRST_TOKEN_MS = 50;

export async function record(ctx: BenchContext): Promise<Section> {
  const dir = mkdtempSync(join(tmpdir(), "bench-record-"));
  try {
    return {
      name: "record",
      heading: "11. Record and replay",
      tables: [
        await overheadTable(ctx, dir),
        await ttftTable(ctx, dir),
        await replayTable(ctx, dir),
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A target through a recorder in front of `direct` (recording every call into a fresh cassette). */
async function proxied(direct: Target, dir: string, name: string) {
  const recorder = await startRecorder({
    upstream: direct.baseURL,
    cassette: join(dir, `${name}.har`),
  });
  return { target: { ...direct, label: "recorder", baseURL: recorder.baseURL }, recorder };
}

async function overheadTable(ctx: BenchContext, dir: string): Promise<Table> {
  const direct = fixedTarget(ctx.servers, "json");
  const { target, recorder } = await proxied(direct, dir, "overhead");
  const options = { warmup: scaled(100, 10), rounds: scaled(20, 5), perRound: scaled(50, 10) };
  ctx.progress(`record: call overhead, ${options.rounds}×${options.perRound} calls each way`);
  const rounds = await timeRounds(
    [
      { name: "direct", run: () => fetchCall(direct) },
      { name: "recorder", run: () => fetchCall(target) },
    ],
    options,
  );
  await recorder.close();
  const directRounds = rounds.get("direct")!;
  const proxiedRounds = rounds.get("recorder")!;
  // Per round: the proxied median minus the direct median, so drift between rounds cancels.
  const added = summarize(
    proxiedRounds.map((round, i) => summarize(round).median - summarize(directRounds[i]!).median),
  );
  const d = summarize(directRounds.flat());
  const p = summarize(proxiedRounds.flat());
  return {
    title: "Recording proxy, non-streamed call overhead",
    how:
      "Raw `fetch` chat completions against the fixed server's `json` route, directly and through " +
      "`startRecorder` (record-all, writing every exchange to its cassette), in interleaved rounds; " +
      "added = each round's median through the recorder minus its direct median.",
    goal: `≤ ${OVERHEAD_GOAL_MS} ms added per call (issue 29); last column = added ÷ goal.`,
    headers: ["path", "p50", "p95", "calls", "added (median of rounds)", "× goal"],
    rows: [
      ["direct", ms(d.median), ms(d.p95), int(d.n), "–", "–"],
      [
        "through the recorder",
        ms(p.median),
        ms(p.p95),
        int(p.n),
        ms(added.median),
        ratio(added.median, OVERHEAD_GOAL_MS),
      ],
    ],
    summary: [
      `Recorder: **${ms(added.median)} added** per non-streamed call (${ratio(added.median, OVERHEAD_GOAL_MS)} the 1 ms goal), recording ${int(recorder.size)} exchanges.`,
    ],
  };
}

/** An upstream that answers a stream as a model does: the first token after a pause, then a steady pace. */
async function pacedUpstream(): Promise<{ baseURL: string; close: () => Promise<void> }> {
  const event = (content: string) =>
    `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 0, model: "bench-model", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, {
        "content-type": "text/event-stream",
        "x-gateway-request-id": "paced-1",
      });
      let sent = 0;
      const next = () => {
        if (res.destroyed) return;
        if (sent === 20) {
          res.end("data: [DONE]\n\n");
          return;
        }
        res.write(event(sent === 0 ? "Paris" : " tok"));
        sent++;
        setTimeout(next, 2);
      };
      setTimeout(next, FIRST_TOKEN_MS);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/inference/v1`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Time to the first chunk with text of `ChatInferenceService.stream`. */
async function ttft(target: Target): Promise<number> {
  const model = ours(target);
  const started = performance.now();
  let first = Number.NaN;
  for await (const chunk of await model.stream(PROMPT)) {
    if (Number.isNaN(first) && typeof chunk.content === "string" && chunk.content !== "") {
      first = performance.now() - started;
    }
  }
  return first;
}

async function ttftTable(ctx: BenchContext, dir: string): Promise<Table> {
  const paced = await pacedUpstream();
  const upstreams: Target[] = [
    {
      label: `paced upstream (first token after ${FIRST_TOKEN_MS} ms)`,
      baseURL: paced.baseURL,
      apiKey: "sk-bench",
      model: "bench-model",
    },
    { ...fixedTarget(ctx.servers, sseRoute(50, 4)), label: "fixed server (first token at once)" },
  ];
  const rows: string[][] = [];
  const summary: string[] = [];
  for (const [i, direct] of upstreams.entries()) {
    const { target, recorder } = await proxied(direct, dir, `ttft-${i}`);
    const options = { warmup: scaled(5, 2), rounds: scaled(10, 4), perRound: scaled(5, 2) };
    ctx.progress(`record: time to first token, ${direct.label}`);
    const runs = await collectInterleaved(
      [
        { name: "direct", run: () => ttft(direct) },
        { name: "recorder", run: () => ttft(target) },
      ],
      options,
    );
    await recorder.close();
    const d = runs.get("direct")!;
    const p = runs.get("recorder")!;
    const per = options.perRound;
    const byRound = (list: number[]) =>
      Array.from({ length: options.rounds }, (_, r) => list.slice(r * per, (r + 1) * per));
    const paired = pairedRatio(byRound(p), byRound(d));
    const dm = summarize(d).median;
    const pm = summarize(p).median;
    rows.push([
      direct.label,
      ms(dm),
      ms(pm),
      ms(pm - dm),
      `${paired.median.toFixed(3)}×`,
      ratio(paired.median, TTFT_GOAL),
    ]);
    if (i === 0) {
      summary.push(
        `Recorder: stream time to first token **${paired.median.toFixed(3)}×** direct on an upstream whose first token takes ${FIRST_TOKEN_MS} ms (goal ≤ ${TTFT_GOAL}×); ${ms(pm - dm)} added.`,
      );
    }
  }
  await paced.close();
  return {
    title: "Recording proxy, stream time to first token",
    how:
      "`ChatInferenceService.stream`, time from the call to the first chunk with text, directly and " +
      "through `startRecorder` (record-all), interleaved rounds; ratio = median of per-round ratios. " +
      `The paced upstream (bench/record.ts) sends its first token after ${FIRST_TOKEN_MS} ms, as a model does; ` +
      "the fixed server sends it at once, so its ratio is the proxy's cost against a near-zero baseline.",
    goal: `≤ ${TTFT_GOAL}× a direct call (issue 29); last column = ratio ÷ goal.`,
    headers: ["upstream", "direct p50", "recorder p50", "added", "recorder ÷ direct", "× goal"],
    rows,
    summary,
  };
}

/** The replaying emulator in a child process, so client and server each get a core. */
async function replayServer(cassette: string): Promise<{ baseURL: string; stop: () => void }> {
  const child = fork(fileURLToPath(import.meta.url), ["--replay", cassette], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const baseURL = await new Promise<string>((resolve, reject) => {
    child.once("message", (message) => resolve(String(message)));
    child.once("exit", (code) => reject(new Error(`replay server exited with code ${code}`)));
  });
  return { baseURL, stop: () => child.kill() };
}

const replayBody = (i: number) =>
  JSON.stringify({
    model: "emulator-chat",
    messages: [{ role: "user", content: `Question ${i}?` }],
  });

/** A cassette of `count` distinct recorded calls, each a small chat completion. */
function syntheticCassette(file: string, count: number): void {
  const cassette = emptyCassette();
  const encoder = new TextEncoder();
  for (let i = 0; i < count; i++) {
    cassette.log.entries.push(
      entryOf({
        startedAt: 0,
        method: "POST",
        url: "https://host.example/inference/v1/chat/completions",
        requestHeaders: { "content-type": "application/json" },
        requestBody: encoder.encode(replayBody(i)),
        status: 200,
        statusText: "OK",
        responseHeaders: { "content-type": "application/json", "x-gateway-request-id": `r-${i}` },
        responseBody: encoder.encode(
          JSON.stringify({
            id: `chatcmpl-${i}`,
            object: "chat.completion",
            created: 0,
            model: "emulator-chat",
            choices: [
              {
                index: 0,
                message: { role: "assistant", content: `Answer ${i}.` },
                finish_reason: "stop",
              },
            ],
            usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
          }),
        ),
        waitMs: 0,
        totalMs: 0,
      }),
    );
  }
  writeFileSync(file, serializeCassette(cassette));
}

function post(url: URL, agent: Agent, body: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: "POST",
      agent,
      headers: {
        authorization: "Bearer sk-any",
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
      },
    });
    req.on("error", reject);
    req.on("response", (res) => {
      res.resume();
      res.on("end", () =>
        res.statusCode === 200
          ? resolve(performance.now() - started)
          : reject(new Error(`replay answered ${res.statusCode}`)),
      );
    });
    req.end(body);
  });
}

async function replayTable(ctx: BenchContext, dir: string): Promise<Table> {
  const count = QUICK ? 10_000 : 60_000;
  const file = join(dir, "replay.har");
  ctx.progress(`record: building a cassette of ${int(count)} calls`);
  syntheticCassette(file, count);
  const rows: string[][] = [];
  const summary: string[] = [];
  for (const concurrency of [64, 1]) {
    const server = await replayServer(file);
    const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
    const url = new URL(`${server.baseURL}/chat/completions`);
    // Each recording is served once: the requests walk through the cassette.
    const warmup = Math.round(count / 5);
    let next = 0;
    const drive = async (until: number, maxMs: number, latencies: number[]) => {
      const end = performance.now() + maxMs;
      const worker = async () => {
        while (next < until && performance.now() < end)
          latencies.push(await post(url, agent, replayBody(next++)));
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
    };
    ctx.progress(`record: replay throughput at concurrency ${concurrency}`);
    await drive(warmup, 2_000, []);
    const latencies: number[] = [];
    const started = performance.now();
    await drive(count, QUICK ? 1_000 : 5_000, latencies);
    const rps = latencies.length / ((performance.now() - started) / 1_000);
    agent.destroy();
    server.stop();
    const s = summarize(latencies);
    rows.push([
      String(concurrency),
      int(rps),
      ms(s.median),
      ms(s.p95),
      int(s.n),
      concurrency > 1 ? ratio(rps, REPLAY_GOAL_RPS) : "–",
    ]);
    summary.push(
      concurrency > 1
        ? `Replay: **${int(rps)} req/s** at concurrency ${concurrency} (${ratio(rps, REPLAY_GOAL_RPS)} the 5,000 goal)`
        : `unloaded p50 ${ms(s.median)}.`,
    );
  }
  return {
    title: "Replay throughput, non-streamed chat completions on loopback",
    how:
      `\`startEmulator({ replay })\` in a child process on a cassette of ${int(count)} distinct recorded calls; ` +
      "a `node:http` keep-alive client walks through them at the given concurrency (each recording served once) " +
      `for up to ${QUICK ? 1 : 5} s after a warm-up of a fifth of them.`,
    goal: `≥ ${int(REPLAY_GOAL_RPS)} req/s on 2 cores (issue 29); last column = req/s ÷ goal, under load.`,
    headers: ["concurrency", "req/s", "p50", "p95", "requests", "× goal"],
    rows,
    summary: [summary.join("; ")],
  };
}

if (process.argv.includes("--replay")) {
  const { startEmulator } = await import("../src/emulator/index.js");
  const emulator = await startEmulator({
    replay: process.argv[process.argv.indexOf("--replay") + 1]!,
  });
  process.send?.(emulator.baseURL);
}
