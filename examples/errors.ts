/** @module Every typed error, what causes it, what it says and the hint it carries. */
import { createServer } from "node:net";
import {
  ChatInferenceService,
  ConfigurationError,
  DedicatedEndpointLLM,
  InferenceServiceError,
} from "langchain-inference-service";
import { type Connection, type Log, MODEL, runIfMain } from "./connection.js";

/**
 * Runs `call` and prints the error it raises: class, status, retryable and request id, then
 * what failed (`summary`) and what to change (`hint`).
 */
async function show(log: Log, label: string, call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
    log(`${label}: no error`);
  } catch (error) {
    if (InferenceServiceError.isInstance(error)) {
      const status = error.status === undefined ? "" : `status ${error.status}, `;
      const id = error.requestId ? `, request id ${error.requestId}` : "";
      log(`${label}: ${error.name} (${status}retryable ${error.retryable}${id})`);
      log(`    ${error.summary}`);
      log(`    hint: ${error.hint}`);
    } else if (ConfigurationError.isInstance(error)) {
      log(`${label}: ${error.name} (option ${error.option})`);
      log(`    ${error.message}`);
    } else {
      throw error;
    }
  }
}

export async function main(log: Log = console.log, connection: Connection = {} as Connection) {
  const noRetry = { maxRetries: 0 };
  await show(log, "invalid key", () =>
    new ChatInferenceService(MODEL, { ...noRetry, apiKey: "sk-not-a-real-key" }).invoke("hi"),
  );
  await show(log, "unknown model", () =>
    new ChatInferenceService("no-such-model", noRetry).invoke("hi"),
  );
  await show(
    log,
    "bad base URL option",
    async () => new ChatInferenceService(MODEL, { baseURL: "ftp://example.com/inference/v1" }),
  );
  await show(
    log,
    "malformed Service-Name",
    async () => new DedicatedEndpointLLM({ serviceName: "tenant.job\r\nX-Injected: 1" }),
  );
  await show(log, "unknown Service-Name", () =>
    new DedicatedEndpointLLM({ ...noRetry, serviceName: "tenant-demo.no-such-endpoint" }).invoke(
      "hi",
    ),
  );
  const port = await closedPort();
  await show(log, "nothing listens on the port", () =>
    new ChatInferenceService(MODEL, { ...noRetry, baseURL: `http://127.0.0.1:${port}` }).invoke(
      "hi",
    ),
  );

  const base = process.env.INFERENCE_SERVICE_BASE_URL ?? "";
  // A base URL is repaired where it can be (a trailing /chat/completions, a missing /v1), so a
  // wrong path reaches the service only behind a wrong prefix or a proxy that rewrites it.
  await show(log, "wrong path prefix (an HTML page answers)", () =>
    new ChatInferenceService(MODEL, {
      ...noRetry,
      baseURL: `${new URL(base).origin}/proxy`,
    }).invoke("hi"),
  );
  const singular: typeof fetch = (url, init) =>
    fetch(String(url).replace("/chat/completions", "/chat/completion"), init);
  await show(log, "a proxy that rewrites the path (404)", () =>
    new ChatInferenceService(MODEL, { ...noRetry, fetch: singular }).invoke("hi"),
  );

  const { emulator } = connection;
  if (!emulator) return; // the rest needs states only the emulator can be put in

  const faulty = (fault: string) =>
    new ChatInferenceService(MODEL, {
      ...noRetry,
      configuration: { defaultHeaders: { "X-Emulator-Fault": fault } },
    }).invoke("hi");
  await show(log, "rate limited", () => faulty("429"));
  await show(log, "upstream failure", () => faulty("503"));

  const credit = emulator.state.credit;
  emulator.state.setCredit(0);
  await show(log, "no credit", () => new ChatInferenceService(MODEL, noRetry).invoke("hi"));
  emulator.state.setCredit(credit);

  await show(log, "key without permission", () =>
    new DedicatedEndpointLLM({ ...noRetry, apiKey: "sk-emulator-noperm" }).invoke("hi"),
  );
  await show(log, "endpoint pending", () =>
    new DedicatedEndpointLLM({ ...noRetry, serviceName: "tenant-demo.pending-endpoint" }).invoke(
      "hi",
    ),
  );
}

/** A port of this machine that nothing listens on: one the OS just handed out and took back. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 1));
    });
  });
}

await runIfMain(import.meta.url, main);
