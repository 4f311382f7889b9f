/** @module How every subcommand reads its command line and writes its output (Node only). */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { closestName } from "./suggest.js";

/** Where a command writes; the defaults are the process's streams. */
export interface CommandIO {
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  /**
   * Aborted when nobody reads `stdout` any more. @default aborted when `process.stdout` fails
   * with EPIPE (the reader of a pipe, `| head -c 3`, has exited); never, with a `stdout` of your own
   */
  stdoutClosed?: AbortSignal;
}

/** Where a running command writes: standard output and standard error. */
export interface Writers {
  out: (text: string) => void;
  err: (text: string) => void;
  /**
   * Aborted once nobody reads standard output (`| head -c 3`): the command stops what it is
   * doing (a streamed call is cancelled) and exits quietly; `out` writes nothing from then on.
   */
  outClosed: AbortSignal;
}

let processStdoutClosed: AbortSignal | undefined;

/**
 * Aborted when `process.stdout` fails with EPIPE. Node reports a reader that went away as an
 * `error` event, which would otherwise end the process with a stack trace; stderr's EPIPE is
 * ignored the same way. Any other stream error is thrown as before.
 */
function stdoutClosedSignal(): AbortSignal {
  if (processStdoutClosed) return processStdoutClosed;
  const controller = new AbortController();
  const onError = (stream: "stdout" | "stderr") => (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    if (stream === "stdout") controller.abort();
  };
  process.stdout.on("error", onError("stdout"));
  process.stderr.on("error", onError("stderr"));
  processStdoutClosed = controller.signal;
  return processStdoutClosed;
}

/** The writers of `io`, defaulting to `process.stdout` and `process.stderr`. */
export function writers(io: CommandIO): Writers {
  const outClosed =
    io.stdoutClosed ?? (io.stdout ? new AbortController().signal : stdoutClosedSignal());
  const write = io.stdout ?? ((text: string) => process.stdout.write(text));
  return {
    out: (text) => {
      if (!outClosed.aborted) write(text);
    },
    err: io.stderr ?? ((text) => process.stderr.write(text)),
    outClosed,
  };
}

/** The command's name, as users type it and as every message starts. */
export const PROGRAM = "inference-service";

/**
 * A command line that cannot be run: the command prints it in the one format of every usage
 * error, `inference-service doctor: <message>. Run 'inference-service doctor --help'.`, and exits 2.
 */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** `inference-service <command>: <what is wrong>. Run 'inference-service <command> --help'.` */
export function usageErrorLine(command: string | undefined, message: string): string {
  const name = command ? `${PROGRAM} ${command}` : PROGRAM;
  const text = message.trim().replace(/\.+$/, "");
  return `${name}: ${text}${/[?!]$/.test(text) ? "" : "."} Run '${name} --help'.\n`;
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

/**
 * Parses `argv` against `options`. Node's `parseArgs` does the splitting (`--flag=value`, short
 * flags, `--`), but not the judging: its own messages ("Unknown option '--x'. To specify a
 * positional argument starting with a '-', place it at the end of the command after '--', …")
 * never reach a user. Each problem is a UsageError in this CLI's words, with a near miss.
 */
function parseCommandLine(
  argv: string[],
  options: Options,
  allowPositionals: boolean,
): CommandLine {
  const { values, positionals, tokens } = parseArgs({
    args: argv,
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  // Asking for help is never an error, whatever else the line holds.
  if (tokens.some((token) => token.kind === "option" && token.name === "help")) {
    return { values: { help: true }, positionals: [] };
  }
  for (const token of tokens) {
    if (token.kind === "positional" && !allowPositionals) {
      throw new UsageError(`unexpected argument "${token.value}"; this command takes only options`);
    }
    if (token.kind !== "option") continue;
    const spec = options[token.name];
    if (spec === undefined) throw new UsageError(unknownOption(token.rawName, options));
    const flag = `--${token.name}`;
    if (spec.type === "boolean" && token.value !== undefined) {
      throw new UsageError(`${flag} takes no value, got "${token.value}"`);
    }
    if (spec.type === "string" && token.value === undefined) {
      throw new UsageError(`${flag} needs a value`);
    }
    // `--system -x`: Node takes "-x" as the value; strict parsers call it ambiguous, and so do we.
    if (spec.type === "string" && !token.inlineValue && token.value!.startsWith("-")) {
      throw new UsageError(
        `${flag} needs a value, got the option-like "${token.value}"; write ${flag}=${token.value} if that is the value`,
      );
    }
  }
  return { values: values as CommandLine["values"], positionals };
}

/** `unknown option --bse-url. Did you mean --base-url?` */
function unknownOption(rawName: string, options: Options): string {
  if (!rawName.startsWith("--")) return `unknown option ${rawName}`;
  const near = closestName(rawName.slice(2), Object.keys(options));
  return `unknown option ${rawName}${near ? `. Did you mean --${near}?` : ""}`;
}

/** A subcommand, as {@link runCommand} runs it. */
export interface Command<T> {
  /** The subcommand's name, e.g. `doctor`: usage errors start with `inference-service doctor:`. */
  name: string;
  /** Printed for `--help`. */
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
 * that cannot be run prints one line to stderr, what is wrong and where help is (exit 2);
 * otherwise `run`.
 */
export async function runCommand<T>(
  argv: string[],
  io: CommandIO,
  command: Command<T>,
): Promise<number> {
  const streams = writers(io);
  const { out, err } = streams;
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
    err(usageErrorLine(command.name, error.message));
    return 2;
  }
  return command.run(input, streams);
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

/** The numbers a flag takes: whole ones unless `decimals`, from `min` to `max`. */
export interface NumberFlagRange {
  min: number;
  /** @default Number.MAX_SAFE_INTEGER */
  max?: number;
  /** Whether `0.7` is a value (`--temperature`); other flags take whole numbers. @default false */
  decimals?: boolean;
}

/**
 * A number flag: undefined when absent, else its value; a UsageError naming the flag when it is
 * not written in decimal digits (`0x10`, `1e3`, `Infinity` are refused: the flag says how many,
 * and a typo should not pass as some other number) or lies outside the range. `expected` says
 * what it takes, in words: "a whole number ≥ 1".
 */
export function numberFlag(
  values: CommandLine["values"],
  name: string,
  expected: string,
  { min, max = Number.MAX_SAFE_INTEGER, decimals = false }: NumberFlagRange,
): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const text = typeof raw === "string" ? raw.trim() : "";
  if (!(decimals ? /^-?\d+(?:\.\d+)?$/ : /^-?\d+$/).test(text)) {
    throw new UsageError(
      `--${name} must be ${expected}, in decimal digits${decimals ? "" : " without a point"}; got "${String(raw)}"`,
    );
  }
  const value = Number(text);
  if (value > max && max === Number.MAX_SAFE_INTEGER) {
    throw new UsageError(`--${name} must be at most ${max}, got "${text}"`);
  }
  if (value < min || value > max) {
    throw new UsageError(`--${name} must be ${expected}, got "${text}"`);
  }
  return value;
}
