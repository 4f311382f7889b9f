/**
 * @module What the emulated model bills for the images and files of a prompt, as a Claude model
 * behind the gateway does: an image at about one token per 750 pixels once its long edge is
 * scaled to 1568, a PDF at 3,000 tokens a page (the top of what Claude bills for a page's text
 * and picture). An image given by URL, which the emulator cannot fetch, and a PDF whose pages
 * cannot be counted are billed at the most they may cost (the largest image; 100 pages).
 */
import { dataUrlPayload, imageSize, pdfPageCount } from "../../utils/media_size.js";
import { isRecord } from "../validate.js";

const LONG_EDGE = 1568;
const PIXELS_PER_TOKEN = 750;
const PDF_PAGE_TOKENS = 3000;
const UNCOUNTED_PAGES = 100;

/** Tokens of an image of `width` × `height` pixels. */
export function claudeImageTokens(width: number, height: number): number {
  const scale = Math.min(1, LONG_EDGE / Math.max(width, height));
  return Math.ceil((width * scale * height * scale) / PIXELS_PER_TOKEN);
}

/** Tokens of the largest image: one whose size the emulator cannot see. */
const LARGEST_IMAGE_TOKENS = claudeImageTokens(LONG_EDGE, LONG_EDGE);

/**
 * The tokens billed for the media parts of a message's content — chat completions' `image_url`
 * and `file` parts, the Responses API's `input_image` and `input_file` — and what tells those
 * parts apart for the prompt cache.
 */
export function mediaOfContent(content: unknown): { tokens: number; key: string } | undefined {
  if (!Array.isArray(content)) return undefined;
  let tokens = 0;
  const keys: string[] = [];
  for (const part of content) {
    if (!isRecord(part)) continue;
    const media = mediaOfPart(part);
    if (media === undefined) continue;
    const { source } = media;
    tokens += media.image ? imageTokens(source) : fileTokens(source);
    keys.push(`${source.length}:${source.slice(0, 48)}:${source.slice(-48)}`);
  }
  return keys.length > 0 ? { tokens, key: keys.join("\u0000") } : undefined;
}

/** Where a media part's content is (a data URL, a URL or a file ID), and whether it is an image. */
function mediaOfPart(
  part: Record<string, unknown>,
): { source: string; image: boolean } | undefined {
  let source: unknown;
  let image = false;
  if (part.type === "image_url") {
    source = isRecord(part.image_url) ? part.image_url.url : part.image_url;
    image = true;
  } else if (part.type === "input_image") {
    source = part.image_url ?? part.file_id;
    image = true;
  } else if (part.type === "file" && isRecord(part.file)) {
    source = part.file.file_data ?? part.file.file_id;
  } else if (part.type === "input_file") {
    source = part.file_data ?? part.file_url ?? part.file_id;
  }
  return typeof source === "string" ? { source, image } : undefined;
}

function imageTokens(url: string): number {
  const payload = dataUrlPayload(url);
  const size = payload && imageSize(payload.base64);
  return size ? claudeImageTokens(size.width, size.height) : LARGEST_IMAGE_TOKENS;
}

function fileTokens(data: string): number {
  const payload = dataUrlPayload(data);
  if (payload?.mediaType.startsWith("image/")) return imageTokens(data);
  const pages = payload && pdfPageCount(payload.base64);
  return (pages ?? UNCOUNTED_PAGES) * PDF_PAGE_TOKENS;
}
