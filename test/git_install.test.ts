/**
 * @module Installing the repository as a git dependency gives a working package: a clean clone,
 * installed with `npm install git+file://…` into a fresh `npm init -y` project, builds itself
 * (its `prepare` script, with the devDependencies npm installs for it) and loads as an ES module,
 * as CommonJS and as the `inference-service` command. Slow (npm installs the devDependencies and
 * runs the build): about two minutes; the npm registry must be reachable for the dependencies
 * that npm's cache does not hold yet.
 */
import { execFile, execFileSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const VERSION = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version as string;
const run = promisify(execFile);

function hasGit(): boolean {
  try {
    execFileSync("git", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const GIT = hasGit();
if (!GIT) {
  console.warn(
    "[git_install.test.ts] SKIPPED: git not found, so the repository cannot be cloned and installed as a git dependency. Install it (apt-get install -y git).",
  );
}

/**
 * The environment of a user's shell: none of the `npm_*` variables that `npm test` sets for its
 * own script (an `npm_config_ignore_scripts` there would skip the build under test). npm's cache
 * stays the shared one, so packages already downloaded are not fetched again.
 */
function userEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^npm_|^INIT_CWD$/i.test(name)),
  );
  return { ...env, npm_config_prefer_offline: "true", npm_config_audit: "false" };
}

/**
 * A clean clone of this repository, with the working tree's changes to tracked files and its new
 * files committed on top, so the test installs what is being developed (in CI: exactly HEAD).
 */
function cleanClone(into: string): string {
  const clone = join(into, "clone");
  const git = (cwd: string, args: string[], input?: string) =>
    execFileSync("git", args, { cwd, input, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  git(into, ["clone", "--quiet", "--no-hardlinks", ROOT, clone]);
  const changes = git(ROOT, ["diff", "HEAD", "--binary"]);
  if (changes.trim() !== "") git(clone, ["apply", "--binary", "--whitespace=nowarn"], changes);
  const untracked = git(ROOT, ["ls-files", "--others", "--exclude-standard", "-z"])
    .split("\0")
    .filter((name) => name !== "");
  for (const name of untracked) {
    mkdirSync(dirname(join(clone, name)), { recursive: true });
    cpSync(join(ROOT, name), join(clone, name));
  }
  if (git(clone, ["status", "--porcelain"]).trim() !== "") {
    git(clone, ["add", "-A"]);
    git(clone, [
      "-c",
      "user.name=git-install test",
      "-c",
      "user.email=git-install@test.invalid",
      "commit",
      "--quiet",
      "--no-verify",
      "-m",
      "the working tree under test",
    ]);
  }
  return clone;
}

let dir: string;
let project: string;
let installSeconds = 0;

async function inProject(command: string, args: string[]): Promise<string> {
  const { stdout } = await run(command, args, { cwd: project, env: userEnv() });
  return stdout.trim();
}

beforeAll(async () => {
  if (!GIT) return;
  dir = mkdtempSync(join(tmpdir(), "git-install-"));
  const clone = cleanClone(dir);
  project = join(dir, "project");
  mkdirSync(project);
  execFileSync("npm", ["init", "-y"], { cwd: project, stdio: "ignore", env: userEnv() });
  const started = Date.now();
  await run(
    "npm",
    ["install", "--no-audit", "--no-fund", "--loglevel=error", `git+file://${clone}`],
    { cwd: project, env: userEnv(), maxBuffer: 64 * 1024 * 1024 },
  );
  installSeconds = (Date.now() - started) / 1000;
  console.info(
    `[git_install.test.ts] npm install git+file://… took ${installSeconds.toFixed(0)} s`,
  );
}, 600_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!GIT)("the repository installed as a git dependency", () => {
  it("holds the build: dist/ with both module formats, their types and the CLI", () => {
    const pkg = join(project, "node_modules/langchain-inference-service");
    expect(readdirSync(join(pkg, "dist"))).toEqual(
      expect.arrayContaining(["index.js", "index.cjs", "index.d.ts", "index.d.cts", "cli.js"]),
    );
  });

  it("loads as an ES module and answers a call through the emulator subpath", async () => {
    writeFileSync(
      join(project, "esm.mjs"),
      `import { ChatInferenceService, VERSION } from "langchain-inference-service";
import { startEmulator } from "langchain-inference-service/emulator";
const emulator = await startEmulator();
const chat = new ChatInferenceService("emulator-chat", { apiKey: emulator.apiKey, baseURL: emulator.baseURL });
const reply = await chat.invoke("Hello from ESM");
await emulator.close();
console.log(VERSION, reply.content);
`,
    );
    expect(await inProject(process.execPath, ["esm.mjs"])).toBe(
      `${VERSION} Emulated reply to: "Hello from ESM"`,
    );
  });

  it("loads with require() in the CommonJS project npm init -y makes", async () => {
    writeFileSync(
      join(project, "index.js"),
      `const { ChatInferenceService, ModelNotFoundError, VERSION } = require("langchain-inference-service");
const { startEmulator } = require("langchain-inference-service/emulator");
startEmulator().then(async (emulator) => {
  const chat = new ChatInferenceService("emulator-chat", { apiKey: emulator.apiKey, baseURL: emulator.baseURL });
  const reply = await chat.invoke("Hello from CommonJS");
  await emulator.close();
  console.log(VERSION, typeof ModelNotFoundError, reply.content);
});
`,
    );
    expect(await inProject(process.execPath, ["index.js"])).toBe(
      `${VERSION} function Emulated reply to: "Hello from CommonJS"`,
    );
  });

  it("runs the inference-service command through npx, without reaching for the registry", async () => {
    expect(await inProject("npx", ["--no-install", "inference-service", "--version"])).toBe(
      VERSION,
    );
    expect(await inProject("npx", ["--no-install", "inference-service", "--help"])).toContain(
      "Usage: inference-service <command> [options]",
    );
  });
});
