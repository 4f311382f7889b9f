import { describe, expect, it } from "vitest";
import {
  credentialQueryName,
  Redactor,
  recordedRequestHeaders,
  recordedResponseHeaders,
  redactValuesProblem,
  secretsOf,
} from "../../src/cassette/redaction.js";

const KEY = "sk-live-0123456789abcdef";

describe("secretsOf", () => {
  it("takes credential headers (whole and after their scheme), key-shaped query parameters, the URL's user info and named values", () => {
    const basic = Buffer.from("user-1:pass-word-99").toString("base64");
    const secrets = secretsOf({
      headers: {
        authorization: `Bearer ${KEY}`,
        "x-upstream": `Basic ${basic}`,
        "x-api-key": "abcd-key",
        "x-org-token": "org-98765",
        "content-type": "application/json",
        "service-name": "t.e",
        "x-team": "chat",
        "idempotency-key": "idem-12345",
      },
      url: "https://me:url-pass-1@host.example/inference/v1/chat?Api-Key=q-key-1&access_token=q-token-2&model=m&KEY=q-key-3",
      named: ["person@example.com"],
    });
    expect(secrets).toEqual(
      expect.arrayContaining([
        `Bearer ${KEY}`,
        KEY,
        `Basic ${basic}`,
        basic,
        "user-1:pass-word-99",
        "pass-word-99",
        "abcd-key",
        "org-98765",
        "q-key-1",
        "q-token-2",
        "q-key-3",
        "url-pass-1",
        "person@example.com",
      ]),
    );
    // A custom header is no credential: only the user knows, and names it in `redact`.
    for (const kept of ["application/json", "t.e", "chat", "idem-12345", "m"]) {
      expect(secrets).not.toContain(kept);
    }
    // Longest first, so a value that contains another is replaced whole.
    expect(secrets.indexOf(`Bearer ${KEY}`)).toBeLessThan(secrets.indexOf(KEY));
  });

  it("leaves out values shorter than four characters and values already redacted", () => {
    expect(
      secretsOf({ headers: { "x-api-key": "abc", authorization: "Bearer [redacted]" } }),
    ).toEqual([]);
  });

  it.each([
    "key",
    "KEY",
    "api-key",
    "api_key",
    "apikey",
    "ApiKey",
    "access_token",
    "token",
    "auth",
    "x-auth",
    "sig",
    "secret",
    "password",
  ])("counts the query parameter %s as a key", (name) => {
    expect(credentialQueryName(name)).toBe(true);
  });

  it.each(["model", "keyword", "author", "tokens", "limit", "q"])(
    "does not count the query parameter %s as a key",
    (name) => {
      expect(credentialQueryName(name)).toBe(false);
    },
  );
});

