/**
 * @module The servers the benchmarks call: the emulator (twice: one with ample credit, one with
 * none for the 403 row) and the fixed-response server, all on 127.0.0.1 in one child process, so
 * client and servers each get a core and the servers' heap stays out of the client's memory figures.
 */

import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Where the servers listen. */
export interface ServerURLs {
  /** The emulator's `…/inference/v1`; its demo key has (practically) unlimited credit. */
  emulatorBaseURL: string;
  /** The emulator's host root (admin API under `/_emulator/`). */
  emulatorURL: string;
  /** A second emulator whose account has no credit: every chat call gets the 403. */
  brokeEmulatorBaseURL: string;
  emulatorApiKey: string;
  /** The fixed server's root; see `fixed_server.ts` for its routes. */
  fixedURL: string;
}

export interface Servers extends ServerURLs {
  /** Stops every server and the child process. */
  close(): Promise<void>;
}

/** Starts the servers in a child process and waits until they listen. */
export async function startServers(): Promise<Servers> {
  const child = fork(fileURLToPath(import.meta.url), ["--bench-servers"], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const urls = await new Promise<ServerURLs>((resolve, reject) => {
    child.once("message", (message) => resolve(message as ServerURLs));
    child.once("exit", (code) => reject(new Error(`bench servers exited with code ${code}`)));
  });
  return {
    ...urls,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.send("close");
      }),
  };
}

async function serve(): Promise<void> {
  const { startEmulator } = await import("../../src/emulator/index.js");
  const { startFixedServer } = await import("./fixed_server.js");
  // Credit enough for every call of a run (each costs about 2e-5).
  const emulator = await startEmulator({ credit: 1e9 });
  const broke = await startEmulator({ credit: 0 });
  const fixed = await startFixedServer();
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await Promise.all([emulator.close(), broke.close(), fixed.close()]);
    process.disconnect?.();
  };
  process.on("message", (message) => {
    if (message === "close") void stop();
  });
  // If the parent dies, do not linger.
  process.on("disconnect", () => void stop());
  const urls: ServerURLs = {
    emulatorBaseURL: emulator.baseURL,
    emulatorURL: emulator.url,
    brokeEmulatorBaseURL: broke.baseURL,
    emulatorApiKey: emulator.apiKey,
    fixedURL: fixed.url,
  };
  process.send?.(urls);
}

if (process.argv.includes("--bench-servers")) await serve();
