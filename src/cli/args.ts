/** @module How every subcommand reads its command line and writes its output (Node only). */
import { type ParseArgsConfig, parseArgs } from "node:util";

/** Where a command writes; the defaults are the process's streams. */
export interface CommandIO {
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
}

/** Where a running command writes: standard output and standard error. */
export interface Writers {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** The writers of `io`, defaulting to `process.stdout` and `process.stderr`. */
function writers(io: CommandIO): Writers {
  return {
    out: io.stdout ?? ((text) => process.stdout.write(text)),
    err: io.stderr ?? ((text) => process.stderr.write(text)),
  };
}

/** A command line that cannot be run: the command prints it with its usage and exits 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** The flags naming what to call; their values become the models' options of the same name. */
export const CONNECTION_FLAGS = {
  "base-url": { type: "string" },
  "api-key": { type: "string" },
  model: { type: "string" },
  "service-name": { type: "string" },
  "tenant-id": { type: "string" },
  "job-alias": { type: "string" },
} as const satisfies Options;

/** Help lines of {@link CONNECTION_FLAGS} except `--model`, whose meaning each command gives. */
export const CONNECTION_HELP = `  --base-url URL        host root or …/inference/v1 (default: $INFERENCE_SERVICE_BASE_URL)
  --api-key KEY         API key (default: $INFERENCE_SERVICE_API_KEY). Prefer the variable: a key
                        typed here is kept in your shell history and shown by \`ps\`
  --service-name NAME   dedicated endpoint's Service-Name, <TENANT_ID>.<JOB_ALIAS_NAME>
  --tenant-id ID        tenant ID (default: $INFERENCE_SERVICE_TENANT_ID)
  --job-alias NAME      the endpoint's job alias (default: $INFERENCE_SERVICE_JOB_ALIAS)`;

/** What {@link parseCommandLine} returns: each flag's value by name, and the positionals. */
export interface CommandLine {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** Parses `argv` strictly against `options`; unknown flags and missing values are a UsageError. */
function parseCommandLine(
  argv: string[],
  options: Options,
  allowPositionals: boolean,
): CommandLine {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options,
      strict: true,
      allowPositionals,
    });
    return { values: values as CommandLine["values"], positionals };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** A subcommand, as {@link runCommand} runs it. */
export interface Command<T> {
  /** Printed for `--help`, and after a usage error. */
  usage: string;
  /** Its flags; `--help` (`-h`) is added. */
  flags: Options;
  /** Whether it takes positional arguments. @default false */
  positionals?: boolean;
  /** What the command line asks for; throws a UsageError when it cannot be run. */
  read: (line: CommandLine) => T | Promise<T>;
  /** Does it, and resolves to the exit code. */
  run: (input: T, writers: Writers) => Promise<number>;
}

const HELP_FLAG = { type: "boolean", short: "h" } as const;

/**
 * Runs a subcommand the way every one runs: `--help` prints its usage (exit 0); a command line
 * that cannot be run prints what is wrong and the usage to stderr (exit 2); otherwise `run`.
 */
export async function runCommand<T>(
  argv: string[],
  io: CommandIO,
  command: Command<T>,
): Promise<number> {
  const { out, err } = writers(io);
  let input: T;
  try {
    const line = parseCommandLine(
      argv,
      { ...command.flags, help: HELP_FLAG },
      command.positionals ?? false,
    );
    if (line.values.help === true) {
      out(`${command.usage}\n`);
      return 0;
    }
    input = await command.read(line);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(`${error.message}\n\n${command.usage}\n`);
    return 2;
  }
  return command.run(input, { out, err });
}

/** The connection flags as the models' options; unset flags stay undefined (the env applies). */
export function connectionOptions(values: CommandLine["values"]) {
  const text = (name: keyof typeof CONNECTION_FLAGS) => {
    const value = values[name];
    return typeof value === "string" ? value : undefined;
  };
  return {
    baseURL: text("base-url"),
    apiKey: text("api-key"),
    model: text("model"),
    serviceName: text("service-name"),
    tenantId: text("tenant-id"),
    jobAlias: text("job-alias"),
  };
}

/** A number flag: undefined when absent, a UsageError naming the flag when not a valid value. */
export function numberFlag(
  values: CommandLine["values"],
  name: string,
  valid: (n: number) => boolean,
  expected: string,
): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (typeof raw !== "string" || raw.trim() === "" || !valid(value)) {
    throw new UsageError(`--${name} must be ${expected}, got "${String(raw)}"`);
  }
  return value;
}