describe("Redactor", () => {
  const redactor = new Redactor([KEY]);

  it.each([
    ["as written", `key ${KEY} end`],
    ["in upper case", `key ${KEY.toUpperCase()} end`],
    ["JSON-escaped", `{"k":${JSON.stringify(KEY)}}`],
    ["base64", `b64 ${Buffer.from(KEY).toString("base64")} end`],
    ["base64url", `b64 ${Buffer.from(KEY).toString("base64url")} end`],
    [
      "inside a Basic credential",
      `Authorization: Basic ${Buffer.from(`user:${KEY}`).toString("base64")}`,
    ],
    [
      "inside longer base64, at any alignment",
      `blob ${Buffer.from(`xy{"key":"${KEY}"}`).toString("base64")} end`,
    ],
  ])("hides the key %s", (_how, text) => {
    const out = redactor.text(text);
    expect(out).toContain("[redacted]");
    expect(out.toLowerCase()).not.toContain(KEY.toLowerCase());
    for (const form of [
      Buffer.from(KEY).toString("base64").slice(0, 16),
      Buffer.from(KEY).toString("base64url").slice(0, 16),
    ]) {
      expect(out).not.toContain(form);
    }
  });

  it("hides a key with characters URL-encoding changes, in its encoded form", () => {
    const odd = new Redactor(["k3y/with spaces+plus"]);
    expect(odd.text(`?q=${encodeURIComponent("k3y/with spaces+plus")}`)).toBe("?q=[redacted]");
    expect(odd.text("?q=k3y%2Fwith+spaces%2Bplus")).toBe("?q=[redacted]");
  });

  it("leaves text without secrets as it is, and does nothing without secrets", () => {
    const text = "An ordinary answer, with words such as Authorization and base64ish runs.";
    expect(redactor.text(text)).toBe(text);
    expect(new Redactor([]).text(`a ${KEY}`)).toBe(`a ${KEY}`);
  });

  it("redacts bytes that are not UTF-8 as latin-1, keeping every other byte", () => {
    const page = Buffer.concat([
      Buffer.from("<p>Caf\xe9: cl\xe9 ", "latin1"),
      Buffer.from(KEY),
      Buffer.from(" refus\xe9e</p>", "latin1"),
    ]);
    expect(redactor.bytes(page).toString("latin1")).toBe(
      "<p>Caf\xe9: cl\xe9 [redacted] refus\xe9e</p>",
    );
    const stored = redactor.body({ text: page.toString("base64"), encoding: "base64" as const });
    expect(stored.encoding).toBe("base64");
    expect(Buffer.from(stored.text, "base64").toString("latin1")).toContain("[redacted]");
  });

  it("redacts a key-shaped query parameter by its name, whatever its value, and secrets elsewhere in the URL", () => {
    const none = new Redactor(secretsOf({ url: "/inference/v1/models?Key=abc1&x=1" }));
    expect(none.url("/inference/v1/models?Key=abc1&x=1")).toBe(
      "/inference/v1/models?Key=[redacted]&x=1",
    );
    // Short values too: the name says it is a key.
    expect(new Redactor([]).url("/m?api_key=ab&access_token=&q=ok")).toBe(
      "/m?api_key=[redacted]&access_token=&q=ok",
    );
    expect(redactor.url(`/keys/${KEY}?echo=${KEY}`)).toBe("/keys/[redacted]?echo=[redacted]");
  });

  it("reads a credential header as [redacted], and any other header with its secrets replaced", () => {
    expect(redactor.header("Authorization", "Bearer x")).toBe("[redacted]");
    expect(redactor.header("x-forward", "Bearer abc")).toBe("[redacted]");
    expect(redactor.header("x-team", "chat")).toBe("chat");
    expect(redactor.header("x-echo", `was ${KEY}`)).toBe("was [redacted]");
  });
});

describe("recorded headers", () => {
  it("keeps a request's headers as sent, custom ones included, and leaves out telemetry and transport", () => {
    expect(
      recordedRequestHeaders({
        authorization: "Bearer sk-live-123456",
        "service-name": "t.e",
        "x-emulator-fault": "429",
        "x-team": "chat",
        "x-stainless-lang": "js",
        "sec-fetch-mode": "cors",
        "content-length": "12",
      }),
    ).toEqual([
      { name: "authorization", value: "Bearer sk-live-123456" },
      { name: "service-name", value: "t.e" },
      { name: "x-emulator-fault", value: "429" },
      { name: "x-team", value: "chat" },
    ]);
  });

  it("keeps what a client reads of an answer, rate-limit token counts included, without date or length", () => {
    expect(
      recordedResponseHeaders({
        "content-type": "application/json",
        "x-gateway-request-id": "r-1",
        "retry-after": "3",
        "x-ratelimit-remaining-tokens": "900",
        date: "Mon",
        "content-length": "2",
        "set-cookie": ["a=b"],
      }),
    ).toEqual([
      { name: "content-type", value: "application/json" },
      { name: "x-gateway-request-id", value: "r-1" },
      { name: "retry-after", value: "3" },
      { name: "x-ratelimit-remaining-tokens", value: "900" },
    ]);
  });
});

describe("redactValuesProblem", () => {
  it("refuses a value shorter than four characters, by its place and length, never its value", () => {
    const problem = redactValuesProblem(["long-enough", "ab1"], (i) => `redact[${i}]`);
    expect(problem).toMatch(/^redact\[1\] has 3 characters; a value to redact needs at least 4/);
    expect(problem).not.toContain("ab1");
    expect(redactValuesProblem(["abcd"], (i) => `redact[${i}]`)).toBeUndefined();
  });
});
