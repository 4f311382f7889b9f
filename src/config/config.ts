/** @module Options shared by both models: env variables, base-URL normalisation, Service-Name checks. */
import { getEnvironmentVariable } from "@langchain/core/utils/env";
import { API_PREFIX, ENV } from "../constants.js";
import { ConfigurationError } from "../errors/errors.js";

/**
 * Reads an env variable in any runtime (Node, Deno, Bun, workers), trimmed of surrounding
 * whitespace (a pasted newline, a non-breaking space, a BOM) the same way for every variable;
 * empty counts as unset.
 */
export function readEnv(name: string): string | undefined {
  const value = getEnvironmentVariable(name)?.trim();
  return value === undefined || value === "" ? undefined : value;
}

// Paths users paste from docs or curl examples; the SDK appends the operation itself (docs/service-contract.md#hosted-models, rule 1).
const OPERATION_SUFFIX = /\/(?:chat\/)?completions?$/;

/**
 * Normalises what a user may pass as `baseURL` to `<origin>[/prefix]/inference/v1` (docs/service-contract.md#hosted-models, rules 1–2, docs/service-contract.md#versioning).
 *
 * Accepted: the host root, `…/inference`, `…/inference/v1`, trailing slashes, and a base that
 * wrongly ends in `/chat/completions` or `/completions`. A path ending in a bare `/v1` is taken as
 * `/inference/v1`. Rejected (ConfigurationError), because no repair is sure to be right: anything
 * not http(s), credentials, query or fragment, an empty path segment (`//`), another API version
 * (`/inference/v2`, a bare `/v2`), and `inference` or `v1` in other letter case (paths are
 * case-sensitive).
 *
 * @example
 * normalizeBaseURL("https://host/inference/v1/chat/completions/") // "https://host/inference/v1"
 */
export function normalizeBaseURL(input: string, option = "baseURL"): string {
  const raw = input.trim();
  const fail = (why: string): never => {
    throw new ConfigurationError(
      option,
      `\`${option}\` ${why}. Use the service's host root or its …/inference/v1 URL, e.g. "https://host.example/inference/v1" (or set ${ENV.baseURL}).`,
      ENV.baseURL,
    );
  };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail(`is not a valid URL ("${raw.slice(0, 80)}")`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return fail(`must use http or https, not "${url.protocol}"`);
  }
  if (url.username || url.password) return fail("must not contain credentials; pass `apiKey`");
  if (url.search || raw.includes("?")) return fail("must not contain a query string");
  if (url.hash || raw.includes("#")) return fail("must not contain a fragment");
  let path = url.pathname.replace(/\/+$/, "");
  if (path.includes("//")) {
    return fail(`has an empty path segment ("//" in "${path}"); remove the doubled slash`);
  }
  checkVersionSegments(path, fail);
  const at = path.indexOf(API_PREFIX);
  if (at >= 0 && (path.length === at + API_PREFIX.length || path[at + API_PREFIX.length] === "/")) {
    path = path.slice(0, at);
  } else {
    path = path.replace(OPERATION_SUFFIX, "").replace(/\/+$/, "");
    path = path.replace(/\/inference(?:\/v1)?$/, "").replace(/\/v1$/, "");
  }
  const stray = /(?:^|\/)inference(?:\/[^/]*)?/i.exec(path)?.[0];
  if (stray !== undefined) {
    // Appending /inference/v1 would give a second one: say so instead.
    return fail(`has "${stray.replace(/^\//, "")}" where …/inference/v1 is expected`);
  }
  return `${url.origin}${path}${API_PREFIX}`;
}

/**
 * Rejects paths that name the API in a way this package cannot repair with certainty: another
 * version after `inference`, a bare version segment other than `v1` at the end, and `inference`
 * or `v1` spelled in other letter case (the service's paths are case-sensitive).
 */
function checkVersionSegments(path: string, fail: (why: string) => never): void {
  const segments = path.split("/").filter((segment) => segment !== "");
  segments.forEach((segment, i) => {
    const next = segments[i + 1];
    if (segment.toLowerCase() === "inference" && segment !== "inference") {
      fail(
        `spells "${segment}" in other letter case; paths are case-sensitive: write /inference/v1`,
      );
    }
    const version = /^v\d+$/i.exec(segment);
    if (!version) return;
    const afterInference = segments[i - 1]?.toLowerCase() === "inference";
    const last = i === segments.length - 1 || /^(chat|completions?)$/.test(next ?? "");
    if (!afterInference && !last) return;
    if (segment === "v1") return;
    if (segment.toLowerCase() === "v1") {
      fail(
        `spells "${segment}" in other letter case; paths are case-sensitive: write /inference/v1`,
      );
    }
    fail(
      `asks for API version ${segment}, but this package speaks version 1 only (…/inference/v1)`,
    );
  });
}

/**
 * The API key from the option, else INFERENCE_SERVICE_API_KEY; a ConfigurationError when neither.
 * `option` is the name the value was given under (`configuration.apiKey`, say), for messages.
 */
export function resolveApiKey(value: string | undefined, option = "apiKey"): string {
  const key = value ?? readEnv(ENV.apiKey);
  const source = value === undefined ? ENV.apiKey : option;
  if (key === undefined || key.trim() === "") {
    throw new ConfigurationError(
      "apiKey",
      `Inference service API key not found. Pass \`apiKey\` or set ${ENV.apiKey}.`,
      ENV.apiKey,
    );
  }
  if (/[\r\n]/.test(key.trim())) {
    throw new ConfigurationError(
      source,
      `\`${source}\` contains a line break; copy the key again without it.`,
      ENV.apiKey,
    );
  }
  return key.trim();
}

/**
 * The normalised base URL from the option, else INFERENCE_SERVICE_BASE_URL; never OpenAI's.
 * `option` is the name the value was given under (`configuration.baseURL`, say), for messages.
 */
export function resolveBaseURL(value: string | undefined, option = "baseURL"): string {
  const raw = value ?? readEnv(ENV.baseURL);
  if (raw === undefined || raw.trim() === "") {
    throw new ConfigurationError(
      "baseURL",
      `Inference service base URL not found. Pass \`baseURL\` or set ${ENV.baseURL} (e.g. "https://host.example/inference/v1").`,
      ENV.baseURL,
    );
  }
  return normalizeBaseURL(raw, value === undefined ? ENV.baseURL : option);
}

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
