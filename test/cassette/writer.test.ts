import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { emptyCassette, readCassette, serializeCassette } from "../../src/cassette/cassette.js";
import { entryOf } from "../../src/cassette/entry.js";
import { CassetteWriter } from "../../src/cassette/writer.js";

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

  it("refuses a cassette it cannot write, naming it", () => {
    const file = join(mkdtempSync(join(tmpdir(), "writer-")), "c.har");
    new CassetteWriter(file, emptyCassette());
    // A folder that is a file.
    expect(() => new CassetteWriter(join(file, "c.har"), emptyCassette())).toThrow(
      /^cassette .*c\.har\/c\.har: cannot be written \(E(NOTDIR|EXIST)/,
    );
  });
});
