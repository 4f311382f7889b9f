/** @module `inference-service emulator`: runs the local emulator until Ctrl-C and prints how to use it. */

import { ENV } from "../constants.js";
import {
  EmulatorConfigError,
  type HostedModel,
  INFERENCE_SERVICE_PERMISSION,
  loadEmulatorConfig,
  type ReasoningFormat,
  type RunningEmulator,
  type StartEmulatorOptions,
  startEmulator,
} from "../emulator/index.js";
import { unusedNote } from "../emulator/server/replay.js";
import { kindOf, MODEL_KINDS } from "../emulator/state/state_records.js";
import {
  type CommandIO,
  type CommandLine,
  numberFlag,
  runCommand,
  UsageError,
  type Writers,
} from "./args.js";
import { exportLines } from "./shell.js";

/** Where the command writes and what stops it; the defaults are the process's. */
export interface EmulatorCommandIO extends CommandIO {
  /** Stops the emulator when aborted, as SIGINT and SIGTERM do. */
  signal?: AbortSignal;
}

const USAGE = `Usage: inference-service emulator [--port N] [--config file.json] [--replay cassette.har] [--env | --json]

Runs a local emulator of the inference service (both surfaces, the service's errors, faults, admin API)
with a web console at its root URL.

Options:
  -p, --port N          TCP port on 127.0.0.1 (default 0: a free port)
  -c, --config FILE     JSON file with emulator options (keys, tenants, endpoints, models, credit, faults)
  -r, --replay FILE     answer every call from a cassette that \`inference-service record\` wrote (any key);
                        each recording answers once, and at the stop the unused ones are listed
      --loop            with --replay: serve a request's recordings again from the first once all
                        were used, so the app can run again and again against one emulator
      --env             print only the export lines, for a script to source
      --json            print one JSON line (base URL, key, variables, keys, models, endpoints)
  -h, --help            show this help

It runs until Ctrl-C or SIGTERM. In a script, start it in the background (from node_modules/.bin,
not through npx, so that $! is the emulator itself), read its output, and stop it at the end:
  node_modules/.bin/inference-service emulator --env > emulator.env &
  EMULATOR_PID=$!
  trap 'kill "$EMULATOR_PID"; wait "$EMULATOR_PID"' EXIT
  until [ -s emulator.env ]; do sleep 0.1; done
  . ./emulator.env        # or: eval "$(cat emulator.env)"`;

/** What the command prints once the emulator runs: the banner, or one of the script formats. */
type Output = "banner" | "env" | "json";

/** What the command line asks for. */
interface EmulatorRequest {
  options: StartEmulatorOptions;
  output: Output;
}

/**
 * Runs the emulator command and resolves to its exit code once it has stopped
 * (0 after SIGINT/SIGTERM/abort, 1 if it could not start, 2 for bad arguments).
 *
 * @example
 * // inference-service emulator --port 8787
 * process.exitCode = await runEmulatorCommand(["--port", "8787"]);
 */
export function runEmulatorCommand(argv: string[], io: EmulatorCommandIO = {}): Promise<number> {
  return runCommand(argv, io, {
    name: "emulator",
    usage: USAGE,
    flags: {
      port: { type: "string", short: "p" },
      config: { type: "string", short: "c" },
      replay: { type: "string", short: "r" },
      loop: { type: "boolean" },
      env: { type: "boolean" },
      json: { type: "boolean" },
    },
    read: readRequest,
    run: (request, writers) => serve(request, writers, io.signal),
  });
}

/**
 * Runs the emulator until SIGINT, SIGTERM or the abort of `signal`. Its description is written
 * in one piece, so a script polling the file it goes to never reads half of it; in the script
 * formats nothing else reaches stdout.
 */
