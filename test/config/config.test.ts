import { afterEach, describe, expect, it, vi } from "vitest";
import {
  buildServiceName,
  normalizeBaseURL,
  resolveApiKey,
  resolveBaseURL,
  resolveServiceName,
  validateServiceName,
} from "../../src/config/config.js";
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
      /^`INFERENCE_SERVICE_API_KEY` contains a line break/,
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

describe("validateServiceName", () => {
  it("accepts <TENANT_ID>.<JOB_ALIAS_NAME>", () => {
    expect(validateServiceName("tenant-1.my_job")).toBe("tenant-1.my_job");
    expect(buildServiceName("t1", "job")).toBe("t1.job");
  });

  it.each([
    "",
    ".",
    "nodot",
    "a.b.c",
    ".job",
    "tenant.",
    "ten ant.job",
    "tenant.job\r\nX-Evil: 1",
    "tenant.jo\tb",
    "tenant.job\u00a0",
    "tenänt.job",
  ])("rejects %j", (value) => {
    expect(() => validateServiceName(value)).toThrow(ConfigurationError);
  });

  it("rejects a part that contains a dot when built from parts", () => {
    expect(() => buildServiceName("a.b", "job")).toThrow(/`tenantId` must not contain a dot/);
  });
});

describe("resolveServiceName", () => {
  it("takes serviceName, else tenantId and jobAlias, else the env variables", () => {
    vi.stubEnv("INFERENCE_SERVICE_TENANT_ID", "t-env");
    vi.stubEnv("INFERENCE_SERVICE_JOB_ALIAS", "a-env");
    expect(resolveServiceName({ serviceName: "t.a" })).toEqual({
      serviceName: "t.a",
      tenantId: "t",
      jobAlias: "a",
    });
    expect(resolveServiceName({ tenantId: "t1", jobAlias: "a1" }).serviceName).toBe("t1.a1");
    expect(resolveServiceName({}).serviceName).toBe("t-env.a-env");
  });

  it("rejects a serviceName that disagrees with tenantId or jobAlias", () => {
    expect(() => resolveServiceName({ serviceName: "t.a", tenantId: "other" })).toThrow(
      /disagrees/,
    );
  });

  it("names the missing part, or gives undefined when nothing is configured and it is optional", () => {
    vi.stubEnv("INFERENCE_SERVICE_TENANT_ID", "");
    vi.stubEnv("INFERENCE_SERVICE_JOB_ALIAS", "");
    expect(() => resolveServiceName({ tenantId: "t" })).toThrow(/`jobAlias` not found/);
    expect(resolveServiceName({}, { required: false })).toBeUndefined();
    expect(() => resolveServiceName({ jobAlias: "a" }, { required: false })).toThrow(
      /`tenantId` not found/,
    );
  });
});
