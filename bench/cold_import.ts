/**
 * @module Benchmark 5, cold import time and size of the built main entry: ours (`dist/index.js`)
 * vs `@langchain/openai` (its `dist/index.js`).
 */

import { execFileSync, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { scaled } from "./lib/config.js";
import type { BenchContext } from "./lib/context.js";
import type { Section, Table } from "./lib/report.js";
import { bytes, int, ms, ratio, summarize } from "./lib/stats.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** A child environment without the loaders this process runs under (tsx). */
function cleanEnv(): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _o, ...env } = process.env;
  return env;
}

/**
 * Builds `dist/` if missing, then copies its `.js` files to a temporary directory (with a
 * `package.json` saying ESM and a `node_modules` link to ours), so that a rebuild of `dist/` by
 * someone else mid-run cannot break the measurement, and nothing is written into the tree.
 */
function snapshotDist(progress: (line: string) => void): {
  entry: string;
  builtAt: Date;
  dispose: () => void;
} {
  if (!existsSync(join(ROOT, "dist", "index.js"))) {
    progress("cold import: dist/ is missing, running npx tsup");
    execFileSync("npx", ["tsup"], { cwd: ROOT, stdio: "ignore" });
  }
  for (let attempt = 0; ; attempt++) {
    const dir = mkdtempSync(join(tmpdir(), "inference-service-bench-"));
    cpSync(join(ROOT, "dist"), dir, {
      recursive: true,
      filter: (src) => !/\.(map|d\.ts|d\.cts)$/.test(src),
    });
    writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
    const entry = join(dir, "index.js");
    const dispose = () => rmSync(dir, { recursive: true, force: true });
    if (existsSync(entry) && graph(entry).missing.length === 0) {
      return { entry, builtAt: statSync(join(ROOT, "dist", "index.js")).mtime, dispose };
    }
    // Someone is rebuilding dist/ right now: wait for the build to finish.
    dispose();
    if (attempt === 10) throw new Error("dist/ stayed incomplete; run `npx tsup` and retry");
    spawnSync("sleep", ["2"]);
  }
}

const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+)["']/g;

/** The files an ES module loads through relative imports (its own code, not its dependencies). */
function graph(entry: string): { files: string[]; missing: string[] } {
  const files: string[] = [];
  const missing: string[] = [];
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (!existsSync(file)) {
      missing.push(file);
      return;
    }
    files.push(file);
    for (const match of readFileSync(file, "utf8").matchAll(RELATIVE_IMPORT)) {
      visit(resolve(dirname(file), match[1]!));
    }
  };
  visit(entry);
  return { files, missing };
}

function ownSize(entry: string): { files: number; raw: number; gzip: number } {
  const { files } = graph(entry);
  let raw = 0;
  let gzip = 0;
  for (const file of files) {
    const content = readFileSync(file);
    raw += content.length;
    gzip += gzipSync(content, { level: 9 }).length;
  }
  return { files: files.length, raw, gzip };
}

/** The entry bundled with every dependency by esbuild (installed with tsup), minified. */
async function bundledSize(entry: string): Promise<{ raw: number; gzip: number } | undefined> {
  try {
    const { build } = await import("esbuild");
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      write: false,
      format: "esm",
      platform: "node",
      logLevel: "silent",
      absWorkingDir: ROOT,
    });
    const code = result.outputFiles[0]!.contents;
    return { raw: code.length, gzip: gzipSync(code, { level: 9 }).length };
  } catch {
    return undefined;
  }
}

/** Runs `node` once to import `url` (or nothing); returns wall time and in-process import time. */
function coldImport(url: string | undefined): { wallMs: number; importMs: number } {
  const script = url
    ? `const t = performance.now(); await import(${JSON.stringify(url)}); process.stdout.write(String(performance.now() - t));`
    : "process.stdout.write('0');";
  const started = performance.now();
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: ROOT,
    env: cleanEnv(),
    encoding: "utf8",
  });
  const wallMs = performance.now() - started;
  if (child.status !== 0) throw new Error(`import of ${url} failed: ${child.stderr}`);
  return { wallMs, importMs: Number(child.stdout) };
}

