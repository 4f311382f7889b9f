/** @module The `inference-service` command's dispatcher: one module per subcommand (Node only). */
import { VERSION } from "../version.js";

type Command = (argv: string[]) => Promise<number>;

// Each subcommand is imported only when used, so `--help` and `doctor` stay fast.
const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  emulator: {
    summary: "run the local emulator of the service [--port N] [--config file.json]",
    load: async () => (await import("./emulator.js")).runEmulatorCommand,
  },
  doctor: {
    summary: "check URL, key, credit, model and endpoint [--model ID] [--service-name NAME]",
    load: async () => (await import("./doctor.js")).runDoctorCommand,
  },
  chat: {
    summary: 'send one prompt and stream the reply: --model ID "prompt" (or --service-name NAME)',
    load: async () => (await import("./chat.js")).runChatCommand,
  },
};

const USAGE = `inference-service ${VERSION}

Usage: inference-service <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, { summary }]) => `  ${name.padEnd(10)} ${summary}`)
  .join("\n")}

Run "inference-service <command> --help" for a command's options.`;

/** Runs the CLI with `argv` (without node and script) and resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    console.log(USAGE);
    return name === undefined ? 1 : 0;
  }
  if (name === "--version" || name === "-v") {
    console.log(VERSION);
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`Unknown command "${name}".\n\n${USAGE}`);
    return 2;
  }
  return (await command.load())(rest);
}
