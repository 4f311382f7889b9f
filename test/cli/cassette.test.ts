import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type CassetteEntry,
  emptyCassette,
  readCassette,
  serializeCassette,
} from "../../src/cassette/cassette.js";
import { entryOf } from "../../src/cassette/entry.js";
import { runCassetteCommand } from "../../src/cli/cassette.js";
import { main } from "../../src/cli/main.js";
import { createEmulator } from "../../src/emulator/index.js";
import { capture } from "./helpers.js";

const KEY = "sk-leaked-0123456789abcdefXYZ";
const OTHER = "the-env-key-98765";

afterEach(() => {
  vi.unstubAllEnvs();
});

const clean = (path = "/inference/v1/models", body = '{"data":[]}') =>
  entryOf({
    startedAt: 0,
    method: "GET",
    url: `https://host.example${path}`,
    requestHeaders: {},
    requestBody: new Uint8Array(),
    status: 200,
    statusText: "OK",
    responseHeaders: { "content-type": "application/json" },
    responseBody: new TextEncoder().encode(body),
    waitMs: 1,
    totalMs: 2,
  });

/** A cassette as an older recorder wrote it: a query key, and echoes of it, in clear. */
function leaky(): CassetteEntry[] {
  const query = clean(`/inference/v1/models?api-key=${KEY}`);
  query.request.url = `https://host.example/inference/v1/models?api-key=${KEY}`;
  query.request.queryString = [{ name: "api-key", value: KEY }];
  const latin1 = clean("/inference/v1/models?x=1");
  latin1.response.content.text = Buffer.from(`<p>Cl\xe9 ${KEY} refus\xe9e</p>`, "latin1").toString(
    "base64",
  );
  latin1.response.content.encoding = "base64";
  const header = clean("/inference/v1/models?x=2");
  header.response.headers.push({ name: "x-echo-authorization", value: `Bearer ${KEY}` });
  const basic = clean(
    "/inference/v1/models?x=3",
    `{"seen":"Basic ${Buffer.from(`me:${KEY}`).toString("base64")}","shout":"${KEY.toUpperCase()}"}`,
  );
  const env = clean("/inference/v1/models?x=4", `{"prompt":"${OTHER}"}`);
  return [query, latin1, header, basic, env];
}

function write(file: string, entries: CassetteEntry[]): void {
  const cassette = emptyCassette();
  cassette.log.entries.push(...entries);
  writeFileSync(file, serializeCassette(cassette));
}

