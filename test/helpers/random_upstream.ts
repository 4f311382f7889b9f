/**
 * @module A test upstream whose answers change with every call, as a real model's do: the
 * in-process emulator behind a `node:http` server that writes a fresh nonce into every reply's
 * text and reasoning and gives every call a fresh request ID. A replay that reproduces its answers
 * can only have come from the cassette.
 */
import { randomBytes, randomInt } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createEmulator, type EmulatorOptions } from "../../src/emulator/index.js";

export interface RandomUpstream {
  baseURL: string;
  apiKey: string;
  /** Requests received so far. */
  readonly requests: number;
  close(): Promise<void>;
}

/** Starts the upstream on a free loopback port. */
export async function startRandomUpstream(options: EmulatorOptions = {}): Promise<RandomUpstream> {
  const emulator = createEmulator(options);
  let requests = 0;
  const server = createServer((request, response) => {
    requests++;
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", async () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === "string") headers.set(name, value);
      }
      const method = request.method ?? "GET";
      let answer: Response;
      try {
        answer = await emulator.fetch(`${emulator.url}${request.url}`, {
          method,
          headers,
          ...(method === "GET" ? {} : { body: Buffer.concat(chunks) }),
        });
      } catch {
        request.socket.destroy();
        return;
      }
      const nonce = randomBytes(4).toString("hex");
      const id = String(randomInt(1e9, 1e10)) + String(randomInt(1e9, 1e10));
      const original = answer.headers.get("x-gateway-request-id") ?? "";
      const vary = (text: string) =>
        text
          .replaceAll(original, id)
          // Every piece of text and reasoning, streamed token by token or whole, starts with it.
          .replaceAll('"content":"', `"content":"${nonce} `)
          .replaceAll('"reasoning_content":"', `"reasoning_content":"${nonce} `);
      const out: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (name !== "content-length") out[name] = name === "x-gateway-request-id" ? id : value;
      });
      response.writeHead(answer.status, out);
      if (!answer.body) {
        response.end();
        return;
      }
      const decoder = new TextDecoder();
      try {
        const reader = answer.body.getReader();
        for (let read = await reader.read(); !read.done; read = await reader.read()) {
          response.write(vary(decoder.decode(read.value)));
        }
        response.end();
      } catch {
        response.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/inference/v1`,
    apiKey: emulator.apiKey,
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
