import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CassetteError, emptyCassette, serializeCassette } from "../../../src/cassette/cassette.js";
import { entryOf } from "../../../src/cassette/entry.js";
import { createEmulator, EmulatorConfigError, startEmulator } from "../../../src/emulator/index.js";
import { writeReply } from "../../../src/emulator/server/node_server.js";
import { replyOf } from "../../../src/emulator/server/replay.js";

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

/** A cassette's text with its first entry's response changed as a hand edit would. */
function handEdited(edit: (response: Record<string, unknown>) => void): string {
  const file = cassette(exchange());
  const data = JSON.parse(readFileSync(file, "utf8"));
  edit(data.log.entries[0].response);
  writeFileSync(file, JSON.stringify(data));
  return file;
}

describe("replaying what a cassette holds onto the wire", () => {
  it("replays a recorded 204 with no body, in-process and over HTTP, whatever text the cassette holds", async () => {
    const file = handEdited((response) => {
      response.status = 204;
      (response.content as Record<string, unknown>).text = "left over";
    });
    const inProcess = createEmulator({ replay: file });
    const local = await inProcess.fetch(`${inProcess.baseURL}/chat/completions`, {
      method: "POST",
      body: CHAT,
    });
    expect(local.status).toBe(204);
    expect(await local.text()).toBe("");
    const server = await startEmulator({ replay: file });
    try {
      const remote = await fetch(`${server.baseURL}/chat/completions`, {
        method: "POST",
        body: CHAT,
      });
      expect(remote.status).toBe(204);
      expect(await remote.text()).toBe("");
    } finally {
      await server.close();
    }
  });

  it.each([
    [
      "a status of 50",
      (r: Record<string, unknown>) => (r.status = 50),
      "response.status (50): must be an HTTP status from 200 to 599",
    ],
    ["a status of 700", (r: Record<string, unknown>) => (r.status = 700), "response.status (700)"],
    ["a 1xx status", (r: Record<string, unknown>) => (r.status = 103), "response.status (103)"],
    [
      "a header value with a line break",
      (r: Record<string, unknown>) =>
        (r.headers as unknown[]).push({ name: "x-team", value: "a\r\nb" }),
      'response.headers[3].value (header "x-team"): holds a line break',
    ],
    [
      "a header name with a space",
      (r: Record<string, unknown>) => (r.headers as unknown[]).push({ name: "x team", value: "a" }),
      "response.headers[3].name: is not a header name HTTP allows",
    ],
  ])(
    "refuses at open a cassette with %s, naming the entry and the field",
    async (_what, edit, message) => {
      const file = handEdited(edit);
      expect(() => createEmulator({ replay: file })).toThrow(CassetteError);
      expect(() => createEmulator({ replay: file })).toThrow(
        `entry 0 (log.entries[0]): ${message}`,
      );
      await expect(startEmulator({ replay: file })).rejects.toThrow(message);
    },
  );

  it("answers a reply Node refuses to send with a 500 that says why, instead of ending the process", async () => {
    const replies: Array<{ status: number; headers: Record<string, string> }> = [
      { status: 50, headers: {} },
      { status: 200, headers: { "x-team": "a\r\nb" } },
    ];
    let next = 0;
    const server = createServer((_request, response) => {
      writeReply(
        { kind: "response", body: "hi", abort: false, delayMs: 0, ...replies[next++]! },
        response,
        0,
        (ms, run) => setTimeout(run, ms),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      for (const problem of [
        "Invalid status code: 50",
        'Invalid character in header content ["x-team"]',
      ]) {
        const response = await fetch(url);
        expect(response.status).toBe(500);
        expect((await response.json()).error).toMatchObject({
          code: "emulator_error",
          message: `Emulator failure: the reply could not be sent (${problem})`,
        });
      }
    } finally {
      server.close();
    }
  });

  it("leaves the transport's own headers to the transport: a recorded Content-Length cannot cut the body", async () => {
    const file = handEdited((response) => {
      (response.headers as unknown[]).push(
        { name: "Content-Length", value: "3" },
        { name: "transfer-encoding", value: "chunked" },
        { name: "connection", value: "close" },
      );
    });
    const server = await startEmulator({ replay: file });
    try {
      const response = await fetch(`${server.baseURL}/chat/completions`, {
        method: "POST",
        body: CHAT,
      });
      expect(await response.text()).toBe(
        '{"error":{"code":"rate_limit_exceeded","message":"slow"}}',
      );
    } finally {
      await server.close();
    }
  });
});

describe("faults on replayed answers", () => {
  const ok = () =>
    exchange({
      status: 200,
      statusText: "OK",
      responseHeaders: { "content-type": "text/event-stream", "x-gateway-request-id": "rec-2" },
      responseBody: [
        { time: 1, text: 'data: {"n":1}\n\n' },
        { time: 2, text: 'data: {"n":2}\n\n' },
        { time: 3, text: 'data: {"n":3}\n\n' },
        { time: 4, text: "data: [DONE]\n\n" },
      ],
    });
  const post = (emulator: ReturnType<typeof createEmulator>, fault?: string) =>
    emulator.fetch(`${emulator.baseURL}/chat/completions`, {
      method: "POST",
      body: CHAT,
      headers: fault ? { "x-emulator-fault": fault } : {},
    });

  it("answers X-Emulator-Fault's status in place of the recording, which the next call gets", async () => {
    const emulator = createEmulator({ replay: cassette(ok()) });
    const faulted = await post(emulator, "503");
    expect(faulted.status).toBe(503);
    const next = await post(emulator);
    expect(next.status).toBe(200);
    expect(next.headers.get("x-gateway-request-id")).toBe("rec-2");
    expect(emulator.state.requests().map((r) => [r.status, r.fault])).toEqual([
      [503, "503"],
      [200, "replay"],
    ]);
  });

  it("damages the recorded answer with a fault that cuts it", async () => {
    const emulator = createEmulator({ replay: cassette(ok()) });
    const response = await post(emulator, "truncate");
    const reader = response.body!.getReader();
    let text = "";
    await expect(
      (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          text += new TextDecoder().decode(value);
        }
      })(),
    ).rejects.toThrow("terminated");
    expect(text).toBe('data: {"n":1}\n\ndata: {"n":2}\n\n');
    expect(emulator.state.requests()[0]!.fault).toBe("replay, truncate");
  });

  it("applies the configured random faults too", async () => {
    const emulator = createEmulator({
      replay: cassette(ok()),
      faults: { rate: 1, kinds: ["429"] },
    });
    expect((await post(emulator)).status).toBe(429);
  });

  it("replays a recording made with the same fault as recorded, and refuses an unknown fault", async () => {
    const recordedWithFault = exchange({
      requestHeaders: { "content-type": "application/json", "x-emulator-fault": "429" },
    });
    const emulator = createEmulator({ replay: cassette(recordedWithFault) });
    const response = await post(emulator, "429");
    expect(response.headers.get("x-gateway-request-id")).toBe("rec-1");
    expect(response.headers.get("retry-after")).toBe("3");
    const unknown = await post(emulator, "sometimes");
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).error.message).toContain(
      'Unknown X-Emulator-Fault value "sometimes"',
    );
  });
});

