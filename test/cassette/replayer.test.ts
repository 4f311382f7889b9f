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
      'No recorded answer for POST /chat/completions (model "m") in cassette c.har. Nearest recorded: entry 0, POST /chat/completions (model "m"), which differs in body.messages[0].content: "What is the weather in Rome?" here, "What is the weather in Paris?" recorded. Record it (INFERENCE_SERVICE_RECORD=new with the testing helper, or inference-service record --mode new), or change the request back.',
    );
    expect(replayer([]).answer(ask("x"))).toEqual({
      miss: expect.stringContaining("the cassette holds no entries"),
    });
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
