/**
 * Fault soak (issue 8): thousands of calls of both models, invoked and streamed, through the
 * emulator over HTTP while it injects seeded random 429s (with a small Retry-After), 502s, 503s,
 * resets, truncated bodies and stream error events, with retries on. Each call is judged against
 * the fault its last request got (the emulator's request log, by `X-Gateway-Request-Id`).
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatInferenceService } from "../src/apis/chat/chat_models.js";
import { DedicatedEndpointLLM } from "../src/apis/completions/llms.js";
import { type RunningEmulator, startEmulator } from "../src/emulator/index.js";
import { ServiceConnectionError } from "../src/errors/errors.js";
import { UsageTracker } from "../src/spend/usage_tracker.js";
import { MemoryStore } from "../src/stores/memory_store.js";
import {
  checkSoak,
  expectedError,
  KINDS,
  MAX_RETRIES,
  MODES,
  runSoak,
  SOAK_FAULTS,
  type SoakCall,
  type SoakReport,
  uncovered,
} from "./helpers/soak.js";

const CALLS = 3000;
const CONCURRENCY = 16;
const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Open handles by type (sockets, servers, timers that keep the process alive). */
function activeResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo())
    counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

/** The handles open now beyond `baseline`, after giving closed sockets a few turns to go. */
async function extraResources(baseline: Map<string, number>): Promise<Record<string, number>> {
  const extra = () => {
    const out: Record<string, number> = {};
    for (const [type, n] of activeResources()) {
      if (n > (baseline.get(type) ?? 0)) out[type] = n - (baseline.get(type) ?? 0);
    }
    return out;
  };
  // Safety net, not a timing assertion: a leak shows as what is still open after it.
  for (let turn = 0; turn < 200 && Object.keys(extra()).length > 0; turn++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return extra();
}

describe("fault soak over HTTP with retries on", () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  let emulator: RunningEmulator;
  let calls: SoakCall[];
  let report: SoakReport;
  let leaked: Record<string, number>;

  beforeAll(async () => {
    process.on("unhandledRejection", onUnhandled);
    const baseline = activeResources();
    emulator = await startEmulator({ port: 0, faults: SOAK_FAULTS, requestLogLimit: 100_000 });
    try {
      calls = await runSoak({
        baseURL: emulator.baseURL,
        apiKey: emulator.apiKey,
        calls: CALLS,
        concurrency: CONCURRENCY,
      });
      report = checkSoak(calls, emulator.state.requests());
    } finally {
      await emulator.close();
    }
    leaked = await extraResources(baseline);
    // Let any rejection still in flight surface before the tests read the list.
    await new Promise((resolve) => setImmediate(resolve));
  }, 120_000);

  afterAll(() => {
    process.off("unhandledRejection", onUnhandled);
  });

  it("ends every call in its expected answer or the typed error its last fault maps to", () => {
    expect(calls).toHaveLength(CALLS);
    expect(report.problems).toEqual([]);
    // With 60% of requests faulted, calls needed retries: more requests than calls.
    expect(report.requests).toBeGreaterThan(CALLS);
  });

  it("sees every injected fault end calls of every mode, and every mode succeed", () => {
    expect(uncovered(report.tally)).toEqual([]);
  });

  it("raises no unhandled rejection", () => {
    expect(unhandled).toEqual([]);
  });

  it("leaves no socket, server or timer open once the emulator is closed", async () => {
    expect(leaked).toEqual({});
    const refused = await fetch(`${emulator.url}/`).then(
      () => undefined,
      (error: unknown) => (error as { cause?: { code?: string } }).cause?.code,
    );
    expect(refused).toBe("ECONNREFUSED");
  });
});

