/**
 * The one place a stream's end is settled: the meter settles the attempt that answered, then the
 * request's span ends — once, whichever way the stream ends.
 */
import { getEventListeners } from "node:events";
import { describe, expect, it, vi } from "vitest";
import { CallMeter, type StreamEnd } from "../../src/spend/call_meter.js";
import type { StreamReading } from "../../src/spend/estimate.js";
import type { SpendGuard } from "../../src/spend/spend_guard.js";
import type { CallTrace } from "../../src/telemetry/call_trace.js";
import { CallStream, type StreamHead } from "../../src/transport/call_stream.js";

const ESTIMATE = { model: "m", inputTokens: 0, maxOutputTokens: 100, choices: 1 };
const HEAD = { response: new Response(), ctx: { surface: "hosted" } } as StreamHead;

/** A guard that records what is asked of it: a settlement with the counts and whether they are estimated. */
function recordingGuard(log: unknown[][]): SpendGuard {
  return {
    reserve: async () => ({
      settle: async (counted: unknown, estimated: boolean) =>
        log.push(["settle", counted, estimated]),
      settleAsHeld: async () => log.push(["settleAsHeld"]),
    }),
    endRun: async (runId: string, how: unknown) => void log.push(["endRun", runId, how]),
  } as unknown as SpendGuard;
}

/**
 * A stream of `items` through a `CallStream` with a recording meter (none when `metered` is
 * false) and trace, its reader counting each item's text unless `counted` is false.
 */
async function callStream(
  items: AsyncIterable<string>,
  signal?: AbortSignal,
  { metered = true, counted = true } = {},
) {
  const log: unknown[][] = [];
  const meter = new CallMeter({ run: { runId: "r", handlers: [] } }, [recordingGuard(log)]);
  const attempt = await meter.begin(ESTIMATE);
  attempt.answered("req-9");
  const trace = { end: (error: unknown, how: StreamEnd) => log.push(["end", how, error]) };
  const start = vi.fn(() => ({
    signal,
    meter: metered ? meter : undefined,
    opened: Promise.resolve({ items, attempt: metered ? attempt : undefined, head: HEAD }),
  }));
  const count = vi.fn((reading: StreamReading, item: string) => reading.addText(item));
  const stream = new CallStream<string>({
    start,
    ...(counted ? { count } : {}),
    trace: trace as unknown as CallTrace,
  });
  return { stream, log, start, count };
}

/** Reads `stream` to its end, or until it fails. */
async function readAll(stream: AsyncIterable<string>): Promise<string[]> {
  const seen: string[] = [];
  for await (const item of stream) seen.push(item);
  return seen;
}

async function* two() {
  yield "abc";
  yield "def";
}

