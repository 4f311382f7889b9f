/** @module `inference-service record`: runs the recording proxy until Ctrl-C and prints how to use it. */

import { CassetteError } from "../cassette/cassette.js";
import { redactValuesProblem } from "../cassette/redaction.js";
import { readEnv } from "../config/env.js";
import { ENV } from "../constants.js";
import { ConfigurationError } from "../errors/errors.js";
import type { RecorderOptions, RecordMode } from "../testing/options.js";
import { type RunningRecorder, startRecorder } from "../testing/recorder.js";
import { type CommandLine, numberFlag, runCommand, UsageError, type Writers } from "./args.js";
import { type EmulatorCommandIO, stopRequested } from "./emulator.js";
import { exportLines } from "./shell.js";

const USAGE = `Usage: inference-service record --cassette FILE [--upstream URL] [--mode all|new|replay] [--port N] [--env | --json]

Runs a recording proxy on 127.0.0.1: point your app or tests at its base URL with your real key.
It forwards every call to the service, streams each answer back as it arrives, and writes the
exchanges to a cassette (a HAR 1.2 file, secrets redacted) that the emulator replays offline:
  inference-service emulator --replay FILE

Options:
  -c, --cassette FILE   the cassette to write (its folder is created)
  -u, --upstream URL    the real service: host root or …/inference/v1 (default: $INFERENCE_SERVICE_BASE_URL)
  -m, --mode MODE       all: record every call into a new cassette (default)
                        new: replay what the cassette holds, record only what is new
                        replay: replay only, nothing reaches the service
  -p, --port N          TCP port on 127.0.0.1 (default 0: a free port)
      --ignore FIELD    a body field to leave out when matching recorded calls (repeatable), e.g. user
      --redact VALUE    a value never to write to the cassette, besides the credentials (the key,
                        credential headers, ?key= and the like): a header of your own that is
                        secret, a name (repeatable; at least 4 characters). A value typed here
                        shows in your shell history and \`ps\`
      --env             print only the export line, for a script to source
      --json            print one JSON line (base URL, mode, upstream, cassette)
  -h, --help            show this help

It runs until Ctrl-C or SIGTERM, then exits 0 with the cassette complete, or 1 when calls could
not be recorded (the upstream could not be reached: if it never answered, the cassette is left as
it was). A cassette is valid after every finished exchange, so even a killed recorder leaves one.
It refuses to write over a file that is not a cassette.`;

type Output = "banner" | "env" | "json";

interface RecordRequest {
  options: RecorderOptions;
  output: Output;
}

const MODES: Readonly<Record<string, RecordMode>> = {
  all: "record-all",
  new: "record-new",
  replay: "replay",
};

/**
 * Runs the record command and resolves to its exit code once it has stopped (0 after
 * SIGINT/SIGTERM/abort with the cassette written, 1 if it could not start, 2 for bad arguments).
 *
 * @example
 * // inference-service record --upstream https://host.example --cassette test/cassettes/app.har
 * process.exitCode = await runRecordCommand(["--cassette", "test/cassettes/app.har"]);
 */
export function runRecordCommand(argv: string[], io: EmulatorCommandIO = {}): Promise<number> {
  return runCommand(argv, io, {
    name: "record",
    usage: USAGE,
    flags: {
      cassette: { type: "string", short: "c" },
      upstream: { type: "string", short: "u" },
      mode: { type: "string", short: "m" },
      port: { type: "string", short: "p" },
      ignore: { type: "string", multiple: true },
      redact: { type: "string", multiple: true },
      env: { type: "boolean" },
      json: { type: "boolean" },
    },
    read: readRequest,
    run: (request, writers) => serve(request, writers, io.signal),
  });
}

function readRequest(line: CommandLine): RecordRequest {
  const { values } = line;
  const { env, json } = values;
  if (env === true && json === true) throw new UsageError("give --env or --json, not both");
  const cassette = values.cassette;
  if (typeof cassette !== "string" || cassette.trim() === "") {
    throw new UsageError("--cassette FILE is required: the cassette to write");
  }
  const modeName = typeof values.mode === "string" ? values.mode : "all";
  const mode = Object.hasOwn(MODES, modeName) ? MODES[modeName] : undefined;
  if (mode === undefined) {
    throw new UsageError(`--mode must be all, new or replay, got "${modeName}"`);
  }
  const upstream = typeof values.upstream === "string" ? values.upstream : readEnv(ENV.baseURL);
  if (upstream === undefined && mode !== "replay") {
    throw new UsageError(
      `--upstream URL is required (or set ${ENV.baseURL}): the service to record`,
    );
  }
  const port = numberFlag(values, "port", "an integer from 0 to 65535", { min: 0, max: 65_535 });
  const list = (name: string) => (values as Record<string, unknown>)[name] as string[] | undefined;
  const short = redactValuesProblem(list("redact") ?? [], (index) => `--redact value ${index + 1}`);
  if (short) throw new UsageError(short);
  return {
    options: {
      cassette,
      mode,
      ...(upstream === undefined ? {} : { upstream }),
      ...(port === undefined ? {} : { port }),
      ignore: list("ignore") ?? [],
      redact: list("redact") ?? [],
    },
    output: env === true ? "env" : json === true ? "json" : "banner",
  };
}

async function serve(
  { options, output }: RecordRequest,
  { out, err }: Writers,
  signal: AbortSignal | undefined,
): Promise<number> {
  let recorder: RunningRecorder;
  try {
    recorder = await startRecorder(options);
  } catch (error) {
    if (
      !(error instanceof CassetteError || error instanceof ConfigurationError) &&
      !isListenError(error)
    ) {
      throw error;
    }
    err(`Could not start the recorder: ${(error as Error).message}\n`);
    return 1;
  }
  const env = { [ENV.baseURL]: recorder.baseURL };
  out(
    output === "env"
      ? `${exportLines(env).join("\n")}\n`
      : output === "json"
        ? `${JSON.stringify({ baseURL: recorder.baseURL, mode: recorder.mode, upstream: recorder.upstream ?? null, cassette: recorder.cassette, entries: recorder.size, env })}\n`
        : banner(recorder, env),
  );
  await stopRequested(signal);
  try {
    await recorder.close();
  } catch (error) {
    if (!(error instanceof CassetteError)) throw error;
    err(`Recorder stopped, but the recording is not complete: ${error.message}.\n`);
    return 1;
  }
  (output === "banner" ? out : err)(
    `Recorder stopped; ${recorder.cassette} holds ${recorder.size} exchanges${recorder.mode === "replay" ? "" : ` (${recorder.recorded} recorded now)`}.\n`,
  );
  return 0;
}

function banner(recorder: RunningRecorder, env: Record<string, string>): string {
  const what =
    recorder.mode === "replay"
      ? `replaying ${recorder.cassette} (${recorder.size} exchanges); nothing reaches the service`
      : `forwarding to ${recorder.upstream}, recording into ${recorder.cassette}${recorder.mode === "record-new" ? ` (replaying its ${recorder.size} exchanges, recording only new calls)` : ""}`;
  return [
    `Recording proxy running: ${what}.`,
    "",
    `Base URL:   ${recorder.baseURL}`,
    "API key:    your real key (it is sent on to the service and never written to the cassette)",
    "",
    "Paste into your shell (bash, zsh, sh), or start with --env to print only this:",
    ...exportLines(env),
    "",
    "Press Ctrl-C to stop.",
    "",
  ].join("\n");
}

function isListenError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "EADDRINUSE" || code === "EACCES" || code === "EADDRNOTAVAIL";
}
