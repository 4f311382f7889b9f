/** @module The `Service-Name` header of a dedicated endpoint: checked, built from its parts, resolved from options and env. */
import { ENV } from "../constants.js";
import { ConfigurationError } from "../errors/errors.js";
import { readEnv } from "./env.js";

// A part is printable ASCII without spaces or dots; this also rules out CR/LF header smuggling.
const SERVICE_NAME_PART = /^[\x21-\x2d\x2f-\x7e]+$/;

/**
 * Checks a `Service-Name` value: `<TENANT_ID>.<JOB_ALIAS_NAME>`, one dot, both parts non-empty,
 * no whitespace, control or non-ASCII characters (docs/service-contract.md#dedicated-endpoints, rule 2). Returns it unchanged when valid.
 */
export function validateServiceName(value: unknown, option = "serviceName"): string {
  // Only strings are shown: JSON.stringify throws on a BigInt or a circular object.
  const shown = typeof value === "string" ? JSON.stringify(value) : typeof value;
  const fail = (why: string): never => {
    throw new ConfigurationError(
      option,
      `\`${option}\` ${why}: got ${shown}. Service-Name must be <TENANT_ID>.<JOB_ALIAS_NAME> — the tenant ID from the console sidebar, one dot, the endpoint's job alias (or set ${ENV.tenantId} and ${ENV.jobAlias}).`,
    );
  };
  if (typeof value !== "string") return fail("must be a string");
  const parts = value.split(".");
  if (parts.length !== 2) return fail(`must contain exactly one dot, found ${parts.length - 1}`);
  const [tenant = "", alias = ""] = parts;
  if (tenant === "") return fail("has an empty tenant ID");
  if (alias === "") return fail("has an empty job alias name");
  if (!SERVICE_NAME_PART.test(tenant) || !SERVICE_NAME_PART.test(alias)) {
    return fail("may only contain printable ASCII without spaces or control characters");
  }
  return value;
}

/** The env variable each part of a Service-Name was read from, when it was (errors name it). */
export interface ServiceNameSources {
  tenantId?: string;
  jobAlias?: string;
}

/**
 * Builds the Service-Name from its parts, validating each part on its own: one dot between them,
 * none inside, no empty part, printable ASCII only (docs/service-contract.md#dedicated-endpoints, rule 2). The error names the part's
 * option (`tenantId`, `jobAlias`) and, when it came from the environment, its variable.
 */
export function buildServiceName(
  tenantId: string,
  jobAlias: string,
  sources: ServiceNameSources = {},
): string {
  for (const [option, part, source] of [
    ["tenantId", tenantId, sources.tenantId],
    ["jobAlias", jobAlias, sources.jobAlias],
  ] as const) {
    const fail = (why: string): never => {
      throw new ConfigurationError(
        option,
        `\`${source ?? option}\` ${why}: got ${JSON.stringify(part)}. Service-Name is <TENANT_ID>.<JOB_ALIAS_NAME> with exactly one dot — the tenant ID from the console sidebar, then the endpoint's job alias.`,
        option === "tenantId" ? ENV.tenantId : ENV.jobAlias,
      );
    };
    if (part.includes(".")) fail("must not contain a dot");
    if (part === "") fail("is empty");
    if (!SERVICE_NAME_PART.test(part)) {
      fail("may only contain printable ASCII without spaces or control characters");
    }
  }
  return `${tenantId}.${jobAlias}`;
}

/** Where a dedicated endpoint's name can come from: `serviceName`, or `tenantId` and `jobAlias`. */
export interface ServiceNameFields {
  serviceName?: string;
  tenantId?: string;
  jobAlias?: string;
}

/** A validated Service-Name and its two parts. */
export interface ResolvedServiceName {
  serviceName: string;
  tenantId: string;
  jobAlias: string;
}

/**
 * The Service-Name from `serviceName`, else `tenantId` and `jobAlias` (options, then
 * INFERENCE_SERVICE_TENANT_ID / INFERENCE_SERVICE_JOB_ALIAS), validated (docs/service-contract.md#dedicated-endpoints, rule 2).
 * A `serviceName` that disagrees with a given `tenantId`/`jobAlias` is an error. With
 * `required: false`, nothing configured at all gives `undefined` instead of an error.
 */
export function resolveServiceName(fields: ServiceNameFields): ResolvedServiceName;
export function resolveServiceName(
  fields: ServiceNameFields,
  options: { required: false },
): ResolvedServiceName | undefined;
export function resolveServiceName(
  fields: ServiceNameFields,
  { required = true }: { required?: boolean } = {},
): ResolvedServiceName | undefined {
  const { serviceName, tenantId, jobAlias } = fields;
  for (const [option, value, envVar] of [
    ["tenantId", tenantId, ENV.tenantId],
    ["jobAlias", jobAlias, ENV.jobAlias],
  ] as const) {
    if (value !== undefined && typeof value !== "string") {
      throw new ConfigurationError(
        option,
        `\`${option}\` must be a string; got ${JSON.stringify(value) ?? String(value)}.`,
        envVar,
      );
    }
  }
  if (serviceName !== undefined) {
    const name = validateServiceName(serviceName, "serviceName");
    const [tenant = "", alias = ""] = name.split(".");
    if (
      (tenantId !== undefined && tenantId !== tenant) ||
      (jobAlias !== undefined && jobAlias !== alias)
    ) {
      throw new ConfigurationError(
        "serviceName",
        `\`serviceName\` ${JSON.stringify(name)} disagrees with \`tenantId\` ${JSON.stringify(tenantId)} / \`jobAlias\` ${JSON.stringify(jobAlias)}. Pass either serviceName or tenantId and jobAlias.`,
      );
    }
    return { serviceName: name, tenantId: tenant, jobAlias: alias };
  }
  const tenant = tenantId ?? readEnv(ENV.tenantId);
  const alias = jobAlias ?? readEnv(ENV.jobAlias);
  const sources = {
    tenantId: tenantId === undefined ? ENV.tenantId : undefined,
    jobAlias: jobAlias === undefined ? ENV.jobAlias : undefined,
  };
  if (!required && tenant === undefined && alias === undefined) return undefined;
  if (tenant === undefined || alias === undefined) {
    const [option, envVar] =
      tenant === undefined ? ["tenantId", ENV.tenantId] : ["jobAlias", ENV.jobAlias];
    throw new ConfigurationError(
      option,
      `Dedicated endpoint not named: \`${option}\` not found. Pass \`serviceName\` ("<TENANT_ID>.<JOB_ALIAS_NAME>"), or \`tenantId\` and \`jobAlias\`, or set ${ENV.tenantId} and ${ENV.jobAlias}.`,
      envVar,
    );
  }
  return {
    serviceName: buildServiceName(tenant, alias, sources),
    tenantId: tenant,
    jobAlias: alias,
  };
}
