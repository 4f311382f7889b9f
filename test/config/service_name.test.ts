import { afterEach, describe, expect, it, vi } from "vitest";
import {
  buildServiceName,
  resolveServiceName,
  validateServiceName,
} from "../../src/config/service_name.js";
import { ConfigurationError } from "../../src/errors/errors.js";

afterEach(() => vi.unstubAllEnvs());

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
