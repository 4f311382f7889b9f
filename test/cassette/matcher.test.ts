import { describe, expect, it } from "vitest";
import { apiPath, canonical, differences, distance, matchKey } from "../../src/cassette/matcher.js";

const key = (
  body: string,
  extra: { path?: string; serviceName?: string; method?: string } = {},
  ignore?: string[],
) => matchKey({ method: "POST", path: "/inference/v1/chat/completions", body, ...extra }, ignore);

describe("matchKey", () => {
  it("matches JSON bodies regardless of key order and whitespace", () => {
    expect(key('{"model":"m","messages":[{"role":"user","content":"hi"}]}').id).toBe(
      key('{ "messages": [ { "content": "hi", "role": "user" } ],\n "model": "m" }').id,
    );
  });

  it("tells apart bodies that differ in a value, an array order or a field", () => {
    const base = key('{"a":[1,2],"b":"x"}').id;
    expect(key('{"a":[2,1],"b":"x"}').id).not.toBe(base);
    expect(key('{"a":[1,2],"b":"y"}').id).not.toBe(base);
    expect(key('{"a":[1,2],"b":"x","c":null}').id).not.toBe(base);
  });

  it("leaves out the fields it is told to ignore, nested and inside arrays too", () => {
    const ignore = ["user", "metadata.run_id", "messages.name"];
    expect(
      key(
        '{"user":"u1","metadata":{"run_id":"1","app":"a"},"messages":[{"name":"x","content":"c"}]}',
        {},
        ignore,
      ).id,
    ).toBe(
      key(
        '{"user":"u2","metadata":{"run_id":"2","app":"a"},"messages":[{"name":"y","content":"c"}]}',
        {},
        ignore,
      ).id,
    );
    expect(key('{"metadata":{"app":"a"}}', {}, ignore).id).not.toBe(
      key('{"metadata":{"app":"b"}}', {}, ignore).id,
    );
  });

  it("compares a body that is not JSON byte for byte, and base64 bodies as bytes", () => {
    expect(key("plain text").id).toBe(key("plain text").id);
    expect(key("plain text").id).not.toBe(key("plain text ").id);
    const bytes = matchKey({
      method: "POST",
      path: "/inference/v1/x",
      body: "//4=",
      encoding: "base64",
    });
    expect(bytes.body).toEqual({ bytes: "//4=", encoding: "base64" });
  });

  it("keys on method, path under /inference/v1 with its query, and Service-Name", () => {
    const base = key("{}");
    expect(key("{}", { method: "post" }).id).toBe(base.id);
    expect(key("{}", { path: "/proxy/inference/v1/chat/completions" }).id).toBe(base.id);
    expect(key("{}", { path: "/inference/v1/chat/completions?x=1" }).id).not.toBe(base.id);
    expect(key("{}", { serviceName: "t.e" }).id).not.toBe(base.id);
  });
});

describe("apiPath", () => {
  it.each([
    ["/inference/v1/chat/completions", "/chat/completions"],
    ["/gw/inference/v1/models?x=1", "/models?x=1"],
    ["/inference/v1", "/"],
    ["/elsewhere", "/elsewhere"],
  ])("%s → %s", (path, expected) => expect(apiPath(path)).toBe(expected));
});

describe("differences", () => {
  it("names each differing field with both values, the route first, at most three body fields", () => {
    const here = key('{"model":"m","messages":[{"content":"Hi"}],"a":1,"b":2,"c":3}', {
      serviceName: "t.a",
    });
    const recorded = key('{"model":"m","messages":[{"content":"Hello"}],"a":2,"b":3,"c":4,"d":5}', {
      serviceName: "t.b",
    });
    expect(differences(here, recorded)).toEqual([
      "Service-Name: t.a here, t.b recorded",
      "body.a: 1 here, 2 recorded",
      "body.b: 2 here, 3 recorded",
      "body.c: 3 here, 4 recorded",
    ]);
    expect(differences(key('{"x":[1]}'), key('{"x":[1,2]}'))).toEqual([
      "body.x: 1 items here, 2 recorded",
    ]);
    expect(differences(key('{"x":1}'), key("text"))).toEqual([
      "body: JSON here, not JSON recorded",
    ]);
  });

  it("ranks a different route as farther than any body difference", () => {
    const here = key('{"a":1}');
    expect(distance(here, key('{"a":2,"b":3}'))).toBeLessThan(
      distance(here, key('{"a":1}', { path: "/inference/v1/completions" })),
    );
  });
});

describe("canonical", () => {
  it("sorts keys at every depth", () => {
    expect(canonical({ b: 1, a: { d: [{ f: 1, e: 2 }], c: 3 } })).toBe(
      '{"a":{"c":3,"d":[{"e":2,"f":1}]},"b":1}',
    );
  });
});
