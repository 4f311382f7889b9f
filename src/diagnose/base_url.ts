/** @module The `base-url` check: the base URL's shape and its normalised form, without a request. */
import { resolveBaseURL } from "../config/base_url.js";
import { readEnv } from "../config/env.js";
import { ENV } from "../constants.js";
import { configurationFailure, type Verdict } from "./check.js";

export function checkBaseURL(option: string | undefined): {
  check: Verdict;
  baseURL?: string;
  /** The fix to give instead of "set it to <baseURL>" when that URL turns out not to reach the API. */
  unreachedFix?: string;
} {
  const source = option === undefined ? ENV.baseURL : "the `baseURL` option";
  let baseURL: string;
  try {
    baseURL = resolveBaseURL(option);
  } catch (error) {
    return { check: configurationFailure("base-url", error, "The base URL is not usable.") };
  }
  const raw = option ?? readEnv(ENV.baseURL) ?? "";
  const { removed, added, trailingSlash } = pathChange(raw, baseURL);
  const change =
    removed && added
      ? `replaced ${removed} with ${added}`
      : removed
        ? `removed ${removed}`
        : added
          ? `added ${added}`
          : trailingSlash
            ? "removed the trailing slash"
            : "as given";
  const check: Verdict = {
    id: "base-url",
    status: removed ? "warn" : "pass",
    detail: `${baseURL} (from ${source}; ${change}).`,
  };
  // This package repairs it, but the openai SDK or curl given the same value would get 404 (docs/service-contract.md#hosted-models, rule 1).
  if (removed) {
    check.fix = `Set ${source} to ${baseURL}, so that other clients (the openai SDK, curl) reach the API too.`;
    return {
      check,
      baseURL,
      unreachedFix: `Set ${source} to the service's own …/inference/v1 URL: ${baseURL}, made from it by this package, is not the API either (see the check below).`,
    };
  }
  return { check, baseURL };
}

/** What normalisation changed in the path, segment by segment. */
export function pathChange(raw: string, normalised: string) {
  const rawPath = new URL(raw.trim()).pathname;
  const segments = (path: string) => path.split("/").filter((s) => s !== "");
  const before = segments(rawPath);
  const after = segments(new URL(normalised).pathname);
  let common = 0;
  while (common < before.length && before[common] === after[common]) common++;
  const join = (parts: string[]) => (parts.length > 0 ? `/${parts.join("/")}` : "");
  return {
    removed: join(before.slice(common)),
    added: join(after.slice(common)),
    trailingSlash: rawPath.length > 1 && rawPath.endsWith("/"),
  };
}
