/** @module Decoding `encoding_format: "base64"` vectors: float32 little-endian, in any runtime. */

/** Whether this platform stores floats little-endian, as the wire does (then no byte swapping). */
const LITTLE_ENDIAN = new Uint8Array(new Float32Array([1]).buffer)[3] === 0x3f;

/**
 * The numbers of a base64 string of float32 values, little-endian whatever the platform (the
 * byte order OpenAI-style servers write); undefined when the text is not base64 or its bytes are
 * not a whole number of floats. Uses `Buffer` where there is one (Node, Bun, Deno), else `atob`.
 *
 * @example
 * decodeFloat32("AACAPwAAAEA="); // [1, 2]
 */
export function decodeFloat32(text: string): number[] | undefined {
  if (text.length % 4 !== 0) return undefined;
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const bytes = bytesOf(text);
  // A decoder stops at (or skips) a character outside the alphabet: then fewer bytes come out
  // than the length promises, which is how text that is not base64 shows.
  if (bytes === undefined || bytes.byteLength !== (text.length / 4) * 3 - padding) return undefined;
  if (bytes.byteLength % 4 !== 0) return undefined;
  const count = bytes.byteLength / 4;
  if (LITTLE_ENDIAN) {
    // Float32Array needs an aligned offset: a copy when the decoder's pool gave an odd one.
    const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
    return Array.from(new Float32Array(aligned.buffer, aligned.byteOffset, count));
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values = new Array<number>(count);
  for (let i = 0; i < count; i++) values[i] = view.getFloat32(i * 4, true);
  return values;
}

function bytesOf(text: string): Uint8Array | undefined {
  const { Buffer } = globalThis as {
    Buffer?: { from(text: string, encoding: string): Uint8Array };
  };
  if (Buffer) return Buffer.from(text, "base64");
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
