import { describe, expect, it } from "vitest";
import { REDACTED, redactCallOptions, secretHeaderValues } from "../../src/utils/secrets.js";

describe("secretHeaderValues", () => {
  it("takes every value but the protocol's own, and the token of a Bearer header", () => {
    expect(
      secretHeaderValues({
        Authorization: "Bearer sk-key-0001",
        "X-Org-Token": "hdr-1234",
        "Content-Type": "application/json",
        "User-Agent": "OpenAI/JS 7.57.0",
        "X-Stainless-OS": "Linux",
        "Service-Name": "tenant.job",
        "X-Client-Request-Id": "mine-1",
        "X-Emulator-Fault": "pre_consume_token_quota_failed",
        "X-Short": "abc",
        "X-Null": null,
      }),
    ).toEqual(["Bearer sk-key-0001", "sk-key-0001", "hdr-1234"]);
  });

  it("reads Headers, pairs and records alike, and nothing else", () => {
    const expected = ["hdr-1234"];
    expect(secretHeaderValues(new Headers({ "x-org-token": "hdr-1234" }))).toEqual(expected);
    expect(secretHeaderValues([["X-Org-Token", "hdr-1234"]])).toEqual(expected);
    expect(secretHeaderValues(undefined)).toEqual([]);
    expect(secretHeaderValues("hdr-1234")).toEqual([]);
  });
});

describe("redactCallOptions", () => {
  it("replaces secret per-call header values and leaves the rest of the options alone", () => {
    const options = {
      tags: ["t"],
      options: { timeout: 5, headers: { "X-Org-Token": "hdr-1234", "Content-Type": "text/plain" } },
    };
    expect(redactCallOptions(options)).toEqual({
      tags: ["t"],
      options: { timeout: 5, headers: { "X-Org-Token": REDACTED, "Content-Type": "text/plain" } },
    });
    // The options sent are untouched.
    expect(options.options.headers["X-Org-Token"]).toBe("hdr-1234");
  });

  it("returns the same object when there is nothing to hide", () => {
    const options = { options: { headers: { "Content-Type": "text/plain" } } };
    expect(redactCallOptions(options)).toBe(options);
    expect(redactCallOptions(undefined)).toBeUndefined();
  });
});
