import { describe, expect, it } from "vitest";
import { PROMPT_CACHE_HEADER } from "../../../src/emulator/reply.js";
import { CHAT, chatBody, inProcess, parseSse, post } from "../helpers.js";

/** A Claude model behind the gateway: its cache works at `cache_control` breakpoints. */
const CLAUDE = {
  id: "emulator-claude",
  prices: { input: 3, cachedInput: 0.3, cacheWrite: 3.75, cacheWrite1h: 6, output: 15 },
  promptCache: "breakpoints" as const,
};
const RULES = `You answer questions about the sea. ${"Cite the tide tables and be brief. ".repeat(40)}`;

function claudeBody(question: string, ttl?: "1h", extra: Record<string, unknown> = {}) {
  return chatBody(question, {
    model: CLAUDE.id,
    messages: [
      {
        role: "system",
        content: [
          {
            type: "text",
            text: RULES,
            cache_control: { type: "ephemeral", ...(ttl ? { ttl } : {}) },
          },
        ],
      },
      { role: "user", content: question },
    ],
    ...extra,
  });
}

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens: number; cached_creation_tokens?: number };
  claude_cache_creation_5_m_tokens?: number;
  claude_cache_creation_1_h_tokens?: number;
}

describe("POST /chat/completions: the prompt cache's controls and reports", () => {
  it("writes at a breakpoint, then reads it, in the gateway's fields, and debits each at its price", async () => {
    const emulator = inProcess();
    emulator.state.addModel(CLAUDE);
    const first = await post(emulator, CHAT, claudeBody("When is high tide?", "1h"));
    expect(first.headers.get(PROMPT_CACHE_HEADER)).toBe("breakpoints=1 (1h)");
    const written = ((await first.json()) as { usage: Usage }).usage;
    expect(written.prompt_tokens_details?.cached_tokens).toBe(0);
    const creation = written.prompt_tokens_details?.cached_creation_tokens ?? 0;
    expect(creation).toBeGreaterThan(300);
    expect(written).toMatchObject({
      claude_cache_creation_5_m_tokens: 0,
      claude_cache_creation_1_h_tokens: creation,
    });
    const debit =
      ((written.prompt_tokens - creation) * 3 + creation * 6 + written.completion_tokens * 15) /
      1e6;
    expect(emulator.state.lastRequest()?.cost).toBeCloseTo(debit, 15);

    // Streamed this time: the usage chunk carries the read.
    const second = await post(emulator, CHAT, claudeBody("And low tide?", "1h", { stream: true }));
    const events = parseSse(await second.text());
    const usage = (events.at(-2) as { usage: Usage }).usage;
    expect(usage.prompt_tokens_details).toEqual({ cached_tokens: creation });
    expect(usage).toMatchObject({
      claude_cache_creation_5_m_tokens: 0,
      claude_cache_creation_1_h_tokens: 0,
    });
    const read =
      ((usage.prompt_tokens - creation) * 3 + creation * 0.3 + usage.completion_tokens * 15) / 1e6;
    expect(emulator.state.lastRequest()?.cost).toBeCloseTo(read, 15);
  });

  it("keeps the prompts of each prompt_cache_key apart, and says which controls arrived", async () => {
    const emulator = inProcess();
    const messages = [
      { role: "system", content: RULES },
      { role: "user", content: "When is high tide?" },
    ];
    const ask = (extra: Record<string, unknown>) =>
      post(emulator, CHAT, chatBody("", { model: "emulator-thinker", messages, ...extra }));
    await ask({ prompt_cache_key: "tenant-a" });
    const same = await ask({ prompt_cache_key: "tenant-a", prompt_cache_retention: "24h" });
    expect(same.headers.get(PROMPT_CACHE_HEADER)).toBe("key=tenant-a; retention=24h");
    expect(
      ((await same.json()) as { usage: Usage }).usage.prompt_tokens_details?.cached_tokens,
    ).toBeGreaterThan(0);
    const other = await ask({ prompt_cache_key: "tenant b" });
    expect(other.headers.get(PROMPT_CACHE_HEADER)).toBe("key=tenant%20b");
    expect(((await other.json()) as { usage: Usage }).usage).not.toHaveProperty(
      "prompt_tokens_details",
    );
    // No control, no header.
    expect((await post(emulator, CHAT, chatBody())).headers.get(PROMPT_CACHE_HEADER)).toBeNull();
  });
});
