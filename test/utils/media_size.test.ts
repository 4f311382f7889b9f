import { describe, expect, it } from "vitest";
import { dataUrlPayload, imageSize, pdfPageCount } from "../../src/utils/media_size.js";
import { compressedPdf, gif, jpeg, pdf, png, webp } from "../helpers/media.js";

const payload = (url: string) => dataUrlPayload(url)!.base64;

describe("dataUrlPayload", () => {
  it("reads a base64 data URL's media type and payload, and nothing else", () => {
    expect(dataUrlPayload("data:image/PNG;name=a.png;base64,AAAA")).toEqual({
      mediaType: "image/png",
      base64: "AAAA",
    });
    expect(dataUrlPayload("https://example.com/a.png")).toBeUndefined();
    expect(dataUrlPayload("data:text/plain,hello")).toBeUndefined();
    expect(dataUrlPayload("data:image/png;base64")).toBeUndefined();
    expect(dataUrlPayload(42)).toBeUndefined();
  });
});

describe("imageSize", () => {
  it.each([
    ["PNG", png(1500, 1000)],
    ["GIF", gif(1500, 1000)],
    ["JPEG (baseline, after a 6 kB EXIF block)", jpeg(1500, 1000)],
    ["JPEG (progressive)", jpeg(1500, 1000, { progressive: true })],
    ["WebP (lossy)", webp(1500, 1000, "VP8 ")],
    ["WebP (lossless)", webp(1500, 1000, "VP8L")],
    ["WebP (extended)", webp(1500, 1000, "VP8X")],
  ])("reads the width and height of a %s from its header", (_format, url) => {
    expect(imageSize(payload(url))).toEqual({ width: 1500, height: 1000 });
  });

  it("reads the largest sizes each header can hold", () => {
    expect(imageSize(payload(png(100_000, 3)))).toEqual({ width: 100_000, height: 3 });
    expect(imageSize(payload(webp(16_383, 16_384, "VP8L")))).toEqual({
      width: 16_383,
      height: 16_384,
    });
    expect(imageSize(payload(webp(20_000, 30_000, "VP8X")))).toEqual({
      width: 20_000,
      height: 30_000,
    });
  });

  it("reads nothing from another format, a cut or broken header, or a size of 0", () => {
    expect(imageSize(btoa("BM this is a bitmap header, not one we read"))).toBeUndefined();
    expect(imageSize(payload(png(10, 10)).slice(0, 12))).toBeUndefined();
    expect(imageSize("!!!! not base64 at all, but long enough to be read !!!!")).toBeUndefined();
    expect(imageSize(payload(gif(0, 10)))).toBeUndefined();
    // A JPEG cut before its frame header, and one whose segments do not chain.
    expect(imageSize(payload(jpeg(10, 10)).slice(0, 4000))).toBeUndefined();
    const broken = Buffer.from([0xff, 0xd8, 0x00, 0x01, ...new Array(40).fill(0)]).toString(
      "base64",
    );
    expect(imageSize(broken)).toBeUndefined();
    const riff = Buffer.from("RIFF\0\0\0\0WEBPVP8Y" + "\0".repeat(30), "latin1").toString("base64");
    expect(imageSize(riff)).toBeUndefined();
  });
});

describe("pdfPageCount", () => {
  it("counts the pages of a PDF by its page objects and its page tree", () => {
    expect(pdfPageCount(payload(pdf(20)))).toBe(20);
    expect(pdfPageCount(payload(pdf(1)))).toBe(1);
    // The page tree's /Count says more than the objects written out.
    const counted = Buffer.from("%PDF-1.7\n<< /Type /Pages /Count 42 >>", "latin1").toString(
      "base64",
    );
    expect(pdfPageCount(counted)).toBe(42);
    const linearised = Buffer.from("%PDF-1.7\n<< /Linearized 1 /L 5000 /N 7 /T 4000 >>", "latin1");
    expect(pdfPageCount(linearised.toString("base64"))).toBe(7);
  });

  it("counts nothing in a PDF whose objects are compressed, or in what is no PDF", () => {
    expect(pdfPageCount(payload(compressedPdf()))).toBeUndefined();
    expect(pdfPageCount(btoa("hello"))).toBeUndefined();
    expect(pdfPageCount("%%%not base64")).toBeUndefined();
  });
});
