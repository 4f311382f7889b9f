import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Har } from "har-format";
import { describe, expect, it } from "vitest";
import {
  type Cassette,
  CassetteError,
  emptyCassette,
  parseCassette,
  readCassette,
  replaceableCassette,
  serializeCassette,
} from "../../src/cassette/cassette.js";
import { entryOf } from "../../src/cassette/entry.js";

const dir = mkdtempSync(join(tmpdir(), "cassette-"));

function entry() {
  return entryOf({
    startedAt: 0,
    method: "POST",
    url: "https://host.example/inference/v1/chat/completions",
    requestHeaders: { "content-type": "application/json" },
    requestBody: new TextEncoder().encode('{"model":"m"}'),
    status: 200,
    statusText: "OK",
    responseHeaders: { "content-type": "application/json", "x-gateway-request-id": "r-1" },
    responseBody: new TextEncoder().encode('{"ok":true}'),
    waitMs: 1,
    totalMs: 2,
  });
}

function withEntries(...entries: unknown[]): string {
  const cassette = emptyCassette();
  cassette.log.entries = entries as Cassette["log"]["entries"];
  return serializeCassette(cassette);
}

describe("the cassette format", () => {
  it("is a HAR 1.2 log that HAR's types accept", () => {
    const cassette = emptyCassette();
    cassette.log.entries.push(entry());
    // A compile-time check as much as a runtime one: the cassette is a Har.
    const har: Har = cassette;
    expect(har.log.version).toBe("1.2");
    expect(parseCassette(serializeCassette(cassette), "c.har")).toEqual(cassette);
  });

  it("writes one header per line, indented, so that a diff shows what changed", () => {
    const text = withEntries(entry());
    expect(text).toContain(
      '\n            {\n              "name": "x-gateway-request-id",\n              "value": "r-1"\n            }',
    );
    expect(text.endsWith("}\n")).toBe(true);
  });
});

