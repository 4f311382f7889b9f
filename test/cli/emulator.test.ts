import { execFile } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { runEmulatorCommand } from "../../src/cli/emulator.js";

/** Runs the command until it has printed its banner (or --env, --json); returns the output so far and a stop handle. */
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
      // The banner, --env and --json are each written in one piece.
      announce();
    },
    stderr: (text) => {
      errors += text;
    },
    signal: controller.signal,
  });
  await Promise.race([ready, exit]);
  return { output: () => output, errors: () => errors, exit, stop: () => controller.abort() };
}

/** The status of one chat completion with the demo key, sent to `baseURL`. */
async function chatStatus(baseURL: string): Promise<number> {
  const response = await fetch(`${baseURL}/chat/completions`, {
    method: "POST",
    headers: { authorization: "Bearer sk-emulator-demo", "content-type": "application/json" },
    body: JSON.stringify({ model: "emulator-chat", messages: [{ role: "user", content: "Hi" }] }),
  });
  return response.status;
}

/**
 * Runs `script` in `bash -c`, then a Node child of that shell, and returns the
 * INFERENCE_SERVICE_* variables the child sees. The test's own env has none of them.
 */
async function variablesInChild(script: string): Promise<Record<string, string>> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("INFERENCE_SERVICE_")),
  );
  const child = `'${process.execPath}' -e 'console.log(JSON.stringify(Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("INFERENCE_SERVICE_")))))'`;
  const { stdout } = await promisify(execFile)("bash", ["-c", `${script}\n${child}`], { env });
  return JSON.parse(stdout);
}

