import { describe, expect, it } from "vitest";
import {
  recordedRequestHeaders,
  recordedResponseHeaders,
  scrub,
  secretsOf,
} from "../../src/cassette/redaction.js";

describe("secretsOf", () => {
  it("takes the key (whole header and bare token), credential-shaped and unknown headers, and named values", () => {
    const secrets = secretsOf(
      {
        authorization: "Bearer sk-live-123456",
        "x-api-key": "abc", // short, but a credential by its name
        "x-org-token": "org-98765",
        "content-type": "application/json",
        "service-name": "t.e",
      },
      ["person@example.com", "no"],
    );
    expect(secrets).toEqual(
      expect.arrayContaining([
        "Bearer sk-live-123456",
        "sk-live-123456",
        "abc",
        "org-98765",
        "person@example.com",
      ]),
    );
    expect(secrets).not.toContain("application/json");
    expect(secrets).not.toContain("t.e");
    expect(secrets).not.toContain("no");
    // Longest first, so a value that contains another is replaced whole.
    expect(secrets.indexOf("Bearer sk-live-123456")).toBeLessThan(
      secrets.indexOf("sk-live-123456"),
    );
  });
});

describe("scrub", () => {
  it("replaces every occurrence of every secret", () => {
    expect(scrub("a sk-1234 b sk-1234 c", ["sk-1234"])).toBe("a [redacted] b [redacted] c");
  });
});

describe("recorded headers", () => {
  it("keeps a request's behaviour headers, redacts the rest and leaves out telemetry and transport", () => {
    expect(
      recordedRequestHeaders(
        {
          authorization: "Bearer sk-live-123456",
          "service-name": "t.e",
          "x-emulator-fault": "429",
          "x-custom": "value-1234",
          "x-stainless-lang": "js",
          "sec-fetch-mode": "cors",
          "content-length": "12",
        },
        [],
      ),
    ).toEqual([
      { name: "authorization", value: "[redacted]" },
      { name: "service-name", value: "t.e" },
      { name: "x-emulator-fault", value: "429" },
      { name: "x-custom", value: "[redacted]" },
    ]);
  });

  it("keeps what a client reads of an answer, rate-limit token counts included, without date or length", () => {
    expect(
      recordedResponseHeaders(
        {
          "content-type": "application/json",
          "x-gateway-request-id": "r-1",
          "retry-after": "3",
          "x-ratelimit-remaining-tokens": "900",
          "x-session-token": "st-1",
          date: "Mon",
          "content-length": "2",
          "set-cookie": ["a=b"],
        },
        [],
      ),
    ).toEqual([
      { name: "content-type", value: "application/json" },
      { name: "x-gateway-request-id", value: "r-1" },
      { name: "retry-after", value: "3" },
      { name: "x-ratelimit-remaining-tokens", value: "900" },
      { name: "x-session-token", value: "[redacted]" },
    ]);
  });
});
