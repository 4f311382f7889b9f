import { describe, expect, it } from "vitest";
import { PROMPT_CACHE_HEADER } from "../../../src/emulator/reply.js";
import { pdf, png } from "../../helpers/media.js";
import { CHAT, inProcess, post } from "../helpers.js";

const RESPONSES = "/inference/v1/responses";
const SERVES_RESPONSES = ["openai", "openai-response"];
/** A Claude model behind the gateway, served through the Responses API too. */
const CLAUDE = {
  id: "emulator-claude",
  prices: { input: 3, cachedInput: 0.3, cacheWrite: 3.75, cacheWrite1h: 6, output: 15 },
  promptCache: "breakpoints" as const,
  endpointTypes: SERVES_RESPONSES,
};
const RULES = `You answer questions about the sea. ${"Cite the tide tables and be brief. ".repeat(40)}`;

interface ResponsesUsage {
  input_tokens: number;
  output_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens?: number };
  claude_cache_creation_5_m_tokens?: number;
  claude_cache_creation_1_h_tokens?: number;
}

async function usageOf(response: Response): Promise<ResponsesUsage> {
  return ((await response.json()) as { usage: ResponsesUsage }).usage;
}

const ask = (content: unknown[], extra: Record<string, unknown> = {}) => ({
  model: "emulator-chat",
  input: [{ type: "message", role: "user", content }],
  ...extra,
});

describe("POST /responses: what it bills", () => {
  it("bills input_image and input_file parts as its chat route bills image_url and file parts", async () => {
    const emulator = inProcess();
    const question = { type: "input_text", text: "What is in it?" };
    const base = (await usageOf(await post(emulator, RESPONSES, ask([question])))).input_tokens;
    const image = await usageOf(
      await post(
        emulator,
        RESPONSES,
        ask([{ type: "input_image", image_url: png(1500, 1500) }, question]),
      ),
    );
    expect(image.input_tokens - base).toBe(3000);
    const files = await usageOf(
      await post(
        emulator,
        RESPONSES,
        ask([
          { type: "input_file", file_data: pdf(20), filename: "tides.pdf" },
          { type: "input_image", file_id: "file-1" },
          question,
        ]),
      ),
    );
    // 20 pages at 3,000; an image it cannot see at the most one may cost.
    expect(files.input_tokens - base).toBe(60_000 + 3279);
    const price = emulator.state.model("emulator-chat")!.prices!;
    expect(emulator.state.lastRequest()?.cost).toBeCloseTo(
      (files.input_tokens * price.input + files.output_tokens * price.output) / 1e6,
      15,
    );

    // The same image on the chat route adds the same tokens.
    const chat = async (content: unknown[]) =>
      (
        (await (
          await post(emulator, CHAT, {
            model: "emulator-chat",
            messages: [{ role: "user", content }],
          })
        ).json()) as { usage: { prompt_tokens: number } }
      ).usage.prompt_tokens;
    const text = { type: "text", text: "What is in it?" };
    expect(
      (await chat([{ type: "image_url", image_url: { url: png(1500, 1500) } }, text])) -
        (await chat([text])),
    ).toBe(3000);
  });

  it("reads a repeated prefix from the cache, kept apart by prompt_cache_key, in input_tokens_details.cached_tokens", async () => {
    const emulator = inProcess();
    emulator.state.addModel({
      id: "emulator-cached",
      prices: { input: 1, cachedInput: 0.1, output: 2 },
      promptCache: true,
      endpointTypes: SERVES_RESPONSES,
    });
    const body = (question: string, key: string) => ({
      model: "emulator-cached",
      instructions: RULES,
      input: question,
      prompt_cache_key: key,
    });
    await post(emulator, RESPONSES, body("When is high tide?", "tenant-a"));
    const same = await post(emulator, RESPONSES, body("When is low tide?", "tenant-a"));
    expect(same.headers.get(PROMPT_CACHE_HEADER)).toBe("key=tenant-a");
    const read = await usageOf(same);
    expect(read.input_tokens_details.cached_tokens).toBeGreaterThan(300);
    expect(emulator.state.lastRequest()?.cost).toBeCloseTo(
      ((read.input_tokens - read.input_tokens_details.cached_tokens) * 1 +
        read.input_tokens_details.cached_tokens * 0.1 +
        read.output_tokens * 2) /
        1e6,
      15,
    );
    const other = await usageOf(
      await post(emulator, RESPONSES, body("When is low tide?", "tenant-b")),
    );
    expect(other.input_tokens_details.cached_tokens).toBe(0);
  });

  it("writes a Claude model's cache at cache_control breakpoints, in cache_write_tokens and the split, then reads it", async () => {
    const emulator = inProcess();
    emulator.state.addModel(CLAUDE);
    const body = (question: string) => ({
      model: CLAUDE.id,
      input: [
        {
          type: "message",
          role: "system",
          content: [
            { type: "input_text", text: RULES, cache_control: { type: "ephemeral", ttl: "1h" } },
          ],
        },
        {
          type: "message",
          role: "user",
          content: [
            { type: "input_text", text: RULES.toUpperCase(), cache_control: { type: "ephemeral" } },
            { type: "input_text", text: question },
          ],
        },
      ],
    });
    const first = await post(emulator, RESPONSES, body("When is high tide?"));
    expect(first.headers.get(PROMPT_CACHE_HEADER)).toBe("breakpoints=2 (1h, 5m)");
    const written = await usageOf(first);
    const { cache_write_tokens: writes = 0 } = written.input_tokens_details;
    const anHour = written.claude_cache_creation_1_h_tokens ?? 0;
    expect(anHour).toBeGreaterThan(300);
    expect(written.claude_cache_creation_5_m_tokens).toBeGreaterThan(300);
    expect(writes).toBe(anHour + (written.claude_cache_creation_5_m_tokens ?? 0));
    expect(emulator.state.lastRequest()?.cost).toBeCloseTo(
      ((written.input_tokens - writes) * 3 +
        (writes - anHour) * 3.75 +
        anHour * 6 +
        written.output_tokens * 15) /
        1e6,
      15,
    );
    // Another question: the system prompt is read, the user's turn written again.
    const read = await usageOf(await post(emulator, RESPONSES, body("When is low tide?")));
    expect(read.input_tokens_details.cached_tokens).toBe(anHour);
    expect(read.claude_cache_creation_1_h_tokens).toBe(0);
  });

  it("bills a stream its client left after the first event the whole answer, as the gateway does an instant stream", async () => {
    const emulator = inProcess();
    const body = { model: "emulator-chat", input: "Tell me about the tides", stream: true };
    await (await post(emulator, RESPONSES, body)).text();
    const whole = emulator.state.lastRequest()!;
    const stopped = await post(emulator, RESPONSES, body);
    const reader = stopped.body!.getReader();
    await reader.read();
    await reader.cancel();
    const entry = emulator.state.lastRequest()!;
    expect(entry.requestId).not.toBe(whole.requestId);
    expect([entry.completionTokens, entry.cost]).toEqual([whole.completionTokens, whole.cost]);
    expect(entry.cost).toBeGreaterThan(0);
  });
});
