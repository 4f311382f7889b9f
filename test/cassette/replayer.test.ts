import { describe, expect, it } from "vitest";
import { emptyCassette } from "../../src/cassette/cassette.js";
import { entryOf } from "../../src/cassette/entry.js";
import { MISS_CODE, missBody, Replayer } from "../../src/cassette/replayer.js";

const encode = (text: string) => new TextEncoder().encode(text);

function recorded(content: string, answer: string, events?: Array<{ time: number; text: string }>) {
  return entryOf({
    startedAt: 0,
    method: "POST",
    url: "https://host.example/inference/v1/chat/completions",
    requestHeaders: { "content-type": "application/json" },
    requestBody: encode(JSON.stringify({ model: "m", messages: [{ role: "user", content }] })),
    status: 200,
    statusText: "OK",
    responseHeaders: { "content-type": events ? "text/event-stream" : "application/json" },
    responseBody: events ?? encode(answer),
    waitMs: 40,
    totalMs: 90,
  });
}

function replayer(entries: ReturnType<typeof recorded>[], options = {}) {
  const cassette = emptyCassette();
  cassette.log.entries.push(...entries);
  return new Replayer(cassette, "c.har", options);
}

const ask = (content: string, extra: Record<string, unknown> = {}) => ({
  method: "POST",
  path: "/inference/v1/chat/completions",
  body: JSON.stringify({ messages: [{ content, role: "user" }], model: "m", ...extra }),
  headers: { authorization: "Bearer sk-whatever" },
});

