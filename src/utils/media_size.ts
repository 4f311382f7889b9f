/**
 * @module The size of an image or a PDF sent inline as a base64 data URL: an image's width and
 * height from its own header (PNG, JPEG, GIF, WebP), a PDF's page count. Only the bytes needed are
 * decoded — an image's header is a few dozen bytes into a body that may be megabytes long — with
 * the `atob` every runtime has, so it runs wherever the main entry does. What a model bills for
 * them is the caller's business (`spend/media_tokens.ts`, and the emulator's model).
 */

/** A data URL's media type and base64 payload; undefined for anything else (a remote URL). */
export function dataUrlPayload(url: unknown): { mediaType: string; base64: string } | undefined {
  if (typeof url !== "string" || !url.startsWith("data:")) return undefined;
  const comma = url.indexOf(",");
  if (comma < 0) return undefined;
  const head = url.slice(5, comma);
  if (!head.endsWith(";base64")) return undefined;
  return {
    mediaType: head.slice(0, -7).split(";")[0]!.toLowerCase(),
    base64: url.slice(comma + 1),
  };
}

/** Width and height in pixels. */
export interface ImageSize {
  width: number;
  height: number;
}

/**
 * The dimensions an image's header states, for PNG, JPEG, GIF and WebP (the formats the major
 * model families take), read from its base64 payload; undefined for another format or a header
 * that cannot be read.
 */
export function imageSize(base64: string): ImageSize | undefined {
  const bytes = new Base64Window(base64);
  const head = bytes.read(0, 30);
  if (head === undefined) return undefined;
  const ascii = (from: number, to: number) => String.fromCharCode(...head.subarray(from, to));
  if (ascii(1, 4) === "PNG" && ascii(12, 16) === "IHDR") {
    return sized(bigEndian(head, 16, 4), bigEndian(head, 20, 4));
  }
  if (ascii(0, 4) === "GIF8") return sized(littleEndian(head, 6, 2), littleEndian(head, 8, 2));
  if (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return webpSize(head, ascii(12, 16));
  if (head[0] === 0xff && head[1] === 0xd8) return jpegSize(bytes);
  return undefined;
}

/**
 * A PDF's page count, from its base64 payload: the larger of its `/Type /Page` objects, the
 * `/Count` of its page tree and a linearised file's `/N`. Undefined when none can be read (the
 * objects are all inside compressed object streams) or the payload is no PDF.
 */
export function pdfPageCount(base64: string): number | undefined {
  let text: string;
  try {
    text = atob(base64);
  } catch {
    return undefined;
  }
  if (!text.startsWith("%PDF")) return undefined;
  let pages = text.match(/\/Type\s*\/Page(?![A-Za-z])/g)?.length ?? 0;
  for (const [, count] of text.matchAll(/\/Count\s+(\d+)/g)) pages = Math.max(pages, Number(count));
  const linearised = /\/Linearized[^>]*?\/N\s+(\d+)/.exec(text);
  if (linearised) pages = Math.max(pages, Number(linearised[1]));
  return pages > 0 ? pages : undefined;
}

/** Decodes any window of a base64 text without decoding what comes before it. */
class Base64Window {
  readonly #text: string;

  constructor(text: string) {
    this.#text = text;
  }

  /** `length` bytes from byte `start`; undefined past the end or in text that is not base64. */
  read(start: number, length: number): Uint8Array | undefined {
    const first = Math.floor(start / 3) * 4;
    const last = Math.ceil((start + length) / 3) * 4;
    if (last > this.#text.length) return undefined;
    let binary: string;
    try {
      binary = atob(this.#text.slice(first, last));
    } catch {
      return undefined;
    }
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    const skip = start % 3;
    return bytes.subarray(skip, skip + length);
  }
}

/** Segments a JPEG may have before its frame header, at most: a corrupt file ends the walk. */
const JPEG_SEGMENTS = 512;

/**
 * A JPEG's size from its start-of-frame header, found by walking its segments by their lengths
 * (so a large EXIF block is skipped, never decoded).
 */
function jpegSize(bytes: Base64Window): ImageSize | undefined {
  let at = 2;
  for (let i = 0; i < JPEG_SEGMENTS; i++) {
    const segment = bytes.read(at, 9);
    if (segment === undefined || segment[0] !== 0xff) return undefined;
    const marker = segment[1]!;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    // SOF0–SOF15, except DHT (C4), JPG (C8) and DAC (CC), which share the range.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return sized(bigEndian(segment, 7, 2), bigEndian(segment, 5, 2));
    }
    at += 2 + bigEndian(segment, 2, 2);
  }
  return undefined;
}

/** A WebP's size from its first chunk: lossy (`VP8 `), lossless (`VP8L`) or extended (`VP8X`). */
function webpSize(head: Uint8Array, chunk: string): ImageSize | undefined {
  if (chunk === "VP8 ") {
    return sized(littleEndian(head, 26, 2) & 0x3fff, littleEndian(head, 28, 2) & 0x3fff);
  }
  if (chunk === "VP8L") {
    const bits = littleEndian(head, 21, 4);
    return sized(1 + (bits & 0x3fff), 1 + ((bits >>> 14) & 0x3fff));
  }
  if (chunk === "VP8X") return sized(1 + littleEndian(head, 24, 3), 1 + littleEndian(head, 27, 3));
  return undefined;
}

function sized(width: number, height: number): ImageSize | undefined {
  return width > 0 && height > 0 ? { width, height } : undefined;
}

function bigEndian(bytes: Uint8Array, at: number, length: number): number {
  let value = 0;
  for (let i = 0; i < length; i++) value = value * 256 + bytes[at + i]!;
  return value;
}

function littleEndian(bytes: Uint8Array, at: number, length: number): number {
  let value = 0;
  for (let i = length - 1; i >= 0; i--) value = value * 256 + bytes[at + i]!;
  return value;
}
