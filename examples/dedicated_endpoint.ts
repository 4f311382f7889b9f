/** @module A dedicated endpoint: Service-Name routing, streaming, and what a Pending endpoint does. */
import { DedicatedEndpointLLM, EndpointNotReadyError } from "langchain-inference-service";
import { type Connection, type Log, runIfMain } from "./connection.js";

export async function main(log: Log = console.log, connection: Connection = {} as Connection) {
  // Service-Name = INFERENCE_SERVICE_TENANT_ID + "." + INFERENCE_SERVICE_JOB_ALIAS
  const llm = new DedicatedEndpointLLM({ maxTokens: 32, temperature: 0 });
  log(`Service-Name: ${llm.serviceName}`);
  log(`invoke: ${await llm.invoke("The three primary colours are")}`);

  const tokens: string[] = [];
  for await (const token of await llm.stream("Count to five:")) tokens.push(token);
  log(`stream: ${tokens.length} tokens: ${tokens.join("")}`);

  const result = await llm.generate(["Hello"]);
  log(`usage: ${JSON.stringify(result.llmOutput?.tokenUsage)}`);

  const { emulator } = connection;
  if (!emulator) return; // the rest needs endpoints we can create and start

  // An endpoint that is still Pending (docs/service-contract.md#endpoint-states): the connection closes with no response.
  const pending = new DedicatedEndpointLLM({
    serviceName: "tenant-demo.pending-endpoint",
    maxRetries: 0,
  });
  try {
    await pending.invoke("ping");
  } catch (error) {
    if (!EndpointNotReadyError.isInstance(error)) throw error;
    log(`pending: ${error.name} — ${error.hint}`);
  }

  // waitForReady retries with backoff until the endpoint turns Running (here after 300 ms).
  emulator.state.addEndpoint({
    tenantId: "tenant-demo",
    jobAlias: "warming-up",
    readyAfterMs: 300,
  });
  const warming = new DedicatedEndpointLLM({
    serviceName: "tenant-demo.warming-up",
    waitForReady: 10_000,
    retry: { initialDelayMs: 50, maxDelayMs: 200 },
  });
  const started = Date.now();
  const answer = await warming.invoke("ping");
  log(`waitForReady: answered after ${Date.now() - started} ms: ${answer}`);
}

await runIfMain(import.meta.url, main);
