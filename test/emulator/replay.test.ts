import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { emptyCassette, serializeCassette } from "../../src/cassette/cassette.js";
import { entryOf } from "../../src/cassette/entry.js";
import { createEmulator, EmulatorConfigError, startEmulator } from "../../src/emulator/index.js";
import { replyOf } from "../../src/emulator/replay.js";

const dir = mkdtempSync(join(tmpdir(), "emulator-replay-"));
const encode = (text: string) => new TextEncoder().encode(text);
const CHAT = JSON.stringify({
  model: "emulator-chat",
  messages: [{ role: "user", content: "hi" }],
});

function cassette(...entries: ReturnType<typeof entryOf>[]): string {
  const file = join(dir, `c${Math.random().toString(36).slice(2)}.har`);
  const c = emptyCassette();
  c.log.entries.push(...entries);
  writeFileSync(file, serializeCassette(c));
  return file;
}

const exchange = (overrides: Partial<Parameters<typeof entryOf>[0]> = {}) =>
  entryOf({
    startedAt: 0,
    method: "POST",
    url: "https://host.example/inference/v1/chat/completions",
    requestHeaders: { "content-type": "application/json" },
    requestBody: encode(CHAT),
    status: 429,
    statusText: "Too Many Requests",
    responseHeaders: {
      "content-type": "application/json",
      "x-gateway-request-id": "rec-1",
      "retry-after": "3",
    },
    responseBody: encode('{"error":{"code":"rate_limit_exceeded","message":"slow"}}'),
    waitMs: 30,
    totalMs: 31,
    ...overrides,
  });

describe("the emulator's replay option", () => {
  it("answers a recorded call with its status, headers and body, whatever the key, and logs it", async () => {
    const emulator = createEmulator({ replay: cassette(exchange()) });
    const response = await emulator.fetch(`${emulator.baseURL}/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer anything" },
      body: CHAT,
    });
    expect(response.status).toBe(429);
    expect(response.headers.get("x-gateway-request-id")).toBe("rec-1");
    expect(response.headers.get("retry-after")).toBe("3");
    expect(await response.text()).toBe('{"error":{"code":"rate_limit_exceeded","message":"slow"}}');
    expect(emulator.state.requests()).toMatchObject([
      {
        requestId: "rec-1",
        status: 429,
        model: "emulator-chat",
        surface: "hosted",
        fault: "replay",
      },
    ]);
  });

  it("answers an unrecorded call with a 400 not_in_cassette and a request ID, logged as such", async () => {
    const emulator = createEmulator({ replay: cassette() });
    const response = await emulator.fetch(`${emulator.baseURL}/models`);
    expect(response.status).toBe(400);
    expect(response.headers.get("x-gateway-request-id")).toMatch(/^\d{32}$/);
    expect((await response.json()).error).toMatchObject({
      code: "not_in_cassette",
      type: "invalid_request_error",
    });
    expect(emulator.state.requests()[0]).toMatchObject({ status: 400, fault: "not-in-cassette" });
  });

  it("still serves the console and the admin API", async () => {
    const emulator = createEmulator({ replay: cassette() });
    expect((await emulator.fetch(`${emulator.url}/_emulator/state`)).status).toBe(200);
    expect((await emulator.fetch(`${emulator.url}/`)).headers.get("content-type")).toMatch(
      /text\/html/,
    );
  });

  it("replays a refused connection as fetch's own connection failure", async () => {
    const emulator = createEmulator({
      replay: cassette(
        exchange({
          status: 0,
          statusText: "",
          responseHeaders: {},
          responseBody: new Uint8Array(),
          error: "ECONNREFUSED",
        }),
      ),
    });
    await expect(
      emulator.fetch(`${emulator.baseURL}/chat/completions`, { method: "POST", body: CHAT }),
    ).rejects.toThrow("fetch failed");
  });

  it("sends a stream's events in order over HTTP", async () => {
    const events = [
      { time: 1, text: 'data: {"n":1}\n\n' },
      { time: 2, text: 'data: {"n":2}\n\n' },
      { time: 3, text: "data: [DONE]\n\n" },
    ];
    const emulator = await startEmulator({
      replay: {
        cassette: cassette(
          exchange({
            status: 200,
            responseHeaders: { "content-type": "text/event-stream" },
            responseBody: events,
          }),
        ),
        timing: "recorded",
      },
    });
    try {
      const response = await fetch(`${emulator.baseURL}/chat/completions`, {
        method: "POST",
        body: CHAT,
      });
      expect(response.headers.get("content-type")).toBe("text/event-stream");
      expect(await response.text()).toBe(events.map((event) => event.text).join(""));
    } finally {
      await emulator.close();
    }
  });

  it("sends a stream's events in-process too, at their recorded times", async () => {
    const events = [
      { time: 2, text: 'data: {"n":1}\n\n' },
      { time: 4, text: "data: [DONE]\n\n" },
    ];
    const emulator = createEmulator({
      replay: {
        cassette: cassette(
          exchange({
            status: 200,
            responseHeaders: { "content-type": "text/event-stream" },
            responseBody: events,
          }),
        ),
        timing: "recorded",
      },
    });
    const response = await emulator.fetch(`${emulator.baseURL}/chat/completions`, {
      method: "POST",
      body: CHAT,
    });
    expect(await response.text()).toBe(events.map((event) => event.text).join(""));
  });

  it("refuses a replay option that is not a file or { cassette }, and a cassette it cannot read", () => {
    expect(() => createEmulator({ replay: 42 as never })).toThrow(EmulatorConfigError);
    expect(() =>
      createEmulator({ replay: { cassette: "x.har", timing: "slow" as never } }),
    ).toThrow('replay.timing must be "fast" or "recorded", got "slow"');
    expect(() =>
      createEmulator({ replay: { cassette: "x.har", ignore: "user" as never } }),
    ).toThrow("replay.ignore must be a list of body field paths");
    expect(() => createEmulator({ replay: join(dir, "none.har") })).toThrow(
      /^cassette .*none\.har: no such file/,
    );
  });
});

describe("replyOf", () => {
  it("turns recorded event times into the waits between them, and a cut into an abort", () => {
    const reply = replyOf({
      index: 0,
      status: 200,
      headers: [{ name: "content-type", value: "text/event-stream" }],
      body: {
        events: [
          { time: 5, text: "a" },
          { time: 5, text: "b" },
          { time: 20, text: "c" },
        ],
      },
      error: "ECONNRESET",
      waitMs: 40,
    });
    expect(reply).toMatchObject({
      body: ["a", "b", "c"],
      chunkDelaysMs: [5, 0, 15],
      delayMs: 40,
      abort: true,
    });
  });

  it("sends no waits when timing is fast (every event at time 0)", () => {
    const reply = replyOf({
      index: 0,
      status: 200,
      headers: [],
      body: { events: [{ time: 0, text: "a" }] },
      waitMs: 0,
    });
    expect(reply).not.toHaveProperty("chunkDelaysMs");
    expect(
      replyOf({
        index: 0,
        status: 0,
        headers: [],
        body: { text: "" },
        error: "ECONNREFUSED",
        waitMs: 0,
      }),
    ).toMatchObject({ kind: "drop" });
  });
});
