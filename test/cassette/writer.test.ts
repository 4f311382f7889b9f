import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { emptyCassette, readCassette, serializeCassette } from "../../src/cassette/cassette.js";
import { entryOf } from "../../src/cassette/entry.js";
import { CassetteWriter, writeFileAtomically } from "../../src/cassette/writer.js";

const entry = (n: number) =>
  entryOf({
    startedAt: 0,
    method: "GET",
    url: `https://h.example/inference/v1/models?n=${n}`,
    requestHeaders: {},
    requestBody: new Uint8Array(),
    status: 200,
    statusText: "OK",
    responseHeaders: {},
    responseBody: new TextEncoder().encode("{}"),
    waitMs: 0,
    totalMs: 0,
  });

describe("CassetteWriter", () => {
  it("writes a valid cassette at once, creating its folder", () => {
    const file = join(mkdtempSync(join(tmpdir(), "writer-")), "deep", "c.har");
    new CassetteWriter(file, emptyCassette());
    expect(readCassette(file).log.entries).toEqual([]);
  });

  it("holds every added entry, in order, once flushed, and leaves no temporary file", async () => {
    const folder = mkdtempSync(join(tmpdir(), "writer-"));
    const file = join(folder, "c.har");
    const writer = new CassetteWriter(file, emptyCassette());
    for (let n = 0; n < 50; n++) writer.add(entry(n));
    await writer.flush();
    expect(readCassette(file).log.entries.map((e) => new URL(e.request.url).search)).toEqual(
      Array.from({ length: 50 }, (_, n) => `?n=${n}`),
    );
    expect(readdirSync(folder)).toEqual(["c.har"]);
    // Entry by entry, it writes exactly what serialising the whole cassette writes.
    const whole = emptyCassette();
    whole.log.entries.push(...Array.from({ length: 50 }, (_, n) => entry(n)));
    expect(readFileSync(file, "utf8")).toBe(serializeCassette(whole));
    expect(writer.size).toBe(50);
  });

  it("appends to a cassette that held entries, in order, byte for byte as a whole write", async () => {
    const folder = mkdtempSync(join(tmpdir(), "writer-"));
    const file = join(folder, "c.har");
    const start = emptyCassette();
    start.log.entries.push(entry(0), entry(1));
    const writer = new CassetteWriter(file, start);
    writer.add(entry(2));
    await writer.flush();
    writer.add(entry(3));
    writer.add(entry(4));
    await writer.flush();
    const whole = emptyCassette();
    whole.log.entries.push(...[0, 1, 2, 3, 4].map(entry));
    expect(readFileSync(file, "utf8")).toBe(serializeCassette(whole));
    expect(writer.size).toBe(5);
  });

  it("appends each entry in place, without rewriting what the file already holds", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "writer-")), "c.har");
    const writer = new CassetteWriter(file, emptyCassette());
    writer.add(entry(0));
    await writer.flush();
    // Mark the bytes written so far: a rewrite of the whole cassette would restore them.
    const marked = readFileSync(file, "utf8").replace(
      '"name": "langchain-inference-service"',
      '"name": "LANGCHAIN-INFERENCE-SERVICE"',
    );
    writeFileSync(file, marked);
    for (let n = 1; n < 20; n++) writer.add(entry(n));
    await writer.flush();
    const text = readFileSync(file, "utf8");
    expect(text).toContain('"name": "LANGCHAIN-INFERENCE-SERVICE"');
    expect(JSON.parse(text).log.entries).toHaveLength(20);
  });

  it("writes through a symbolic link to the file it names, which stays a link", async () => {
    const folder = mkdtempSync(join(tmpdir(), "writer-"));
    mkdirSync(join(folder, "shared"));
    const target = join(folder, "shared", "real.har");
    writeFileSync(target, serializeCassette(emptyCassette()));
    const link = join(folder, "link.har");
    symlinkSync(join("shared", "real.har"), link);
    const writer = new CassetteWriter(link, emptyCassette());
    writer.add(entry(1));
    await writer.flush();
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readCassette(target).log.entries).toHaveLength(1);
    writeFileAtomically(link, serializeCassette(emptyCassette()));
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readCassette(target).log.entries).toHaveLength(0);
    expect(readdirSync(join(folder, "shared"))).toEqual(["real.har"]);
  });

  it("leaves no temporary file behind when the cassette is a folder", () => {
    const folder = mkdtempSync(join(tmpdir(), "writer-"));
    mkdirSync(join(folder, "cassettes"));
    expect(() => new CassetteWriter(join(folder, "cassettes"), emptyCassette())).toThrow(
      /^cassette .*cassettes: cannot be written/,
    );
    expect(readdirSync(folder)).toEqual(["cassettes"]);
  });

  it("refuses a cassette it cannot write, naming it", () => {
    const file = join(mkdtempSync(join(tmpdir(), "writer-")), "c.har");
    new CassetteWriter(file, emptyCassette());
    // A folder that is a file.
    expect(() => new CassetteWriter(join(file, "c.har"), emptyCassette())).toThrow(
      /^cassette .*c\.har\/c\.har: cannot be written \(E(NOTDIR|EXIST)/,
    );
  });
});
