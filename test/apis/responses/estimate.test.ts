import { describe, expect, it } from "vitest";
import { estimateResponsesRequest } from "../../../src/apis/responses/estimate.js";
import { pdf, png } from "../../helpers/media.js";

const question = { type: "message", role: "user", content: [{ type: "input_text", text: "Hi" }] };
const tokens = (input: unknown[], rates?: Parameters<typeof estimateResponsesRequest>[2]) =>
  estimateResponsesRequest({ model: "m", input }, "m", rates).inputTokens;

describe("estimateResponsesRequest", () => {
  it("sizes the images and files of messages and of function outputs, at the profile's rates when given", () => {
    const base = tokens([question]);
    const image = { type: "input_image", image_url: png(1500, 1500) };
    const file = { type: "input_file", file_data: pdf(20), filename: "t.pdf" };
    const withMedia = { ...question, content: [...question.content, image, file] };
    expect(tokens([withMedia]) - base).toBe(3000 + 60_000);
    expect(tokens([withMedia], { image: 85, pdfPage: 1000 }) - base).toBe(85 + 20_000);
    // A function's output given as parts: its image sized as a message's is, not as JSON text.
    const output = { type: "function_call_output", call_id: "c", output: [image] };
    const fromTool = tokens([question, output]) - base;
    expect(fromTool).toBeGreaterThanOrEqual(3000);
    expect(fromTool).toBeLessThan(3000 + 10);
    expect(tokens([question, output], { image: 85 }) - base).toBeLessThan(85 + 10);
  });

  it("takes max_output_tokens as the output's bound", () => {
    const body = { model: "m", input: "Hi", max_output_tokens: 64 };
    expect(estimateResponsesRequest(body, "m")).toMatchObject({ maxOutputTokens: 64, choices: 1 });
    expect(estimateResponsesRequest({ model: "m", input: "Hi" }, "m").maxOutputTokens).toBe(
      undefined,
    );
  });
});
