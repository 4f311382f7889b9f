/** @module The `inference-service` command's dispatcher: one module per subcommand (Node only). */
import { VERSION } from "../version.js";
import { type CommandIO, PROGRAM, usageErrorLine, writers } from "./args.js";
import { closestName } from "./suggest.js";

type Command = (argv: string[], io: CommandIO) => Promise<number>;

// Each subcommand is imported only when used, so `--help` and `doctor` stay fast.
const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  emulator: {
    summary: "run the local emulator of the service [--port N] [--config file.json] [--env|--json]",
    load: async () => (await import("./emulator.js")).runEmulatorCommand,
  },
  doctor: {
    summary: "check URL, key, credit, model and endpoint [--model ID] [--service-name NAME]",
    load: async () => (await import("./doctor.js")).runDoctorCommand,
  },
  record: {
    summary:
      "record calls to the service into a cassette: --cassette FILE [--upstream URL] [--mode all|new]",
    load: async () => (await import("./record.js")).runRecordCommand,
  },
  cassette: {
    summary:
      "look for secrets in cassettes, remove them, drop unused recordings: scan|redact|prune PATH",
    load: async () => (await import("./cassette.js")).runCassetteCommand,
  },
  chat: {
    summary: 'send one prompt and stream the reply: --model ID "prompt" (or --service-name NAME)',
    load: async () => (await import("./chat.js")).runChatCommand,
  },
};

const USAGE = `${PROGRAM} ${VERSION}

Usage: ${PROGRAM} <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, { summary }]) => `  ${name.padEnd(10)} ${summary}`)
  .join("\n")}

Run '${PROGRAM} <command> --help' for a command's options.`;

/**
 * Runs the CLI with `argv` (without node and script) and resolves to the exit code: the
 * subcommand's, 0 for `--help` and `--version`, 2 for a missing or unknown command.
 *
 * @example
 * process.exitCode = await main(["doctor", "--model", "emulator-chat"]);
 */
export async function main(argv: string[], io: CommandIO = {}): Promise<number> {
  const { out, err } = writers(io);
  const [name, ...rest] = argv;
  if (name === "help" || name === "--help" || name === "-h") {
    out(`${USAGE}\n`);
    return 0;
  }
  if (name === "--version" || name === "-v") {
    out(`${VERSION}\n`);
    return 0;
  }
  if (name === undefined) {
    err(`${USAGE}\n`);
    return 2;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    const near = closestName(name, Object.keys(COMMANDS));
    const what = name.startsWith("-") ? `unknown option ${name}` : `unknown command "${name}"`;
    err(usageErrorLine(undefined, `${what}${near ? `. Did you mean ${near}?` : ""}`));
    return 2;
  }
  return (await command.load())(rest, io);
}
