/** @module The API key: from its option or INFERENCE_SERVICE_API_KEY, trimmed and checked. */
import { ENV } from "../constants.js";
import { ConfigurationError } from "../errors/errors.js";
import { readEnv } from "./env.js";
import { badCharacter, badCharacterText } from "./headers.js";

/**
 * What a key may hold: visible ASCII. It travels as `Authorization: Bearer <key>`
 * (docs/service-contract.md#authentication, rule 1), where a control character, a space or a
 * character beyond ASCII (a zero-width space pasted along from a web page) either cannot be sent
 * at all or makes a different key.
 */
const KEY_CHARACTER = /^[\x21-\x7e]$/u;

/**
 * The API key from the option, else INFERENCE_SERVICE_API_KEY; a ConfigurationError when neither,
 * or when the key holds a character a header cannot carry as part of it (named by its position,
 * never shown with the key around it). `option` is the name the value was given under
 * (`configuration.apiKey`, say), for messages.
 */
export function resolveApiKey(value: string | undefined, option = "apiKey"): string {
  const key = (value ?? readEnv(ENV.apiKey))?.trim();
  const source = value === undefined ? ENV.apiKey : option;
  if (key === undefined || key === "") {
    throw new ConfigurationError(
      "apiKey",
      `Inference service API key not found. Pass \`apiKey\` or set ${ENV.apiKey} (OPENAI_API_KEY and the other OPENAI_* variables are not read).`,
      ENV.apiKey,
    );
  }
  const bad = badCharacter(key, KEY_CHARACTER);
  if (bad) {
    throw new ConfigurationError(
      source,
      `\`${source}\` has ${badCharacterText(bad, "of the key")}: an API key is sent in the Authorization header and holds visible ASCII characters only. Copy the key again without it (invisible characters are often pasted along from a web page).`,
      ENV.apiKey,
    );
  }
  return key;
}
