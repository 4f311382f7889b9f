/**
 * @module What every folder's mutation config shares: StrykerJS with the vitest runner, per-test
 * coverage, one test process (the machines' cores are shared), and a JSON report per folder that
 * `mutation/run.ts` turns into the table of scores.
 */

/**
 * The Stryker options of one folder.
 * @param {object} folder
 * @param {string} folder.name the report's name (`errors`)
 * @param {string[]} folder.mutate the modules to mutate
 * @param {string[]} folder.testFiles the test files that cover them
 * @param {import("./equivalent_mutants.mjs").EquivalentMutant[]} [folder.equivalentMutants]
 */
export function folderConfig({ name, mutate, testFiles, equivalentMutants = [] }) {
  return {
    $schema: "../node_modules/@stryker-mutator/core/schema/stryker-schema.json",
    packageManager: "npm",
    testRunner: "vitest",
    vitest: { configFile: "vitest.config.ts", related: false },
    plugins: ["@stryker-mutator/vitest-runner", "./mutation/equivalent_mutants.mjs"],
    ignorers: ["equivalent-mutants"],
    equivalentMutants,
    coverageAnalysis: "perTest",
    ignoreStatic: true,
    concurrency: 1,
    mutate,
    testFiles,
    reporters: ["progress", "json", "html"],
    jsonReporter: { fileName: `reports/mutation/${name}.json` },
    htmlReporter: { fileName: `reports/mutation/${name}.html` },
    incremental: true,
    incrementalFile: `reports/mutation/${name}.incremental.json`,
    tempDirName: ".stryker-tmp",
    cleanTempDir: "always",
    ignorePatterns: ["bench", "examples", "test-output", "coverage", "dist"],
    thresholds: { high: 90, low: 85, break: null },
    timeoutMS: 10000,
  };
}
