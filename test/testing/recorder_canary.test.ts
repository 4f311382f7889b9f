/**
 * Secret canary for cassettes: a recognisable key is sent every way a client sends one (a Bearer
 * header, `X-Api-Key`, a Basic credential, query parameters of every usual name, the body) to an
 * upstream that echoes it back every way a server does (as sent, in another case, URL-encoded,
 * base64 and base64url, inside a Basic credential, in a header, in a stream's events, in a latin-1
 * error page), and recorded through every path: `startRecorder`, `openCassette` (`all`, then
 * `new`) and the `record` command. What was written must not hold the key in any of those forms,
 * nor in any body once decoded, and the cassette scan must find nothing left.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCassette } from "../../src/cassette/cassette.js";
import { scanCassette } from "../../src/cassette/scan.js";
import { runRecordCommand } from "../../src/cli/record.js";
import { openCassette, startRecorder } from "../../src/testing/index.js";

// Characters that URL-encoding and base64 change, so that every form differs from the others.
const CANARY = "sk-Canary/0123+4567=89abcdef";
const dir = mkdtempSync(join(tmpdir(), "canary-cassette-"));
let upstreamURL: string;
let upstream: ReturnType<typeof createServer>;

/** Every form of the key the upstream echoes, and that a cassette must not hold. */
function forms(secret: string): string[] {
  const base64: string[] = [];
  for (const prefix of ["", "x", "xy"]) {
    for (const encoding of ["base64", "base64url"] as const) {
      const encoded = Buffer.from(prefix + secret).toString(encoding);
      // The characters that encode the key's own bytes, whatever comes before and after it.
      base64.push(encoded.slice(Math.ceil((prefix.length * 4) / 3) + 1, -4));
    }
  }
  return [
    secret,
    secret.toUpperCase(),
    secret.toLowerCase(),
    encodeURIComponent(secret),
    encodeURIComponent(secret).toLowerCase(),
    ...base64,
    Buffer.from(`user:${secret}`).toString("base64").slice(0, -4),
  ];
}

/** Echoes the key it was sent every way a server might. */
function echo(request: IncomingMessage, response: ServerResponse, body: string): void {
  const url = request.url ?? "/";
  if (url.includes("/latin1")) {
    response.writeHead(401, { "content-type": "text/html; charset=iso-8859-1" });
    response.end(Buffer.from(`<h1>Cl\xe9 refus\xe9e : ${CANARY}</h1>`, "latin1"));
    return;
  }
  const echoes = {
    plain: CANARY,
    upper: CANARY.toUpperCase(),
    lower: CANARY.toLowerCase(),
    url: encodeURIComponent(CANARY),
    urlLower: encodeURIComponent(CANARY).toLowerCase(),
    base64: Buffer.from(CANARY).toString("base64"),
    base64url: Buffer.from(CANARY).toString("base64url"),
    basic: `Basic ${Buffer.from(`user:${CANARY}`).toString("base64")}`,
    embedded: Buffer.from(`xy{"key":"${CANARY}"}`).toString("base64"),
    request: { url, body, authorization: request.headers.authorization },
  };
  if (url.includes("stream")) {
    response.writeHead(200, { "content-type": "text/event-stream", "x-echo": CANARY });
    response.write(`data: ${JSON.stringify(echoes)}\n\n`);
    response.end("data: [DONE]\n\n");
    return;
  }
  response.writeHead(200, { "content-type": "application/json", "x-echo": CANARY });
  response.end(JSON.stringify(echoes));
}