async function serve(
  { options, output }: EmulatorRequest,
  { out, err }: Writers,
  signal: AbortSignal | undefined,
): Promise<number> {
  let emulator: RunningEmulator;
  try {
    emulator = await startEmulator(options);
  } catch (error) {
    err(`Could not start the emulator: ${(error as Error).message}\n`);
    return 1;
  }
  out(
    output === "env"
      ? `${exportLines(emulatorEnv(emulator)).join("\n")}\n`
      : output === "json"
        ? `${JSON.stringify(describe(emulator))}\n`
        : `${replayNote(options)}${banner(emulator)}`,
  );
  await stopRequested(signal);
  await emulator.close();
  const note = emulator.replay ? unusedNote(emulator.replay) : undefined;
  (output === "banner" ? out : err)(`Emulator stopped.${note ? ` ${note}.` : ""}\n`);
  return 0;
}

async function readRequest(line: CommandLine): Promise<EmulatorRequest> {
  const { env, json } = line.values;
  if (env === true && json === true) throw new UsageError("give --env or --json, not both");
  const output: Output = env === true ? "env" : json === true ? "json" : "banner";
  return { options: await readOptions(line), output };
}

async function readOptions({ values }: CommandLine): Promise<StartEmulatorOptions> {
  const port = numberFlag(values, "port", "an integer from 0 to 65535", { min: 0, max: 65_535 });
  const loaded = typeof values.config === "string" ? await loadConfig(values.config) : {};
  // --replay names the cassette; the config file's `replay` object may add `ignore` and `timing`.
  const file = typeof values.replay === "string" ? values.replay : undefined;
  let replay = loaded.replay;
  if (file !== undefined) {
    replay = typeof replay === "object" && replay !== null ? { ...replay, cassette: file } : file;
  }
  if (values.loop === true) {
    if (replay === undefined) {
      throw new UsageError("--loop replays a cassette in a loop: give --replay FILE too");
    }
    replay =
      typeof replay === "string" ? { cassette: replay, loop: true } : { ...replay, loop: true };
  }
  const options = replay === undefined ? loaded : { ...loaded, replay };
  return port === undefined ? options : { ...options, port };
}