describe("each injected fault alone, on every request of a call", () => {
  let emulator: RunningEmulator;

  beforeAll(async () => {
    // Faults come from the header only; their settings (the small Retry-After) stay the soak's.
    emulator = await startEmulator({ port: 0, faults: { ...SOAK_FAULTS, rate: 0 } });
  });
  afterAll(() => emulator.close());

  it.each(KINDS)(
    "maps %s to its typed error on every mode, after 1 + maxRetries attempts unless mid-stream",
    async (fault) => {
      emulator.state.clearRequests();
      const calls = await runSoak({
        baseURL: emulator.baseURL,
        apiKey: emulator.apiKey,
        calls: MODES.length,
        concurrency: 1,
        fault,
      });
      const { problems, tally } = checkSoak(calls, emulator.state.requests());

      expect(problems).toEqual([]);
      for (const call of calls) {
        const want = expectedError(call.mode, fault);
        expect(tally[call.mode]).toEqual({ [`${fault} → ${want.cls.name}`]: 1 });
        expect(call.attempts).toHaveLength(want.midStream ? 1 : 1 + MAX_RETRIES[call.mode]);
      }
    },
  );

  // undici's "terminated" (a body cut after its 200) means the endpoint answered: not Pending.
  it("reports a /completions body cut after its 200 as a broken connection, not a Pending endpoint", async () => {
    // Calls cycle through the modes: the third is llm.invoke.
    const [, , call] = await runSoak({
      baseURL: emulator.baseURL,
      apiKey: emulator.apiKey,
      calls: 3,
      concurrency: 1,
      fault: "truncate",
    });

    expect(call?.mode).toBe("llm.invoke");
    expect(ServiceConnectionError.isInstance(call?.error), String(call?.error)).toBe(true);
  });
});

describe("a soak in a child process", () => {
  it("exits on its own with code 0 once its calls are done (nothing left open)", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "test/soak/child.ts"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    // Safety net: a child still running after it has not exited on its own.
    const killer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on("exit", (c, s) => resolve([c, s])),
    );
    clearTimeout(killer);

    expect({ code, signal }, stderr).toEqual({ code: 0, signal: null });
    const summary = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
    expect(summary).toMatchObject({ calls: 200, problems: [] });
  }, 120_000);
});

// Instant streams go out whole before the emulator notices a client gone, so a stopped one is
// billed the whole answer, as new-api bills it; paced ones (1 ms an event) what went out first.
describe.each([0, 1])(
  "a soak with a stop button (%i ms between events): user aborts, left streams and faults",
  (streamChunkDelayMs) => {
    const STOPPED_CALLS = 400;
    const PRICES = {
      "emulator-chat": { input: 0.5, output: 1.5 },
      "tenant-demo.demo-endpoint": { input: 0.5, output: 1.5 },
    };
    let emulator: RunningEmulator;
    let usage: UsageTracker;
    let store: MemoryStore;
    let debited = 0;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    const outcomes = new Map<string, number>();

    beforeAll(async () => {
      process.on("unhandledRejection", onUnhandled);
      emulator = await startEmulator({
        port: 0,
        faults: { ...SOAK_FAULTS, rate: 0.2 },
        streamChunkDelayMs,
      });
      store = new MemoryStore();
      usage = new UsageTracker({ prices: PRICES, budget: 1_000_000, store });
      const credit = emulator.state.snapshot().credit;
      const fields = {
        apiKey: emulator.apiKey,
        baseURL: emulator.baseURL,
        maxTokens: 64,
        maxRetries: 2,
        retry: { initialDelayMs: 1, maxDelayMs: 5 },
        callbacks: [usage],
      };
      const chat = new ChatInferenceService("emulator-chat", fields);
      const llm = new DedicatedEndpointLLM({ ...fields, serviceName: "tenant-demo.demo-endpoint" });
      // Seeded: the same calls stop at the same places every run.
      let seed = 7;
      const random = () => {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
        return seed / 2 ** 31;
      };
      const one = async (i: number) => {
        const model = i % 2 === 0 ? chat : llm;
        const prompt = `Tell me about call ${i}, then about the weather and the sea.`;
        const controller = new AbortController();
        const stopAt = Math.floor(random() * 12);
        const how = ["read", "abort", "break", "abort-before", "invoke-abort"][
          Math.floor(random() * 5)
        ]!;
        try {
          if (how === "abort-before") controller.abort();
          if (how === "invoke-abort") {
            const pending = (model as ChatInferenceService).invoke(prompt, {
              signal: controller.signal,
            });
            queueMicrotask(() => controller.abort());
            await pending;
          } else {
            const stream = await (model as ChatInferenceService).stream(prompt, {
              signal: controller.signal,
            });
            let read = 0;
            for await (const _ of stream) {
              if (++read < stopAt) continue;
              if (how === "abort") controller.abort();
              if (how === "break" || how === "abort") break;
            }
          }
          outcomes.set(`${how}: ok`, (outcomes.get(`${how}: ok`) ?? 0) + 1);
        } catch (error) {
          const name = (error as Error).name;
          outcomes.set(`${how}: ${name}`, (outcomes.get(`${how}: ${name}`) ?? 0) + 1);
        }
      };
      const queue = Array.from({ length: STOPPED_CALLS }, (_, i) => i);
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          for (let i = queue.shift(); i !== undefined; i = queue.shift()) await one(i);
        }),
      );
      // Calls stopped while nobody reads them settle in the background: give them their turns.
      for (let turn = 0; turn < 500 && (usage.inFlight > 0 || store.reservations > 0); turn++) {
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      debited = credit - emulator.state.snapshot().credit;
      await emulator.close();
    }, 120_000);

    afterAll(() => {
      process.off("unhandledRejection", onUnhandled);
    });

    it("ends with nothing in flight and nothing reserved, one record per call", () => {
      expect(usage.inFlight).toBe(0);
      expect(store.reservations).toBe(0);
      expect(usage.records).toHaveLength(STOPPED_CALLS);
      expect([...outcomes.keys()].some((key) => key.startsWith("abort: "))).toBe(true);
    });

    it("counts no less than the service debited, and raises no unhandled rejection", async () => {
      const { spent } = await usage.budgetStatus();
      expect(spent).toBeGreaterThanOrEqual(debited - 1e-9);
      expect(unhandled).toEqual([]);
    });
  },
);

