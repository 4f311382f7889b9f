/**
 * @module Tracing calls with OpenTelemetry: the app registers the SDK (here its console exporter,
 * which prints each span as it ends); the package's spans appear under the app's own span — one
 * per model call, one per HTTP attempt — with the GenAI conventions' attributes and the cost the
 * `UsageTracker` settled to. Prompts and replies stay out unless `captureContent` is on.
 */
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { ChatInferenceService, UsageTracker } from "langchain-inference-service";
import { type Log, MODEL, runIfMain } from "./connection.js";

export async function main(log: Log = console.log): Promise<void> {
  // What an app does once at startup (NodeSDK from @opentelemetry/sdk-node does the same).
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter())],
  });
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  try {
    const usage = new UsageTracker({ prices: { [MODEL]: { input: 0.5, output: 1.5 } } });
    const model = new ChatInferenceService(MODEL, { maxTokens: 64, callbacks: [usage] });
    // The app's own span: the model's spans are its children.
    await trace.getTracer("my-app").startActiveSpan("answer a question", async (span) => {
      const reply = await model.invoke("What does a trace show?");
      log(`reply: ${reply.content}`);
      let streamed = "";
      for await (const chunk of await model.stream("And a span?")) streamed += chunk.text;
      log(`streamed: ${streamed}`);
      span.end();
    });
    log(`request IDs: ${usage.records.map((record) => record.requestId).join(", ")}`);
  } finally {
    // Flushes what is left and frees the global registry, as an app does on shutdown.
    await provider.shutdown();
    trace.disable();
    context.disable();
  }
}

await runIfMain(import.meta.url, main);