beforeAll(async () => {
  upstream = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => echo(request, response, Buffer.concat(chunks).toString()));
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamURL = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/inference/v1`;
});
afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

/** Sends the key every way a client sends one, through the recorder at `baseURL`. */
async function sendEveryWay(baseURL: string, send: typeof fetch = fetch): Promise<void> {
  const query = encodeURIComponent(CANARY);
  const calls: Array<[string, RequestInit]> = [
    ["/models", { headers: { authorization: `Bearer ${CANARY}` } }],
    [`/models?api-key=${query}`, {}],
    [`/models?KEY=${query}&limit=2`, {}],
    [`/models?access_token=${query}`, {}],
    [`/models?apikey=${query}&api_key=${query}&token=${query}&auth=${query}`, {}],
    ["/models/x", { headers: { "x-api-key": CANARY } }],
    [
      "/models/y",
      { headers: { authorization: `Basic ${Buffer.from(`user:${CANARY}`).toString("base64")}` } },
    ],
    [
      "/chat/completions",
      {
        method: "POST",
        headers: { authorization: `Bearer ${CANARY}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: "m",
          messages: [{ role: "user", content: `key ${CANARY}` }],
        }),
      },
    ],
    [
      "/chat/completions?stream=1",
      { method: "POST", headers: { authorization: `Bearer ${CANARY}` }, body: "{}" },
    ],
    ["/latin1", { headers: { authorization: `Bearer ${CANARY}` } }],
  ];
  for (const [path, init] of calls) await (await send(`${baseURL}${path}`, init)).arrayBuffer();
}

/** What the cassette at `file` holds of the key: any form, in its text or its decoded bodies. */
function leaks(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const cassette = readCassette(file);
  const decoded = cassette.log.entries.flatMap((entry) => [
    ...(entry.response.content.encoding === "base64"
      ? [Buffer.from(entry.response.content.text ?? "", "base64").toString("latin1")]
      : []),
    ...(entry.request.postData?._encoding === "base64"
      ? [Buffer.from(entry.request.postData.text, "base64").toString("latin1")]
      : []),
  ]);
  const found = forms(CANARY).filter(
    (form) => text.includes(form) || decoded.some((body) => body.includes(form)),
  );
  if (text.toLowerCase().includes(CANARY.toLowerCase())) found.push("(any case)");
  if (scanCassette(cassette, [CANARY]).entries.length > 0) found.push("(found by scan)");
  return found;
}

describe("a key sent and echoed every way, recorded every way", () => {
  it("the forms looked for are really there: the upstream's answers hold each", async () => {
    const answers: string[] = [];
    const original = globalThis.fetch;
    await sendEveryWay(upstreamURL, async (input, init) => {
      const response = await original(input, init);
      answers.push(Buffer.from(await response.clone().arrayBuffer()).toString("latin1"));
      return response;
    });
    const all = answers.join("\n");
    expect(forms(CANARY).filter((form) => !all.includes(form))).toEqual([]);
  });

  it("startRecorder writes none of them", async () => {
    const file = join(dir, "recorder.har");
    const recorder = await startRecorder({ upstream: upstreamURL, cassette: file });
    await sendEveryWay(recorder.baseURL);
    await recorder.close();
    expect(readCassette(file).log.entries).toHaveLength(10);
    expect(leaks(file)).toEqual([]);
  });

  it("openCassette, recording all then new, writes none of them", async () => {
    const file = join(dir, "open.har");
    const all = await openCassette(file, {
      mode: "record-all",
      baseURL: upstreamURL,
      apiKey: CANARY,
    });
    await sendEveryWay(all.baseURL);
    await all.close();
    const again = await openCassette(file, {
      mode: "record-new",
      baseURL: upstreamURL,
      apiKey: CANARY,
    });
    await sendEveryWay(again.baseURL);
    await (
      await fetch(
        `${again.baseURL}/models?fresh=${encodeURIComponent(CANARY)}&key=${encodeURIComponent(CANARY)}`,
      )
    ).arrayBuffer();
    await again.close();
    expect(readCassette(file).log.entries.length).toBeGreaterThanOrEqual(11);
    expect(leaks(file)).toEqual([]);
  });

  it("the record command writes none of them", async () => {
    const file = join(dir, "command.har");
    const controller = new AbortController();
    const code = await runRecordCommand(["--upstream", upstreamURL, "--cassette", file, "--json"], {
      stdout: (text) => {
        void sendEveryWay(JSON.parse(text).baseURL as string).finally(() => controller.abort());
      },
      stderr: () => {},
      signal: controller.signal,
    });
    expect(code).toBe(0);
    expect(leaks(file)).toEqual([]);
  });
});
