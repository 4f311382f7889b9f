import { beforeEach, describe, expect, it, vi } from "vitest";
import { CONNECTION_SETTINGS, cliWording } from "../../src/cli/wording.js";

beforeEach(() => {
  vi.stubEnv("INFERENCE_SERVICE_API_KEY", "");
  vi.stubEnv("INFERENCE_SERVICE_BASE_URL", "");
});

const HINT = "Set a valid, unexpired key with `apiKey` or INFERENCE_SERVICE_API_KEY.";

describe("cliWording", () => {
  it("names the flag when the value came from the command line", () => {
    const reword = cliWording(CONNECTION_SETTINGS, { apiKey: "sk-x", baseURL: "http://h" });
    expect(reword(HINT)).toBe("Set a valid, unexpired key with --api-key.");
    expect(reword("Set the `baseURL` option to http://h/inference/v1.")).toBe(
      "Set --base-url to http://h/inference/v1.",
    );
  });

  it("names the variable when the value came from the environment", () => {
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", "sk-from-env");
    const reword = cliWording(CONNECTION_SETTINGS, { apiKey: undefined });
    expect(reword(HINT)).toBe("Set a valid, unexpired key with INFERENCE_SERVICE_API_KEY.");
    expect(reword("(set `apiKey` or INFERENCE_SERVICE_API_KEY)")).toBe(
      "(set INFERENCE_SERVICE_API_KEY)",
    );
  });

  it("names both ways to give it when neither was used", () => {
    const reword = cliWording(CONNECTION_SETTINGS, {});
    expect(reword("Pass `apiKey` or set INFERENCE_SERVICE_API_KEY.")).toBe(
      "Pass --api-key or set INFERENCE_SERVICE_API_KEY.",
    );
    expect(reword("Check the model ID passed as `model`.")).toBe(
      "Check the model ID passed as --model.",
    );
  });

  it("leaves options the command has no flag for, and other text, alone", () => {
    const reword = cliWording(CONNECTION_SETTINGS, { apiKey: "k" });
    const text = "Raise `timeout`, or set `waitForReady`; `apiKeys` is not `apiKey`.";
    expect(reword(text)).toBe(
      "Raise `timeout`, or set `waitForReady`; `apiKeys` is not --api-key.",
    );
  });
});