describe("Replayer", () => {
  it("gives the n-th identical request the n-th recording, then says they are used up", () => {
    const r = replayer([recorded("hi", "first"), recorded("other", "x"), recorded("hi", "second")]);
    const texts = [r.answer(ask("hi")), r.answer(ask("hi"))].map((a) =>
      "hit" in a && "text" in a.hit.body ? a.hit.body.text : a,
    );
    expect(texts).toEqual(["first", "second"]);
    const third = r.answer(ask("hi"));
    expect(third).toEqual({
      miss: expect.stringContaining(
        'No recorded answer for POST /chat/completions (model "m") in cassette c.har: it holds 2 recordings of this request and all were already used',
      ),
    });
    r.rewind();
    expect(r.answer(ask("hi"))).toMatchObject({ hit: { index: 0 } });
  });

  it("names the nearest recorded request and what differs", () => {
    const r = replayer([
      recorded("What is the weather in Paris?", "a"),
      recorded("Convert 100 EUR", "b"),
    ]);
    const miss = r.answer(ask("What is the weather in Rome?"));
    expect("miss" in miss && miss.miss).toBe(
      'No recorded answer for POST /chat/completions (model "m") in cassette c.har. Nearest recorded: entry 0, POST /chat/completions (model "m"), which differs in body.messages[0].content: "What is the weather in Rome?" here, "What is the weather in Paris?" recorded.',
    );
    expect(replayer([]).answer(ask("x"))).toEqual({
      miss: expect.stringContaining("the cassette holds no entries"),
    });
  });

  it("shows a long prompt that differs late around its first difference, and gives no advice of its own", () => {
    const preamble = "Please consider this long preamble about refunds and policies. ".repeat(4);
    const r = replayer([recorded(`${preamble}How long do refunds take?`, "a")]);
    const miss = r.answer(ask(`${preamble}How long are refunds?`));
    expect("miss" in miss && miss.miss).toContain(
      'body.messages[0].content: … policies. How long are refunds?" here, … policies. How long do refunds take?" recorded.',
    );
    // How to record it is the error's hint: said once, by the package's error.
    expect("miss" in miss && miss.miss).not.toContain("Record it");
  });

  it("says how to replay again once a request's recordings were all used", () => {
    const r = replayer([recorded("hi", "first")]);
    r.answer(ask("hi"));
    expect(r.answer(ask("hi"))).toEqual({
      miss: expect.stringContaining(
        "it holds 1 recording of this request and it was already used (the n-th identical request gets the n-th recording, once per replay). To replay it again, start a new replay (a new emulator, or openCassette in each test file), or replay in a loop (inference-service emulator --replay FILE --loop, or the replay option loop: true).",
      ),
    });
  });

  it("in a loop, serves a request's recordings again from the first once all were used", () => {
    const r = replayer([recorded("hi", "first"), recorded("hi", "second")], { loop: true });
    const texts = [1, 2, 3, 4, 5].map(() => {
      const a = r.answer(ask("hi"));
      return "hit" in a && "text" in a.hit.body ? a.hit.body.text : a;
    });
    expect(texts).toEqual(["first", "second", "first", "second", "first"]);
  });

  it("only looks, with consume: false, and tells which recordings were never used", () => {
    const r = replayer([recorded("hi", "first"), recorded("other", "x"), recorded("hi", "second")]);
    expect(r.answer(ask("hi"), { consume: false })).toMatchObject({ hit: { index: 0 } });
    expect(r.unused().map((u) => u.index)).toEqual([0, 1, 2]);
    expect(r.answer(ask("hi"))).toMatchObject({ hit: { index: 0 } });
    expect(r.unused()).toEqual([
      { index: 1, request: 'POST /chat/completions (model "m")' },
      { index: 2, request: 'POST /chat/completions (model "m")' },
    ]);
  });

  it("matches a request sent with a key as a query parameter to its redacted recording, whatever the key", () => {
    const entry = entryOf({
      startedAt: 0,
      method: "GET",
      url: "https://host.example/inference/v1/models?api-key=sk-recorded-key-123&limit=5",
      requestHeaders: {},
      requestBody: new Uint8Array(),
      status: 200,
      statusText: "OK",
      responseHeaders: { "content-type": "application/json" },
      responseBody: encode('{"data":[]}'),
      waitMs: 1,
      totalMs: 2,
    });
    expect(entry.request.url).toContain("api-key=[redacted]");
    const r = replayer([entry, entry]);
    const get = (path: string) => ({ method: "GET", path, body: "", headers: {} });
    expect(r.answer(get("/inference/v1/models?api-key=sk-recorded-key-123&limit=5"))).toMatchObject(
      {
        hit: { status: 200 },
      },
    );
    expect(r.answer(get("/inference/v1/models?API-KEY=another-key&limit=5"))).toMatchObject({
      miss: expect.stringContaining("path: /models?API-KEY=[redacted]&limit=5 here"),
    });
    expect(r.answer(get("/inference/v1/models?api-key=another-key&limit=5"))).toMatchObject({
      hit: { index: 1 },
    });
  });

  it("matches a body that is not UTF-8 in its redacted form", () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("key=sk-body-secret-99")]);
    const entry = entryOf({
      startedAt: 0,
      method: "POST",
      url: "https://host.example/inference/v1/upload",
      requestHeaders: { authorization: "Bearer sk-body-secret-99" },
      requestBody: new Uint8Array(bytes),
      status: 200,
      statusText: "OK",
      responseHeaders: {},
      responseBody: encode("{}"),
      waitMs: 1,
      totalMs: 2,
    });
    expect(Buffer.from(entry.request.postData!.text, "base64").toString("latin1")).toContain(
      "key=[redacted]",
    );
    const r = replayer([entry]);
    expect(
      r.answer({
        method: "POST",
        path: "/inference/v1/upload",
        body: bytes.toString("base64"),
        encoding: "base64",
        headers: { authorization: "Bearer sk-body-secret-99" },
      }),
    ).toMatchObject({ hit: { index: 0 } });
  });

  it("ignores the listed fields", () => {
    const r = replayer([recorded("hi", "ok")], { ignore: ["user"] });
    expect(r.answer(ask("hi", { user: "someone-else" }))).toMatchObject({ hit: { status: 200 } });
  });

  it("answers at once by default, and with the recorded wait and event times when asked", () => {
    const events = [
      { time: 5, text: "data: 1\n\n" },
      { time: 25, text: "data: [DONE]\n\n" },
    ];
    const fast = replayer([recorded("hi", "", events)]).answer(ask("hi"));
    expect(fast).toMatchObject({
      hit: { waitMs: 0, body: { events: [{ time: 0 }, { time: 0 }] } },
    });
    const paced = replayer([recorded("hi", "", events)], { timing: "recorded" }).answer(ask("hi"));
    expect(paced).toMatchObject({ hit: { waitMs: 40, body: { events } } });
  });

  it("writes a miss as the service writes an error, with its own code", () => {
    expect(JSON.parse(missBody("why"))).toEqual({
      error: { code: MISS_CODE, message: "why", type: "invalid_request_error" },
    });
  });
});
