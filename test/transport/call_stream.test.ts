/**
 * The one place a stream's end is settled: the meter settles the attempt that answered, then the
 * request's span ends — once, whichever way the stream ends.
 */
import { describe, expect, it, vi } from "vitest";
import { CallMeter, type StreamEnd } from "../../src/spend/call_meter.js";
import type { StreamReading } from "../../src/spend/estimate.js";
import type { SpendGuard } from "../../src/spend/spend_guard.js";
import type { CallTrace } from "../../src/telemetry/call_trace.js";
import { CallStream, type StreamHead } from "../../src/transport/call_stream.js";

const ESTIMATE = { model: "m", inputTokens: 0, maxOutputTokens: 100, choices: 1 };
const HEAD = { response: new Response(), ctx: { surface: "hosted" } } as StreamHead;

/** A guard that records what is asked of it. */
function recordingGuard(log: unknown[][]): SpendGuard {
  return {
    reserve: async () => ({
      settle: async () => log.push(["settle"]),
      settleAsHeld: async () => log.push(["settleAsHeld"]),
    }),
    endRun: async (runId: string, how: unknown) => void log.push(["endRun", runId, how]),
  } as unknown as SpendGuard;
}

/** A stream of `items` through a `CallStream` with a recording meter and trace. */
async function callStream(items: AsyncIterable<string>, signal?: AbortSignal) {
  const log: unknown[][] = [];
  const meter = new CallMeter({ run: { runId: "r", handlers: [] } }, [recordingGuard(log)]);
  const attempt = await meter.begin(ESTIMATE);
  attempt.answered("req-9");
  const trace = { end: (error: unknown, how: StreamEnd) => log.push(["end", how, error]) };
  const start = vi.fn(() => ({
    signal,
    meter,
    opened: Promise.resolve({ items, attempt, head: HEAD }),
  }));
  const stream = new CallStream<string>({
    start,
    count: (reading: StreamReading, item: string) => reading.addText(item),
    trace: trace as unknown as CallTrace,
  });
  return { stream, log, start };
}

async function* two() {
  yield "abc";
  yield "def";
}

describe("CallStream", () => {
  it("sends nothing until it is read, and nothing at all when it is left unread", async () => {
    const { stream, start, log } = await callStream(two());
    expect(start).not.toHaveBeenCalled();
    await stream.return(undefined);
    expect(start).not.toHaveBeenCalled();
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    expect(log).toEqual([]);
  });

  it("settles a stream read to its end to what was read, then ends its span, once", async () => {
    const { stream, log } = await callStream(two());
    const seen: string[] = [];
    for await (const item of stream) seen.push(item);
    expect(seen).toEqual(["abc", "def"]);
    expect(log).toEqual([["settle"], ["end", "ended", undefined]]);
  });

  it("charges a stream left early its worst case and ends its run as abandoned", async () => {
    const { stream, log } = await callStream(two());
    for await (const _ of stream) break;
    expect(log).toEqual([
      ["settleAsHeld"],
      ["endRun", "r", { abandoned: true, requestId: "req-9" }],
      ["end", "left", undefined],
    ]);
  });

  it("settles a failed stream to what was read and ends its span with the error", async () => {
    const cut = new Error("cut");
    async function* failing() {
      yield "abc";
      throw cut;
    }
    const { stream, log } = await callStream(failing());
    await expect(async () => {
      for await (const _ of stream) {
        // read until it fails
      }
    }).rejects.toBe(cut);
    expect(log).toEqual([["settle"], ["end", "failed", cut]]);
  });

  it("settles a stream stopped by its signal at once, and ends its run as aborted with its request ID", async () => {
    const controller = new AbortController();
    async function* quiet() {
      yield "x".repeat(6);
      await new Promise(() => {}); // the service goes quiet
    }
    const { stream, log } = await callStream(quiet(), controller.signal);
    await stream.next();
    controller.abort();
    await vi.waitFor(() => expect(log.some(([what]) => what === "end")).toBe(true));
    expect(log.slice(0, 2)).toEqual([
      ["settleAsHeld"],
      ["endRun", "r", { abandoned: true, aborted: true, requestId: "req-9" }],
    ]);
    expect(log[2]).toMatchObject(["end", "aborted", { name: "AbortError" }]);
  });

  it("ends a stream that could not be opened as failed, with no run ended", async () => {
    const refused = new Error("refused");
    const log: unknown[][] = [];
    const trace = { end: (error: unknown, how: StreamEnd) => log.push(["end", how, error]) };
    const stream = new CallStream<string>({
      start: () => ({ opened: Promise.reject(refused) }),
      trace: trace as unknown as CallTrace,
    });
    await expect(stream.open()).rejects.toBe(refused);
    await expect(stream.next()).rejects.toBe(refused);
    expect(log).toEqual([["end", "failed", refused]]);
  });
});
