/**
 * What surrounds a Responses API call as it surrounds a chat call: its spans and metrics (read
 * from the answer's and the events' `usage`, in the Responses API's names), and cassettes that
 * record it through the recorder and replay it with the upstream gone — the reasoning item, the
 * usage and the request ID alike.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AIMessageChunk } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { ChatInferenceService } from "../../../src/apis/chat/chat_models.js";
import { createEmulator, REASONING_MODEL, startEmulator } from "../../../src/emulator/index.js";
import { startRecorder } from "../../../src/testing/index.js";
import { useOtel } from "../../helpers/otel.js";

const otel = useOtel();

function model(baseURL: string, apiKey: string, fetch?: typeof globalThis.fetch) {
  return new ChatInferenceService(REASONING_MODEL, {
    baseURL,
    apiKey,
    ...(fetch ? { fetch } : {}),
    useResponsesApi: true,
    reasoning: { effort: "low" },
    maxRetries: 0,
  });
}

async function streamed(chat: ChatInferenceService): Promise<AIMessageChunk> {
  let total: AIMessageChunk | undefined;
  for await (const chunk of await chat.stream("Hello there"))
    total = total ? total.concat(chunk) : chunk;
  return total!;
}

describe("a Responses API call's telemetry", () => {
  it("is a chat span with the request, the response's ID and model, and its usage, invoked and streamed", async () => {
    const emulator = createEmulator();
    const chat = model(emulator.baseURL, emulator.apiKey, emulator.fetch);
    const invoked = await chat.invoke("Hello there");
    const stream = await streamed(chat);
    const spans = otel.spans().filter((span) => span.name === `chat ${REASONING_MODEL}`);
    expect(spans).toHaveLength(2);
    for (const [span, reply] of [
      [spans[0]!, invoked],
      [spans[1]!, stream],
    ] as const) {
      expect(span.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": REASONING_MODEL,
        "gen_ai.response.model": REASONING_MODEL,
        "gen_ai.response.id": expect.stringMatching(/^resp-/),
        "gen_ai.usage.input_tokens": reply.usage_metadata!.input_tokens,
        "gen_ai.usage.output_tokens": reply.usage_metadata!.output_tokens,
        "gen_ai.usage.reasoning.output_tokens":
          reply.usage_metadata!.output_token_details!.reasoning,
        "inference_service.request_id": reply.response_metadata.requestId,
      });
      expect(String(span.attributes["url.full"] ?? "")).not.toContain("chat/completions");
    }
  });
});

describe("a Responses API call on a cassette", () => {
  it("records invoke and stream through the recorder, and replays them with the upstream gone", async () => {
    const upstream = await startEmulator({ port: 0 });
    const cassette = join(mkdtempSync(join(tmpdir(), "responses-")), "responses.har");
    const recorder = await startRecorder({ upstream: upstream.baseURL, cassette });
    const live = model(recorder.baseURL, upstream.apiKey);
    const recorded = { invoked: await live.invoke("Hello there"), streamed: await streamed(live) };
    await recorder.close();
    await upstream.close();

    const replay = await startEmulator({ port: 0, replay: { cassette } });
    try {
      const again = model(replay.baseURL, "sk-cassette-replay");
      const replayed = {
        invoked: await again.invoke("Hello there"),
        streamed: await streamed(again),
      };
      for (const key of ["invoked", "streamed"] as const) {
        expect(replayed[key].text).toBe(recorded[key].text);
        expect(replayed[key].usage_metadata).toEqual(recorded[key].usage_metadata);
        expect(replayed[key].additional_kwargs.reasoning).toEqual(
          recorded[key].additional_kwargs.reasoning,
        );
        expect(replayed[key].response_metadata.requestId).toBe(
          recorded[key].response_metadata.requestId,
        );
      }
    } finally {
      await replay.close();
    }
  });
});
