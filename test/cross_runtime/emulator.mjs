// Starts the built emulator on a free loopback port for `.ci/cross-runtime`, prints one JSON line
// ({ baseURL, apiKey }) and serves until SIGTERM or SIGINT, then closes and exits on its own.
import { startEmulator } from "../../dist/emulator/index.js";

const emulator = await startEmulator({ port: 0 });
console.log(JSON.stringify({ baseURL: emulator.baseURL, apiKey: emulator.apiKey }));
for (const signal of ["SIGTERM", "SIGINT"]) process.once(signal, () => emulator.close());
