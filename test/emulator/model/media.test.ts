import { describe, expect, it } from "vitest";
import { claudeImageTokens, mediaOfContent } from "../../../src/emulator/model/media.js";
import { compressedPdf, jpeg, pdf, png } from "../../helpers/media.js";
import { CHAT, chatBody, inProcess, post } from "../helpers.js";

describe("what the emulated model bills for images and files", () => {
  it("bills an image as a Claude model does: a token per 750 pixels, the long edge scaled to 1568", () => {
    expect(claudeImageTokens(1500, 1500)).toBe(3000);
    expect(claudeImageTokens(3000, 2000)).toBe(2186);
    expect(claudeImageTokens(200, 200)).toBe(54);
  });

  it("bills inline images by their size, PDFs by their pages, and what it cannot see at the most", () => {
    const parts = (...content: unknown[]) => mediaOfContent(content)?.tokens;
    expect(parts({ type: "image_url", image_url: { url: png(1500, 1500) } })).toBe(3000);
    expect(parts({ type: "image_url", image_url: jpeg(200, 200) })).toBe(54);
    expect(parts({ type: "image_url", image_url: { url: "https://example.com/a.png" } })).toBe(
      3279,
    );
    expect(parts({ type: "file", file: { file_data: pdf(20) } })).toBe(60_000);
    expect(parts({ type: "file", file: { file_data: png(1500, 1500) } })).toBe(3000);
    expect(parts({ type: "file", file: { file_data: compressedPdf() } })).toBe(300_000);
    expect(parts({ type: "file", file: { file_id: "file-1" } })).toBe(300_000);
    // The Responses API's parts, billed alike.
    expect(parts({ type: "input_image", image_url: png(1500, 1500) })).toBe(3000);
    expect(parts({ type: "input_image", file_id: "file-2" })).toBe(3279);
    expect(parts({ type: "input_file", file_data: pdf(20) })).toBe(60_000);
    expect(parts({ type: "input_file", file_url: "https://example.com/a.pdf" })).toBe(300_000);
    expect(parts({ type: "text", text: "hi" }, "not a part")).toBeUndefined();
    expect(mediaOfContent("text")).toBeUndefined();
  });

  it("counts them in prompt_tokens, and tells different images apart in the prompt cache", async () => {
    const emulator = inProcess();
    const ask = async (url: string) => {
      const messages = [
        {
          role: "user",
          content: [
            { type: "image_url", image_url: { url } },
            { type: "text", text: "What is it?" },
          ],
        },
      ];
      const response = await post(
        emulator,
        CHAT,
        chatBody("", { model: "emulator-thinker", messages }),
      );
      return (
        (await response.json()) as {
          usage: { prompt_tokens: number; prompt_tokens_details?: object };
        }
      ).usage;
    };
    const first = await ask(png(1500, 1500));
    expect(first.prompt_tokens).toBeGreaterThan(3000);
    expect((await ask(png(1500, 1500))).prompt_tokens_details).toBeDefined();
    expect((await ask(png(1400, 1500))).prompt_tokens_details).toBeUndefined();
  });
});
