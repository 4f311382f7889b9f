/** @module The base URL: normalised to `…/inference/v1`, or refused with what to write instead. */
import { API_PREFIX, ENV } from "../constants.js";
import { ConfigurationError } from "../errors/errors.js";
import { readEnv } from "./env.js";

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
  // "127.0.0.1:8787" is no URL, and "localhost:8787" one with the scheme "localhost:": both
  // lack http(s)://, which is what to say.
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) && URL.canParse(`http://${raw.replace(/^\/\//, "")}`)) {
    return fail(`has no scheme ("${raw.slice(0, 80)}"): add http:// or https:// in front`);
  }
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
