/**
 * @module The options of `DedicatedEndpointLLM`, declared once: a zod schema whose fields give each
 * option's type, check, wording, JSDoc and default, and say whether the model serialises it.
 */
import { z } from "zod";
import { checkedOnResolve, optionsSchema, parseOptions } from "../../config/options.js";
import { profilesSchema } from "../../config/profiles.js";
import { ConfigurationError } from "../../errors/errors.js";
import {
  connectionOnly,
  type ModelOptions,
  modelOptions,
  type SerialisedOptions,
  serialised,
  serialisedKeys,
  unserialised,
} from "../options.js";

/** The options of `DedicatedEndpointLLM`. */
const dedicatedEndpointLLMShape = {
  /**
   * The `Service-Name` header, `<TENANT_ID>.<JOB_ALIAS_NAME>`: tenant ID, one dot, job alias
   * (docs/service-contract.md#dedicated-endpoints). Not serialised: it is a header value, and
   * `tenantId` and `jobAlias` carry it. @default `tenantId` + "." + `jobAlias`
   */
  serviceName: unserialised(checkedOnResolve<string>().optional()),
  /**
   * Tenant ID, shown with the tenant name in the console sidebar (docs/service-contract.md#authentication,
   * rule 5). Serialised as a reference to its env variable. @default env `INFERENCE_SERVICE_TENANT_ID`
   */
  tenantId: serialised(checkedOnResolve<string>().optional()),
  /** Job alias name of the endpoint. Serialised as a reference to its env variable. @default env `INFERENCE_SERVICE_JOB_ALIAS` */
  jobAlias: serialised(checkedOnResolve<string>().optional()),
  ...modelOptions,
  /**
   * Where `ChatOpenAI` and `OpenAI` users put the key and the URL: `apiKey` and `baseURL` here are
   * read as the options of the same name (a `ConfigurationError` when they disagree). This model
   * takes no other client option: any other field is a `ConfigurationError`. @default `{}`
   */
  configuration: unserialised(connectionOnly),
  /** `max_tokens`: token cap on the generated output (docs/service-contract.md#dedicated-endpoints); a whole number ≥ 1. @default the endpoint's own */
  maxTokens: serialised(z.number().int().min(1).describe("a whole number ≥ 1").optional()),
  /** `temperature`: sampling temperature (docs/service-contract.md#dedicated-endpoints); a finite number ≥ 0. @default the endpoint's own */
  temperature: serialised(z.number().nonnegative().describe("a finite number ≥ 0").optional()),
  /** Stop sequences sent as `stop`; a call's `stop` replaces them. @default none */
  stop: serialised(z.array(z.string()).describe("an array of strings").optional()),
  /**
   * Milliseconds to keep retrying while the endpoint is Pending (refused connection or empty
   * response, docs/service-contract.md#endpoint-states), whatever `maxRetries` says; then an
   * `EndpointNotReadyError` saying how long it waited. `0` turns it off. Any length: it is a
   * deadline the retries are measured against, never a timer of its own. @default 0
   */
  waitForReady: serialised(
    z.number().nonnegative().describe("a number of milliseconds ≥ 0 (0 turns it off)").default(0),
  ),
  /** Stream (SSE) inside `invoke`/`generate` too, so callbacks get each token. @default false */
  streaming: serialised(z.boolean().describe("true or false").default(false)),
  /**
   * Extra body fields (`top_p`, `model`, `n`, …); they override the fields above, not
   * `prompt`/`stream`. An `n` above 1 is refused on a streamed call. @default `{}`
   */
  modelKwargs: serialised(
    // Any non-array object, as the body spreads it (a class instance too).
    z
      .custom<Record<string, unknown>>(
        (v) => typeof v === "object" && v !== null && !Array.isArray(v),
      )
      .describe("an object of extra body fields")
      .default(() => ({})),
  ),
  /**
   * What each deployment can do and how many tokens it reads, by Service-Name: `profile` is the
   * entry of this model's `serviceName` laid over `DEFAULT_DEDICATED_PROFILE`. Not serialised:
   * its keys are Service-Names, which are header values. A misspelt field is a
   * `ConfigurationError` here.
   * @default `{}` (the defaults; no env variable)
   */
  profiles: unserialised(profilesSchema.optional()),
};

/** The options of `DedicatedEndpointLLM`. */
export const dedicatedEndpointLLMOptions = optionsSchema(dedicatedEndpointLLMShape);

/** The options of `DedicatedEndpointLLM`, as a caller writes them. */
export interface DedicatedEndpointLLMOptions
  extends ModelOptions,
    Omit<z.input<typeof dedicatedEndpointLLMOptions>, keyof ModelOptions> {}

/** What `DedicatedEndpointLLM` keeps of its options, checked and with their defaults: those it serialises. */
export type DedicatedEndpointLLMSettings = SerialisedOptions<typeof dedicatedEndpointLLMShape>;

/** The names of the options `DedicatedEndpointLLM` serialises (and keeps as its fields). */
export const DEDICATED_SERIALISED: readonly string[] = serialisedKeys(dedicatedEndpointLLMShape);

const DEDICATED_SPEC = { owner: "DedicatedEndpointLLM", schema: dedicatedEndpointLLMOptions };

/** Checks the options of `DedicatedEndpointLLM` (the Service-Name, key and URL are checked where they are resolved). */
export function validateDedicatedEndpointOptions(
  fields: unknown,
): z.output<typeof dedicatedEndpointLLMOptions> {
  const options = parseOptions(DEDICATED_SPEC, fields);
  if (options.streaming) checkStreamedChoices(options.modelKwargs);
  return options;
}

/**
 * A streamed dedicated call asks for one choice: LangChain's LLM stream is a stream of strings,
 * and core joins a streamed call's chunks into one generation (`stream()`, and `invoke` under a
 * handler that prefers streaming), so the choices of `n > 1` would interleave into one text.
 * `modelKwargs.n` above 1 is a `ConfigurationError` on a stream, before any request.
 */
export function checkStreamedChoices(modelKwargs: Record<string, unknown>): void {
  const { n } = modelKwargs;
  if (typeof n !== "number" || !(n > 1)) return;
  throw new ConfigurationError(
    "modelKwargs.n",
    `\`modelKwargs.n\` is ${n}, but a streamed call (\`stream()\`, or \`streaming: true\`) returns one text per prompt: its ${n} choices would interleave. Call \`generate()\` without \`streaming\` for one generation per choice, or leave out \`n\`.`,
  );
}
