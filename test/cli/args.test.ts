import { describe, expect, it } from "vitest";
import {
  type Command,
  type CommandLine,
  connectionOptions,
  numberFlag,
  runCommand,
} from "../../src/cli/args.js";
import { capture } from "./helpers.js";

/** A command that echoes what it read, and fails the read on `--count` below 1. */
function echo(runs: CommandLine[]): (argv: string[], io: object) => Promise<number> {
  const command: Command<CommandLine> = {
    usage: "Usage: echo [--count N] [words]",
    flags: { count: { type: "string" } },
    positionals: true,
    read: (line) => {
      numberFlag(line.values, "count", (n) => n >= 1, "a number ≥ 1");
      return line;
    },
    run: async (line, { out }) => {
      runs.push(line);
      out(`${line.positionals.join(" ")}\n`);
      return 0;
    },
  };
  return (argv, io) => runCommand(argv, io, command);
}

describe("runCommand", () => {
  it("reads the command line and runs the command with it", async () => {
    const runs: CommandLine[] = [];
    const { code, out, err } = await capture(echo(runs), ["--count", "2", "hello", "world"]);
    expect({ code, out, err }).toEqual({ code: 0, out: "hello world\n", err: "" });
    expect(runs).toEqual([{ values: { count: "2" }, positionals: ["hello", "world"] }]);
  });

  it("prints the usage for --help or -h and exits 0 without running", async () => {
    const runs: CommandLine[] = [];
    for (const flag of ["--help", "-h"]) {
      const { code, out, err } = await capture(echo(runs), [flag, "--count", "0"]);
      expect({ code, out, err }).toEqual({
        code: 0,
        out: "Usage: echo [--count N] [words]\n",
        err: "",
      });
    }
    expect(runs).toHaveLength(0);
  });

  it("prints a usage error with the usage to stderr and exits 2, for the parser and the read step", async () => {
    const runs: CommandLine[] = [];
    const unknown = await capture(echo(runs), ["--colour", "red"]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/--colour[\s\S]*\n\nUsage: echo \[--count N\] \[words\]\n$/);
    const invalid = await capture(echo(runs), ["--count", "0"]);
    expect(invalid).toMatchObject({
      code: 2,
      out: "",
      err: '--count must be a number ≥ 1, got "0"\n\nUsage: echo [--count N] [words]\n',
    });
    expect(runs).toHaveLength(0);
  });

  it("lets any other failure of the read step through", async () => {
    const boom = new Error("bug");
    const command: Command<never> = {
      usage: "u",
      flags: {},
      read: () => {
        throw boom;
      },
      run: async () => 0,
    };
    await expect(runCommand([], { stdout: () => {}, stderr: () => {} }, command)).rejects.toBe(
      boom,
    );
  });
});

describe("connectionOptions", () => {
  it("turns the connection flags into the models' options, leaving unset ones undefined", () => {
    expect(
      connectionOptions({ "base-url": "http://h", "service-name": "t.a", help: true }),
    ).toEqual({
      baseURL: "http://h",
      apiKey: undefined,
      model: undefined,
      serviceName: "t.a",
      tenantId: undefined,
      jobAlias: undefined,
    });
  });
});
