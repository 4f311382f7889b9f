/** @module The API key: from its option or INFERENCE_SERVICE_API_KEY, trimmed and checked. */
import { ENV } from "../constants.js";
import { ConfigurationError } from "../errors/errors.js";
import { readEnv } from "./env.js";

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
