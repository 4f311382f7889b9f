/**
 * @module `npm run demo`: every feature end to end, against the embedded emulator unless
 * INFERENCE_SERVICE_BASE_URL and INFERENCE_SERVICE_API_KEY point at the real service.
 */
import { withUsage } from "langchain-inference-service";
import { main as agent } from "./agent.js";
import { main as chain } from "./chain.js";
import { type Connection, connect, type Log, MODEL } from "./connection.js";
import { main as dedicatedEndpoint } from "./dedicated_endpoint.js";
import { main as errors } from "./errors.js";
import { main as fallbacks } from "./fallbacks.js";
import { main as graph } from "./graph.js";
import { main as observability } from "./observability.js";
import { main as rag } from "./rag.js";
import { main as spendControl } from "./spend_control.js";
import { main as streaming } from "./streaming.js";
import { main as structuredOutput } from "./structured_output.js";
import { main as usage } from "./usage.js";

type Section = [title: string, run: (log: Log, connection: Connection) => Promise<void>];

const SECTIONS: Section[] = [
  ["LCEL chain: prompt → ChatInferenceService → parser", chain],
  ["Streaming", streaming],
  ["Agent: createAgent, two tools, summarization sized by the profile", agent],
  ["RAG: retrieve, rerank, answer from the reranked context", rag],
  ["Structured output with a zod schema", structuredOutput],
  ["Dedicated endpoint (Service-Name), Pending and waitForReady", dedicatedEndpoint],
  ["LangGraph: a two-node graph streaming messages", graph],
  ["Typed errors and their hints", errors],
  ["Fallbacks: another model on a typed error, a larger context window", fallbacks],
  ["Usage and cost tracking, budget guard", usage],
  ["Spend and rate control: reservations, abandoned streams, rate limit, Redis", spendControl],
  ["Tracing with OpenTelemetry: the SDK's console exporter prints each span", observability],
];

const PRICES = {
  [MODEL]: { input: 0.5, output: 1.5 },
  "emulator-reasoner": { input: 1, output: 4 },
};

async function demo(): Promise<void> {
  const started = Date.now();
  const connection = await connect();
  const where = connection.emulator
    ? `the local emulator at ${connection.emulator.baseURL} (replies come from fixed rules, not a model)`
    : `the service at ${process.env.INFERENCE_SERVICE_BASE_URL}`;
  console.log(`langchain-inference-service demo — running against ${where}\n`);
  try {
    const { usage: total } = await withUsage(
      async () => {
        for (const [index, [title, run]] of SECTIONS.entries()) {
          console.log(`── ${index + 1}. ${title} ${"─".repeat(Math.max(0, 70 - title.length))}`);
          await run((line = "") => console.log(`  ${line.replaceAll("\n", "\n  ")}`), connection);
          console.log();
        }
      },
      { prices: PRICES },
    );
    console.log("── Usage and cost of the whole demo ─────────────────────────────────────────");
    console.log(`  ${total.summary().replaceAll("\n", "\n  ")}`);
    if (connection.emulator) {
      console.log(`  emulator Wallet: ${connection.emulator.state.credit.toFixed(6)} credit left`);
    }
    console.log(`\nDone in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  } finally {
    await connection.close();
  }
}

await demo();
