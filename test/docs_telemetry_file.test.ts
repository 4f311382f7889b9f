/**
 * The telemetry file of docs/observability.md ("Exporting with OTLP"), run as the page says to
 * load it (`node --import ./telemetry.mjs app.mjs`, `tsx --import`), with stand-ins for the SDK
 * and the OTLP exporters (not installed here): its SDK is shut down — what was waiting is sent —
 * when the app runs to its end, on Ctrl-C (SIGINT) and on SIGTERM, and the process then ends as
 * it would have without the file.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TSX = join(ROOT, "node_modules/.bin/tsx");

/** The page's block that starts with `// telemetry.mjs`. */
function telemetryFile(): string {
  const page = readFileSync(join(ROOT, "docs/observability.md"), "utf8");
  const blocks = [...page.matchAll(/```js fragment\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const file = blocks.find((code) => code.startsWith("// telemetry.mjs"));
  if (file === undefined) throw new Error("docs/observability.md has no `// telemetry.mjs` block");
  return file;
}

/**
 * Stand-ins for the packages the file imports: the SDK says when it starts and, after a turn of
 * the event loop (an export on its way), that it has sent what was waiting.
 */
const STAND_INS: Record<string, string> = {
  "@opentelemetry/sdk-node": `export class NodeSDK {
  constructor(options) { this.options = options; }
  start() { process.stdout.write("sdk started\\n"); }
  async shutdown() {
    await new Promise((resolve) => setTimeout(resolve, 5));
    process.stdout.write("sdk flushed\\n");
  }
}`,
  "@opentelemetry/sdk-metrics": "export class PeriodicExportingMetricReader {}",
  "@opentelemetry/exporter-trace-otlp-http": "export class OTLPTraceExporter {}",
  "@opentelemetry/exporter-metrics-otlp-http": "export class OTLPMetricExporter {}",
};

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "telemetry-file-"));
  for (const [name, code] of Object.entries(STAND_INS)) {
    const at = join(dir, "node_modules", name);
    mkdirSync(at, { recursive: true });
    writeFileSync(
      join(at, "package.json"),
      JSON.stringify({ name, type: "module", main: "index.js" }),
    );
    writeFileSync(join(at, "index.js"), code);
  }
  writeFileSync(join(dir, "telemetry.mjs"), telemetryFile());
  writeFileSync(join(dir, "app.mjs"), 'console.log("app done");\n');
  writeFileSync(join(dir, "app.ts"), 'const done: string = "app done";\nconsole.log(done);\n');
  // An app that runs until it is stopped, and says when it is running.
  writeFileSync(join(dir, "server.mjs"), 'setInterval(() => {}, 1000);\nconsole.log("ready");\n');
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Ended {
  stdout: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

function ended(child: ChildProcess, onOutput?: (text: string) => void): Promise<Ended> {
  let stdout = "";
  child.stdout?.on("data", (data: Buffer) => {
    stdout += data.toString();
    onOutput?.(stdout);
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code, signal) => resolve({ stdout, code, signal }));
  });
}

const run = (command: string, args: string[]) =>
  spawn(command, args, { cwd: dir, stdio: ["ignore", "pipe", "inherit"] });

describe("the telemetry file of docs/observability.md", () => {
  it("flushes when the app runs to its end, loaded with node --import", async () => {
    const { stdout, code } = await ended(
      run(process.execPath, ["--import", "./telemetry.mjs", "app.mjs"]),
    );
    expect(stdout).toBe("sdk started\napp done\nsdk flushed\n");
    expect(code).toBe(0);
  });

  it("flushes when the app runs to its end, loaded with tsx --import", async () => {
    const { stdout, code } = await ended(run(TSX, ["--import", "./telemetry.mjs", "app.ts"]));
    expect(stdout).toBe("sdk started\napp done\nsdk flushed\n");
    expect(code).toBe(0);
  });

  it.each(["SIGINT", "SIGTERM"] as const)(
    "flushes on %s, then ends by that signal as the app would have",
    async (signal) => {
      const child = run(process.execPath, ["--import", "./telemetry.mjs", "server.mjs"]);
      let sent = false;
      const {
        stdout,
        code,
        signal: endedBy,
      } = await ended(child, (text) => {
        if (!sent && text.includes("ready\n")) {
          sent = true;
          child.kill(signal);
        }
      });
      expect(stdout).toBe("sdk started\nready\nsdk flushed\n");
      expect([code, endedBy]).toEqual([null, signal]);
    },
  );
});
