/**
 * @module The docs cannot rot: every fenced block of README.md and docs/*.md is of a kind
 * CONTRIBUTING.md names, every runnable one runs against the emulator as a user would run it
 * (the built package, a fresh `npm init -y` project), shell lines parse, and every link of the
 * published tarball's Markdown resolves inside that tarball.
 */
import { execFile, execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { marked, type Token } from "marked";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runEmulatorCommand } from "../src/cli/emulator.js";
import { REDIS_SERVER, type RedisServer, startRedis, warnIfNoRedis } from "./helpers/redis.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const run = promisify(execFile);

// ---- the blocks ---------------------------------------------------------------------------

/** What a fence's info string makes of a block (CONTRIBUTING.md, "Code blocks in the docs"). */
type Kind = "module" | "continues" | "commonjs" | "fragment" | "shell" | "console" | "output";

interface Block {
  page: string;
  /** Line of the opening fence, 1-based. */
  line: number;
  info: string;
  kind: Kind | undefined;
  code: string;
}

const CODE = new Set(["ts", "typescript", "js", "javascript"]);

function kindOf(info: string): Kind | undefined {
  const [lang = "", ...flags] = info.trim().split(/\s+/);
  const flag = flags.join(" ");
  if (CODE.has(lang)) {
    if (flag === "") return "module";
    if (flag === "continues") return "continues";
    if (flag === "fragment") return "fragment";
    if (flag === "commonjs" && lang.startsWith("j")) return "commonjs";
    return undefined;
  }
  if (["bash", "sh", "shell"].includes(lang) && flag === "") return "shell";
  if (lang === "console" && flag === "") return "console";
  // A bare fence is refused: every block says what it is.
  if ((lang === "text" || lang === "json") && flag === "") return "output";
  return undefined;
}

/** Every code token, also inside lists and block quotes. */
function codeTokens(tokens: Token[]): Array<Token & { type: "code" }> {
  return tokens.flatMap((token) => {
    if (token.type === "code") return [token as Token & { type: "code" }];
    const children = [
      ...("tokens" in token && Array.isArray(token.tokens) ? token.tokens : []),
      ...("items" in token && Array.isArray(token.items) ? token.items : []),
    ] as Token[];
    return codeTokens(children);
  });
}