describe.each([
  ["Chat Completions", false],
  ["the Responses API", true],
])(
  "a run without faults in which one call in seven is a stream stopped after its first chunk, on %s",
  (_api, useResponsesApi) => {
    const CALLS = 350;
    const PRICES = { "emulator-chat": { input: 0.5, output: 1.5 } };
    const usage = new UsageTracker({ prices: PRICES });
    const paths = new Set<string>();
    let debited = 0;

    beforeAll(async () => {
      // Instant streams: a stopped one has gone out whole, and is billed whole, as new-api bills it.
      const emulator = await startEmulator({ port: 0 });
      const credit = emulator.state.snapshot().credit;
      const chat = new ChatInferenceService("emulator-chat", {
        apiKey: emulator.apiKey,
        baseURL: emulator.baseURL,
        maxTokens: 64,
        callbacks: [usage],
        useResponsesApi,
        // Which API each call went to.
        fetch: (url: string | URL | Request, init?: RequestInit) => {
          paths.add(new URL(url instanceof Request ? url.url : url).pathname);
          return globalThis.fetch(url, init);
        },
      });
      const one = async (i: number) => {
        const prompt = `Tell me about call ${i}, then about the weather and the sea.`;
        if (i % 7 !== 0) {
          for await (const _ of await chat.stream(prompt)) {
            // read to the end
          }
          return;
        }
        const controller = new AbortController();
        try {
          for await (const _ of await chat.stream(prompt, { signal: controller.signal })) {
            controller.abort();
          }
        } catch {
          // the stop button's AbortError
        }
      };
      const queue = Array.from({ length: CALLS }, (_, i) => i);
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          for (let i = queue.shift(); i !== undefined; i = queue.shift()) await one(i);
        }),
      );
      for (let turn = 0; turn < 500 && usage.inFlight > 0; turn++) {
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      debited = credit - emulator.state.snapshot().credit;
      await emulator.close();
    }, 120_000);

    it("costs no less than the service debited, with nothing in flight", () => {
      expect(paths).toEqual(
        new Set([`/inference/v1/${useResponsesApi ? "responses" : "chat/completions"}`]),
      );
      expect(usage.inFlight).toBe(0);
      expect(usage.records).toHaveLength(CALLS);
      expect(usage.records.filter((r) => r.settlement === "upper-bound")).toHaveLength(CALLS / 7);
      expect(usage.spent).toBeGreaterThanOrEqual(debited - 1e-9);
    });
  },
);
