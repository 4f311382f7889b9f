import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { VERSION } from "../../src/version.js";
import { capture } from "./helpers.js";

describe("inference-service", () => {
  it("lists its commands for --help and exits 0", async () => {
    const { code, out, err } = await capture(main, ["--help"]);
    expect({ code, err }).toEqual({ code: 0, err: "" });
    expect(out).toMatch(/^ {2}emulator {3}run the local emulator/m);
    expect(out).toMatch(/^ {2}doctor /m);
    expect(out).toMatch(/^ {2}chat /m);
  });

  it("prints its version", async () => {
    expect(await capture(main, ["--version"])).toMatchObject({ code: 0, out: `${VERSION}\n` });
  });

  it("prints the usage to stderr and exits 2 without a command", async () => {
    const { code, out, err } = await capture(main, []);
    expect({ code, out }).toEqual({ code: 2, out: "" });
    expect(err).toContain("Usage: inference-service <command> [options]");
  });

  it.each([
    [
      ["doctr"],
      `inference-service: unknown command "doctr". Did you mean doctor? Run 'inference-service --help'.\n`,
    ],
    [["deploy"], `inference-service: unknown command "deploy". Run 'inference-service --help'.\n`],
    [["--port"], "inference-service: unknown option --port. Run 'inference-service --help'.\n"],
    [
      ["toString"],
      `inference-service: unknown command "toString". Run 'inference-service --help'.\n`,
    ],
  ])("exits 2 with one line for %j", async (argv, line) => {
    expect(await capture(main, argv)).toMatchObject({ code: 2, out: "", err: line });
  });

  it("hands the rest of the line and its output to the subcommand", async () => {
    const { code, err } = await capture(main, ["doctor", "--bse-url", "http://h"]);
    expect(code).toBe(2);
    expect(err).toBe(
      "inference-service doctor: unknown option --bse-url. Did you mean --base-url? Run 'inference-service doctor --help'.\n",
    );
  });
});
