/**
 * @module A LangGraph graph that streams the model's tokens as they arrive (`streamMode:
 * "messages"`), each tagged with the node that produced it.
 */
import { AIMessageChunk } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ChatInferenceService, requestIdOf } from "langchain-inference-service";
import { type Log, MODEL, runIfMain } from "./connection.js";

export async function main(log: Log = console.log): Promise<void> {
  const model = new ChatInferenceService(MODEL, { temperature: 0 });

  // Two nodes: one drafts an answer, one tightens it. Each calls the model with plain `invoke`;
  // LangGraph still receives the tokens as they stream, through the callbacks it passes down.
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("draft", async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode("review", async (state) => {
      const draft = state.messages.at(-1)?.text ?? "";
      return { messages: [await model.invoke(`Make this shorter: ${draft}`)] };
    })
    .addEdge(START, "draft")
    .addEdge("draft", "review")
    .addEdge("review", END)
    .compile();

  const stream = await graph.stream(
    { messages: [{ role: "user", content: "What is a context window?" }] },
    { streamMode: "messages" },
  );
  // Each item is [message chunk, metadata]; `langgraph_node` names the node that is running.
  const byNode = new Map<string, { pieces: number; text: string; requestId?: string }>();
  for await (const [message, metadata] of stream) {
    const node = String(metadata.langgraph_node);
    const seen = byNode.get(node) ?? { pieces: 0, text: "" };
    if (AIMessageChunk.isInstance(message) && message.text !== "") {
      seen.pieces += 1;
      seen.text += message.text;
    }
    // The service's request ID comes on the first chunk of each call.
    seen.requestId ??= requestIdOf(message);
    byNode.set(node, seen);
  }
  for (const [node, { pieces, text, requestId }] of byNode) {
    log(`${node}: ${pieces} pieces, request id ${requestId}: ${text}`);
  }
}

await runIfMain(import.meta.url, main);
