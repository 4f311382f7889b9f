/**
 * @module The API key and the base URL wherever a `ChatOpenAI` user writes them: `apiKey`,
 * `openAIApiKey` or `configuration.apiKey`; `baseURL`, `baseUrl` (LangChain's `load()` spelling) or
 * `configuration.baseURL`.
 */

import { ENV } from "../constants.js";
import { ConfigurationError } from "../errors/errors.js";
import { resolveApiKey } from "./api_key.js";
import { normalizeBaseURL, resolveBaseURL } from "./base_url.js";
import { checkHeaders } from "./headers.js";

/** The fields {@link resolveConnection} reads; any of them may be missing, or of the wrong type. */
export interface ConnectionFields {
  apiKey?: unknown;
  /** `ChatOpenAI`'s older name for `apiKey`. */
  openAIApiKey?: unknown;
  baseURL?: unknown;
  /** `baseURL` as LangChain's `load()` spells a serialised `base_url`. */
  baseUrl?: unknown;
  /** The openai SDK's client options, where `ChatOpenAI` takes `apiKey` and `baseURL` too. */
  configuration?: {
    apiKey?: unknown;
    baseURL?: unknown;
    maxRetries?: unknown;
    defaultHeaders?: unknown;
  } | null;
}

/** The key and the normalised `…/inference/v1` URL. */
export interface Connection {
  apiKey: string;
  baseURL: string;
}

type Candidate = readonly [option: string, value: unknown];

/**
 * The API key and the base URL, each from the one place it was given, else from its
 * `INFERENCE_SERVICE_*` variable. A `ChatOpenAI` user's spelling is honoured rather than silently
 * ignored: `openAIApiKey` and `configuration.apiKey` are read as `apiKey`, `baseUrl` (what
 * `load()` makes of a serialised `base_url`) and `configuration.baseURL` as `baseURL`. Throws
 * `ConfigurationError` naming the option when one is not a string (the SDK's key function
 * included), when two places give different values (a key is compared as given, a URL once
 * normalised), when both are missing, for a key or a `configuration.defaultHeaders`
 * value holding a character a header cannot carry (named by its position; see `checkHeaders`),
 * and for `configuration.maxRetries`, which would otherwise be dropped: retries are set by
 * `maxRetries`.
 *
 * @example
 * resolveConnection({ openAIApiKey: "sk-…", configuration: { baseURL: "https://host/inference/v1" } });
 * // { apiKey: "sk-…", baseURL: "https://host/inference/v1" }
 */
export function resolveConnection(fields: ConnectionFields): Connection {
  const configuration = fields.configuration ?? {};
  if (configuration.maxRetries !== undefined) {
    throw new ConfigurationError(
      "configuration.maxRetries",
      "`configuration.maxRetries` is not used: retries happen in one layer, whose count is `maxRetries`. Pass `maxRetries` instead.",
    );
  }
  // Sent with every request: a value no header can carry fails here, not as the platform's TypeError.
  checkHeaders(configuration.defaultHeaders, "configuration.defaultHeaders");
  const key = pick(
    "apiKey",
    "API key",
    [
      ["apiKey", fields.apiKey],
      ["openAIApiKey", fields.openAIApiKey],
      ["configuration.apiKey", configuration.apiKey],
    ],
    ENV.apiKey,
    (a, b) => a.trim() === b.trim(),
  );
  const url = pick(
    "baseURL",
    "base URL",
    [
      ["baseURL", fields.baseURL],
      ["baseUrl", fields.baseUrl],
      ["configuration.baseURL", configuration.baseURL],
    ],
    ENV.baseURL,
    (a, b, optionA, optionB) => normalizeBaseURL(a, optionA) === normalizeBaseURL(b, optionB),
  );
  return {
    apiKey: resolveApiKey(key?.value, key?.option),
    baseURL: resolveBaseURL(url?.value, url?.option),
  };
}

/** The one value the candidates give (null and undefined count as not given), and its option. */
function pick(
  canonical: string,
  what: string,
  candidates: readonly Candidate[],
  envVar: string,
  same: (a: string, b: string, optionA: string, optionB: string) => boolean,
): { option: string; value: string } | undefined {
  const given = candidates.filter(([, value]) => value !== undefined && value !== null);
  for (const [option, value] of given) {
    if (typeof value !== "string") {
      throw new ConfigurationError(
        option,
        `\`${option}\` must be a string; got ${typeof value === "function" ? "a function" : typeof value}. Pass the ${what} as \`${canonical}\`.`,
        envVar,
      );
    }
  }
  const [first, ...others] = given as Array<readonly [string, string]>;
  if (first === undefined) return undefined;
  for (const [option, value] of others) {
    // Neither value is shown: one of them is the key.
    if (!same(first[1], value, first[0], option)) {
      throw new ConfigurationError(
        option,
        `\`${first[0]}\` and \`${option}\` give two different ${what}s. Pass it once, as \`${canonical}\`.`,
        envVar,
      );
    }
  }
  return { option: first[0], value: first[1] };
}