function blocksOf(page: string): Block[] {
  const text = readFileSync(join(ROOT, page), "utf8");
  const lines = text.split("\n");
  let from = 0;
  return codeTokens(marked.lexer(text)).map((token) => {
    // The fence's line: the next line from here that opens a fence with this info string.
    const info = token.lang ?? "";
    const line = lines.findIndex(
      (l, i) => i >= from && /^\s*(```|~~~)/.test(l) && l.trim().slice(3).trim() === info.trim(),
    );
    from = line + 1;
    return { page, line: line + 1, info, kind: kindOf(info), code: token.text };
  });
}

const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
];
const BLOCKS = PAGES.flatMap(blocksOf);
const where = (block: Block) => `${block.page}:${block.line} (${block.info || "no info"})`;

/** A module block and the `continues` blocks after it on its page: one file, run once. */
interface Module {
  name: string;
  blocks: Block[];
}

function modulesOf(blocks: Block[]): Module[] {
  const modules: Module[] = [];
  let current: Module | undefined;
  for (const block of blocks) {
    if (block.kind === "module") {
      current = { name: `m${modules.length + 1}`, blocks: [block] };
      modules.push(current);
    } else if (block.kind === "continues") {
      if (current === undefined || current.blocks[0]!.page !== block.page) {
        throw new Error(
          `${where(block)} continues, but no runnable block comes before it on its page`,
        );
      }
      current.blocks.push(block);
    }
  }
  return modules;
}

/**
 * A `continues` block runs in its own scope after the blocks before it, so it can redeclare a
 * name; its static imports (not allowed in a scope) become dynamic ones.
 */
function asScope(code: string): string {
  const imports = code.replace(
    /^import\s+(type\s+)?([\s\S]*?)\s+from\s+(["'][^"']+["']);?/gm,
    (_all, typeOnly: string | undefined, clause: string, from: string) => {
      if (typeOnly) return "";
      const star = /^\*\s+as\s+(\w+)$/.exec(clause.trim());
      if (star) return `const ${star[1]} = await import(${from});`;
      const named = /^(?:(\w+)\s*,\s*)?\{([\s\S]*)\}$/.exec(clause.trim());
      const defaultOnly = /^(\w+)$/.exec(clause.trim());
      const parts = [
        ...(named?.[1] ? [`default: ${named[1]}`] : []),
        ...(defaultOnly ? [`default: ${defaultOnly[1]}`] : []),
        ...(named?.[2] ?? "")
          .split(",")
          .map((part) => part.trim())
          .filter((part) => part !== "" && !part.startsWith("type "))
          .map((part) => part.replace(/\s+as\s+/, ": ")),
      ];
      return `const { ${parts.join(", ")} } = await import(${from});`;
    },
  );
  return `{\n${imports}\n}`;
}

function sourceOf(module: Module): string {
  const [first, ...rest] = module.blocks;
  return [
    `// ${where(first!)}`,
    first!.code,
    ...rest.map((block) => `// ${where(block)}\n${asScope(block.code)}`),
    "",
  ].join("\n");
}

/** The block of `module` that line `line` of its file belongs to: the last one starting before it. */
function blockAt(module: Module, source: string, line: number): Block | undefined {
  const starts = source
    .split("\n")
    .map((text, i) => [i + 1, text] as const)
    .filter(([, text]) => module.blocks.some((block) => text === `// ${where(block)}`));
  const index = starts.filter(([start]) => start <= line).length - 1;
  return module.blocks[index];
}

// ---- running them -------------------------------------------------------------------------

/**
 * The package the blocks import: this repository when dist/ is newer than src/ (as in CI, which
 * builds first), else a fresh build in a directory of its own, so that other test files reading
 * dist/ at the same time never see it half rebuilt.
 */
function builtPackage(): string {
  const built = join(ROOT, "dist/index.js");
  const newest = (dir: string): number =>
    Math.max(
      ...readdirSync(dir, { withFileTypes: true }).map((entry) =>
        entry.isDirectory()
          ? newest(join(dir, entry.name))
          : statSync(join(dir, entry.name)).mtimeMs,
      ),
    );
  if (existsSync(built) && statSync(built).mtimeMs >= newest(join(ROOT, "src"))) return ROOT;
  const dir = mkdtempSync(join(tmpdir(), "docs-package-"));
  execFileSync("npx", ["--no-install", "tsup", "--silent", "--out-dir", join(dir, "dist")], {
    cwd: ROOT,
    stdio: "inherit",
  });
  writeFileSync(join(dir, "package.json"), readFileSync(join(ROOT, "package.json")));
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  return dir;
}

/**
 * A project as `npm init -y` makes it (CommonJS by default), whose node_modules holds this
 * package and the repository's dependencies, linked rather than installed, and whose
 * node_modules/.bin has this package's command, as an install puts it there.
 */
function userProject(pkg: string): string {
  const dir = mkdtempSync(join(tmpdir(), "docs-blocks-"));
  execFileSync("npm", ["init", "-y"], { cwd: dir, stdio: "ignore" });
  mkdirSync(join(dir, "node_modules", ".bin"), { recursive: true });
  for (const name of readdirSync(join(ROOT, "node_modules"))) {
    if (name === ".bin") continue;
    symlinkSync(join(ROOT, "node_modules", name), join(dir, "node_modules", name));
  }
  for (const name of readdirSync(join(ROOT, "node_modules", ".bin"))) {
    symlinkSync(join(ROOT, "node_modules", ".bin", name), join(dir, "node_modules", ".bin", name));
  }
  symlinkSync(pkg, join(dir, "node_modules", "langchain-inference-service"));
  symlinkSync(join(pkg, "dist", "cli.js"), join(dir, "node_modules", ".bin", "inference-service"));
  return dir;
}

// Imports each module in turn in one process (with tsx, for TypeScript), each with a time limit,
// and writes { file: error | null } to results.json.
const RUNNER = `
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const results = {};
let current;
process.on("unhandledRejection", (error) => { results[current] ??= String(error?.stack ?? error); });
const env = { ...process.env };
for (const file of process.argv.slice(2)) {
  current = file;
  // A block may point the env elsewhere (at an emulator it starts): the next one starts afresh.
  for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name];
  Object.assign(process.env, env);
  let timer;
  const limit = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error("did not finish within 30 s")), 30_000); });
  try {
    await Promise.race([import(pathToFileURL(file).href), limit]);
    results[file] ??= null;
  } catch (error) {
    results[file] = String(error?.stack ?? error);
  } finally {
    clearTimeout(timer);
  }
}
writeFileSync("results.json", JSON.stringify(results));
process.exit(0);
`;

/** A block that uses the Redis store runs against a redis-server the test starts (REDIS_URL). */
const needsRedis = (block: Block) =>
  /from\s+["']langchain-inference-service\/redis["']/.test(block.code);
const REDIS_BLOCKS = BLOCKS.filter(
  (block) => needsRedis(block) && ["module", "continues"].includes(block.kind!),
);

// Without redis-server (.ci/run installs it), the Redis blocks are left out, visibly; a module
// whose first block needs Redis goes with everything that continues it.
warnIfNoRedis("docs.test.ts");
const MODULES = modulesOf(BLOCKS).flatMap((module) => {
  if (REDIS_SERVER !== undefined) return [module];
  if (needsRedis(module.blocks[0]!)) return [];
  return [{ ...module, blocks: module.blocks.filter((block) => !needsRedis(block)) }];
});
const COMMONJS = BLOCKS.filter((block) => block.kind === "commonjs");

/** The emulator as `inference-service emulator` runs it; `stop` ends the command. */
let emulator: { env: Record<string, string>; stop: () => Promise<unknown> } | undefined;
let redis: RedisServer | undefined;
let project: string;
const outcome = new Map<string, string | null>();
/** Each module's file in `project`, by module name. */
const fileOf = new Map<string, string>();

let pkg: string;
/** The environment every block runs in: what the emulator command prints for a shell to source. */
let blockEnv: NodeJS.ProcessEnv;

/**
 * Runs `inference-service emulator --port 0 --json` in this process, exactly as a reader starts
 * it (nothing added: the docs use its models, keys and endpoints, or show how to add one), and
 * resolves once it runs, with the variables it says to export.
 */
async function startEmulatorCommand(): Promise<NonNullable<typeof emulator>> {
  const controller = new AbortController();
  let printed = "";
  let started: () => void = () => {};
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const stopped = runEmulatorCommand(["--port", "0", "--json"], {
    stdout: (text) => {
      printed += text;
      if (printed.endsWith("\n")) started();
    },
    stderr: () => {},
    signal: controller.signal,
  });
  await Promise.race([running, stopped]);
  const { env } = JSON.parse(printed) as { env: Record<string, string> };
  return {
    env,
    stop: () => {
      controller.abort();
      return stopped;
    },
  };
}

beforeAll(async () => {
  pkg = builtPackage();
  emulator = await startEmulatorCommand();
  if (REDIS_SERVER !== undefined) redis = await startRedis();
  blockEnv = {
    ...Object.fromEntries(
      Object.entries(process.env).filter(
        ([name]) => !/^(INFERENCE_SERVICE_|OPENAI_|REDIS_URL$)/.test(name),
      ),
    ),
    ...emulator.env,
    ...(redis ? { REDIS_URL: redis.url } : {}),
  };
  const env = blockEnv;
  project = userProject(pkg);
  const files = MODULES.map((module) => {
    const ts = module.blocks.some((block) => block.info.startsWith("t"));
    const file = `${module.name}.${ts ? "mts" : "mjs"}`;
    writeFileSync(join(project, file), sourceOf(module));
    fileOf.set(module.name, file);
    return file;
  });
  writeFileSync(join(project, "runner.mjs"), RUNNER);
  await run(join(ROOT, "node_modules/.bin/tsx"), ["runner.mjs", ...files], {
    cwd: project,
    env,
    maxBuffer: 64 * 1024 * 1024,
  });
  const results = JSON.parse(readFileSync(join(project, "results.json"), "utf8")) as Record<
    string,
    string | null
  >;
  MODULES.forEach((module, i) => {
    const file = files[i]!;
    const error = file in results ? results[file]! : "not run";
    // Say which block failed: the error's first line in this module's file.
    const line = error && new RegExp(`${file.replace(".", "\\.")}:(\\d+)`).exec(error)?.[1];
    const block = line
      ? blockAt(module, readFileSync(join(project, file), "utf8"), Number(line))
      : undefined;
    outcome.set(module.name, error && block ? `in the block at ${where(block)}: ${error}` : error);
  });
  // CommonJS blocks: each as index.js of the CommonJS project, run by plain Node.
  for (const [i, block] of COMMONJS.entries()) {
    const file = `commonjs-${i + 1}.js`;
    writeFileSync(join(project, file), block.code);
    try {
      await run(process.execPath, [file], { cwd: project, env });
      outcome.set(file, null);
    } catch (error) {
      outcome.set(file, String((error as { stderr?: string }).stderr || error));
    }
  }
}, 180_000);

afterAll(async () => {
  await emulator?.stop();
  await redis?.stop();
  if (project) rmSync(project, { recursive: true, force: true });
  if (pkg && pkg !== ROOT) rmSync(pkg, { recursive: true, force: true });
});

describe("code blocks of README.md and docs/", () => {
  it("are each of a kind CONTRIBUTING.md names (runnable, continues, commonjs, fragment, shell, console, output)", () => {
    expect(BLOCKS.length).toBeGreaterThan(50);
    expect(BLOCKS.filter((block) => block.kind === undefined).map(where)).toEqual([]);
  });

  it("name what they use: a runnable block has no placeholder like … in its code", () => {
    const runnable = BLOCKS.filter((b) => ["module", "continues", "commonjs"].includes(b.kind!));
    expect(
      runnable.filter((block) => /\/\*\s*…|^\s*…|\.\.\.\s*$/m.test(block.code)).map(where),
    ).toEqual([]);
  });

  it.each(MODULES.map((module) => [module.blocks.map(where).join(" + "), module.name]))(
    "runs %s against the emulator",
    (_name, module) => {
      expect(outcome.get(module)).toBeNull();
    },
  );

  it.skipIf(REDIS_SERVER === undefined)(
    "runs the blocks that use the Redis store, against a redis-server on a free port",
    () => {
      expect(REDIS_BLOCKS.length).toBeGreaterThan(0);
      const ran = MODULES.flatMap((module) => module.blocks);
      expect(REDIS_BLOCKS.filter((block) => !ran.includes(block)).map(where)).toEqual([]);
    },
  );

  it.each(COMMONJS.map((block, i) => [where(block), `commonjs-${i + 1}.js`]))(
    "runs %s with require() in an `npm init -y` project",
    (_name, file) => {
      expect(outcome.get(file)).toBeNull();
    },
  );

  it.each(
    BLOCKS.filter((block) => block.kind === "shell" || block.kind === "console").map((block) => [
      where(block),
      block,
    ]),
  )("parses the shell lines of %s", async (_name, block) => {
    const script =
      block.kind === "shell"
        ? block.code
        : block.code
            .split("\n")
            .filter((line) => line.startsWith("$ "))
            .map((line) => line.slice(2))
            .join("\n");
    expect(script.trim()).not.toBe("");
    await expect(run("bash", ["-n", "-c", script])).resolves.toBeDefined();
  });
});

// ---- install lines ------------------------------------------------------------------------

/** The `npm install` lines of a page's shell blocks, each as its packages (sorted, flags and comment left out). */
function installLines(page: string): string[] {
  return BLOCKS.filter((block) => block.page === page && block.kind === "shell")
    .flatMap((block) => block.code.split("\n"))
    .filter((line) => /^npm install [^-]/.test(line) && !/ git\+/.test(line))
    .map((line) =>
      line
        .replace(/#.*/, "")
        .trim()
        .split(/\s+/)
        .slice(2)
        .filter((word) => !word.startsWith("-"))
        .sort()
        .join(" "),
    );
}

describe("install lines", () => {
  it("getting-started.md gives the README's, and every other page only lines the README gives", () => {
    const readme = installLines("README.md");
    expect(readme.length).toBeGreaterThanOrEqual(5);
    expect(installLines("docs/getting-started.md")).toEqual(readme);
    const others = PAGES.filter((page) => !["README.md", "docs/getting-started.md"].includes(page));
    const strays = others.flatMap((page) =>
      installLines(page)
        .filter((line) => !readme.includes(line))
        .map((line) => `${page}: npm install ${line}`),
    );
    expect(strays).toEqual([]);
  });
});

describe("running a page's TypeScript with tsx", () => {
  it("says to install tsx (npm i -D tsx) in every paragraph that runs a .mts file with it", () => {
    const unsaid = PAGES.flatMap((page) =>
      readFileSync(join(ROOT, page), "utf8")
        .split(/\n\s*\n/)
        .filter(
          (paragraph) => /npx tsx \S+\.mts/.test(paragraph) && !paragraph.includes("npm i -D tsx"),
        )
        .map((paragraph) => `${page}: ${paragraph.slice(0, 120)}`),
    );
    expect(unsaid).toEqual([]);
  });
});

// ---- the emulator in a script --------------------------------------------------------------

describe("docs/emulator.md's script that runs the emulator in the background", () => {
  it("stops the emulator it started when it ends", async () => {
    const [script] = BLOCKS.filter(
      (block) =>
        block.page === "docs/emulator.md" && /emulator --env > emulator\.env &/.test(block.code),
    );
    expect(script).toBeDefined();
    const { stdout } = await run(
      "bash",
      ["-e", "-c", `${script!.code}\necho "$INFERENCE_SERVICE_BASE_URL"`],
      {
        cwd: project,
        env: { PATH: process.env.PATH },
      },
    );
    const baseURL = stdout.trim().split("\n").at(-1)!;
    expect(stdout).toContain("Nothing failed");
    // Gone once the script has ended: nothing answers at its URL any more.
    const answer = await fetch(`${baseURL}/models`).then(
      () => "answered",
      (error: { cause?: { code?: string } }) => error.cause?.code,
    );
    expect(answer).toBe("ECONNREFUSED");
  }, 60_000);
});

// ---- types ----------------------------------------------------------------------------------

/**
 * What a reader's TypeScript project checks: `tsc --strict` with `module: nodenext`, against the
 * built package's declarations, with `skipLibCheck` on (as `tsc --init` sets it: without it, tsc
 * stops in `@langchain/core`'s vitest types once `langchain` and vitest 4 are both installed).
 * README.md shows these settings ("TypeScript settings"); a test below holds the two together.
 */
const READER_TSCONFIG = {
  compilerOptions: {
    strict: true,
    module: "nodenext",
    moduleResolution: "nodenext",
    target: "es2022",
    skipLibCheck: true,
    noEmit: true,
  },
};

describe("TypeScript of the docs and the examples", () => {
  it("uses the settings README.md shows a reader", () => {
    const shown = BLOCKS.find(
      (block) =>
        block.page === "README.md" &&
        block.info === "json" &&
        block.code.includes('"compilerOptions"'),
    );
    expect(shown, 'README.md shows no tsconfig.json under "TypeScript settings"').toBeDefined();
    const { noEmit: _noEmit, ...options } = READER_TSCONFIG.compilerOptions;
    expect(JSON.parse(shown!.code)).toEqual({ compilerOptions: options });
  });

  it("compiles under tsc --strict with module nodenext: every ts block, every example", async () => {
    const modules = MODULES.filter((module) => fileOf.get(module.name)?.endsWith(".mts"));
    expect(modules.length).toBeGreaterThan(20);
    // The examples as a reader copies them: an ES module package of their own.
    const examples = join(project, "examples");
    mkdirSync(examples, { recursive: true });
    writeFileSync(join(examples, "package.json"), JSON.stringify({ type: "module" }));
    const exampleFiles = readdirSync(join(ROOT, "examples")).filter((name) => name.endsWith(".ts"));
    expect(exampleFiles.length).toBeGreaterThan(10);
    for (const name of exampleFiles) {
      writeFileSync(join(examples, name), readFileSync(join(ROOT, "examples", name)));
    }
    const files = [
      ...modules.map((module) => fileOf.get(module.name)!),
      ...exampleFiles.map((name) => `examples/${name}`),
    ];
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({ ...READER_TSCONFIG, files }, null, 2),
    );
    const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
    const output = await run(process.execPath, [tsc, "-p", "tsconfig.json"], {
      cwd: project,
      maxBuffer: 16 * 1024 * 1024,
    }).then(
      () => "",
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    // Each error with the block it is in: `m3.mts(12,5): error TS…` → the page and line.
    const errors = output
      .split("\n")
      .filter((line) => /error TS\d+/.test(line))
      .map((line) => {
        const [, file = "", at = "0"] = /^(m\d+\.mts)\((\d+),/.exec(line) ?? [];
        const module = modules.find((m) => fileOf.get(m.name) === file);
        const block = module
          ? blockAt(module, readFileSync(join(project, file), "utf8"), Number(at))
          : undefined;
        return block ? `${where(block)}: ${line}` : line;
      });
    expect(errors).toEqual([]);
  }, 120_000);
});

// ---- links --------------------------------------------------------------------------------

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/[`*]|<[^>]+>/g, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const token of marked.lexer(text)) {
    if (token.type !== "heading") continue;
    const base = slug(token.text);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

function linksOf(tokens: Token[]): string[] {
  return tokens.flatMap((token) => [
    ...(token.type === "link" ? [token.href] : []),
    ...linksOf([
      ...("tokens" in token && Array.isArray(token.tokens) ? token.tokens : []),
      ...("items" in token && Array.isArray(token.items) ? token.items : []),
    ] as Token[]),
  ]);
}

describe("README's advice on running the quickstart (ESM and CommonJS)", () => {
  const quickstart = BLOCKS.find(
    (block) => block.page === "README.md" && block.kind === "module" && /await/.test(block.code),
  )!;
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const tsx = join(ROOT, "node_modules/.bin/tsx");

  /** Runs `file` with tsx in `dir`; resolves to its output, or to the error text it failed with. */
  async function runTsx(dir: string, file: string): Promise<string> {
    writeFileSync(join(dir, file), quickstart.code);
    try {
      return (await run(tsx, [file], { cwd: dir, env: blockEnv })).stdout;
    } catch (error) {
      return `failed: ${(error as { stderr?: string }).stderr ?? error}`;
    }
  }

  it("holds in an `npm init -y` project: .mts runs with tsx, .ts fails with the error the README quotes", async () => {
    expect(readme).toContain("npx tsx quickstart.mts");
    expect(await runTsx(project, "quickstart.mts")).toContain(
      'Emulated reply to: "What is LangChain?"',
    );
    const quoted =
      /fails with "(Top-level\s+await\s+is\s+currently\s+not\s+supported\s+with\s+the\s+"cjs"\s+output\s+format)"/
        .exec(readme)?.[1]
        ?.replace(/\s+/g, " ");
    expect(quoted).toBeDefined();
    expect(await runTsx(project, "quickstart.ts")).toContain(quoted);
  });

  it('holds once the project says "type": "module": .ts runs with tsx', async () => {
    expect(readme).toContain("npm pkg set type=module");
    const esm = userProject(pkg);
    try {
      execFileSync("npm", ["pkg", "set", "type=module"], { cwd: esm, stdio: "ignore" });
      expect(await runTsx(esm, "quickstart.ts")).toContain(
        'Emulated reply to: "What is LangChain?"',
      );
    } finally {
      rmSync(esm, { recursive: true, force: true });
    }
  });
});

describe("links in the published tarball", () => {
  it("resolve to a file (and heading) that the tarball holds", () => {
    const [packed] = JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
        cwd: ROOT,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }),
    ) as Array<{ files: Array<{ path: string }> }>;
    const files = new Set(packed!.files.map((file) => file.path));
    const pages = [...files].filter((file) => file.endsWith(".md"));
    expect(pages).toEqual(expect.arrayContaining(["README.md", "docs/getting-started.md"]));
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(join(ROOT, page), "utf8");
      for (const href of linksOf(marked.lexer(text))) {
        if (/^[a-z]+:/i.test(href)) continue; // https:, mailto: — not part of the tarball
        const [path = "", anchor] = href.split("#");
        const target = path === "" ? page : normalize(join(dirname(page), path)).replace(/\/$/, "");
        const exists =
          files.has(target) || [...files].some((file) => file.startsWith(`${target}/`));
        if (!exists || target.startsWith("..")) {
          broken.push(`${page}: ${href} (no ${relative(".", target)} in the tarball)`);
        } else if (
          anchor &&
          target.endsWith(".md") &&
          !anchorsOf(readFileSync(join(ROOT, target), "utf8")).has(anchor)
        ) {
          broken.push(`${page}: ${href} (no heading #${anchor} in ${target})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
