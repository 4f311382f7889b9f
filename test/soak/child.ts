/**
 * @module A small fault soak in a process of its own, run by `test/soak.test.ts`. It never calls
 * `process.exit`: it ends only if the emulator, the clients and the retries leave no socket or
 * timer behind. It prints one JSON line: the call count, the problems found and the tally.
 */
import { startEmulator } from "../../src/emulator/index.js";
import { checkSoak, runSoak, SOAK_FAULTS } from "../helpers/soak.js";

const emulator = await startEmulator({
  port: 0,
  faults: { ...SOAK_FAULTS, seed: 7 },
  requestLogLimit: 10_000,
});
try {
  const calls = await runSoak({
    baseURL: emulator.baseURL,
    apiKey: emulator.apiKey,
    calls: Number(process.env.SOAK_CALLS ?? 200),
    concurrency: 8,
  });
  const { problems, tally } = checkSoak(calls, emulator.state.requests());
  console.log(JSON.stringify({ calls: calls.length, problems, tally }));
  if (problems.length > 0) process.exitCode = 1;
} finally {
  await emulator.close();
}
