import { afterEach, describe, expect, it, vi } from "vitest";
import { normalizeBaseURL } from "../../src/config/base_url.js";
import { ConfigurationError } from "../../src/errors/errors.js";
import { configurationError } from "../helpers/errors.js";

afterEach(() => vi.unstubAllEnvs());

describe("normalizeBaseURL", () => {
  it.each([
    ["https://host.example", "https://host.example/inference/v1"],
    ["https://host.example/", "https://host.example/inference/v1"],
    ["https://host.example/inference", "https://host.example/inference/v1"],
    ["https://host.example/inference/", "https://host.example/inference/v1"],
    ["https://host.example/inference/v1", "https://host.example/inference/v1"],
    ["https://host.example/inference/v1///", "https://host.example/inference/v1"],
    ["https://host.example/inference/v1/chat/completions", "https://host.example/inference/v1"],
    ["https://host.example/inference/v1/chat/completion", "https://host.example/inference/v1"],
    ["https://host.example/inference/v1/completions", "https://host.example/inference/v1"],
    ["https://host.example/inference/chat/completions", "https://host.example/inference/v1"],
    ["https://host.example/v1", "https://host.example/inference/v1"],
    ["https://host.example/v1/chat/completions", "https://host.example/inference/v1"],
    ["http://127.0.0.1:8080", "http://127.0.0.1:8080/inference/v1"],
    ["  https://host.example/inference/v1  ", "https://host.example/inference/v1"],
    ["https://host.example/gw/inference/v1", "https://host.example/gw/inference/v1"],
    ["https://host.example/gw", "https://host.example/gw/inference/v1"],
  ])("accepts %j as %j", (input, expected) => {
    expect(normalizeBaseURL(input)).toBe(expected);
  });

  it.each([
    ["https://host.example/inference/v2", /asks for API version v2/],
    ["https://host.example/inference/v2/chat/completions", /asks for API version v2/],
    ["https://host.example/v2", /asks for API version v2/],
    ["https://host.example/gw/v3/chat/completions", /asks for API version v3/],
    ["https://host.example//inference/v1", /empty path segment/],
    ["https://host.example/inference//v1", /empty path segment/],
    ["https://host.example/gw//inference", /empty path segment/],
    ["https://host.example/Inference/v1", /other letter case/],
    ["https://host.example/INFERENCE", /other letter case/],
    ["https://host.example/inference/V1", /other letter case/],
    ["https://host.example/V1", /other letter case/],
    ["https://host.example/inference/v1beta", /where …\/inference\/v1 is expected/],
    [
      "https://host.example/inference/latest/chat/completions",
      /where …\/inference\/v1 is expected/,
    ],
  ])("rejects %j instead of appending a second /inference/v1", (input, why) => {
    const error = configurationError(() => normalizeBaseURL(input));
    expect(error.option).toBe("baseURL");
    expect(error.message).toMatch(why);
    // What to write instead, and no section numbers in the message.
    expect(error.message).toContain("…/inference/v1");
    expect(error.message).not.toMatch(/§/);
  });

  it.each([
    ["127.0.0.1:8787"],
    ["localhost:8787"],
    ["host.example:8443/inference/v1"],
    ["host.example/inference/v1"],
    ["//host.example/inference/v1"],
  ])("says to add http:// or https:// to %j, which has no scheme", (input) => {
    const error = configurationError(() => normalizeBaseURL(input));
    expect(error.option).toBe("baseURL");
    expect(error.message).toMatch(
      new RegExp(
        `^\`baseURL\` has no scheme \\("${input.replace(/[.]/g, "\\.")}"\\): add http:// or https:// in front\\. `,
      ),
    );
  });

  it.each([
    ["not a url"],
    ["ftp://host.example/inference/v1"],
    ["file:///etc/passwd"],
    ["https://user:pass@host.example/inference/v1"],
    ["https://host.example/inference/v1?key=1"],
    ["https://host.example/inference/v1#frag"],
    ["https://host.example/inference/v1?"],
    [""],
    ["host.example/inference/v1"],
  ])("rejects %j with a ConfigurationError naming baseURL", (input) => {
    const error = (() => {
      try {
        normalizeBaseURL(input);
      } catch (e) {
        return e;
      }
    })();
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as ConfigurationError).option).toBe("baseURL");
    expect((error as Error).message).toMatch(/`baseURL`/);
  });
});
