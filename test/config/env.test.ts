import { afterEach, describe, expect, it, vi } from "vitest";
import { resolveApiKey } from "../../src/config/api_key.js";
import { resolveBaseURL } from "../../src/config/base_url.js";
import { resolveServiceName } from "../../src/config/service_name.js";
import { ConfigurationError } from "../../src/errors/errors.js";
import { configurationError } from "../helpers/errors.js";

afterEach(() => vi.unstubAllEnvs());

describe("resolveApiKey / resolveBaseURL", () => {
  it("reads INFERENCE_SERVICE_* and never OpenAI's variables", () => {
    vi.stubEnv("OPENAI_API_KEY", "sk-openai");
    vi.stubEnv("OPENAI_BASE_URL", "https://api.openai.com/v1");
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", "");
    vi.stubEnv("INFERENCE_SERVICE_BASE_URL", "");
    expect(() => resolveApiKey(undefined)).toThrow(/INFERENCE_SERVICE_API_KEY/);
    expect(() => resolveBaseURL(undefined)).toThrow(/INFERENCE_SERVICE_BASE_URL/);
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", "sk-env");
    vi.stubEnv("INFERENCE_SERVICE_BASE_URL", "https://env.example");
    expect(resolveApiKey(undefined)).toBe("sk-env");
    expect(resolveBaseURL(undefined)).toBe("https://env.example/inference/v1");
  });

  it("prefers the option over the environment", () => {
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", "sk-env");
    expect(resolveApiKey("sk-option")).toBe("sk-option");
  });

  it("names the env variable when the env value is the bad one", () => {
    vi.stubEnv("INFERENCE_SERVICE_BASE_URL", "ftp://x");
    expect(() => resolveBaseURL(undefined)).toThrow(/`INFERENCE_SERVICE_BASE_URL` must use http/);
  });

  it("rejects a key with a line break, which could smuggle a header", () => {
    expect(() => resolveApiKey("sk-1\r\nX-Evil: 1")).toThrow(ConfigurationError);
  });

  it("trims every variable the same way: spaces, a pasted line break, a BOM, a no-break space", () => {
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", "\ufeff sk-env-1\r\n");
    vi.stubEnv("INFERENCE_SERVICE_BASE_URL", "\u00a0https://env.example/inference/v1\n");
    vi.stubEnv("INFERENCE_SERVICE_TENANT_ID", " t-env\n");
    vi.stubEnv("INFERENCE_SERVICE_JOB_ALIAS", "\ta-env\r\n");
    expect(resolveApiKey(undefined)).toBe("sk-env-1");
    expect(resolveBaseURL(undefined)).toBe("https://env.example/inference/v1");
    expect(resolveServiceName({}).serviceName).toBe("t-env.a-env");
  });

  it("names the variable a bad value came from, for every variable", () => {
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", "sk-1\nX-Evil: 1");
    vi.stubEnv("INFERENCE_SERVICE_BASE_URL", "https://env.example/inference/v2");
    vi.stubEnv("INFERENCE_SERVICE_TENANT_ID", "t env");
    vi.stubEnv("INFERENCE_SERVICE_JOB_ALIAS", "job");
    expect(configurationError(() => resolveApiKey(undefined)).message).toMatch(
      /^`INFERENCE_SERVICE_API_KEY` has a line break \(U\+000A\) at character 5 of the key/,
    );
    expect(configurationError(() => resolveBaseURL(undefined)).message).toMatch(
      /^`INFERENCE_SERVICE_BASE_URL` asks for API version v2/,
    );
    expect(configurationError(() => resolveServiceName({}))).toMatchObject({
      option: "tenantId",
      envVar: "INFERENCE_SERVICE_TENANT_ID",
      message: expect.stringMatching(/^`INFERENCE_SERVICE_TENANT_ID` may only contain/),
    });
  });
});
