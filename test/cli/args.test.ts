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
    name: "echo",
    usage: "Usage: echo [--count N] [words]",
    flags: { count: { type: "string" } },
    positionals: true,
    read: (line) => {
      numberFlag(line.values, "count", "a number ≥ 1", { min: 1 });
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

  it("prints one line, what is wrong and where help is, to stderr and exits 2, for the parser and the read step", async () => {
    const runs: CommandLine[] = [];
    const unknown = await capture(echo(runs), ["--colour", "red"]);
    expect(unknown).toMatchObject({
      code: 2,
      out: "",
      err: "inference-service echo: unknown option --colour. Run 'inference-service echo --help'.\n",
    });
    const near = await capture(echo(runs), ["--cuont", "2"]);
    expect(near.err).toBe(
      "inference-service echo: unknown option --cuont. Did you mean --count? Run 'inference-service echo --help'.\n",
    );
    const invalid = await capture(echo(runs), ["--count", "0"]);
    expect(invalid).toMatchObject({
      code: 2,
      out: "",
      err: `inference-service echo: --count must be a number ≥ 1, got "0". Run 'inference-service echo --help'.\n`,
    });
    expect(runs).toHaveLength(0);
  });

  it.each([
    [["--count"], "--count needs a value"],
    [["--count", "--help-me"], 'got the option-like "--help-me"; write --count=--help-me'],
    [["-x"], "unknown option -x."],
  ])("never shows Node's own parser text: %j", async (...argv) => {
    const message = argv.pop() as string;
    const { code, err } = await capture(echo([]), argv[0] as string[]);
    expect(code).toBe(2);
    expect(err).toContain(message);
    expect(err).not.toMatch(/ERR_PARSE_ARGS|To specify a positional argument|'--/);
  });

  it("lets --help win over anything else on the line", async () => {
    const { code, out } = await capture(echo([]), ["--bogus", "--count", "0", "-h"]);
    expect(code).toBe(0);
    expect(out).toBe("Usage: echo [--count N] [words]\n");
  });

  it("refuses positionals in a command that takes none", async () => {
    const command: Command<CommandLine> = {
      name: "flat",
      usage: "u",
      flags: {},
      read: (line) => line,
      run: async () => 0,
    };
    const { code, err } = await capture((argv, io) => runCommand(argv, io, command), ["stray"]);
    expect(code).toBe(2);
    expect(err).toBe(
      `inference-service flat: unexpected argument "stray"; this command takes only options. Run 'inference-service flat --help'.\n`,
    );
  });

  it("lets any other failure of the read step through", async () => {
    const boom = new Error("bug");
    const command: Command<never> = {
      name: "boom",
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

describe("numberFlag", () => {
  const read = (raw: string, range: Parameters<typeof numberFlag>[3] = { min: 0 }) =>
    numberFlag({ n: raw }, "n", "a whole number ≥ 0", range);

  it("reads decimal digits, and decimals only where the flag takes them", () => {
    expect(read("42")).toBe(42);
    expect(read(" 7 ")).toBe(7);
    expect(read("0.7", { min: 0, decimals: true })).toBe(0.7);
    expect(numberFlag({}, "n", "anything", { min: 0 })).toBeUndefined();
  });

  it.each([["0x10"], ["1e3"], ["1e20"], ["Infinity"], ["0b1"], ["+5"], ["1_000"], ["4.0"], [""]])(
    "refuses %j, which is not written in decimal digits",
    (raw) => {
      expect(() => read(raw)).toThrow(
        `--n must be a whole number ≥ 0, in decimal digits without a point; got "${raw}"`,
      );
    },
  );

  it("refuses values outside the range, saying the range", () => {
    expect(() => read("-1")).toThrow('--n must be a whole number ≥ 0, got "-1"');
    expect(() => read("100000000000000000000")).toThrow(
      '--n must be at most 9007199254740991, got "100000000000000000000"',
    );
    expect(() => read("65536", { min: 0, max: 65_535 })).toThrow(
      '--n must be a whole number ≥ 0, got "65536"',
    );
    expect(() => read(`1${"0".repeat(400)}`, { min: 0, decimals: true })).toThrow(/at most/);
  });
});