describe("readCassette refuses what it cannot replay, naming the file and the place", () => {
  const refuse = (text: string) => () => parseCassette(text, "tests/c.har");

  it("a missing file, saying how to record it", () => {
    expect(() => readCassette(join(dir, "none.har"))).toThrow(
      /^cassette .*none\.har: no such file\. Record it first/,
    );
  });

  it("a directory", () => {
    mkdirSync(join(dir, "folder.har"));
    expect(() => readCassette(join(dir, "folder.har"))).toThrow(/folder\.har: is a directory/);
  });

  it("JSON that does not parse, with its line and column", () => {
    expect(refuse('{\n  "log": {\n    "version": "1.2",\n  }\n}')).toThrow(
      /^cassette tests\/c\.har: is not valid JSON: line 4, column 3: /,
    );
    expect(refuse("")).toThrow("cassette tests/c.har: is not valid JSON: the file is empty");
  });

  it("a file that is not HAR, or another HAR version", () => {
    expect(refuse("[]")).toThrow('is not a HAR file: it has no "log" object at the top');
    expect(refuse('{"log":{"version":"1.1","entries":[]}}')).toThrow(
      'is HAR version "1.1"; this package reads HAR "1.2" cassettes',
    );
  });

  it("an unknown cassette version, or none", () => {
    expect(refuse('{"log":{"version":"1.2","_cassetteVersion":2,"entries":[]}}')).toThrow(
      /is of cassette version 2, which this version of langchain-inference-service \(.*\) does not know \(it reads version 1\)/,
    );
    expect(refuse('{"log":{"version":"1.2","entries":[]}}')).toThrow(
      'has no "_cassetteVersion" in its log',
    );
  });

  it("a malformed entry, by its index, its line and the field", () => {
    const bad = { ...entry(), response: { ...entry().response, status: "200" } };
    const text = withEntries(entry(), bad);
    expect(refuse(text)).toThrow(
      /^cassette tests\/c\.har: entry 1 \(log\.entries\[1\], line \d+\): response\.status: /,
    );
    // The line named is where entry 1 opens.
    const line = Number(
      /line (\d+)/.exec(
        (() => {
          try {
            refuse(text)();
          } catch (e) {
            return (e as Error).message;
          }
          return "";
        })(),
      )![1],
    );
    const lines = text.split("\n");
    expect(lines[line - 1]).toBe("      {");
    expect(lines.slice(0, line - 1).filter((l) => l === "      {")).toHaveLength(1);
  });

  it("a stream whose text and events disagree", () => {
    const stream = entry();
    stream.response.content._events = [{ time: 0, text: "data: 1\n\n" }];
    stream.response.content.text = "data: 2\n\n";
    expect(refuse(withEntries(stream))).toThrow(
      "entry 0 (log.entries[0], line 10): response.content.text differs from its _events joined",
    );
  });

  it.each([50, 0.5, 100, 101, 199, 600, 999, -1, 200.5])(
    "a status replay cannot send (%s), naming the entry and the field",
    (status) => {
      const bad = entry();
      bad.response.status = status;
      expect(refuse(withEntries(entry(), bad))).toThrow(
        new RegExp(
          `^cassette tests/c\\.har: entry 1 \\(log\\.entries\\[1\\], line \\d+\\): response\\.status \\(${String(status).replace(".", "\\.")}\\): must be an HTTP status from 200 to 599 \\(or 0: no answer, the connection failed\\), which is what a replay can send$`,
        ),
      );
    },
  );

  it.each([0, 200, 204, 304, 429, 599])("a status replay can send (%s)", (status) => {
    const ok = entry();
    ok.response.status = status;
    expect(parseCassette(withEntries(ok), "c.har").log.entries[0]!.response.status).toBe(status);
  });

  it.each([
    ["a line break", "x-team", "chat\r\nx-injected: 1"],
    ["a control character", "x-team", "chat\u0000"],
    ["a character beyond latin-1", "x-team", "chat \u20ac"],
  ])(
    "a response header value holding %s, naming the header, not its value",
    (_what, name, value) => {
      const bad = entry();
      bad.response.headers.push({ name, value });
      const text = withEntries(bad);
      expect(refuse(text)).toThrow(
        'entry 0 (log.entries[0], line 10): response.headers[2].value (header "x-team"): holds a line break, another control character or a character beyond latin-1, which an HTTP header cannot carry',
      );
      expect(refuse(text)).not.toThrow(value);
    },
  );

  it.each(["x team", "x-team:", "", "caf\u00e9"])(
    "a response header name HTTP refuses (%j)",
    (name) => {
      const bad = entry();
      bad.response.headers.push({ name, value: "v" });
      expect(refuse(withEntries(bad))).toThrow(
        "response.headers[2].name: is not a header name HTTP allows",
      );
    },
  );

  it("throws a CassetteError that carries the file", () => {
    try {
      readCassette(join(dir, "none.har"));
    } catch (error) {
      expect(error).toBeInstanceOf(CassetteError);
      expect((error as CassetteError).file).toBe(join(dir, "none.har"));
    }
    writeFileSync(join(dir, "ok.har"), withEntries(entry()));
    expect(readCassette(join(dir, "ok.har")).log.entries).toHaveLength(1);
  });
});

describe("replaceableCassette", () => {
  it("counts the entries of a cassette, or of an empty file; a missing file is none", () => {
    writeFileSync(join(dir, "two.har"), withEntries(entry(), entry()));
    writeFileSync(join(dir, "empty.har"), "");
    expect(replaceableCassette(join(dir, "two.har"))).toBe(2);
    expect(replaceableCassette(join(dir, "empty.har"))).toBe(0);
    expect(replaceableCassette(join(dir, "absent.har"))).toBeUndefined();
  });

  it("refuses a file that is not a cassette, and a folder, naming them", () => {
    writeFileSync(join(dir, "package.json"), '{"name":"app","version":"1.0.0"}');
    expect(() => replaceableCassette(join(dir, "package.json"))).toThrow(
      `cassette ${join(dir, "package.json")}: exists and is not a cassette (no HAR log with entries), so recording will not overwrite it`,
    );
    writeFileSync(join(dir, "notes.txt"), "my notes");
    expect(() => replaceableCassette(join(dir, "notes.txt"))).toThrow(CassetteError);
    mkdirSync(join(dir, "folder.har"), { recursive: true });
    expect(() => replaceableCassette(join(dir, "folder.har"))).toThrow(
      "is a directory, not a cassette file",
    );
  });
});