describe("CallStream", () => {
  it("sends nothing until it is read, and nothing at all when it is left unread", async () => {
    const { stream, start, log } = await callStream(two());
    expect(start).not.toHaveBeenCalled();
    expect(await stream.return(undefined)).toEqual({ done: true, value: undefined });
    expect(start).not.toHaveBeenCalled();
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    expect(log).toEqual([]);
  });

  // "abcdef": 6 bytes, 2 tokens estimated.
  it.each([
    ["what was read", true, 2],
    ["no output when its reader counts nothing", false, 0],
  ])(
    "settles a stream read to its end to %s, then ends its span, once",
    async (_label, counted, outputTokens) => {
      const { stream, log } = await callStream(two(), undefined, { counted });
      expect(await readAll(stream)).toEqual(["abc", "def"]);
      expect(log).toEqual([
        ["settle", { inputTokens: 0, outputTokens }, true],
        ["end", "ended", undefined],
      ]);
    },
  );

  it("sends the request once, however often it is opened and read", async () => {
    const { stream, start } = await callStream(two());
    expect(await stream.open()).toBe(HEAD);
    expect(await stream.open()).toBe(HEAD);
    expect(await readAll(stream)).toEqual(["abc", "def"]);
    expect(start).toHaveBeenCalledTimes(1);
  });

  it("counts nothing for a call that has no meter", async () => {
    const { stream, log, count } = await callStream(two(), undefined, { metered: false });
    expect(await readAll(stream)).toEqual(["abc", "def"]);
    expect(count).not.toHaveBeenCalled();
    expect(log).toEqual([["end", "ended", undefined]]);
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
    await expect(readAll(stream)).rejects.toBe(cut);
    expect(log).toEqual([
      ["settle", { inputTokens: 0, outputTokens: 1 }, true],
      ["end", "failed", cut],
    ]);
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

  it("reads and settles a stream whose call is not traced", async () => {
    const log: unknown[][] = [];
    const meter = new CallMeter({ run: { runId: "r", handlers: [] } }, [recordingGuard(log)]);
    const attempt = await meter.begin(ESTIMATE);
    const stream = new CallStream<string>({
      start: () => ({ meter, opened: Promise.resolve({ items: two(), attempt, head: HEAD }) }),
    });
    expect(await readAll(stream)).toEqual(["abc", "def"]);
    expect(log).toEqual([["settle", { inputTokens: 0, outputTokens: 0 }, true]]);
  });

  it("ends a stream whose request cannot be built as failed, and rejects each read with its error", async () => {
    const invalid = new Error("invalid request");
    const log: unknown[][] = [];
    const trace = { end: (error: unknown, how: StreamEnd) => log.push(["end", how, error]) };
    const stream = new CallStream<string>({
      start: () => {
        throw invalid;
      },
      trace: trace as unknown as CallTrace,
    });
    await expect(stream.next()).rejects.toBe(invalid);
    await expect(stream.open()).rejects.toBe(invalid);
    expect(log).toEqual([["end", "failed", invalid]]);
  });
});

describe("CallStream left before its end", () => {
  /** Two items from a source that records whether it was told it was left. */
  function told() {
    const source = { left: false };
    async function* items() {
      try {
        yield "abc";
        yield "def";
      } finally {
        source.left = true;
      }
    }
    return { source, items: items() };
  }

  it("tells its source, settles, and answers as a finished iterator", async () => {
    const { source, items } = told();
    const { stream, log } = await callStream(items);
    expect(await stream.next()).toEqual({ done: false, value: "abc" });
    expect(await stream.return(undefined)).toEqual({ done: true, value: undefined });
    expect(source.left).toBe(true);
    expect(log.map(([what, how]) => (what === "end" ? `end ${how}` : what))).toEqual([
      "settleAsHeld",
      "endRun",
      "end left",
    ]);
  });

  it("is settled once it has opened when it is left while opening", async () => {
    const { source, items } = told();
    const { stream, log } = await callStream(items);
    const opening = stream.open();
    expect(await stream.return(undefined)).toEqual({ done: true, value: undefined });
    await opening;
    expect(log.at(-1)).toEqual(["end", "left", undefined]);
    // The source was never read: its generator never started, so there was nothing to finish.
    expect(source.left).toBe(false);
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });

  it("is settled all the same when its source cannot be told", async () => {
    let pulled = 0;
    const items: AsyncIterable<string> = {
      [Symbol.asyncIterator]: () => ({
        next: async () => ({ done: false, value: `item ${++pulled}` }),
      }),
    };
    const { stream, log } = await callStream(items);
    for await (const _ of stream) break;
    expect(pulled).toBe(1);
    expect(log.at(-1)).toEqual(["end", "left", undefined]);
  });

  it("passes an error thrown into it to its source, having ended it as failed", async () => {
    const stop = new Error("stop");
    const { source, items } = told();
    const { stream, log } = await callStream(items);
    await stream.next();
    await expect(stream.throw(stop)).rejects.toBe(stop);
    expect(source.left).toBe(true);
    expect(log.at(-1)).toEqual(["end", "failed", stop]);

    const unread = await callStream(two());
    await expect(unread.stream.throw(stop)).rejects.toBe(stop);
    expect(unread.log).toEqual([["end", "failed", stop]]);
  });
});

describe("CallStream and its signal", () => {
  it("lets go of its signal once it has ended, however it ended", async () => {
    const signal = new AbortController().signal;
    const read = await callStream(two(), signal);
    await read.stream.next();
    expect(getEventListeners(signal, "abort")).toHaveLength(1);
    await readAll(read.stream);
    const left = await callStream(two(), signal);
    for await (const _ of left.stream) break;
    const failed = await callStream(
      (async function* () {
        yield* [];
        throw new Error("cut");
      })(),
      signal,
    );
    await expect(readAll(failed.stream)).rejects.toThrow("cut");
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("settles as aborted a stream whose signal was aborted before it opened, however it ends", async () => {
    const signal = AbortSignal.abort();
    const refused = new Error("refused");
    const log: unknown[][] = [];
    const trace = { end: (error: unknown, how: StreamEnd) => log.push(["end", how, error]) };
    const neverOpened = new CallStream<string>({
      start: () => ({ signal, opened: Promise.reject(refused) }),
      trace: trace as unknown as CallTrace,
    });
    await expect(neverOpened.next()).rejects.toBe(refused);
    expect(log).toEqual([["end", "aborted", refused]]);

    // An answer already on its way when the signal fired, then left or cut.
    const left = await callStream(two(), signal);
    for await (const _ of left.stream) break;
    expect(left.log.at(-1)).toMatchObject(["end", "aborted", { name: "AbortError" }]);
    expect(left.log).toContainEqual([
      "endRun",
      "r",
      { abandoned: true, aborted: true, requestId: "req-9" },
    ]);
    const cut = new Error("cut");
    const failed = await callStream(
      (async function* () {
        yield* [];
        throw cut;
      })(),
      signal,
    );
    await expect(readAll(failed.stream)).rejects.toBe(cut);
    expect(failed.log.at(-1)).toEqual(["end", "aborted", cut]);
  });
});
