/** @module `inference-service emulator`: runs the local emulator until Ctrl-C and prints how to use it. */

import {
  EmulatorConfigError,
  INFERENCE_SERVICE_PERMISSION,
  loadEmulatorConfig,
  type RunningEmulator,
  type StartEmulatorOptions,
  startEmulator,
} from "../emulator/index.js";
import {
  type CommandIO,
  type CommandLine,
  numberFlag,
  runCommand,
  UsageError,
  type Writers,
} from "./args.js";

/** Where the command writes and what stops it; the defaults are the process's. */
export interface EmulatorCommandIO extends CommandIO {
  /** Stops the emulator when aborted, as SIGINT and SIGTERM do. */
  signal?: AbortSignal;
}

const USAGE = `Usage: inference-service emulator [--port N] [--config file.json]

Runs a local emulator of the inference service (both surfaces, §7 errors, faults, admin API).

Options:
  -p, --port N          TCP port on 127.0.0.1 (default 0: a free port)
  -c, --config FILE     JSON file with emulator options (keys, tenants, endpoints, models, credit, faults)
  -h, --help            show this help

Stop it with Ctrl-C.`;

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
    },
    read: readOptions,
    run: (options, writers) => serve(options, writers, io.signal),
  });
}

/** Runs the emulator until SIGINT, SIGTERM or the abort of `signal`. */
async function serve(
  options: StartEmulatorOptions,
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
  out(banner(emulator));
  await stopRequested(signal);
  await emulator.close();
  out("Emulator stopped.\n");
  return 0;
}

async function readOptions({ values }: CommandLine): Promise<StartEmulatorOptions> {
  const port = numberFlag(
    values,
    "port",
    (n) => Number.isInteger(n) && n >= 0 && n <= 65_535,
    "an integer from 0 to 65535",
  );
  const options = typeof values.config === "string" ? await loadConfig(values.config) : {};
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

/** What a user needs to point an app at the emulator, ending with lines to paste into a shell. */
function banner({ baseURL, url, apiKey, state }: RunningEmulator): string {
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
  const models = state
    .listModels()
    .map(
      (model) =>
        `  ${model.id.padEnd(24)} ${model.prices.input} in / ${model.prices.output} out per million tokens${
          model.profile?.maxInputTokens ? `, ${model.profile.maxInputTokens}-token context` : ""
        }`,
    );
  const running = state.listEndpoints().find((endpoint) => endpoint.state === "Running");
  const env = [
    `INFERENCE_SERVICE_BASE_URL=${baseURL}`,
    `INFERENCE_SERVICE_API_KEY=${apiKey}`,
    ...(running
      ? [
          `INFERENCE_SERVICE_TENANT_ID=${running.tenantId}`,
          `INFERENCE_SERVICE_JOB_ALIAS=${running.jobAlias}`,
        ]
      : []),
  ];
  return [
    "Inference service emulator running (an emulator: replies come from fixed rules, not a model).",
    "",
    `Base URL:   ${baseURL}`,
    `Admin API:  ${url}/_emulator/state`,
    `Wallet:     ${state.credit}`,
    "",
    "API keys:",
    ...keys,
    "",
    "Hosted models:",
    ...models,
    "",
    "Dedicated endpoints (Service-Name):",
    ...endpoints,
    "",
    "Paste into your shell:",
    ...env,
    "",
    "Press Ctrl-C to stop.",
    "",
  ].join("\n");
}

/** Resolves on SIGINT, SIGTERM or the abort of `signal`, removing its listeners. */
function stopRequested(signal: AbortSignal | undefined): Promise<void> {
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
