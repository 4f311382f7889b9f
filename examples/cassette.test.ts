/**
 * @module An app's test on recorded answers of the real service (vitest; jest is the same with its
 * own imports). It replays `cassettes/support_bot.har` offline — no key, no credit, the same
 * answers every run — and records it anew against the real service when asked:
 *
 *   INFERENCE_SERVICE_RECORD=all INFERENCE_SERVICE_BASE_URL=… INFERENCE_SERVICE_API_KEY=… npx vitest run <this file>
 *
 * then commit the cassette. See docs/testing.md.
 */
import { fileURLToPath } from "node:url";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { ChatInferenceService, ModelNotFoundError, requestIdOf } from "langchain-inference-service";
import { type CassetteSession, openCassette } from "langchain-inference-service/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The app under test: a support bot that answers from the passage it is given.
const prompt = ChatPromptTemplate.fromMessages([
  ["system", "Answer from the context only. Context: {context}"],
  ["user", "Question: {question}"],
]);

async function answer(model: ChatInferenceService, context: string, question: string) {
  const reply = await prompt.pipe(model).invoke({ context, question });
  return { text: reply.text, requestId: requestIdOf(reply) };
}

const CONTEXT =
  "Refunds are paid within 14 days. A Service-Name is <TENANT_ID>.<JOB_ALIAS_NAME>. Credit is topped up in the console.";
const CASSETTE = fileURLToPath(new URL("cassettes/support_bot.har", import.meta.url));

describe("support bot, on the service's recorded answers", () => {
  let cassette: CassetteSession;
  // Replays by default; records with INFERENCE_SERVICE_RECORD=all (or new).
  beforeAll(async () => {
    cassette = await openCassette(CASSETTE);
  });
  // `?.`: when the open failed, its error is the one to read, not a TypeError on top of it.
  afterAll(() => cassette?.close());

  // Your model ID: the cassette holds what the service answered for it.
  const model = (id = "emulator-chat") =>
    new ChatInferenceService(id, {
      baseURL: cassette.baseURL,
      apiKey: cassette.apiKey,
      temperature: 0,
    });

  it("answers a refund question from the context", async () => {
    const { text, requestId } = await answer(model(), CONTEXT, "How long do refunds take?");
    expect(text).toContain("14 days");
    expect(requestId).toMatch(/\S/);
  });

  it("streams the same answer piece by piece", async () => {
    const pieces: string[] = [];
    for await (const chunk of await prompt
      .pipe(model())
      .stream({ context: CONTEXT, question: "How is credit topped up?" })) {
      pieces.push(chunk.text);
    }
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join("")).toContain("console");
  });

  it("fails typed on a model the service does not know", async () => {
    await expect(answer(model("no-such-model"), CONTEXT, "Hello?")).rejects.toSatisfy(
      ModelNotFoundError.isInstance,
    );
  });
});
