import { Agent, request as httpRequest } from "node:http";
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createEmulator,
  DEFAULT_API_KEY,
  PENDING_SERVICE_NAME,
  type RunningEmulator,
  startEmulator,
} from "../../../src/emulator/index.js";
import { bearer, CHAT, chatBody, post } from "../helpers.js";

/** A raw node:http call, to see socket-level outcomes that fetch wraps. */
function rawPost(
  url: string,
  body: string,
  headers: Record<string, string>,
  agent?: Agent,
): Promise<{ status: number; text: string; socketClosed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      agent,
    });
    req.on("error", reject);
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          text,
          socketClosed: new Promise((done) => req.socket!.once("close", () => done())),
        }),
      );
    });
    req.end(body);
  });
}

describe("startEmulator", () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator();
  });
  afterAll(() => emulator.close());

  it("listens on a free loopback port and reports its URLs and demo key", () => {
    expect(emulator.port).toBeGreaterThan(0);
    expect(emulator.url).toBe(`http://127.0.0.1:${emulator.port}`);
    expect(emulator.baseURL).toBe(`http://127.0.0.1:${emulator.port}/inference/v1`);
    expect(emulator.apiKey).toBe(DEFAULT_API_KEY);
  });

  it("closes the connection of a Pending endpoint with no response at all", async () => {
    const call = rawPost(`${emulator.baseURL}/completions`, '{"prompt":"Hi"}', {
      ...bearer(),
      "service-name": PENDING_SERVICE_NAME,
    });
    await expect(call).rejects.toMatchObject({ code: "ECONNRESET", message: "socket hang up" });
  });

  it("resets the connection for the reset fault", async () => {
    const call = rawPost(`${emulator.baseURL}/chat/completions`, JSON.stringify(chatBody()), {
      ...bearer(),
      "x-emulator-fault": "reset",
    });
    await expect(call).rejects.toMatchObject({ code: "ECONNRESET" });
  });

  it("reads a request body that arrives in several chunks", async () => {
    const long = "word ".repeat(40_000);
    const response = await post({ fetch, url: emulator.url }, CHAT, chatBody(long));
    expect(response.status).toBe(200);
    const { usage } = (await response.json()) as { usage: { prompt_tokens: number } };
    expect(usage.prompt_tokens).toBeGreaterThan(40_000);
  });

  it("answers exactly as the in-process emulator does, IDs aside", async () => {
    const body = chatBody("What is the capital of France?", { model: "emulator-reasoner" });
    const overHttp = (await (
      await post({ fetch, url: emulator.url }, CHAT, body)
    ).json()) as Record<string, unknown>;
    const local = createEmulator();
    const inProcess = (await (await post(local, CHAT, body)).json()) as Record<string, unknown>;
    const withoutIds = ({ id: _id, created: _created, ...rest }: Record<string, unknown>) => rest;
    expect(withoutIds(overHttp)).toEqual(withoutIds(inProcess));
  });
});

describe("startEmulator's options", () => {
  it.each([
    ["a string", "8787"],
    ["null", null],
  ])(
    "refuses %s for its options before listening, instead of reading each character as an option",
    async (_name, options) => {
      await expect(startEmulator(options as never)).rejects.toMatchObject({
        name: "EmulatorConfigError",
        message: "emulator options must be an object",
      });
    },
  );
});

describe("startEmulator's body limit", () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator({ maxBodyBytes: 1_000 });
  });
  afterAll(() => emulator.close());
  const tooLarge = (id: string) => ({
    error: {
      code: "request_too_large",
      message: `Request body is larger than 1000 bytes (request id: ${id})`,
      type: "new_api_error",
    },
  });

  it("answers 413 to a body announced larger than the limit, and closes the connection", async () => {
    const big = JSON.stringify(chatBody("x".repeat(5_000_000)));
    const response = await post({ fetch, url: emulator.url }, CHAT, big);
    expect(response.status).toBe(413);
    expect(response.headers.get("connection")).toBe("close");
    const id = response.headers.get("x-gateway-request-id") ?? "";
    expect(await response.json()).toEqual(tooLarge(id));
    expect(emulator.state.requests()).toEqual([]);
  });

  it("stops reading a chunked body once it passes the limit, then serves the next request", async () => {
    const piece = new TextEncoder().encode("y".repeat(100_000));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        // Endless unless the server stops reading: the test would hang, not pass.
        sent++;
        controller.enqueue(piece);
      },
    });
    const response = await fetch(`${emulator.baseURL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: "request_too_large" } });
    expect(sent).toBeLessThan(1_000);
    expect((await post({ fetch, url: emulator.url }, CHAT, chatBody())).status).toBe(200);
  });
});

describe("RunningEmulator.close", () => {
  it("closes idle keep-alive connections so the process can exit", async () => {
    const emulator = await startEmulator();
    const agent = new Agent({ keepAlive: true });
    const first = await rawPost(
      `${emulator.baseURL}/chat/completions`,
      JSON.stringify(chatBody()),
      bearer(),
      agent,
    );
    expect(first.status).toBe(200);
    await emulator.close();
    await first.socketClosed;
    await expect(fetch(emulator.url)).rejects.toThrow("fetch failed");
    agent.destroy();
  });

  it("listens on the port it is given", async () => {
    const probe = createServer();
    const port = await new Promise<number>((resolve) => {
      probe.listen(0, "127.0.0.1", () => resolve((probe.address() as { port: number }).port));
    });
    await new Promise((resolve) => probe.close(resolve));
    const emulator = await startEmulator({ port });
    expect(emulator.baseURL).toBe(`http://127.0.0.1:${port}/inference/v1`);
    await expect(startEmulator({ port })).rejects.toMatchObject({ code: "EADDRINUSE" });
    await emulator.close();
  });
});
