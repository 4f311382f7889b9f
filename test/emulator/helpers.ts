/** @module Shared wire helpers of the emulator tests: posting, reading SSE, and both transports. */

import { afterAll, afterEach, beforeAll, expect } from "vitest";
import {
  createEmulator,
  DEFAULT_API_KEY,
  DEFAULT_MODEL,
  type EmulatorOptions,
  type EmulatorState,
  startEmulator,
} from "../../src/emulator/index.js";

export const CHAT = "/inference/v1/chat/completions";
export const COMPLETIONS = "/inference/v1/completions";

/** What every test needs from an emulator, whichever transport serves it. */
export interface TestEmulator {
  fetch: typeof globalThis.fetch;
  /** Host root, without `/inference/v1`. */
  url: string;
  state: EmulatorState;
  close(): Promise<void>;
}

export function inProcess(options?: EmulatorOptions): TestEmulator {
  const emulator = createEmulator(options);
  return { ...emulator, close: async () => {} };
}

export async function overHttp(options?: EmulatorOptions): Promise<TestEmulator> {
  const emulator = await startEmulator({ ...options, port: 0 });
  return {
    fetch: globalThis.fetch,
    url: emulator.url,
    state: emulator.state,
    close: emulator.close,
  };
}

/**
 * An emulator started before the enclosing `describe`'s tests, reset after each, closed at the
 * end; usable as a `TestEmulator` right away although it only exists once `beforeAll` has run.
 */
export function useEmulator(
  make: (options?: EmulatorOptions) => Promise<TestEmulator>,
): TestEmulator {
  let current: TestEmulator | undefined;
  beforeAll(async () => {
    current = await make();
  });
  afterEach(() => current?.state.reset());
  afterAll(() => current?.close());
  const get = () => {
    if (!current) throw new Error("the emulator starts in beforeAll");
    return current;
  };
  return {
    fetch: (input, init) => get().fetch(input, init),
    get url() {
      return get().url;
    },
    get state() {
      return get().state;
    },
    close: () => get().close(),
  };
}

/** Both transports, for `describe.each`: the handler's semantics must not depend on the socket. */
export const TRANSPORTS: Array<[string, (options?: EmulatorOptions) => Promise<TestEmulator>]> = [
  ["in-process fetch", async (options) => inProcess(options)],
  ["node:http server", overHttp],
];

export function bearer(key: string = DEFAULT_API_KEY): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

export function post(
  emulator: Pick<TestEmulator, "fetch" | "url">,
  path: string,
  body: unknown,
  headers: Record<string, string> = bearer(),
): Promise<Response> {
  return emulator.fetch(`${emulator.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export function chatBody(
  content = "Hello there",
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { model: DEFAULT_MODEL, messages: [{ role: "user", content }], ...extra };
}

/** A request's `tools[]` entry; every property is required. */
export function functionTool(
  name: string,
  description: string,
  properties: Record<string, unknown>,
) {
  return {
    type: "function",
    function: {
      name,
      description,
      parameters: { type: "object", properties, required: Object.keys(properties) },
    },
  };
}

/** The `data:` payloads of an SSE body, JSON-parsed except the final `[DONE]`. */
export function parseSse(text: string): Array<Record<string, unknown> | "[DONE]"> {
  return text
    .split("\n\n")
    .filter((event) => event.startsWith("data: "))
    .map((event) => {
      const data = event.slice("data: ".length);
      return data === "[DONE]" ? "[DONE]" : (JSON.parse(data) as Record<string, unknown>);
    });
}

/** Reads a body until it ends or breaks, returning what arrived and how it ended. */
export async function readUntilEnd(response: Response): Promise<{ text: string; error: unknown }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, error: undefined };
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    return { text, error };
  }
}

/** A request ID as the emulator makes them: 32 digits. */
export const REQUEST_ID = /^\d{32}$/;

/**
 * A hosted route's checks before its own (embeddings, rerank): an unknown model gets 503
 * model_not_found, a bad key 401, no credit 403. Leaves the credit at 0.
 */
export async function expectHostedRefusals(
  emulator: TestEmulator,
  path: string,
  body: Record<string, unknown>,
): Promise<void> {
  const unknown = await post(emulator, path, { ...body, model: `${String(body.model)}-typo` });
  expect(unknown.status).toBe(503);
  expect((await unknown.json()).error.code).toBe("model_not_found");
  const noKey = await post(emulator, path, body, bearer("sk-wrong"));
  expect(noKey.status).toBe(401);
  expect((await noKey.json()).error.message).toMatch(/^Invalid token \(request id: \d{32}\)$/);
  emulator.state.setCredit(0);
  const broke = await post(emulator, path, body);
  expect(broke.status).toBe(403);
  expect((await broke.json()).error.code).toBe("insufficient_user_quota");
}

/**
 * A call that reads tokens and writes none (embeddings, rerank) is logged with its usage and
 * debits `prompt_tokens × inputPrice / 1e6`.
 */
export async function expectPromptOnlyMetering(
  emulator: TestEmulator,
  path: string,
  body: Record<string, unknown>,
  inputPrice: number,
): Promise<void> {
  const before = emulator.state.credit;
  const response = await post(emulator, path, body);
  const { usage } = (await response.json()) as { usage: { prompt_tokens: number } };
  const entry = emulator.state.lastRequest()!;
  expect(entry).toMatchObject({
    surface: "hosted",
    model: body.model,
    status: 200,
    promptTokens: usage.prompt_tokens,
    completionTokens: 0,
    totalTokens: usage.prompt_tokens,
    cost: (usage.prompt_tokens * inputPrice) / 1e6,
  });
  expect(before - emulator.state.credit).toBeCloseTo(entry.cost, 12);
}
