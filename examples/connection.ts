/**
 * @module Where the examples connect: the real service when INFERENCE_SERVICE_BASE_URL and
 * INFERENCE_SERVICE_API_KEY are set, otherwise a local emulator started on a free port.
 *
 * The examples themselves only read the environment, exactly as your code would; this file just
 * fills the environment in when you have no account yet.
 */
import { pathToFileURL } from "node:url";
import {
  DEFAULT_EMBEDDING_MODEL,
  DEFAULT_RERANK_MODEL,
  type RunningEmulator,
  startEmulator,
} from "langchain-inference-service/emulator";

/** What an example can print through; the demo and the tests pass their own. */
export type Log = (line?: string) => void;

/** The model the examples use: INFERENCE_SERVICE_MODEL, else the emulator's chat model. */
export const MODEL = process.env.INFERENCE_SERVICE_MODEL ?? "emulator-chat";

/**
 * The embedding model the examples use: INFERENCE_SERVICE_EMBEDDING_MODEL, else the emulator's
 * (`InferenceServiceEmbeddings` reads the variable itself; the examples name the model anyway).
 */
export const EMBEDDING_MODEL =
  process.env.INFERENCE_SERVICE_EMBEDDING_MODEL ?? DEFAULT_EMBEDDING_MODEL;

/**
 * The rerank model the examples use: INFERENCE_SERVICE_RERANK_MODEL, else the emulator's
 * (`InferenceServiceRerank` reads the variable itself; the examples name the model anyway).
 */
export const RERANK_MODEL = process.env.INFERENCE_SERVICE_RERANK_MODEL ?? DEFAULT_RERANK_MODEL;

/** A connection: `emulator` is set when the examples run against the local emulator. */
export interface Connection {
  emulator?: RunningEmulator;
  close(): Promise<void>;
}

/** Uses the real service if configured, else starts the emulator and points the env at it. */
export async function connect(): Promise<Connection> {
  if (process.env.INFERENCE_SERVICE_BASE_URL && process.env.INFERENCE_SERVICE_API_KEY) {
    return { close: async () => {} };
  }
  const emulator = await startEmulator({ port: 0 });
  process.env.INFERENCE_SERVICE_BASE_URL = emulator.baseURL;
  process.env.INFERENCE_SERVICE_API_KEY = emulator.apiKey;
  process.env.INFERENCE_SERVICE_TENANT_ID ??= "tenant-demo";
  process.env.INFERENCE_SERVICE_JOB_ALIAS ??= "demo-endpoint";
  return { emulator, close: () => emulator.close() };
}

/** Runs `main` when the file is executed directly (`npx tsx examples/chain.ts`). */
export async function runIfMain(
  moduleUrl: string,
  main: (log: Log, connection: Connection) => Promise<void>,
): Promise<void> {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? "").href) return;
  const connection = await connect();
  try {
    await main(console.log, connection);
  } finally {
    await connection.close();
  }
}
