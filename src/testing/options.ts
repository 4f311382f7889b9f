/**
 * @module The options of `startRecorder` and `openCassette`, each declared once as a zod schema:
 * the type, the check where they enter (a `ConfigurationError` naming the option) and the JSDoc.
 */
import { z } from "zod";
import { redactValuesProblem } from "../cassette/redaction.js";
import { optionsSchema, parseOptions } from "../config/options.js";
import { ConfigurationError } from "../errors/errors.js";

/**
 * How a cassette is used, as VCR users know the modes: `replay` only (the CI default: nothing
 * reaches the service), `record-all` (every call goes to the service, into a new cassette), or
 * `record-new` (replay what the cassette holds, record only what is new).
 */
export const RECORD_MODES = ["replay", "record-all", "record-new"] as const;

/** One of {@link RECORD_MODES}. */
export type RecordMode = (typeof RECORD_MODES)[number];

const mode = z.enum(RECORD_MODES).describe('"replay", "record-all" or "record-new"');

/** The recorder's default `maxBodyBytes`: 32 MiB, room for a request carrying images. */
export const DEFAULT_RECORDER_MAX_BODY_BYTES = 32 * 1024 * 1024;

/** What matching and replay take, on both. */
const replayFields = {
  /**
   * Body fields left out when matching recorded requests, as dotted paths (`user`,
   * `metadata.run_id`): values that change every run. @default []
   */
  ignore: z
    .array(z.string().min(1))
    .describe('a list of body field paths such as ["user", "metadata.run_id"]')
    .default([]),
  /**
   * Values never written to the cassette, besides the credentials (the key, credential headers,
   * key-shaped query parameters): a custom header's value that is secret, a customer's name. Each
   * of at least 4 characters. @default []
   */
  redact: z.array(z.string()).describe("a list of strings").default([]),
  /** `"fast"`: every replayed answer at once; `"recorded"`: at the pace it was recorded. @default "fast" */
  timing: z.enum(["fast", "recorded"]).describe('"fast" or "recorded"').default("fast"),
};

/** The options of `startRecorder`. */
export const recorderOptions = optionsSchema({
  /** The cassette file; created, with its folder, when recording. @default none (required) */
  cassette: z.string().min(1).describe("the path of the cassette file"),
  /** The real service: its host root or `…/inference/v1`. Required unless `mode` is `replay`. @default none */
  upstream: z.string().min(1).describe("the real service's base URL").optional(),
  /** @default "record-all" */
  mode: mode.default("record-all"),
  /** TCP port on `host`; 0 picks a free one. @default 0 */
  port: z.number().int().min(0).max(65_535).describe("an integer from 0 to 65535").default(0),
  /** Interface to listen on. @default "127.0.0.1" */
  host: z.string().min(1).describe("an interface address such as 127.0.0.1").default("127.0.0.1"),
  /**
   * The largest request body forwarded, and answer recorded, in bytes: a larger request gets a
   * 413; a larger answer is relayed whole but not recorded (`close()` says so). @default 33554432 (32 MiB)
   */
  maxBodyBytes: z
    .number()
    .int()
    .min(1)
    .describe("a whole number of bytes, at least 1")
    .default(DEFAULT_RECORDER_MAX_BODY_BYTES),
  ...replayFields,
});

/** Options of `startRecorder`. */
export type RecorderOptions = z.input<typeof recorderOptions>;

/** The options of `openCassette`. */
export const cassetteOptions = optionsSchema({
  /**
   * How to use the cassette. @default from INFERENCE_SERVICE_RECORD: `all` → `"record-all"`,
   * `new` → `"record-new"`, unset → `"replay"`
   */
  mode: mode.optional(),
  /** The real service, when recording. @default INFERENCE_SERVICE_BASE_URL */
  baseURL: z.string().min(1).describe("the real service's base URL").optional(),
  /** The real key, when recording (never written to the cassette). @default INFERENCE_SERVICE_API_KEY */
  apiKey: z.string().min(1).describe("a non-empty string").optional(),
  /**
   * When replaying, whether `close()` reports the recordings the run never used (one line on the
   * console, with the command that drops them). @default true
   */
  reportUnused: z.boolean().describe("true or false").default(true),
  ...replayFields,
});

/** Options of `openCassette`. */
export type CassetteOptions = z.input<typeof cassetteOptions>;

/** `startRecorder`'s options, checked, with their defaults. */
export function validateRecorderOptions(options: unknown): z.output<typeof recorderOptions> {
  const checked = parseOptions({ owner: "startRecorder", schema: recorderOptions }, options);
  checkRedact(checked.redact);
  return checked;
}

/** `openCassette`'s options, checked, with their defaults. */
export function validateCassetteOptions(options: unknown): z.output<typeof cassetteOptions> {
  const checked = parseOptions({ owner: "openCassette", schema: cassetteOptions }, options);
  checkRedact(checked.redact);
  return checked;
}

/**
 * Refuses a `redact` value too short to redact, naming it by its place, never by its value (it
 * may be part of a secret).
 */
function checkRedact(redact: readonly string[]): void {
  const problem = redactValuesProblem(redact, (index) => `\`redact[${index}]\``);
  if (problem) throw new ConfigurationError("redact", `${problem}.`);
}
