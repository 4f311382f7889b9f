/**
 * @module How the CLI's output names a setting: by the flag or the env variable it came from.
 *
 * The library's messages and hints name options as a program passes them (`baseURL`, "set
 * `apiKey` or INFERENCE_SERVICE_API_KEY"). At the command line the user typed `--base-url`, or
 * set the variable, or neither; the CLI rewords each mention to what they can act on.
 */
import { readEnv } from "../config/env.js";
import { ENV } from "../constants.js";

/** One setting: its option name in the library, its flag, and its env variable if it has one. */
export interface Setting {
  option: string;
  flag: string;
  env?: string;
}

/**
 * A function that rewords a message for the command line. For each setting, by where its value
 * came from (`given[option]` set: the flag; else its env variable when set; else neither):
 *
 * - "`apiKey` or INFERENCE_SERVICE_API_KEY" (also "… or set …") becomes the flag or the variable
 *   actually used, or "--api-key or INFERENCE_SERVICE_API_KEY" when neither was;
 * - "the `apiKey` option" and any other "`apiKey`" become that flag or variable (the flag when
 *   neither was used: it is how a value is given here).
 *
 * @example
 * const reword = cliWording([{ option: "baseURL", flag: "--base-url", env: "INFERENCE_SERVICE_BASE_URL" }], { baseURL: "http://h" });
 * reword("Set `baseURL` to the host root"); // "Set --base-url to the host root"
 */
export function cliWording(settings: readonly Setting[], given: object): (text: string) => string {
  const rules = settings.map(({ option, flag, env }) => {
    const source =
      (given as Record<string, unknown>)[option] !== undefined
        ? "flag"
        : env && readEnv(env) !== undefined
          ? "env"
          : "none";
    const name = source === "env" ? env! : flag;
    const pair = env ? new RegExp(`\`${option}\`( or (?:set )?${env})`, "g") : undefined;
    return (text: string) => {
      let out = pair
        ? text.replace(pair, (_, rest: string) => (source === "none" ? `${flag}${rest}` : name))
        : text;
      out = out.replaceAll(`the \`${option}\` option`, name);
      return out.replaceAll(`\`${option}\``, name);
    };
  });
  return (text) => rules.reduce((out, rule) => rule(out), text);
}

/** The connection settings every command takes, as `CONNECTION_FLAGS` spells them. */
export const CONNECTION_SETTINGS: readonly Setting[] = [
  { option: "baseURL", flag: "--base-url", env: ENV.baseURL },
  { option: "apiKey", flag: "--api-key", env: ENV.apiKey },
  { option: "model", flag: "--model" },
  { option: "serviceName", flag: "--service-name" },
  { option: "tenantId", flag: "--tenant-id", env: ENV.tenantId },
  { option: "jobAlias", flag: "--job-alias", env: ENV.jobAlias },
];
