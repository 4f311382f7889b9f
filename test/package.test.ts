import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { optionDocs } from "./helpers/option_docs.js";

// The built package, imported by its own name exactly as a user would (package self-reference).
// Built here when missing or older than a source file, so a stale local dist/ is never tested.
beforeAll(() => {
  if (!existsSync("dist/index.cjs") || builtAt("dist/index.js") < newestSource("src")) {
    execFileSync("npx", ["--no-install", "tsup", "--silent"], { stdio: "inherit" });
  }
}, 120_000);

function builtAt(file: string): number {
  return existsSync(file) ? statSync(file).mtimeMs : 0;
}

function newestSource(dir: string): number {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => statSync(join(dir, name)).mtimeMs)
    .reduce((a, b) => Math.max(a, b), 0);
}

function run(args: string[]): string {
  return execFileSync(process.execPath, args, { encoding: "utf8" }).trim();
}

/** Every module `entry` imports, itself and through the chunks it loads: [file, specifier] pairs. */
function importsFrom(entry: string): { files: number; specs: Array<[string, string]> } {
  const seen = new Set<string>();
  const specs: Array<[string, string]> = [];
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const code = readFileSync(file, "utf8");
    for (const [, spec] of code.matchAll(/(?:from|import|require\()\s*\(?["']([^"']+)["']/g)) {
      if (spec!.startsWith("./")) queue.push(join(dirname(file), spec!));
      else specs.push([file, spec!]);
    }
  }
  return { files: seen.size, specs };
}

describe("the built package", () => {
  it("loads with require() and exposes the curated API", () => {
    const out = run([
      "-e",
      `const m = require("langchain-inference-service");
       console.log(JSON.stringify({ chat: typeof m.ChatInferenceService, err: typeof m.ModelNotFoundError, version: m.VERSION, keys: Object.keys(m).sort() }));`,
    ]);
    const info = JSON.parse(out);
    expect(info.chat).toBe("function");
    expect(info.err).toBe("function");
    expect(info.version).toBe(JSON.parse(readFileSync("package.json", "utf8")).version);
    expect(info.keys).not.toContain("default");
  });

  it("publishes type declarations without a § citation (editors show them as hover text)", () => {
    const declarations = readdirSync("dist", { recursive: true, encoding: "utf8" }).filter((name) =>
      /\.d\.c?ts$/.test(name),
    );
    expect(declarations.length).toBeGreaterThan(0);
    const cited = declarations.filter((name) =>
      readFileSync(join("dist", name), "utf8").includes("§"),
    );
    expect(cited).toEqual([]);
  });

  it("exports from the main entry only what the README, docs/ or examples/ teach", () => {
    const taught = [
      readFileSync("README.md", "utf8"),
      ...readdirSync("docs")
        .filter((name) => name.endsWith(".md"))
        .map((name) => readFileSync(join("docs", name), "utf8")),
      ...readdirSync("examples")
        .filter((name) => name.endsWith(".ts"))
        .map((name) => readFileSync(join("examples", name), "utf8")),
    ].join("\n");
    const index = readFileSync("src/index.ts", "utf8");
    const exported = [
      ...index.matchAll(
        /^\s*(?:type\s+)?([A-Za-z_]\w*),?$|(?:\{|,)\s*(?:type\s+)?([A-Za-z_]\w*)\s*(?=[,}])/gm,
      ),
    ]
      .map((match) => match[1] ?? match[2])
      .filter((name): name is string => name !== undefined);
    expect(exported.length).toBeGreaterThan(40);
    const untaught = exported.filter((name) => !new RegExp(`\\b${name}\\b`).test(taught));
    expect(untaught).toEqual([]);
  });

  it("shows each option's JSDoc, with its default, on the published options types (as hover does)", () => {
    const docs = optionDocs(
      {
        "langchain-inference-service": [
          "ChatInferenceServiceFields",
          "DedicatedEndpointLLMFields",
          "DiagnoseOptions",
          "RateLimiterOptions",
          "RetryOptions",
          "UsageTrackerOptions",
        ],
        "langchain-inference-service/redis": ["RedisStoreOptions"],
      },
      { built: true },
    );
    for (const [type, options] of docs) {
      expect(options.size, type).toBeGreaterThan(2);
      for (const [name, doc] of options) {
        expect(doc.text, `${type}.${name}`).not.toBe("");
        expect(doc.default, `${type}.${name}`).toBeDefined();
      }
    }
    expect(docs.get("ChatInferenceServiceFields")!.get("idleTimeout")).toEqual({
      text: expect.stringMatching(/^Milliseconds a stream may wait for its next complete event/),
      default: "`timeout` (no env variable)",
    });
    expect(docs.get("RetryOptions")!.get("maxDelayMs")).toEqual({
      text: "Largest backoff delay in milliseconds.",
      default: "8000",
    });
  });

  it("loads with import and constructs a model", () => {
    const out = run([
      "--input-type=module",
      "-e",
      `import { ChatInferenceService } from "langchain-inference-service";
       const m = new ChatInferenceService("m", { apiKey: "k", baseURL: "https://h.example" });
       console.log(m.baseURL);`,
    ]);
    expect(out).toBe("https://h.example/inference/v1");
  });

  it("keeps Node built-ins out of the main entry and every chunk it loads (it must run in any runtime)", () => {
    const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
    for (const entry of ["dist/index.js", "dist/index.cjs"]) {
      const imports = importsFrom(entry);
      expect(imports.files).toBeGreaterThan(1);
      for (const [file, spec] of imports.specs) {
        expect(builtins.has(spec), `${file} imports ${spec}`).toBe(false);
        // The Redis client is an optional peer: only the ./redis subpath may load it.
        expect(spec, `${file} imports ${spec}`).not.toBe("ioredis");
        // Of OpenTelemetry, the API only: the app picks and registers the SDK.
        expect(spec, `${file} imports ${spec}`).not.toMatch(/^@opentelemetry\/(?!api$)/);
        // And langchain (with the LangGraph it brings): only the ./middleware subpath loads it.
        expect(spec, `${file} imports ${spec}`).not.toMatch(
          /^(langchain|@langchain\/langgraph)($|\/)/,
        );
      }
    }
  });

  it("serves the Redis store from its own subpath, with ioredis as an optional peer", () => {
    const out = run([
      "--input-type=module",
      "-e",
      `import { RedisStore } from "langchain-inference-service/redis";
       import { UsageTracker } from "langchain-inference-service";
       const store = new RedisStore({ url: "redis://127.0.0.1:1", timeoutMs: 50 });
       const tracker = new UsageTracker({ prices: { m: { input: 1, output: 1 } }, budget: 1, store });
       console.log(tracker.store === store, typeof store.reserve);
       await store.close();`,
    ]);
    expect(out).toBe("true function");
    const pkg = JSON.parse(readFileSync("package.json", "utf8"));
    expect(pkg.peerDependenciesMeta.ioredis.optional).toBe(true);
    expect(pkg.dependencies.ioredis).toBeUndefined();
  });

  it("serves the agent middleware from its own subpath, to import and require(), with langchain as an optional peer", () => {
    const esm = run([
      "--input-type=module",
      "-e",
      `import { budgetMiddleware, fallbackMiddleware, shouldFallBack } from "langchain-inference-service/middleware";
       import { ChatInferenceService, UsageTracker } from "langchain-inference-service";
       const tracker = new UsageTracker({ prices: { m: { input: 1, output: 1 } } });
       const budget = budgetMiddleware({ tracker, maxCost: 1 });
       const fallback = fallbackMiddleware({ models: [new ChatInferenceService("m", { apiKey: "k", baseURL: "https://h.example" })] });
       console.log(budget.name, fallback.name, typeof shouldFallBack);`,
    ]);
    expect(esm).toBe("budgetMiddleware fallbackMiddleware function");
    const cjs = run([
      "-e",
      `const { budgetMiddleware } = require("langchain-inference-service/middleware");
       const { UsageTracker } = require("langchain-inference-service");
       console.log(budgetMiddleware({ tracker: new UsageTracker() }).name);`,
    ]);
    expect(cjs).toBe("budgetMiddleware");
    const pkg = JSON.parse(readFileSync("package.json", "utf8"));
    for (const peer of ["langchain", "@langchain/langgraph"]) {
      expect(pkg.peerDependenciesMeta[peer].optional).toBe(true);
      expect(pkg.dependencies[peer]).toBeUndefined();
    }
    // Like the main entry, it runs in any runtime.
    const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
    for (const entry of ["dist/middleware.js", "dist/middleware.cjs"]) {
      const { specs } = importsFrom(entry);
      expect(specs.map(([, spec]) => spec)).toContain("langchain");
      for (const [file, spec] of specs)
        expect(builtins.has(spec), `${file} imports ${spec}`).toBe(false);
    }
  });

  it("serves the console page, script and all, from the built emulator entry", () => {
    const out = run([
      "--input-type=module",
      "-e",
      `import { startEmulator } from "langchain-inference-service/emulator";
       const emulator = await startEmulator();
       const page = await fetch(emulator.url + "/");
       const html = await page.text();
       const state = await (await fetch(emulator.url + "/_emulator/state")).json();
       await emulator.close();
       console.log(JSON.stringify({
         type: page.headers.get("content-type"),
         csp: page.headers.get("content-security-policy"),
         form: html.includes('id="key-form"'),
         script: html.includes("function refresh()") && html.includes("</script>"),
         tenant: state.tenants[0].name,
       }));`,
    ]);
    const info = JSON.parse(out);
    expect(info).toMatchObject({
      type: "text/html; charset=utf-8",
      form: true,
      script: true,
      tenant: "Demo Tenant",
    });
    expect(info.csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
  });

  it("serves the cassette helper from its own subpath, with require() too, outside the main entry", () => {
    const out = run([
      "-e",
      `const { openCassette, startRecorder, REPLAY_API_KEY } = require("langchain-inference-service/testing");
       console.log(typeof openCassette, typeof startRecorder, REPLAY_API_KEY);`,
    ]);
    expect(out).toBe("function function sk-cassette-replay");
    expect(readFileSync("src/index.ts", "utf8")).not.toMatch(/testing|cassette/);
  });

  describe("with @opentelemetry/api, a dependency", () => {
    /** A call and a stream against the built emulator, in a process of their own. */
    const calls = `
      const emulator = createEmulator();
      const model = new ChatInferenceService("emulator-chat", {
        apiKey: emulator.apiKey, baseURL: emulator.baseURL, fetch: emulator.fetch,
      });
      const reply = await model.invoke("Hello");
      let streamed = "";
      for await (const chunk of await model.stream("Hello")) streamed += chunk.text;`;
    it("traces into the provider the app registered, from the ES module and from require()", () => {
      const setup = `
        trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));`;
      const report = `console.log(exporter.getFinishedSpans().map((span) => span.name).join(", "));`;
      const esm = run([
        "--input-type=module",
        "-e",
        `import { trace } from "@opentelemetry/api";
         import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
         import { ChatInferenceService } from "langchain-inference-service";
         import { createEmulator } from "langchain-inference-service/emulator";
         const exporter = new InMemorySpanExporter();
         ${setup}
         ${calls}
         ${report}`,
      ]);
      const spans =
        "POST /inference/v1/chat/completions, chat emulator-chat, POST /inference/v1/chat/completions, chat emulator-chat";
      expect(esm).toBe(spans);
      const cjs = run([
        "-e",
        `const { trace } = require("@opentelemetry/api");
         const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = require("@opentelemetry/sdk-trace-base");
         const { ChatInferenceService } = require("langchain-inference-service");
         const { createEmulator } = require("langchain-inference-service/emulator");
         const exporter = new InMemorySpanExporter();
         ${setup}
         (async () => {
           ${calls}
           ${report}
         })();`,
      ]);
      expect(cjs).toBe(spans);
    });

    it("is a dependency with a range wide enough to share the app's copy, and no published declaration names it", () => {
      const pkg = JSON.parse(readFileSync("package.json", "utf8"));
      // npm installs one copy for the app and the package when the app's is in the range: a
      // copy of the package newer than the app's would not see what the app registered.
      expect(pkg.dependencies["@opentelemetry/api"]).toBe("^1.3.0");
      expect(pkg.peerDependencies["@opentelemetry/api"]).toBeUndefined();
      expect(pkg.devDependencies["@opentelemetry/api"]).toBeUndefined();
      const declarations = readdirSync("dist", { recursive: true, encoding: "utf8" }).filter(
        (name) => /\.d\.c?ts$/.test(name),
      );
      const naming = declarations.filter((name) =>
        /from ["']@opentelemetry\/|import\(["']@opentelemetry\//.test(
          readFileSync(join("dist", name), "utf8"),
        ),
      );
      expect(naming).toEqual([]);
    });
  });

  it("ships type declarations for both module systems", () => {
    expect(statSync("dist/index.d.ts").size).toBeGreaterThan(0);
    expect(statSync("dist/index.d.cts").size).toBeGreaterThan(0);
  });
});
