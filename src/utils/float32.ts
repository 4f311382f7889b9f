/** @module Decoding `encoding_format: "base64"` vectors: float32 little-endian, in any runtime. */

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The numbers of a base64 string of float32 values, little-endian whatever the platform (the
 * byte order OpenAI-style servers write); undefined when the text is not base64 or its bytes are
 * not a whole number of floats. Uses `Buffer` where there is one (Node, Bun, Deno), else `atob`.
 *
 * @example
 * decodeFloat32("AACAPwAAAEA="); // [1, 2]
 */
export function decodeFloat32(text: string): number[] | undefined {
  if (text.length % 4 !== 0 || !BASE64.test(text)) return undefined;
  const bytes = bytesOf(text);
  if (bytes.byteLength % 4 !== 0) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values = new Array<number>(bytes.byteLength / 4);
  for (let i = 0; i < values.length; i++) values[i] = view.getFloat32(i * 4, true);
  return values;
}

function bytesOf(text: string): Uint8Array {
  const { Buffer } = globalThis as {
    Buffer?: { from(text: string, encoding: string): Uint8Array };
  };
  if (Buffer) return Buffer.from(text, "base64");
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
