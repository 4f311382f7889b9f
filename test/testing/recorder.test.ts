import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CassetteError, readCassette } from "../../src/cassette/cassette.js";
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

  it("lets an upstream that closes without answering reach the client as the same typed connection error, and replays it so", async () => {
    // A Pending endpoint's empty answer: the connection accepted, then closed.
    const closing = createServer((request) => request.socket.destroy());
    await new Promise<void>((resolve) => closing.listen(0, "127.0.0.1", resolve));
    const closingURL = `http://127.0.0.1:${(closing.address() as AddressInfo).port}/inference/v1`;
    const direct = await new ChatInferenceService("emulator-chat", {
      baseURL: closingURL,
      apiKey: "k",
      maxRetries: 1,
    })
      .invoke("hi")
      .catch((error: unknown) => error);
    const cassette = cassetteFile();
    // The upstream answers once first: a recording that never reached it would write nothing.
    const recorder = await startRecorder({ upstream: upstream.baseURL, cassette });
    await (await post(recorder.baseURL, chatBody("first"))).text();
    await recorder.close();
    const second = await startRecorder({ upstream: closingURL, cassette, mode: "record-new" });
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
    const proxied = await model(second.baseURL)
      .invoke("hi")
      .catch((error: unknown) => error);
    await second.close();
    closing.close();
    expect(ServiceConnectionError.isInstance(direct)).toBe(true);
    expect(ServiceConnectionError.isInstance(proxied)).toBe(true);
    expect(proxied).toMatchObject({ retryable: true });
    expect(sent).toBe(2);
    const entries = readCassette(cassette).log.entries;
    expect(entries.map((entry) => [entry.response.status, entry.response._error])).toEqual([
      [200, undefined],
      [0, "ECONNRESET"],
      [0, "ECONNRESET"],
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

  it("names the upstream it could not reach in the client's error, records nothing, and keeps the cassette there was", async () => {
    const dead = await startEmulator();
    const deadURL = dead.baseURL;
    await dead.close();
    const cassette = cassetteFile();
    const good = await startRecorder({ upstream: upstream.baseURL, cassette });
    await (await post(good.baseURL, chatBody("keep me"))).text();
    await good.close();
    const before = readFileSync(cassette, "utf8");

    const recorder = await startRecorder({ upstream: deadURL, cassette });
    const error = await new ChatInferenceService("emulator-chat", {
      baseURL: recorder.baseURL,
      apiKey: "k",
      maxRetries: 2,
    })
      .invoke("hi")
      .catch((e: unknown) => e);
    const closing = await recorder.close().catch((e: unknown) => e);
    // The app's error names the upstream that refused, not the recorder's own port.
    expect((error as Error).message).toContain(
      `The recording proxy could not reach the upstream ${deadURL}: nothing accepted the connection on that host and port (ECONNREFUSED)`,
    );
    expect((error as Error).message).not.toContain(`:${recorder.port}`);
    expect(error).toMatchObject({ status: 502, code: "upstream_unreachable", retryable: true });
    expect(closing).toBeInstanceOf(CassetteError);
    expect((closing as Error).message).toBe(
      `cassette ${cassette}: no call reached the upstream ${deadURL}: 3 calls failed (nothing accepted the connection on that host and port (ECONNREFUSED)), so the cassette was left as it was. Start the service there, or record against the right one (--upstream, or INFERENCE_SERVICE_BASE_URL), then record again`,
    );
    expect(readFileSync(cassette, "utf8")).toBe(before);

    // Where there was no cassette, none is written.
    const none = cassetteFile();
    const again = await startRecorder({ upstream: deadURL, cassette: none });
    await (await post(again.baseURL, chatBody("hi"))).text();
    await expect(again.close()).rejects.toThrow("so no cassette was written");
    expect(existsSync(none)).toBe(false);
  });

  it("in record-all mode, leaves the cassette there was until the upstream answers, then replaces it", async () => {
    const cassette = cassetteFile();
    const first = await startRecorder({ upstream: upstream.baseURL, cassette });
    await (await post(first.baseURL, chatBody("old"))).text();
    await first.close();
    const before = readFileSync(cassette, "utf8");
    const second = await startRecorder({ upstream: upstream.baseURL, cassette });
    expect(readFileSync(cassette, "utf8")).toBe(before);
    expect(second.size).toBe(1);
    await (await post(second.baseURL, chatBody("new"))).text();
    await second.close();
    expect(second.recorded).toBe(1);
    expect(
      readCassette(cassette).log.entries.map(
        (e) => JSON.parse(e.request.postData!.text).messages[0].content,
      ),
    ).toEqual(["new"]);
  });

  it("refuses to record over a file that is not a cassette, or a folder, and leaves them as they were", async () => {
    const file = join(dir, "package.json");
    writeFileSync(file, '{"name":"my-app","version":"1.0.0"}\n');
    for (const mode of ["record-all", "record-new"] as const) {
      await expect(
        startRecorder({ upstream: upstream.baseURL, cassette: file, mode }),
      ).rejects.toThrow(
        `cassette ${file}: exists and is not a cassette (no HAR log with entries), so recording will not overwrite it`,
      );
    }
    expect(readFileSync(file, "utf8")).toBe('{"name":"my-app","version":"1.0.0"}\n');
    const folder = join(dir, "a-folder");
    mkdirSync(folder);
    await expect(startRecorder({ upstream: upstream.baseURL, cassette: folder })).rejects.toThrow(
      "is a directory, not a cassette file",
    );
    expect(readdirSync(dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("refuses a request body larger than maxBodyBytes with a 413, and records an answer that large nowhere", async () => {
    const cassette = cassetteFile();
    const recorder = await startRecorder({
      upstream: upstream.baseURL,
      cassette,
      maxBodyBytes: 400,
    });
    const big = await post(recorder.baseURL, chatBody("x".repeat(500)));
    expect(big.status).toBe(413);
    expect((await big.json()).error).toMatchObject({ code: "request_too_large" });
    // A small request whose answer is larger than the limit: relayed whole, not recorded.
    const answer = await (await post(recorder.baseURL, chatBody("y".repeat(300)))).text();
    expect(answer.length).toBeGreaterThan(400);
    expect(JSON.parse(answer).choices[0].message.content).toContain("y".repeat(50));
    await expect(recorder.close()).rejects.toThrow(
      "1 answer was larger than maxBodyBytes (400 bytes) and is not in the cassette (the app got it whole)",
    );
    expect(readCassette(cassette).log.entries).toEqual([]);
  });

  it("records a key sent as a query parameter nowhere, and replays the call whatever key it is sent with", async () => {
    const canary = "sk-query-canary-0123456789";
    const keyed = await startEmulator({ keys: [{ secret: canary }] });
    const cassette = cassetteFile();
    const recorder = await startRecorder({ upstream: keyed.baseURL, cassette });
    const live = await (
      await fetch(`${recorder.baseURL}/models?api-key=${canary}`, {
        headers: { authorization: `Bearer ${canary}` },
      })
    ).text();
    const echo = await (
      await fetch(`${recorder.baseURL}/chat/completions?access_token=${canary}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-team": "chat",
          authorization: `Bearer ${canary}`,
        },
        body: chatBody(`say ${canary}`),
      })
    ).text();
    await recorder.close();
    await keyed.close();
    const text = readFileSync(cassette, "utf8");
    expect(text).not.toContain(canary);
    expect(text).toContain("api-key=[redacted]");
    // An ordinary header is recorded as it is, and so is everything holding its value.
    expect(text).toContain('"name": "x-team",\n              "value": "chat"');
    expect(text).toContain("emulator-chat");
    const replay = createEmulator({ replay: cassette });
    const again = await replay.fetch(`${replay.baseURL}/models?api-key=another-key-entirely`);
    expect(await again.text()).toBe(live);
    // The body holds the key: matched in its redacted form, as the key sent makes it.
    const echoed = await replay.fetch(`${replay.baseURL}/chat/completions?access_token=${canary}`, {
      method: "POST",
      headers: { "x-team": "chat" },
      body: chatBody(`say ${canary}`),
    });
    expect(await echoed.text()).toBe(echo.replaceAll(canary, "[redacted]"));
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