describe("the replay handle", () => {
  it("tells which recordings were not used, and rewinds", async () => {
    const emulator = createEmulator({
      replay: cassette(
        exchange(),
        exchange({
          url: "https://host.example/inference/v1/models",
          method: "GET",
          requestBody: new Uint8Array(),
        }),
      ),
    });
    await emulator.fetch(`${emulator.baseURL}/chat/completions`, { method: "POST", body: CHAT });
    expect(emulator.replay!.size).toBe(2);
    expect(emulator.replay!.unused()).toEqual([{ index: 1, request: "GET /models" }]);
    expect(
      (await emulator.fetch(`${emulator.baseURL}/chat/completions`, { method: "POST", body: CHAT }))
        .status,
    ).toBe(400);
    emulator.replay!.rewind();
    expect(
      (await emulator.fetch(`${emulator.baseURL}/chat/completions`, { method: "POST", body: CHAT }))
        .status,
    ).toBe(429);
  });

  it("serves recordings in a loop with loop: true", async () => {
    const emulator = createEmulator({ replay: { cassette: cassette(exchange()), loop: true } });
    for (let i = 0; i < 3; i++) {
      const response = await emulator.fetch(`${emulator.baseURL}/chat/completions`, {
        method: "POST",
        body: CHAT,
      });
      expect(response.status).toBe(429);
    }
  });

  it("refuses a redact value too short to redact, and a loop that is not a boolean", () => {
    expect(() => createEmulator({ replay: { cassette: "x.har", redact: ["abc"] } })).toThrow(
      "replay.redact[0] has 3 characters; a value to redact needs at least 4",
    );
    expect(() => createEmulator({ replay: { cassette: "x.har", loop: "yes" as never } })).toThrow(
      'replay.loop must be true or false, got "yes"',
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
