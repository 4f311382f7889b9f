import { describe, expect, it } from "vitest";
import { EventBoundaries } from "../../src/transport/event_boundaries.js";

const encoder = new TextEncoder();

/** Feeds `parts` in order; which of them ended an event. */
function ends(parts: string[]): boolean[] {
  const boundaries = new EventBoundaries();
  return parts.map((part) => boundaries.feed(encoder.encode(part)));
}

describe("EventBoundaries", () => {
  it("finds the end of an event, however its bytes are split", () => {
    expect(ends(['data: {"id":1}\n\n'])).toEqual([true]);
    expect(ends(["da", "ta: {", '"id":1}', "\n", "\n"])).toEqual([
      false,
      false,
      false,
      false,
      true,
    ]);
    expect(ends(['data: {"id":1}\n\ndata: {"id"'])).toEqual([true]);
    const long = `data: {"text":"${"x".repeat(5000)}"}`;
    expect(ends([long.slice(0, 2000), long.slice(2000), "\r", "\n\r\n"])).toEqual([
      false,
      false,
      false,
      true,
    ]);
    expect(ends([`: ${"ping ".repeat(1000)}\n\n`])).toEqual([false]);
  });

  it("reads LF, CR and CRLF line ends, also split between chunks", () => {
    expect(ends(["data: x\r\n\r\n"])).toEqual([true]);
    expect(ends(["data: x\r\n\r", "\n"])).toEqual([true, false]);
    expect(ends(["data: x\r", "\n", "\r\n"])).toEqual([false, false, true]);
    expect(ends(["data: x\r\r"])).toEqual([true]);
  });

  it("counts every event of a chunk of many long lines, whatever their line ends", () => {
    // Long lines are skipped to their end natively; the CRs of a chunk are looked up once, so
    // line ends of every kind, in any mix, must still be found in order.
    const line = (n: number) => `data: {"n":${n},"text":"${"y".repeat(40)}"}`;
    const breaks = ["\n\n", "\r\n\r\n", "\r\r", "\n\r\n", "\r\n\n"];
    const body = Array.from({ length: 50 }, (_, n) => line(n) + breaks[n % breaks.length]).join("");
    const data = encoder.encode(body);
    /** For each call of `feed` with `size` bytes, whether it ended an event. */
    const fed = (size: number) => {
      const boundaries = new EventBoundaries();
      const out: boolean[] = [];
      for (let at = 0; at < data.length; at += size)
        out.push(boundaries.feed(data.subarray(at, at + size)));
      return out;
    };
    // A byte at a time, each event ends at one byte: where the empty line after its data ends.
    const endsAt = fed(1).flatMap((ended, at) => (ended ? [at] : []));
    expect(endsAt).toHaveLength(50);
    for (const size of [2, 7, 64, 333, data.length]) {
      const expected = fed(size).map((_, k) => endsAt.some((at) => Math.floor(at / size) === k));
      expect(fed(size), `chunks of ${size} bytes`).toEqual(expected);
    }
  });

  it("counts a `data` field alone or with other fields, and nothing without one", () => {
    expect(ends(["data\n\n"])).toEqual([true]);
    expect(ends(["event: message\nid: 7\ndata: [DONE]\n\n"])).toEqual([true]);
    expect(ends([": ping\n\n", ": ping\n\n"])).toEqual([false, false]);
    expect(ends(["event: ping\n\n", "id: 3\nretry: 10\n\n"])).toEqual([false, false]);
    expect(ends(["datum: x\n\n", "dat\n\n", "database: x\n\n"])).toEqual([false, false, false]);
    expect(ends(["\n\n\n"])).toEqual([false]);
  });

  it("counts no event for a non-data line as long as `data` (`:abc`, `ping`), which would reset the idle timeout", () => {
    expect(ends([":abc\n\n", "ping\n\n", "dat:\n\n", "Data\n\n"])).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(ends(["ping\ndata\n\n"])).toEqual([true]);
  });

  it("notes a `data: [DONE]` line, however split, and nothing like it", () => {
    const sawDone = (parts: string[]) => {
      const boundaries = new EventBoundaries();
      for (const part of parts) boundaries.feed(encoder.encode(part));
      return boundaries.sawDone;
    };
    expect(sawDone(['data: {"id":1}\n\n', "data: [DONE]\n\n"])).toBe(true);
    expect(sawDone(["data:[DONE]\r\n"])).toBe(true);
    expect(sawDone(["data: [DO", "NE]", "\n"])).toBe(true);
    expect(sawDone([`data: {"text":"${"x".repeat(500)}"}\r\n\r\ndata: [DONE]\r\n\r\n`])).toBe(true);
    expect(sawDone(['data: {"id":1}\n\n'])).toBe(false);
    expect(sawDone(["data: [DONE]"])).toBe(false); // the line never ended
    expect(sawDone(["data: 123456\n"])).toBe(false); // as long as `data: [DONE]`
    expect(sawDone(["data: [DONE\n", "data: [DONF]\n", "data: DONE]\n"])).toBe(false);
    expect(sawDone(["data: xDONE]\n", "data: [xONE]\n"])).toBe(false); // a miss is never undone
    expect(sawDone(["data: [DONE]x\n", "data:  [DONE]\n", ": [DONE]\n", "event: [DONE]\n"])).toBe(
      false,
    );
  });
});