export async function coldImportBench(ctx: BenchContext): Promise<Section> {
  const snapshot = snapshotDist(ctx.progress);
  try {
    const theirsURL = execFileSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        "process.stdout.write(import.meta.resolve('@langchain/openai'))",
      ],
      { cwd: ROOT, env: cleanEnv(), encoding: "utf8" },
    );
    const theirsEntry = fileURLToPath(theirsURL);
    const contenders: Array<[name: string, url: string | undefined]> = [
      ["node, nothing imported", undefined],
      ["langchain-inference-service (dist/index.js)", pathToFileURL(snapshot.entry).href],
      ["@langchain/openai (dist/index.js)", theirsURL],
    ];
    const runs = scaled(20, 3);
    ctx.progress(`cold import: ${runs} spawns of each`);
    // Warm the file-system cache once per side.
    for (const [, url] of contenders) coldImport(url);
    const samples = new Map(
      contenders.map(([name]) => [name, [] as Array<ReturnType<typeof coldImport>>]),
    );
    for (let i = 0; i < runs; i++) {
      for (let k = 0; k < contenders.length; k++) {
        const [name, url] = contenders[(i + k) % contenders.length]!;
        samples.get(name)!.push(coldImport(url));
      }
    }
    const stat = (name: string) => {
      const list = samples.get(name)!;
      return {
        wall: summarize(list.map((s) => s.wallMs)),
        imp: summarize(list.map((s) => s.importMs)),
      };
    };
    const bare = stat(contenders[0]![0]);
    const theirs = stat(contenders[2]![0]);
    const timeTable: Table = {
      title: "Cold import time",
      how:
        `${runs} fresh \`node --input-type=module -e "await import(…)"\` processes per row, interleaved; ` +
        "wall = spawn to exit (includes Node's own start-up, see the first row); import = " +
        "`performance.now()` around the `import()` inside the child.",
      goal: "none stated; ours necessarily includes @langchain/openai (ChatInferenceService extends it).",
      summary: [
        `Cold import: ours ${ratio(stat(contenders[1]![0]).imp.median, theirs.imp.median)} ` +
          "@langchain/openai's import time (ours loads it too).",
      ],
      headers: [
        "module",
        "wall median",
        "wall p95",
        "import median",
        "import p95",
        "import × @langchain/openai",
      ],
      rows: contenders.map(([name, url]) => {
        const s = stat(name);
        return [
          name,
          ms(s.wall.median),
          ms(s.wall.p95),
          url ? ms(s.imp.median) : "–",
          url ? ms(s.imp.p95) : "–",
          url ? ratio(s.imp.median, theirs.imp.median) : "–",
        ];
      }),
      notes: [
        `Node start-up alone: ${ms(bare.wall.median)}; ours built ${snapshot.builtAt.toISOString()} ` +
          "(the `dist/` present at run time, copied to a temporary directory for the run).",
      ],
    };
    const oursOwn = ownSize(snapshot.entry);
    const theirsOwn = ownSize(theirsEntry);
    const [oursBundle, theirsBundle] = await Promise.all([
      bundledSize(snapshot.entry),
      bundledSize(theirsEntry),
    ]);
    const sizeRow = (
      name: string,
      own: ReturnType<typeof ownSize>,
      bundle: Awaited<ReturnType<typeof bundledSize>>,
    ) => [
      name,
      int(own.files),
      bytes(own.raw),
      bytes(own.gzip),
      bundle ? bytes(bundle.raw) : "–",
      bundle ? bytes(bundle.gzip) : "–",
      bundle && theirsBundle ? ratio(bundle.gzip, theirsBundle.gzip) : "–",
    ];
    const sizeTable: Table = {
      title: "Size of the built main entry",
      how:
        "own code = `dist/index.js` plus every file it reaches through relative imports (static and " +
        "dynamic), `.js` only, gzip -9 per file, summed; bundled = the same entry bundled with all " +
        "its dependencies by esbuild (ESM, platform node, minified, tree-shaken), gzip -9.",
      goal: "none stated; for information.",
      headers: [
        "package",
        "own files",
        "own bytes",
        "own gzip",
        "bundled bytes",
        "bundled gzip",
        "bundled gzip × @langchain/openai",
      ],
      summary: [
        `Size: ours' own code ${bytes(oursOwn.gzip)} gzip (${bytes(theirsOwn.gzip)} for @langchain/openai); ` +
          `bundled with all dependencies ${oursBundle && theirsBundle ? ratio(oursBundle.gzip, theirsBundle.gzip) : "–"} @langchain/openai.`,
      ],
      rows: [
        sizeRow("langchain-inference-service", oursOwn, oursBundle),
        sizeRow("@langchain/openai", theirsOwn, theirsBundle),
      ],
      notes: [
        "Ours imports @langchain/openai at run time, so its installed footprint is its own code plus " +
          "all of @langchain/openai's; the bundled column shows what a bundler actually keeps.",
      ],
    };
    return { name: "import", heading: "5. Cold import and size", tables: [timeTable, sizeTable] };
  } finally {
    snapshot.dispose();
  }
}
