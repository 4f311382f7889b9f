import { defineConfig } from "tsup";

// Seven entries: the runtime-neutral main entry, store types and agent middleware (which alone
// imports the optional peer `langchain`), and the Node-only emulator, test helper (cassettes),
// Redis store and CLI behind their own subpaths (STYLE.md convention 3).
export default defineConfig({
  entry: {
    index: "src/index.ts",
    "emulator/index": "src/emulator/index.ts",
    redis: "src/stores/redis_store.ts",
    stores: "src/stores/index.ts",
    middleware: "src/middleware/index.ts",
    testing: "src/testing/index.ts",
    cli: "src/cli/bin.ts",
  },
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  sourcemap: true,
  // Below `engines` (>=22) on purpose: CI still runs the suite and the smoke on Node 20.
  target: "node20",
  splitting: true,
  treeshake: true,
});
