import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runEmulatorCommand } from "../../src/cli/emulator.js";

/** Runs the command until it has printed its banner; returns the output so far and a stop handle. */
async function start(argv: string[]) {
  const controller = new AbortController();
  let output = "";
  let errors = "";
  let announce: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    announce = resolve;
  });
  const exit = runEmulatorCommand(argv, {
    stdout: (text) => {
      output += text;
      if (output.includes("Press Ctrl-C to stop.")) announce();
    },
    stderr: (text) => {
      errors += text;
    },
    signal: controller.signal,
  });
  await Promise.race([ready, exit]);
  return { output: () => output, errors: () => errors, exit, stop: () => controller.abort() };
}

describe("inference-service emulator", () => {
  it("prints the base URL, keys, Service-Names and env lines, serves, and stops on abort", async () => {
    const run = await start(["--port", "0"]);
    const text = run.output();
    const baseURL = /^INFERENCE_SERVICE_BASE_URL=(http:\/\/127\.0\.0\.1:\d+\/inference\/v1)$/m.exec(
      text,
    )?.[1];
    expect(baseURL).toBeDefined();
    expect(text).toContain(`Base URL:   ${baseURL}`);
    expect(text).toMatch(/^INFERENCE_SERVICE_API_KEY=sk-emulator-demo$/m);
    expect(text).toMatch(/^INFERENCE_SERVICE_TENANT_ID=tenant-demo$/m);
    expect(text).toMatch(/^INFERENCE_SERVICE_JOB_ALIAS=demo-endpoint$/m);
    expect(text).toMatch(/^ {2}sk-emulator-noperm +hosted surface only/m);
    expect(text).toMatch(
      /^ {2}tenant-demo\.pending-endpoint +Pending 0\/1 +\(tenant "Demo Tenant"\)$/m,
    );
    expect(text).toMatch(
      /^ {2}emulator-chat +0\.5 in \/ 1\.5 out per million tokens, 32768-token context$/m,
    );

    const response = await fetch(`${baseURL}/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer sk-emulator-demo", "content-type": "application/json" },
      body: JSON.stringify({ model: "emulator-chat", messages: [{ role: "user", content: "Hi" }] }),
    });
    expect(response.status).toBe(200);

    run.stop();
    expect(await run.exit).toBe(0);
    expect(run.output()).toMatch(/Emulator stopped\.\n$/);
    await expect(fetch(baseURL!)).rejects.toThrow("fetch failed");
  });

  it("stops cleanly on SIGINT", async () => {
    const listenersBefore = process.listenerCount("SIGINT");
    const run = await start([]);
    expect(process.listenerCount("SIGINT")).toBe(listenersBefore + 1);
    process.emit("SIGINT");
    expect(await run.exit).toBe(0);
    expect(process.listenerCount("SIGINT")).toBe(listenersBefore);
  });

  it("starts from a --config file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "emulator-cli-"));
    const file = join(dir, "emulator.json");
    await writeFile(file, JSON.stringify({ credit: 0.25, models: [{ id: "house-model" }] }));
    const run = await start(["--config", file, "-p", "0"]);
    expect(run.output()).toContain("Wallet:     0.25");
    expect(run.output()).toMatch(/^ {2}house-model +1 in \/ 1 out/m);
    run.stop();
    expect(await run.exit).toBe(0);
  });

  it("prints its usage for --help", async () => {
    const run = await start(["--help"]);
    expect(await run.exit).toBe(0);
    expect(run.output()).toMatch(
      /^Usage: inference-service emulator \[--port N\] \[--config file\.json\]/,
    );
  });

  it.each([
    [["--port", "http"], '--port must be an integer from 0 to 65535, got "http"'],
    [["--port", "70000"], '--port must be an integer from 0 to 65535, got "70000"'],
    [["--verbose"], "unknown option --verbose."],
    [["--prot", "0"], "unknown option --prot. Did you mean --port?"],
    [
      ["--config", "/nonexistent/emulator.json"],
      "cannot read emulator config /nonexistent/emulator.json",
    ],
  ])("exits 2 with one line in the CLI's format for %j", async (argv, message) => {
    const run = await start(argv);
    expect(await run.exit).toBe(2);
    expect(run.errors()).toMatch(
      /^inference-service emulator: .+ Run 'inference-service emulator --help'\.\n$/,
    );
    expect(run.errors()).toContain(message);
  });
});
