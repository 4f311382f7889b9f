import { describe, expect, it } from "vitest";
import { bodyText, EventSplitter, entryOf } from "../../src/cassette/entry.js";

const encode = (text: string) => new TextEncoder().encode(text);

describe("EventSplitter", () => {
  it("cuts events at their blank line, across chunks, each timed when its blank line came", () => {
    const splitter = new EventSplitter();
    splitter.push(encode('data: {"a"'), 1);
    splitter.push(encode(":1}\n"), 2);
    splitter.push(encode("\ndata: 2\r\n\r\nda"), 3);
    expect(splitter.end(4)).toEqual([
      { time: 3, text: 'data: {"a":1}\n\n' },
      { time: 3, text: "data: 2\r\n\r\n" },
      { time: 4, text: "da" },
    ]);
  });

  it("keeps a character split between chunks whole", () => {
    const bytes = encode("data: é\n\n");
    const splitter = new EventSplitter();
    splitter.push(bytes.slice(0, 7), 0);
    splitter.push(bytes.slice(7), 1);
    expect(splitter.end(2)).toEqual([{ time: 1, text: "data: é\n\n" }]);
  });
});

describe("entryOf", () => {
  const exchange = {
    startedAt: Date.UTC(2026, 0, 1),
    method: "POST",
    url: "https://host.example/inference/v1/completions?x=1",
    requestHeaders: {
      authorization: "Bearer sk-secret-1234",
      "service-name": "t.e",
      "content-type": "application/json",
      "user-agent": "OpenAI/JS 6",
      "x-stainless-os": "Linux",
    },
    requestBody: encode('{"prompt":"sk-secret-1234 leaked"}'),
    status: 429,
    statusText: "Too Many Requests",
    responseHeaders: {
      "content-type": "application/json",
      "retry-after": "2",
      date: "now",
      "x-gateway-request-id": "r-9",
    },
    responseBody: encode('{"error":{"message":"slow down sk-secret-1234"}}'),
    waitMs: 12.345,
    totalMs: 15.05,
  };

  it("keeps what selects behaviour and what a client reads, and redacts every secret", () => {
    const entry = entryOf(exchange);
    expect(entry.request.headers).toEqual([
      { name: "authorization", value: "[redacted]" },
      { name: "service-name", value: "t.e" },
      { name: "content-type", value: "application/json" },
    ]);
    expect(entry.request.postData).toEqual({
      mimeType: "application/json",
      text: '{"prompt":"[redacted] leaked"}',
    });
    expect(entry.request.queryString).toEqual([{ name: "x", value: "1" }]);
    expect(entry.response.headers).toEqual([
      { name: "content-type", value: "application/json" },
      { name: "retry-after", value: "2" },
      { name: "x-gateway-request-id", value: "r-9" },
    ]);
    expect(entry.response.content.text).toBe('{"error":{"message":"slow down [redacted]"}}');
    expect(entry.timings).toEqual({ send: 0, wait: 12.3, receive: 2.7 });
    expect(entry.startedDateTime).toBe("2026-01-01T00:00:00.000Z");
  });

  it("records a refused connection as status 0 with its code and no body", () => {
    const entry = entryOf({
      ...exchange,
      status: 0,
      statusText: "",
      responseHeaders: {},
      responseBody: new Uint8Array(),
      error: "ECONNREFUSED",
    });
    expect(entry.response).toMatchObject({ status: 0, _error: "ECONNREFUSED", bodySize: -1 });
    expect(entry.response.content.text).toBeUndefined();
  });

  it("records an ordinary custom header as it is, and its value inside the answer", () => {
    const entry = entryOf({
      ...exchange,
      requestHeaders: { ...exchange.requestHeaders, "x-team": "chat", "x-flag": "true" },
      responseBody: encode('{"reply":"hello chat","model":"emulator-chat","flag":true,"n":null}'),
    });
    expect(entry.request.headers).toContainEqual({ name: "x-team", value: "chat" });
    expect(entry.request.headers).toContainEqual({ name: "x-flag", value: "true" });
    expect(JSON.parse(entry.response.content.text!)).toEqual({
      reply: "hello chat",
      model: "emulator-chat",
      flag: true,
      n: null,
    });
  });

  it("redacts a value named in redact wherever it shows, a custom header's included", () => {
    const entry = entryOf(
      {
        ...exchange,
        requestHeaders: { ...exchange.requestHeaders, "x-tenant-secret-ish": "team-blue-77" },
        responseBody: encode('{"echo":"team-blue-77"}'),
      },
      ["team-blue-77"],
    );
    expect(entry.request.headers).toContainEqual({
      name: "x-tenant-secret-ish",
      value: "[redacted]",
    });
    expect(entry.response.content.text).toBe('{"echo":"[redacted]"}');
  });

  it("redacts a key sent as a query parameter in the URL, the query string and every echo of it", () => {
    const canary = "sk-query-canary-0123456789";
    const entry = entryOf({
      ...exchange,
      url: `https://host.example/inference/v1/completions?api-key=${canary}&x=1`,
      requestHeaders: { "content-type": "application/json" },
      requestBody: encode(`{"prompt":"my key is ${canary}"}`),
      responseHeaders: { "content-type": "text/event-stream", "x-echo": canary },
      responseBody: [
        { time: 1, text: `data: {"echo":"${canary}"}\n\n` },
        { time: 2, text: "data: [DONE]\n\n" },
      ],
    });
    expect(entry.request.url).toBe(
      "https://host.example/inference/v1/completions?api-key=[redacted]&x=1",
    );
    expect(entry.request.queryString).toEqual([
      { name: "api-key", value: "[redacted]" },
      { name: "x", value: "1" },
    ]);
    expect(JSON.stringify(entry)).not.toContain(canary);
    expect(entry.response.content._events![0]!.text).toBe('data: {"echo":"[redacted]"}\n\n');
    expect(entry.response.content.text).toBe(
      entry.response.content._events!.map((event) => event.text).join(""),
    );
  });

  it("redacts the key echoed in an answer that is not UTF-8, keeping it base64 and every other byte", () => {
    const page = Buffer.concat([
      Buffer.from("<h1>Cl\xe9 refus\xe9e: ", "latin1"),
      Buffer.from("sk-secret-1234"),
      Buffer.from("</h1>", "latin1"),
    ]);
    const entry = entryOf({
      ...exchange,
      responseHeaders: { "content-type": "text/html; charset=iso-8859-1" },
      responseBody: new Uint8Array(page),
    });
    expect(entry.response.content.encoding).toBe("base64");
    expect(Buffer.from(entry.response.content.text!, "base64").toString("latin1")).toBe(
      "<h1>Cl\xe9 refus\xe9e: [redacted]</h1>",
    );
    expect(entry.response.content.size).toBe(
      Buffer.from(entry.response.content.text!, "base64").byteLength,
    );
  });

  it("redacts the key echoed in another case, or inside a Basic credential", () => {
    const basic = Buffer.from("user:sk-secret-1234").toString("base64");
    const entry = entryOf({
      ...exchange,
      responseBody: encode(`{"a":"SK-SECRET-1234","b":"Basic ${basic}"}`),
    });
    expect(entry.response.content.text).toBe('{"a":"[redacted]","b":"Basic [redacted]"}');
  });

  it("redacts the upstream's user and password", () => {
    const entry = entryOf({
      ...exchange,
      url: "https://me:upstream-pass@host.example/inference/v1/completions",
      responseBody: encode('{"who":"upstream-pass"}'),
    });
    expect(entry.request.url).toBe(
      "https://%5Bredacted%5D:%5Bredacted%5D@host.example/inference/v1/completions",
    );
    expect(entry.response.content.text).toBe('{"who":"[redacted]"}');
  });

  it("keeps bytes that are not UTF-8 as base64", () => {
    expect(bodyText(new Uint8Array([0xff, 0x00]))).toEqual({ text: "/wA=", encoding: "base64" });
    expect(bodyText(encode("é"))).toEqual({ text: "é" });
  });
});
