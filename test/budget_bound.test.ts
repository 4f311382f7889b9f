/**
 * A budget never sits below what the service debits: with `maxTokens` set, many calls at once
 * against the emulator — which bills as the gateway does: images at their size, PDFs by their
 * pages, cache writes of both lifetimes, a stopped stream as far as it was relayed — never make
 * the Wallet pay more than the budget, and the tracker never counts less than the Wallet paid;
 * on both APIs the chat model speaks (Chat Completions and the Responses API).
 */
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { ChatInferenceService } from "../src/apis/chat/chat_models.js";
import { createEmulator } from "../src/emulator/index.js";
import { BudgetExceededError } from "../src/errors/errors.js";
import { UsageTracker } from "../src/spend/usage_tracker.js";
import { pdf, png } from "./helpers/media.js";

const CLAUDE = {
  id: "emulator-claude",
  prices: { input: 3, cachedInput: 0.3, cacheWrite: 3.75, cacheWrite1h: 6, output: 15 },
  promptCache: "breakpoints" as const,
  endpointTypes: ["openai", "openai-response"],
};
const CALLS = 24;

type Input = Array<HumanMessage | SystemMessage>;

/**
 * `CALLS` calls, 8 at a time, under `budget`, through Chat Completions or the Responses API:
 * what the Wallet paid and the tracker counted.
 */
async function run(
  input: (i: number) => Input,
  budget: number,
  { stop = false, useResponsesApi = false } = {},
) {
  const emulator = createEmulator();
  emulator.state.addModel(CLAUDE);
  const paths = new Set<string>();
  const model = new ChatInferenceService(CLAUDE.id, {
    apiKey: emulator.apiKey,
    baseURL: emulator.baseURL,
    // Which API each call went to.
    fetch: (url, init) => {
      paths.add(new URL(url instanceof Request ? url.url : url).pathname);
      return emulator.fetch(url, init);
    },
    maxTokens: 64,
    maxRetries: 0,
    useResponsesApi,
  });
  const usage = new UsageTracker({ prices: { [CLAUDE.id]: CLAUDE.prices }, budget });
  const before = emulator.state.credit;
  let refused = 0;
  const one = async (i: number) => {
    const controller = new AbortController();
    try {
      if (!stop) await model.invoke(input(i), { callbacks: [usage] });
      else {
        const options = { callbacks: [usage], signal: controller.signal };
        for await (const _ of await model.stream(input(i), options)) controller.abort();
      }
    } catch (error) {
      if (BudgetExceededError.isInstance(error)) refused++;
      else if (!controller.signal.aborted) throw error;
    }
  };
  const queue = Array.from({ length: CALLS }, (_, i) => i);
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = queue.shift(); i !== undefined; i = queue.shift()) await one(i);
    }),
  );
  const debited = before - emulator.state.credit;
  return {
    debited,
    spent: (await usage.budgetStatus()).spent,
    refused,
    inFlight: usage.inFlight,
    paths,
    totals: usage.totals,
  };
}

const text = (i: number) => `Question ${i}: when is high tide at the harbour, and why?`;
const rules = (i: number) =>
  `Rules of desk ${i}. ${"Answer from the tide tables, briefly, with the time. ".repeat(30)}`;

/** A text part as each API takes it, with a prompt-cache breakpoint (`cache_control`). */
const cached = (useResponsesApi: boolean, body: string, ttl?: "1h") => ({
  // The Responses API's converter keeps the control only on a part in that API's own shape.
  type: useResponsesApi ? "input_text" : "text",
  text: body,
  cache_control: { type: "ephemeral", ...(ttl ? { ttl } : {}) },
});

describe.each([
  ["Chat Completions", false, "/inference/v1/chat/completions"],
  ["the Responses API", true, "/inference/v1/responses"],
])(
  "a budget never sits below the debit, with maxTokens set, on %s",
  (_api, useResponsesApi, path) => {
    it.each<[string, number, (i: number) => Input]>([
      ["text", 0.004, (i) => [new HumanMessage(text(i))]],
      [
        "images (inline, at their size; by URL, at the most one may cost)",
        0.05,
        (i) => [
          new HumanMessage({
            content: [
              { type: "image_url", image_url: { url: png(1400 + i, 1500) } },
              { type: "image_url", image_url: { url: `https://example.com/chart-${i}.png` } },
              { type: "text", text: text(i) },
            ],
          }),
        ],
      ],
      [
        "PDFs (by their pages)",
        0.05,
        (i) => [
          new HumanMessage({
            content: [
              { type: "file", file: { file_data: pdf(2 + (i % 3)), filename: "tides.pdf" } },
              { type: "text", text: text(i) },
            ],
          }),
        ],
      ],
      [
        "cache writes of both lifetimes",
        0.05,
        (i) => [
          new SystemMessage({ content: [cached(useResponsesApi, rules(i), "1h")] }),
          new HumanMessage({
            content: [cached(useResponsesApi, rules(i + 100)), { type: "text", text: text(i) }],
          }),
        ],
      ],
    ])("%s", async (_case, budget, input) => {
      const { debited, spent, refused, inFlight, paths } = await run(input, budget, {
        useResponsesApi,
      });
      expect(paths).toEqual(new Set([path]));
      expect(refused).toBeGreaterThan(0);
      expect(debited).toBeGreaterThan(0);
      expect(debited).toBeLessThanOrEqual(budget);
      expect(spent).toBeGreaterThanOrEqual(debited - 1e-12);
      expect(inFlight).toBe(0);
    });

    it("streams stopped after their first chunk (the emulator bills them whole, as the gateway does)", async () => {
      const input = (i: number) => [new HumanMessage(text(i))];
      const { debited, spent, refused, inFlight, paths } = await run(input, 0.004, {
        stop: true,
        useResponsesApi,
      });
      expect(paths).toEqual(new Set([path]));
      expect(refused).toBeGreaterThan(0);
      expect(debited).toBeGreaterThan(0);
      expect(debited).toBeLessThanOrEqual(0.004);
      expect(spent).toBeGreaterThanOrEqual(debited - 1e-12);
      expect(inFlight).toBe(0);
    });
  },
);
