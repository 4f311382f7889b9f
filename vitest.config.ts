import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // nock patches the global fetch per worker; forks keep each file's interceptors apart.
    pool: "forks",
    unstubEnvs: true,
  },
});
