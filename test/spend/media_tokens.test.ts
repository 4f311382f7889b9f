import { describe, expect, it } from "vitest";
import {
  imageTokens,
  mediaPartTokens,
  OTHER_MEDIA_TOKENS,
  REMOTE_IMAGE_TOKENS,
} from "../../src/spend/media_tokens.js";
import { compressedPdf, jpeg, pdf, png } from "../helpers/media.js";

describe("imageTokens", () => {
  it("takes the larger of Anthropic's and OpenAI's high-detail formulas", () => {
    // Anthropic: 1500 × 1500 / 750; OpenAI: 768 × 768, 4 tiles.
    expect(imageTokens(1500, 1500)).toBe(3000);
    // Large: Anthropic scales the long edge to 1568 (1568 × 1045.3 / 750).
    expect(imageTokens(3000, 2000)).toBe(2186);
    // Small and long: OpenAI's tiles win (2 × 1 tiles: 425; Anthropic 200 × 600 / 750 = 160).
    expect(imageTokens(600, 200)).toBe(425);
    // A thin strip: OpenAI fits 2048, then its short side is already under 768 (1 × 4 tiles).
    expect(imageTokens(4096, 100)).toBe(765);
    expect(imageTokens(1, 1)).toBe(255);
    expect(REMOTE_IMAGE_TOKENS).toBe(3279);
  });
});

describe("mediaPartTokens", () => {
  const image = (url: string) => ({ type: "image_url", image_url: { url, detail: "high" } });

  it("reserves an inline image at its real size, in chat completions' and the Responses API's shapes", () => {
    expect(mediaPartTokens(image(png(1500, 1500)))).toBe(3000);
    expect(mediaPartTokens({ type: "image_url", image_url: jpeg(600, 200) })).toBe(425);
    expect(
      mediaPartTokens({ type: "input_image", image_url: png(1500, 1500), detail: "auto" }),
    ).toBe(3000);
  });

  it("reserves an image whose size the request does not show at the documented maximum, or the profile's", () => {
    expect(mediaPartTokens(image("https://example.com/cat.png"))).toBe(REMOTE_IMAGE_TOKENS);
    expect(
      mediaPartTokens(image("data:image/bmp;base64,Qk0AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")),
    ).toBe(REMOTE_IMAGE_TOKENS);
    expect(mediaPartTokens({ type: "input_image", file_id: "file-1" })).toBe(REMOTE_IMAGE_TOKENS);
    expect(mediaPartTokens(image("https://example.com/cat.png"), { remoteImage: 1600 })).toBe(1600);
    // A model that bills every image flat.
    expect(mediaPartTokens(image(png(1500, 1500)), { image: 258 })).toBe(258);
  });

  it("reserves a PDF by its pages, at 3,000 a page or the profile's rate; an uncounted file at 100 pages", () => {
    const file = (file_data: string) => ({
      type: "file",
      file: { file_data, filename: "doc.pdf" },
    });
    expect(mediaPartTokens(file(pdf(20)))).toBe(60_000);
    expect(mediaPartTokens(file(pdf(20)), { pdfPage: 1500 })).toBe(30_000);
    expect(mediaPartTokens({ type: "input_file", file_data: pdf(2), filename: "a.pdf" })).toBe(
      6000,
    );
    expect(mediaPartTokens(file(compressedPdf()))).toBe(300_000);
    expect(mediaPartTokens({ type: "file", file: { file_id: "file-9" } }, { pdfPage: 1000 })).toBe(
      100_000,
    );
    expect(
      mediaPartTokens({ type: "input_file", file_url: "https://x/a.pdf" }, { file: 9000 }),
    ).toBe(9000);
  });

  it("reserves an inline text file by its bytes, an image file as an image", () => {
    const text = `data:text/plain;base64,${Buffer.from("x".repeat(300)).toString("base64")}`;
    expect(mediaPartTokens({ type: "file", file: { file_data: text } })).toBe(100);
    expect(mediaPartTokens({ type: "file", file: { file_data: png(1500, 1500) } })).toBe(3000);
    expect(mediaPartTokens({ type: "file", file: { file_data: "data:image/x;base64,AAAA" } })).toBe(
      REMOTE_IMAGE_TOKENS,
    );
  });

  it("counts audio and unknown parts at a flat rate, and text as no media", () => {
    expect(
      mediaPartTokens({ type: "input_audio", input_audio: { data: "AAAA", format: "wav" } }),
    ).toBe(OTHER_MEDIA_TOKENS);
    expect(mediaPartTokens({ type: "text", text: "hi" })).toBeUndefined();
    expect(mediaPartTokens({ type: "refusal", refusal: "no" })).toBeUndefined();
  });
});
