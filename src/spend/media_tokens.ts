/**
 * @module What an image or a file part of a prompt may be billed, in tokens, before it is sent:
 * an image at its real size, by the larger of the major model families' formulas; a PDF by its
 * pages. Used by the estimates of every API that takes such parts (chat completions' `image_url`
 * and `file`, the Responses API's `input_image` and `input_file`), so a budget holds what the
 * service may bill for them and not much more.
 */
import { dataUrlPayload, imageSize, pdfPageCount } from "../utils/media_size.js";

/** Tokens per media part, as a model's profile may state them (`mediaTokens`). */
export interface MediaRates {
  /**
   * Tokens of every image, whatever its size: for a model that bills images flat. Default: by
   * the image's size (see {@link imageTokens}).
   */
  image?: number;
  /** Tokens of an image given by URL or file ID, whose size the request does not show. Default {@link REMOTE_IMAGE_TOKENS}. */
  remoteImage?: number;
  /** Tokens of each page of a PDF. Default {@link PDF_PAGE_TOKENS}. */
  pdfPage?: number;
  /**
   * Tokens of a file whose pages cannot be counted (a file ID, a remote file, a PDF whose page
   * tree is compressed). Default {@link UNKNOWN_FILE_PAGES} pages.
   */
  file?: number;
}

/** Anthropic scales an image down until its long edge is at most this many pixels. */
const ANTHROPIC_LONG_EDGE = 1568;
/** Anthropic bills about one token per this many pixels. */
const ANTHROPIC_PIXELS_PER_TOKEN = 750;
/** OpenAI (high detail) fits an image in a square of this side, */
const OPENAI_FIT = 2048;
/** then scales it down until its short side is at most this, */
const OPENAI_SHORT_SIDE = 768;
/** and bills a base plus a price per tile of this side. */
const OPENAI_TILE = 512;
const OPENAI_BASE_TOKENS = 85;
const OPENAI_TILE_TOKENS = 170;

/** Tokens of a PDF page: its text and its picture, at the top of what Claude models bill. */
export const PDF_PAGE_TOKENS = 3000;
/** Pages assumed of a file that cannot be counted: the most the major families take in one file. */
export const UNKNOWN_FILE_PAGES = 100;
/** Tokens of an audio, video or other part whose size is not read. */
export const OTHER_MEDIA_TOKENS = 1000;

/**
 * The tokens an image of `width` × `height` pixels may be billed: the larger of Anthropic's
 * (about one per 750 pixels once the long edge is scaled to 1568) and OpenAI's high detail (85,
 * and 170 for each 512-pixel tile once it fits 2048 × 2048 and its short side is scaled to 768).
 *
 * @example
 * imageTokens(1500, 1500); // 3000 (Anthropic's; OpenAI's is 765)
 */
export function imageTokens(width: number, height: number): number {
  const anthropic = Math.min(1, ANTHROPIC_LONG_EDGE / Math.max(width, height));
  const claude = Math.ceil((width * anthropic * height * anthropic) / ANTHROPIC_PIXELS_PER_TOKEN);
  const fit = Math.min(1, OPENAI_FIT / Math.max(width, height));
  const short = Math.min(1, OPENAI_SHORT_SIDE / (Math.min(width, height) * fit));
  const tiles =
    Math.ceil((width * fit * short) / OPENAI_TILE) *
    Math.ceil((height * fit * short) / OPENAI_TILE);
  return Math.max(claude, OPENAI_BASE_TOKENS + OPENAI_TILE_TOKENS * tiles);
}

/** The most an image of any size may be billed: a square at Anthropic's long edge (3,279). */
export const REMOTE_IMAGE_TOKENS = imageTokens(ANTHROPIC_LONG_EDGE, ANTHROPIC_LONG_EDGE);

/**
 * The tokens a media part of a message may be billed, or undefined for a part that is no media
 * (text, refusal). Chat completions' `image_url`, `file` and `input_audio` parts, and the Responses
 * API's `input_image` and `input_file`: an inline image at its real size, an inline PDF by its
 * pages, anything whose size the request does not show at the most it may cost.
 */
export function mediaPartTokens(
  part: Record<string, unknown>,
  rates: MediaRates = {},
): number | undefined {
  switch (part.type) {
    case "image_url":
    case "input_image": {
      const image = part.image_url;
      const url =
        typeof image === "object" && image !== null ? (image as { url?: unknown }).url : image;
      return inlineImageTokens(url, rates) ?? rates.remoteImage ?? REMOTE_IMAGE_TOKENS;
    }
    case "file":
    case "input_file": {
      const file = (typeof part.file === "object" && part.file !== null ? part.file : part) as {
        file_data?: unknown;
      };
      return inlineFileTokens(file.file_data, rates) ?? fileTokens(rates);
    }
    default:
      return typeof part.text === "string" || typeof part.refusal === "string"
        ? undefined
        : OTHER_MEDIA_TOKENS;
  }
}

/** An inline image's tokens (at the profile's flat rate, when it has one); undefined for a URL. */
function inlineImageTokens(url: unknown, rates: MediaRates): number | undefined {
  const payload = dataUrlPayload(url);
  if (payload === undefined) return undefined;
  if (rates.image !== undefined) return rates.image;
  const size = imageSize(payload.base64);
  return size && imageTokens(size.width, size.height);
}

/**
 * An inline file's tokens: an image file as an image, a PDF by its pages (undefined when they
 * cannot be counted), any other file as text, by the estimate's rule (a token per three bytes).
 */
function inlineFileTokens(data: unknown, rates: MediaRates): number | undefined {
  const payload = dataUrlPayload(data);
  if (payload === undefined) return undefined;
  const { mediaType, base64 } = payload;
  if (mediaType.startsWith("image/")) {
    return inlineImageTokens(data, rates) ?? rates.remoteImage ?? REMOTE_IMAGE_TOKENS;
  }
  const pages = pdfPageCount(base64);
  if (pages !== undefined) return pages * (rates.pdfPage ?? PDF_PAGE_TOKENS);
  // Four base64 characters are three bytes: a token each.
  return mediaType === "application/pdf" ? undefined : Math.ceil(base64.length / 4);
}

function fileTokens(rates: MediaRates): number {
  return rates.file ?? UNKNOWN_FILE_PAGES * (rates.pdfPage ?? PDF_PAGE_TOKENS);
}
