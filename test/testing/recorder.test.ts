import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCassette } from "../../src/cassette/cassette.js";
import { createEmulator, type RunningEmulator, startEmulator } from "../../src/emulator/index.js";
import { ChatInferenceService, ServiceConnectionError } from "../../src/index.js";
import { startRecorder } from "../../src/testing/index.js";

const dir = mkdtempSync(join(tmpdir(), "recorder-"));
let n = 0;
const cassetteFile = () => join(dir, `c${++n}.har`);
let upstream: RunningEmulator;

beforeAll(async () => {
  upstream = await startEmulator();
});
afterAll(() => upstream.close());

const chatBody = (content: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: "emulator-chat", messages: [{ role: "user", content }], ...extra });

function post(
  baseURL: string,
  body: string | Uint8Array<ArrayBuffer>,
  headers: Record<string, string> = {},
) {
  return fetch(`${baseURL}/chat/completions`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${upstream.apiKey}`,
      "content-type": "application/json",
      ...headers,
    },
    body,
  });
}

/** An upstream that sends one event, then waits for the test to let the rest go. */
async function gatedUpstream() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const server = createServer((_request, response: ServerResponse) => {
    response.writeHead(200, {
      "content-type": "text/event-stream",
      "x-gateway-request-id": "gate-1",
    });
    response.write('data: {"first":true}\n\n');
    void released.then(() => response.end('data: {"second":true}\n\ndata: [DONE]\n\n'));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/inference/v1`,
    release,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("startRecorder", () => {
  it("streams each event to the client as it arrives, before the upstream has finished", async () => {
    const gate = await gatedUpstream();
    const cassette = cassetteFile();
    const recorder = await startRecorder({ upstream: gate.baseURL, cassette });
    const response = await post(recorder.baseURL, chatBody("hi", { stream: true }));
    const reader = response.body!.getReader();
    // Were the proxy to buffer, this read would wait for the release below, which never comes first.
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toBe('data: {"first":true}\n\n');
    gate.release();
    while (!(await reader.read()).done) {}
    await recorder.close();
    await gate.close();
    const [entry] = readCassette(cassette).log.entries;
    expect(entry!.response.content._events!.map((event) => event.text)).toEqual([
      'data: {"first":true}\n\n',
      'data: {"second":true}\n\n',
      "data: [DONE]\n\n",
    ]);
    expect(entry!.response.content.text).toBe(
      entry!.response.content._events!.map((e) => e.text).join(""),
    );
    const times = entry!.response.content._events!.map((event) => event.time);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it("lets a refused upstream reach the client as the same typed connection error, and replays it so", async () => {
    const dead = await startEmulator();
    const deadURL = dead.baseURL;
    await dead.close();
    const direct = await new ChatInferenceService("emulator-chat", {
      baseURL: deadURL,
      apiKey: "k",
      maxRetries: 1,
    })
      .invoke("hi")
      .catch((error: unknown) => error);
    const cassette = cassetteFile();
    const recorder = await startRecorder({ upstream: deadURL, cassette });
    let sent = 0;
    const model = (baseURL: string) =>
      new ChatInferenceService("emulator-chat", {
        baseURL,
        apiKey: "k",
        maxRetries: 1,
        fetch: (input, init) => {
          sent++;
          return fetch(input, init);
        },
      });
    const proxied = await model(recorder.baseURL)
      .invoke("hi")
      .catch((error: unknown) => error);
    await recorder.close();
    expect(ServiceConnectionError.isInstance(direct)).toBe(true);
    expect(ServiceConnectionError.isInstance(proxied)).toBe(true);
    expect(proxied).toMatchObject({ retryable: true });
    expect(sent).toBe(2);
    const entries = readCassette(cassette).log.entries;
    expect(entries.map((entry) => [entry.response.status, entry.response._error])).toEqual([
      [0, "ECONNREFUSED"],
      [0, "ECONNREFUSED"],
    ]);
    const replay = await startEmulator({ replay: cassette });
    sent = 0;
    const replayed = await model(replay.baseURL)
      .invoke("hi")
      .catch((error: unknown) => error);
    await replay.close();
    expect(ServiceConnectionError.isInstance(replayed)).toBe(true);
    expect(sent).toBe(2);
  });

  it("never writes the key, a key-shaped header, or a named value, wherever they are sent", async () => {
    const canary = "sk-canary-planted-0123456789";
    const other = "hdr-canary-987654321";
    const named = "customer-4711@example.com";
    const keyed = await startEmulator({ keys: [{ secret: canary }] });
    const cassette = cassetteFile();
    const recorder = await startRecorder({ upstream: keyed.baseURL, cassette, redact: [named] });
    const body = chatBody(`my key is ${canary}, my token ${other}, I am ${named}`, {
      user: canary,
    });
    const headers = { authorization: `Bearer ${canary}`, "x-api-key": other, "x-org-token": other };
    const live = await (
      await fetch(`${recorder.baseURL}/chat/completions?key=${canary}`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body,
      })
    ).text();
    await recorder.close();
    await keyed.close();
    const text = readFileSync(cassette, "utf8");
    for (const secret of [canary, other, named]) expect(text).not.toContain(secret);
    expect(live).toContain(canary);
    // Replayed with the same key and header, the request matches its scrubbed recording.
    const replay = createEmulator({ replay: { cassette, redact: [named] } });
    const again = await replay.fetch(`${replay.baseURL}/chat/completions?key=${canary}`, {
      method: "POST",
      headers,
      body,
    });
    expect(await again.text()).toBe(
      live
        .replaceAll(canary, "[redacted]")
        .replaceAll(other, "[redacted]")
        .replaceAll(named, "[redacted]"),
    );
  });

  it("records a body that is not JSON as it was, and matches it byte for byte", async () => {
    const cassette = cassetteFile();
    const recorder = await startRecorder({ upstream: upstream.baseURL, cassette });
    const bytes = new Uint8Array([0xff, 0xfe, 0x00, 0x41]);
    const liveText = await (
      await post(recorder.baseURL, "plain words, not JSON", { "content-type": "text/plain" })
    ).text();
    const liveBytes = await (
      await post(recorder.baseURL, bytes, { "content-type": "application/octet-stream" })
    ).text();
    await recorder.close();
    const [text, binary] = readCassette(cassette).log.entries;
    expect(text!.request.postData).toEqual({
      mimeType: "text/plain",
      text: "plain words, not JSON",
    });
    expect(binary!.request.postData).toEqual({
      mimeType: "application/octet-stream",
      text: "//4AQQ==",
      _encoding: "base64",
    });

    const replay = await startRecorder({ cassette, mode: "replay" });
    expect(await (await post(replay.baseURL, "plain words, not JSON")).text()).toBe(liveText);
    expect(await (await post(replay.baseURL, bytes)).text()).toBe(liveBytes);
    const miss = await (await post(replay.baseURL, "plain words, not JSON!")).json();
    await replay.close();
    expect(miss.error.code).toBe("not_in_cassette");
    expect(miss.error.message).toContain("body (not JSON): 22 bytes here, 21 bytes recorded");
  });

  it("in record-new mode replays what the cassette holds and records only the new calls", async () => {
    const cassette = cassetteFile();
    const first = await startRecorder({ upstream: upstream.baseURL, cassette });
    const recorded = await (await post(first.baseURL, chatBody("old question"))).text();
    await first.close();
    const before = upstream.state.requests().length;
    const second = await startRecorder({
      upstream: upstream.baseURL,
      cassette,
      mode: "record-new",
    });
    expect(await (await post(second.baseURL, chatBody("old question"))).text()).toBe(recorded);
    await (await post(second.baseURL, chatBody("new question"))).text();
    await second.close();
    expect(upstream.state.requests().length - before).toBe(1);
    const contents = readCassette(cassette).log.entries.map(
      (entry) => JSON.parse(entry.request.postData!.text).messages[0].content,
    );
    expect(contents).toEqual(["old question", "new question"]);
  });

  it("records a stream the upstream cut, and replays the cut", async () => {
    const cassette = cassetteFile();
    const recorder = await startRecorder({ upstream: upstream.baseURL, cassette });
    const readAll = async (response: Response) => {
      let text = "";
      const reader = response.body!.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return { text, cut: false };
          text += new TextDecoder().decode(value);
        }
      } catch {
        return { text, cut: true };
      }
    };
    const live = await readAll(
      await post(recorder.baseURL, chatBody("cut me", { stream: true }), {
        "x-emulator-fault": "truncate",
      }),
    );
    await recorder.close();
    expect(live.cut).toBe(true);
    expect(readCassette(cassette).log.entries[0]!.response._error).toBe("ECONNRESET");
    const replay = await startEmulator({ replay: cassette });
    const replayed = await readAll(
      await post(replay.baseURL, chatBody("cut me", { stream: true }), {
        "x-emulator-fault": "truncate",
      }),
    );
    await replay.close();
    expect(replayed).toEqual(live);
  });

  it("answers a path outside /inference/v1 with a 404 that says so, and records nothing", async () => {
    const cassette = cassetteFile();
    const recorder = await startRecorder({ upstream: upstream.baseURL, cassette });
    const response = await fetch(`${recorder.url}/v1/chat/completions`, {
      method: "POST",
      body: "{}",
    });
    await recorder.close();
    expect(response.status).toBe(404);
    expect((await response.json()).error.message).toContain(
      "forwards only paths under /inference/v1, not /v1/chat/completions",
    );
    expect(readCassette(cassette).log.entries).toEqual([]);
  });

  it("checks its options where they enter, naming the option", async () => {
    await expect(
      startRecorder({ cassette: join(dir, "x.har"), mode: "sometimes" as never }),
    ).rejects.toThrow('`mode` must be "replay", "record-all" or "record-new"; got "sometimes".');
    await expect(
      startRecorder({ cassette: join(dir, "x.har"), upstream: upstream.baseURL, port: -1 }),
    ).rejects.toThrow("`port` must be an integer from 0 to 65535; got -1.");
  });

  it("refuses to record without an upstream, naming the cassette", async () => {
    await expect(startRecorder({ cassette: join(dir, "x.har") })).rejects.toThrow(
      /^cassette .*x\.har: recording needs the upstream/,
    );
  });
});
