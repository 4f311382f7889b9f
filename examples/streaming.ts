/** @module Streaming tokens as they arrive, with usage on the last chunk. */
import type { AIMessageChunk } from "@langchain/core/messages";
import { ChatInferenceService, requestIdOf } from "langchain-inference-service";
import { type Log, MODEL, runIfMain } from "./connection.js";

export async function main(log: Log = console.log): Promise<void> {
  const model = new ChatInferenceService(MODEL);
  let full: AIMessageChunk | undefined;
  const pieces: string[] = [];
  for await (const chunk of await model.stream("Write a haiku about tokens")) {
    pieces.push(chunk.text);
    full = full ? full.concat(chunk) : chunk;
  }
  log(`streamed ${pieces.filter(Boolean).length} pieces: ${pieces.join("")}`);
  log(`usage: ${JSON.stringify(full?.usage_metadata)}`);
  log(`request id: ${requestIdOf(full)}`);
}

await runIfMain(import.meta.url, main);
