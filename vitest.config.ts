import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    // Examples import the package by name, as users do; tests run them against the sources.
    alias: [
      { find: /^langchain-inference-service\/emulator$/, replacement: src("emulator/index.ts") },
      {
        find: /^langchain-inference-service\/middleware$/,
        replacement: src("middleware/index.ts"),
      },
      { find: /^langchain-inference-service\/redis$/, replacement: src("stores/redis_store.ts") },
      { find: /^langchain-inference-service\/stores$/, replacement: src("stores/index.ts") },
      { find: /^langchain-inference-service\/testing$/, replacement: src("testing/index.ts") },
      { find: /^langchain-inference-service$/, replacement: src("index.ts") },
    ],
  },
  test: {
    include: ["test/**/*.test.ts"],
    // A passing run is quiet: a test that logs an error or a warning unasked fails.
    setupFiles: ["test/setup/quiet.ts"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // nock patches the global fetch per worker; forks keep each file's interceptors apart.
    pool: "forks",
    unstubEnvs: true,
  },
});