describe("inference-service cassette", () => {
  it("is listed by the dispatcher", async () => {
    const { out } = await capture(main, ["--help"]);
    expect(out).toContain("cassette   look for secrets in cassettes");
  });

  it("scan finds a key in a query string, a header, a latin-1 body, a Basic credential and another case, names where but never the key, and exits 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cassette-cli-"));
    mkdirSync(join(dir, "nested"));
    write(join(dir, "clean.har"), [clean()]);
    write(join(dir, "nested", "leaky.har"), leaky());
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", OTHER);
    const { code, out, err } = await capture(runCassetteCommand, ["scan", dir]);
    expect(err).toBe("");
    expect(code).toBe(1);
    expect(out).toContain(`${join(dir, "clean.har")}: no secret found.`);
    expect(out).toContain(`${join(dir, "nested", "leaky.har")}: `);
    for (const place of [
      "entry 0: request.url, request.queryString[0].value",
      "entry 1: response.content.text",
      "entry 2: response.headers[1].value",
      "entry 3: response.content.text",
      "entry 4: response.content.text",
    ]) {
      expect(out).toContain(place);
    }
    expect(out).toContain("(sk-l…, 29 characters)");
    expect(out).not.toContain(KEY);
    expect(out).not.toContain(OTHER);
    expect(out).toContain("then rotate the keys");
    // A scan changes nothing.
    expect(readFileSync(join(dir, "nested", "leaky.har"), "utf8")).toContain(KEY);
  });

  it("redact rewrites the cassette without the secret in any encoding, and replay still matches", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cassette-cli-"));
    const file = join(dir, "leaky.har");
    write(file, leaky());
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", OTHER);
    const { code, out } = await capture(runCassetteCommand, ["redact", file]);
    expect(code).toBe(0);
    expect(out).toContain("now [redacted]");
    expect(out).toContain("Rotate every key that was written to a cassette");
    const text = readFileSync(file, "utf8");
    const forms = [
      KEY,
      KEY.toUpperCase(),
      encodeURIComponent(KEY),
      Buffer.from(KEY).toString("base64").slice(0, 24),
      OTHER,
    ];
    for (const form of forms) expect(text).not.toContain(form);
    const cassette = readCassette(file);
    const decoded = Buffer.from(cassette.log.entries[1]!.response.content.text!, "base64");
    expect(decoded.toString("latin1")).toBe("<p>Cl\xe9 [redacted] refus\xe9e</p>");
    expect(cassette.log.entries[3]!.response.content.text).toBe(
      '{"seen":"Basic [redacted]","shout":"[redacted]"}',
    );
    // The request sent with its key in the query matches its redacted recording.
    const replay = createEmulator({ replay: file });
    const response = await replay.fetch(`${replay.baseURL}/models?api-key=${KEY}`);
    expect(response.status).toBe(200);
    // Clean now.
    expect((await capture(runCassetteCommand, ["scan", file])).code).toBe(0);
  });

  it("looks for the values given with --secret, and refuses one too short", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cassette-cli-"));
    const file = join(dir, "named.har");
    write(file, [clean("/inference/v1/models", '{"customer":"Ada Lovelace"}')]);
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", "");
    expect((await capture(runCassetteCommand, ["scan", file])).code).toBe(0);
    const found = await capture(runCassetteCommand, ["scan", file, "--secret", "Ada Lovelace"]);
    expect(found.code).toBe(1);
    expect(found.out).toContain("a value you named (12 characters)");
    const short = await capture(runCassetteCommand, ["scan", file, "--secret", "Ada"]);
    expect(short.code).toBe(2);
    expect(short.err).toContain("--secret value 1 has fewer than 4 characters");
  });

  it("prune drops the recordings named, and refuses entries the cassette does not hold", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cassette-cli-"));
    const file = join(dir, "prune.har");
    write(
      file,
      [0, 1, 2, 3].map((n) => clean(`/inference/v1/models?n=${n}`)),
    );
    const missing = await capture(runCassetteCommand, ["prune", file, "--drop", "1,9"]);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain("it holds entries 0 to 3, not 9; nothing was dropped.");
    const { code, out } = await capture(runCassetteCommand, ["prune", file, "--drop", "1, 3"]);
    expect(code).toBe(0);
    expect(out).toBe(`${file}: dropped 2 of 4 recordings; 2 left.\n`);
    expect(readCassette(file).log.entries.map((e) => new URL(e.request.url).search)).toEqual([
      "?n=0",
      "?n=2",
    ]);
  });

  it.each([
    [[], "say what to do: scan, redact or prune"],
    [["clean"], 'unknown action "clean"; it is scan, redact or prune'],
    [["scan"], "scan needs a PATH"],
    [["prune", "x.har"], "prune needs --drop with the entry numbers to drop"],
    [["prune", "x.har", "--drop", "two"], 'such as --drop 3,4,7; got "two"'],
  ])("refuses %j: %s", async (argv, message) => {
    const { code, err } = await capture(runCassetteCommand, argv);
    expect(code).toBe(2);
    expect(err).toContain(message);
  });

  it("says which path it cannot find (exit 1)", async () => {
    const { code, err } = await capture(runCassetteCommand, ["scan", "/nowhere/at/all"]);
    expect(code).toBe(1);
    expect(err).toContain("/nowhere/at/all: no such file or folder");
  });
});
