import { describe, expect, it } from "vitest";
import { decodeFloat32 } from "../../src/utils/float32.js";

/** Float32 values as a server writes them: little-endian bytes, base64. */
function encode(values: number[]): string {
  const view = new DataView(new ArrayBuffer(values.length * 4));
  for (const [i, x] of values.entries()) view.setFloat32(i * 4, x, true);
  return Buffer.from(view.buffer).toString("base64");
}

describe("decodeFloat32", () => {
  it("reads float32 little-endian values, exactly", () => {
    const values = [1, -2.5, 0.1, 3.4e38, -0, 1e-30];
    const decoded = decodeFloat32(encode(values))!;
    expect(decoded).toEqual(values.map((x) => Math.fround(x)));
    expect(decodeFloat32("AACAPwAAAEA=")).toEqual([1, 2]);
    expect(decodeFloat32("")).toEqual([]);
  });

  it("reads them from a decoded buffer at any offset (the decoder's pool gives odd ones)", () => {
    for (let n = 0; n < 8; n++) {
      const values = Array.from({ length: n + 1 }, (_, i) => i - 0.5);
      expect(decodeFloat32(encode(values))).toEqual(values);
    }
  });

  it("reads them with atob where the runtime has no Buffer", () => {
    const saved = globalThis.Buffer;
    const text = encode([0.5, -8]);
    try {
      // @ts-expect-error: a runtime without Buffer (a browser, an edge worker)
      delete globalThis.Buffer;
      expect(decodeFloat32(text)).toEqual([0.5, -8]);
    } finally {
      globalThis.Buffer = saved;
    }
  });

  it.each([
    ["not base64", "not base64!"],
    ["a character outside the alphabet", "AACA!wAA"],
    ["padding inside the text", "AA==AACAPwAA"],
    ["spaces", "AACA PwAA"],
    ["a length that is not a multiple of 4", "AAAAAAA"],
    ["bytes that are not whole floats", "AAAAAAA="],
  ])("gives undefined for %s", (_name, text) => {
    expect(decodeFloat32(text)).toBeUndefined();
  });
});