describe("inference-service emulator", () => {
  it("prints the base URL, keys, Service-Names and env lines, serves, and stops on abort", async () => {
    const run = await start(["--port", "0"]);
    const text = run.output();
    const baseURL =
      /^export INFERENCE_SERVICE_BASE_URL=(http:\/\/127\.0\.0\.1:\d+\/inference\/v1)$/m.exec(
        text,
      )?.[1];
    expect(baseURL).toBeDefined();
    expect(text).toContain(`Base URL:   ${baseURL}`);
    expect(text).toMatch(/^export INFERENCE_SERVICE_API_KEY=sk-emulator-demo$/m);
    expect(text).toMatch(/^export INFERENCE_SERVICE_TENANT_ID=tenant-demo$/m);
    expect(text).toMatch(/^export INFERENCE_SERVICE_JOB_ALIAS=demo-endpoint$/m);
    expect(text).toMatch(/^ {2}sk-emulator-noperm +hosted surface only/m);
    expect(text).toMatch(
      /^ {2}tenant-demo\.pending-endpoint +Pending 0\/1 +\(tenant "Demo Tenant"\)$/m,
    );
    expect(text).toMatch(
      /^ {2}emulator-chat +0\.5 in \/ 1\.5 out per million tokens, 32768-token context$/m,
    );

    expect(await chatStatus(baseURL!)).toBe(200);

    run.stop();
    expect(await run.exit).toBe(0);
    expect(run.output()).toMatch(/Emulator stopped\.\n$/);
    await expect(fetch(baseURL!)).rejects.toThrow("fetch failed");
  });

  it("prints export lines that, pasted into bash as printed, reach a program started from it", async () => {
    const run = await start(["--port", "0"]);
    const lines = run
      .output()
      .split("\n")
      .filter((line) => line.startsWith("export "));
    expect(lines).toHaveLength(4);
    const seen = await variablesInChild(lines.join("\n"));
    run.stop();
    await run.exit;
    expect(seen).toEqual({
      INFERENCE_SERVICE_BASE_URL: expect.stringMatching(
        /^http:\/\/127\.0\.0\.1:\d+\/inference\/v1$/,
      ),
      INFERENCE_SERVICE_API_KEY: "sk-emulator-demo",
      INFERENCE_SERVICE_TENANT_ID: "tenant-demo",
      INFERENCE_SERVICE_JOB_ALIAS: "demo-endpoint",
    });
  });

  it("quotes values the shell would otherwise change", async () => {
    const dir = await mkdtemp(join(tmpdir(), "emulator-cli-"));
    const file = join(dir, "emulator.json");
    // No spaces: a key holds visible ASCII only (the emulator refuses others).
    const secret = "sk-it's$HOME`id`\\!*;|&";
    await writeFile(file, JSON.stringify({ keys: [{ secret }] }));
    const run = await start(["--config", file, "--env"]);
    const seen = await variablesInChild(run.output());
    run.stop();
    await run.exit;
    expect(run.output()).toContain(`export INFERENCE_SERVICE_API_KEY='sk-it'\\''s$HOME`);
    expect(seen.INFERENCE_SERVICE_API_KEY).toBe(secret);
  });

  it("--env prints only the export lines, which eval in a script sets", async () => {
    const run = await start(["--env"]);
    const text = run.output();
    expect(text).toMatch(/^(export INFERENCE_SERVICE_[A-Z_]+=\S+\n){4}$/);
    const seen = await variablesInChild(`eval "$(cat <<'EOF'\n${text}EOF\n)"`);
    expect(seen.INFERENCE_SERVICE_API_KEY).toBe("sk-emulator-demo");
    expect(await chatStatus(seen.INFERENCE_SERVICE_BASE_URL!)).toBe(200);
    run.stop();
    expect(await run.exit).toBe(0);
    expect(run.output()).toBe(text);
    expect(run.errors()).toBe("Emulator stopped.\n");
  });

  it("runs the script its --help shows: in the background, --env sourced once written", async () => {
    // One process, not tsx's launcher: its parent relays a signal to the child and, when the
    // child's reply is slow (a loaded machine), exits 143 itself.
    const dir = await mkdtemp(join(tmpdir(), "emulator-cli-"));
    const script = `
      '${process.execPath}' --import tsx src/cli/bin.ts emulator --env > '${dir}/emulator.env' &
      pid=$!
      until [ -s '${dir}/emulator.env' ]; do sleep 0.1; done
      . '${dir}/emulator.env'
      status=$('${process.execPath}' -e '
        const { INFERENCE_SERVICE_BASE_URL: base, INFERENCE_SERVICE_API_KEY: key } = process.env;
        fetch(base + "/chat/completions", {
          method: "POST",
          headers: { authorization: "Bearer " + key, "content-type": "application/json" },
          body: JSON.stringify({ model: "emulator-chat", messages: [{ role: "user", content: "Hi" }] }),
        }).then((r) => console.log(r.status));')
      kill $pid; wait $pid
      echo "status $status, exit $?"`;
    const { stdout } = await promisify(execFile)("bash", ["-c", script]);
    expect(stdout.trim()).toBe("status 200, exit 0");
  });

  it("--json prints one JSON line describing the running emulator", async () => {
    const run = await start(["--json"]);
    const text = run.output();
    expect(text.split("\n")).toHaveLength(2);
    const description = JSON.parse(text);
    run.stop();
    await run.exit;
    expect(description).toMatchObject({
      baseURL: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/inference\/v1$/),
      apiKey: "sk-emulator-demo",
      wallet: 10,
      env: {
        INFERENCE_SERVICE_API_KEY: "sk-emulator-demo",
        INFERENCE_SERVICE_TENANT_ID: "tenant-demo",
        INFERENCE_SERVICE_JOB_ALIAS: "demo-endpoint",
      },
      keys: expect.arrayContaining([
        { secret: "sk-emulator-expired", permissions: ["Inference Service"], expired: true },
      ]),
      models: expect.arrayContaining([expect.objectContaining({ id: "emulator-chat" })]),
      endpoints: expect.arrayContaining([
        expect.objectContaining({ serviceName: "tenant-demo.pending-endpoint", state: "Pending" }),
      ]),
    });
    expect(description.env.INFERENCE_SERVICE_BASE_URL).toBe(description.baseURL);
    expect(description.adminURL).toBe(`${description.url}/_emulator/state`);
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
    [
      ["--port", "0x50"],
      '--port must be an integer from 0 to 65535, in decimal digits without a point; got "0x50"',
    ],
    [["--port", "70000"], '--port must be an integer from 0 to 65535, got "70000"'],
    [["--verbose"], "unknown option --verbose."],
    [["--prot", "0"], "unknown option --prot. Did you mean --port?"],
    [["--env", "--json"], "give --env or --json, not both"],
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
