/**
 * @module Images and PDFs as data URLs for tests, built byte by byte: the headers the readers
 * look at are real, the pixels and page contents are filler.
 */

const u16be = (n: number) => [(n >> 8) & 0xff, n & 0xff];
const u32be = (n: number) => [...u16be(n >>> 16), ...u16be(n & 0xffff)];
const u16le = (n: number) => [n & 0xff, (n >> 8) & 0xff];
const u24le = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff];
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

function dataUrl(mediaType: string, bytes: readonly number[]): string {
  return `data:${mediaType};base64,${Buffer.from(bytes).toString("base64")}`;
}

/** Filler bytes, so that a header is not the whole file. */
const filler = (length: number) => Array.from({ length }, (_, i) => (i * 37) & 0xff);

export function png(width: number, height: number): string {
  const ihdr = [...u32be(width), ...u32be(height), 8, 6, 0, 0, 0];
  return dataUrl("image/png", [
    0x89,
    ...ascii("PNG\r\n\x1a\n"),
    ...u32be(13),
    ...ascii("IHDR"),
    ...ihdr,
    ...u32be(0),
    ...filler(64),
  ]);
}

export function gif(width: number, height: number): string {
  return dataUrl("image/gif", [
    ...ascii("GIF89a"),
    ...u16le(width),
    ...u16le(height),
    ...filler(40),
  ]);
}

/**
 * A JPEG whose frame header comes after a large EXIF segment and a fill byte, as cameras write
 * them (`progressive`: SOF2 instead of SOF0), with a Huffman table (DHT, C4) before the frame.
 */
export function jpeg(width: number, height: number, { progressive = false } = {}): string {
  const exif = [0xff, 0xe1, ...u16be(2 + 6000), ...ascii("Exif\0\0"), ...filler(5994)];
  const dht = [0xff, 0xc4, ...u16be(2 + 4), ...filler(4)];
  const sof = [0xff, progressive ? 0xc2 : 0xc0, ...u16be(17), 8, ...u16be(height), ...u16be(width)];
  return dataUrl("image/jpeg", [0xff, 0xd8, ...exif, ...dht, 0xff, ...sof, 3, ...filler(60)]);
}

export function webp(width: number, height: number, kind: "VP8 " | "VP8L" | "VP8X"): string {
  let chunk: number[];
  if (kind === "VP8 ") {
    chunk = [0, 0, 0, 0x9d, 0x01, 0x2a, ...u16le(width), ...u16le(height)];
  } else if (kind === "VP8L") {
    const bits = (width - 1) | ((height - 1) << 14);
    chunk = [0x2f, bits & 0xff, (bits >>> 8) & 0xff, (bits >>> 16) & 0xff, (bits >>> 24) & 0xff];
  } else {
    chunk = [0x10, 0, 0, 0, ...u24le(width - 1), ...u24le(height - 1)];
  }
  const body = [...ascii("WEBP"), ...ascii(kind), ...u32be(chunk.length), ...chunk, ...filler(40)];
  return dataUrl("image/webp", [...ascii("RIFF"), ...u32be(body.length), ...body]);
}

/** A PDF of `pages` pages, each page object written out, and its page tree's `/Count`. */
export function pdf(pages: number): string {
  const kids = Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(" ");
  const objects = Array.from(
    { length: pages },
    (_, i) => `${i + 3} 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>\nendobj\n`,
  );
  const text = [
    "%PDF-1.4\n",
    "1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n",
    `2 0 obj\n<< /Type /Pages /Kids [${kids}] /Count ${pages} >>\nendobj\n`,
    ...objects,
    "trailer\n<< /Root 1 0 R >>\n%%EOF\n",
  ].join("");
  return `data:application/pdf;base64,${Buffer.from(text, "latin1").toString("base64")}`;
}

/** A PDF whose objects are all in compressed object streams: no page can be counted. */
export function compressedPdf(): string {
  const text =
    "%PDF-1.5\n1 0 obj\n<< /Type /ObjStm /N 40 /Filter /FlateDecode >>\nstream\nx\u009c\nendstream\n";
  return `data:application/pdf;base64,${Buffer.from(text, "latin1").toString("base64")}`;
}
