/**
 * @module `langchain-inference-service/testing` (Node only): test your app on the real service's
 * answers, offline. `openCassette` replays a committed cassette by default and records it against
 * the real service when `INFERENCE_SERVICE_RECORD` asks; `startRecorder` is the recording proxy
 * itself. See docs/testing.md.
 */
import { CassetteError } from "../cassette/cassette.js";
import { MISS_CODE, type ReplayTiming } from "../cassette/replayer.js";
import { readEnv } from "../config/env.js";
import { describeValue } from "../config/options.js";
import { ENV } from "../constants.js";
import { startEmulator } from "../emulator/server/node_server.js";
import { unusedNote } from "../emulator/server/replay.js";
import { ConfigurationError } from "../errors/errors.js";
import {
  type CassetteOptions,
  RECORD_MODES,
  type RecorderOptions,
  type RecordMode,
  validateCassetteOptions,
} from "./options.js";
import { type RunningRecorder, startRecorder } from "./recorder.js";

export {
  CassetteError,
  type CassetteOptions,
  MISS_CODE,
  RECORD_MODES,
  type RecorderOptions,
  type RecordMode,
  type ReplayTiming,
  type RunningRecorder,
  startRecorder,
};

/** The variable that switches `openCassette` to recording: `all` or `new` (unset: replay). */
export const RECORD_ENV = "INFERENCE_SERVICE_RECORD";

/** The key a replay hands out: replay accepts any key, and this one is no secret. */
export const REPLAY_API_KEY = "sk-cassette-replay";

/** What a test builds its models with. */
export interface CassetteSession {
  /** Point the models here (`baseURL`). */
  baseURL: string;
  /** Build the models with this key: the real one when recording, a placeholder when replaying. */
  apiKey: string;
  /** `INFERENCE_SERVICE_BASE_URL` and `INFERENCE_SERVICE_API_KEY` for code that reads the environment. */
  env: Record<string, string>;
  mode: RecordMode;
  cassette: string;
  /**
   * Stops the replay or the recorder; when recording, resolves once the cassette is written, and
   * rejects with a CassetteError when calls could not be recorded (the upstream could not be
   * reached: if it never answered, the cassette is left as it was). When replaying, reports the
   * recordings the run never used (see `reportUnused`).
   */
  close(): Promise<void>;
}

/**
 * Opens a cassette for a test: by default, replays it (no network, no key needed: the CI
 * default); with INFERENCE_SERVICE_RECORD=all (or `mode: "record-all"`), records every call
 * against the real service from INFERENCE_SERVICE_BASE_URL and INFERENCE_SERVICE_API_KEY into a new
 * cassette; with `new`, replays what the cassette holds and records only the rest. Works the same
 * in vitest and jest: open it in `beforeAll`, close it in `afterAll`.
 *
 * @example
 * const cassette = await openCassette("test/cassettes/agent.har");
 * const model = new ChatInferenceService("emulator-chat", { baseURL: cassette.baseURL, apiKey: cassette.apiKey });
 * // ... the test ...
 * await cassette.close();
 */
export async function openCassette(
  file: string,
  options: CassetteOptions = {},
): Promise<CassetteSession> {
  if (typeof file !== "string" || file === "") {
    throw new ConfigurationError(
      "file",
      `\`file\` must be the path of the cassette file (a non-empty string), e.g. openCassette("test/cassettes/agent.har"); got ${describeValue(file)}.`,
    );
  }
  const checked = validateCassetteOptions(options);
  const mode = checked.mode ?? modeFromEnv();
  const { ignore, redact, timing } = checked;
  if (mode === "replay") {
    const emulator = await startEmulator({ replay: { cassette: file, ignore, redact, timing } });
    return session(emulator.baseURL, REPLAY_API_KEY, mode, file, async () => {
      await emulator.close();
      const note = checked.reportUnused ? unusedNote(emulator.replay!) : undefined;
      // Re-recording with `new` keeps every stale entry: nothing else would tell.
      if (note) console.warn(`${note} (reportUnused: false stops this note.)`);
    });
  }
  const apiKey = checked.apiKey ?? readEnv(ENV.apiKey);
  const baseURL = checked.baseURL ?? readEnv(ENV.baseURL);
  const asked = checked.mode ? `mode "${mode}"` : `${RECORD_ENV}=${readEnv(RECORD_ENV)}`;
  if (baseURL === undefined) {
    throw new ConfigurationError(
      "baseURL",
      `${asked} asks to record ${file} against the real service, but no base URL is set: set ${ENV.baseURL} (or pass \`baseURL\`), or unset ${RECORD_ENV} to replay.`,
      ENV.baseURL,
    );
  }
  if (apiKey === undefined) {
    throw new ConfigurationError(
      "apiKey",
      `${asked} asks to record ${file} against the real service, but no API key is set: set ${ENV.apiKey} (or pass \`apiKey\`), or unset ${RECORD_ENV} to replay.`,
      ENV.apiKey,
    );
  }
  const recorder = await startRecorder({
    cassette: file,
    upstream: baseURL,
    mode,
    ignore,
    redact,
    timing,
  });
  return session(recorder.baseURL, apiKey, mode, file, () => recorder.close());
}

function session(
  baseURL: string,
  apiKey: string,
  mode: RecordMode,
  cassette: string,
  close: () => Promise<void>,
): CassetteSession {
  return {
    baseURL,
    apiKey,
    env: { [ENV.baseURL]: baseURL, [ENV.apiKey]: apiKey },
    mode,
    cassette,
    close,
  };
}

/** The mode INFERENCE_SERVICE_RECORD asks for. */
function modeFromEnv(): RecordMode {
  const value = readEnv(RECORD_ENV)?.toLowerCase();
  if (value === undefined || value === "replay" || value === "none") return "replay";
  if (value === "all" || value === "record-all") return "record-all";
  if (value === "new" || value === "record-new") return "record-new";
  throw new ConfigurationError(
    "mode",
    `${RECORD_ENV} must be "all" (record every call anew), "new" (record only what the cassette lacks) or unset (replay), got "${readEnv(RECORD_ENV)}".`,
    RECORD_ENV,
  );
}