/** The `--config` file; one that cannot be used is a usage error, like a bad flag. */
async function loadConfig(file: string): Promise<StartEmulatorOptions> {
  try {
    return await loadEmulatorConfig(file);
  } catch (error) {
    if (error instanceof EmulatorConfigError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * The variables that point the models, `doctor` and `chat` at the emulator: base URL and demo
 * key, and the first Running endpoint's tenant and job alias when there is one.
 */
function emulatorEnv({ baseURL, apiKey, state }: RunningEmulator): Record<string, string> {
  const running = state.listEndpoints().find((endpoint) => endpoint.state === "Running");
  return {
    [ENV.baseURL]: baseURL,
    [ENV.apiKey]: apiKey,
    ...(running ? { [ENV.tenantId]: running.tenantId, [ENV.jobAlias]: running.jobAlias } : {}),
  };
}

/** `--json`: what the banner says, for a program to read. */
function describe(emulator: RunningEmulator) {
  const { baseURL, url, apiKey, state } = emulator;
  return {
    baseURL,
    url,
    adminURL: `${url}/_emulator/state`,
    apiKey,
    env: emulatorEnv(emulator),
    wallet: state.credit,
    keys: state.listKeys().map((key) => ({
      secret: key.secret,
      permissions: key.permissions,
      expired: state.isExpired(key),
    })),
    models: state.listModels(),
    endpoints: state.listEndpoints(),
  };
}

/** The banner's first line when replaying: where the answers come from. */
function replayNote({ replay }: StartEmulatorOptions): string {
  if (replay === undefined) return "";
  const file = typeof replay === "string" ? replay : replay.cassette;
  const loop = typeof replay === "object" && replay.loop === true;
  return `Replaying cassette ${file}: every call under the base URL gets its recorded answer (any key); an unrecorded call gets 400 not_in_cassette. ${loop ? "Recordings are served in a loop: once a request's recordings are used, they answer again from the first." : "Each recording answers once: restart the emulator (or start it with --loop) to run the app again."}\n`;
}

/** What a user needs to point an app at the emulator, ending with lines to paste into a shell. */
function banner(emulator: RunningEmulator): string {
  const { baseURL, url, state } = emulator;
  const keys = state.listKeys().map((key) => {
    const notes = [
      key.permissions.includes(INFERENCE_SERVICE_PERMISSION)
        ? "both surfaces"
        : "hosted surface only (no Inference Service permission)",
      ...(state.isExpired(key) ? ["expired: every call gets 401"] : []),
    ];
    return `  ${key.secret.padEnd(24)} ${notes.join("; ")}`;
  });
  const endpoints = state.listEndpoints().map((endpoint) => {
    const tenant = state.tenant(endpoint.tenantId)?.name ?? endpoint.tenantId;
    return `  ${endpoint.serviceName.padEnd(32)} ${endpoint.state} ${endpoint.scaling}  (tenant "${tenant}")`;
  });
  const all = state.listModels();
  const models = all
    .filter((model) => kindOf(model) === "chat")
    .map((model) => {
      const { input, output, cachedInput } = model.prices;
      const cached = cachedInput === undefined ? "" : ` (${cachedInput} cached)`;
      return `  ${model.id.padEnd(24)} ${input} in${cached} / ${output} out per million tokens${
        model.profile?.maxInputTokens ? `, ${model.profile.maxInputTokens}-token context` : ""
      }${thinkingNote(model)}`;
    });
  // Each kind served beside chat (embeddings, rerank) in a section of its own, when it has models.
  const otherKinds = Object.entries(MODEL_KINDS).flatMap(([name, kind]) => {
    const lines = all
      .filter((model) => kindOf(model) === name)
      .map(
        (model) =>
          `  ${model.id.padEnd(24)} ${model.prices.input} in per million tokens${kind.details(model)}${
            model.profile?.maxInputTokens ? `, ${model.profile.maxInputTokens} ${kind.limit}` : ""
          }`,
      );
    return lines.length > 0 ? [kind.heading, ...lines, ""] : [];
  });
  return [
    "Inference service emulator running (an emulator: replies come from fixed rules, not a model).",
    "",
    `Base URL:   ${baseURL}`,
    `Console:    ${url}/  (keys, endpoints, Wallet, live requests, faults)`,
    `Admin API:  ${url}/_emulator/state  (writes: same-origin, Content-Type: application/json)`,
    `Wallet:     ${state.credit}`,
    "",
    "API keys:",
    ...keys,
    "",
    "Hosted models:",
    ...models,
    "",
    ...otherKinds,
    "Dedicated endpoints (Service-Name):",
    ...endpoints,
    "",
    "Paste into your shell (bash, zsh, sh), or start with --env to print only these:",
    ...exportLines(emulatorEnv(emulator)),
    "",
    "Press Ctrl-C to stop.",
    "",
  ].join("\n");
}

const REASONING_PLACES: Readonly<Record<ReasoningFormat, string>> = {
  reasoning_content: "reasoning_content",
  reasoning: "`reasoning` (vLLM)",
  tags: "<think> tags",
  "opened-tags": "its text up to </think>",
};

/** How a model of the banner thinks, when it is configured to. */
function thinkingNote(model: HostedModel): string {
  const { reasoning } = model;
  if (reasoning === undefined) return "";
  const input =
    reasoning.input === "require"
      ? ", needs it back within the turn"
      : reasoning.input === "refuse"
        ? ", refuses it on input"
        : "";
  return `; thinks in ${REASONING_PLACES[reasoning.format]}${input}`;
}

/** Resolves on SIGINT, SIGTERM or the abort of `signal`, removing its listeners. */
export function stopRequested(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      signal?.removeEventListener("abort", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    if (signal?.aborted) stop();
    else signal?.addEventListener("abort", stop, { once: true });
  });
}
