import { describe, expect, it } from "vitest";
import type { Response } from "../../../src/apis/responses/answer.js";
import { toChatResult } from "../../../src/apis/responses/converters.js";

const response = (output: unknown[]) =>
  ({
    id: "resp_1",
    object: "response",
    model: "emulator-chat",
    status: "completed",
    output,
    usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
  }) as unknown as Response;

describe("toChatResult", () => {
  it("gives the generation the message's text: its text parts in order, not reasoning or refusals", () => {
    const result = toChatResult(
      response([
        { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Hm." }] },
        {
          type: "message",
          id: "msg_1",
          role: "assistant",
          status: "completed",
          content: [
            { type: "output_text", text: "Hel", annotations: [] },
            { type: "refusal", refusal: "No." },
            { type: "output_text", text: "lo", annotations: [] },
          ],
        },
      ]),
      { requestId: "req_1" },
      false,
    );
    const generation = result.generations[0]!;
    expect(generation.text).toBe("Hello");
    expect(generation.text).toBe(generation.message.text);
  });
});
