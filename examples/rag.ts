/** @module A small RAG pipeline: a retriever over a few documents and a prompt that cites them. */
import { Document } from "@langchain/core/documents";
import { StringOutputParser } from "@langchain/core/output_parsers";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { BaseRetriever } from "@langchain/core/retrievers";
import { RunnablePassthrough, RunnableSequence } from "@langchain/core/runnables";
import { ChatInferenceService } from "langchain-inference-service";
import { type Log, MODEL, runIfMain } from "./connection.js";

const DOCS = [
  new Document({
    pageContent:
      "Dedicated endpoints are called at /inference/v1/completions. The Service-Name header routes each request to the caller's own deployment.",
    metadata: { source: "dedicated-endpoints.md" },
  }),
  new Document({
    pageContent:
      "Hosted models are paid per token from account credit. When the Wallet reaches zero the service answers 403 insufficient_user_quota.",
    metadata: { source: "billing.md" },
  }),
  new Document({
    pageContent:
      "An unknown model ID receives 503 with code model_not_found. The service is not down; retrying does not help.",
    metadata: { source: "errors.md" },
  }),
  new Document({
    pageContent:
      "A base URL missing /v1 returns an HTML page with status 200. Set the base URL to the host root or /inference/v1.",
    metadata: { source: "troubleshooting.md" },
  }),
];

const words = (text: string) => new Set(text.toLowerCase().match(/[a-z0-9_]+/g) ?? []);

/** Ranks documents by shared words: enough for a demo, and no embedding endpoint needed. */
class KeywordRetriever extends BaseRetriever {
  override lc_namespace = ["examples", "rag"];
  constructor(
    private readonly docs: Document[],
    private readonly k = 2,
  ) {
    super();
  }
  override async _getRelevantDocuments(query: string): Promise<Document[]> {
    const q = words(query);
    const score = (doc: Document) => [...words(doc.pageContent)].filter((w) => q.has(w)).length;
    return [...this.docs].sort((a, b) => score(b) - score(a)).slice(0, this.k);
  }
}

const formatDocs = (docs: Document[]) =>
  docs.map((d, i) => `[${i + 1}] (${d.metadata.source}) ${d.pageContent}`).join("\n");

export async function main(log: Log = console.log): Promise<void> {
  const retriever = new KeywordRetriever(DOCS);
  const prompt = ChatPromptTemplate.fromMessages([
    [
      "system",
      "Answer from the context only and cite the source in brackets.\n\nContext:\n{context}",
    ],
    ["human", "{question}"],
  ]);
  const chain = RunnableSequence.from([
    { context: retriever.pipe(formatDocs), question: new RunnablePassthrough() },
    prompt,
    new ChatInferenceService(MODEL, { temperature: 0 }),
    new StringOutputParser(),
  ]);

  const question = "What happens when the wallet credit reaches zero?";
  const sources = await retriever.invoke(question);
  log(`question: ${question}`);
  log(`retrieved: ${sources.map((d) => d.metadata.source).join(", ")}`);
  log(`answer: ${await chain.invoke(question)}`);
}

await runIfMain(import.meta.url, main);
