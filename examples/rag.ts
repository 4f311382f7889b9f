/**
 * @module Retrieval-augmented generation in two stages: load a few Markdown files, split them,
 * embed the pieces with `InferenceServiceEmbeddings` into a vector store, retrieve a handful of
 * candidates for each question, rerank them with `InferenceServiceRerank` (LangChain's
 * contextual compression retriever) and answer from the best of them with `ChatInferenceService`.
 *
 * Packages: langchain-inference-service @langchain/core @langchain/classic @langchain/textsplitters
 */
import { readdir, readFile } from "node:fs/promises";
import { ContextualCompressionRetriever } from "@langchain/classic/retrievers/contextual_compression";
import { MemoryVectorStore } from "@langchain/classic/vectorstores/memory";
import { Document, type DocumentInterface } from "@langchain/core/documents";
import { StringOutputParser } from "@langchain/core/output_parsers";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableSequence } from "@langchain/core/runnables";
import { RecursiveCharacterTextSplitter } from "@langchain/textsplitters";
import {
  ChatInferenceService,
  InferenceServiceEmbeddings,
  InferenceServiceRerank,
} from "langchain-inference-service";
import { EMBEDDING_MODEL, type Log, MODEL, RERANK_MODEL, runIfMain } from "./connection.js";

const FOLDER = new URL("./rag_docs/", import.meta.url);

/** Each Markdown file of the folder as one document, its file name as `source`. */
async function load(): Promise<Document[]> {
  const names = (await readdir(FOLDER)).filter((name) => name.endsWith(".md")).sort();
  return Promise.all(
    names.map(
      async (name) =>
        new Document({
          pageContent: await readFile(new URL(name, FOLDER), "utf8"),
          metadata: { source: name },
        }),
    ),
  );
}

const formatDocs = (docs: DocumentInterface[]) =>
  docs.map((d, i) => `[${i + 1}] (${d.metadata.source}) ${d.pageContent}`).join("\n");

export const QUESTIONS = [
  "What happens when the Wallet credit reaches zero?",
  "Which header routes a request to a dedicated endpoint deployment?",
  "What does HTTP 503 model_not_found mean for a model ID?",
  "Why would a base URL return an HTML page instead of JSON?",
];

export async function main(log: Log = console.log): Promise<void> {
  // Pieces of about three hundred characters, each keeping its file's `source`.
  const splitter = new RecursiveCharacterTextSplitter({ chunkSize: 300, chunkOverlap: 40 });
  const pieces = await splitter.splitDocuments(await load());
  const embeddings = new InferenceServiceEmbeddings(EMBEDDING_MODEL);
  const store = await MemoryVectorStore.fromDocuments(pieces, embeddings);
  log(
    `embedded ${pieces.length} pieces of ${new Set(pieces.map((p) => p.metadata.source)).size} files`,
  );

  // Stage one, recall: the four nearest pieces. Stage two, precision: the reranker reads each
  // with the question and keeps the two most relevant, best first.
  const retriever = new ContextualCompressionRetriever({
    baseRetriever: store.asRetriever({ k: 4 }),
    baseCompressor: new InferenceServiceRerank(RERANK_MODEL, { topN: 2 }),
  });
  const prompt = ChatPromptTemplate.fromMessages([
    [
      "system",
      "Answer from the context only and cite the source in brackets.\n\nContext:\n{context}",
    ],
    ["human", "{question}"],
  ]);
  // The answer is written from the reranked pieces, and from nothing else.
  const answer = RunnableSequence.from([
    ({ question, documents }: { question: string; documents: DocumentInterface[] }) => ({
      question,
      context: formatDocs(documents),
    }),
    prompt,
    new ChatInferenceService(MODEL, { temperature: 0 }),
    new StringOutputParser(),
  ]);

  for (const question of QUESTIONS) {
    const documents = await retriever.invoke(question);
    log(`question: ${question}`);
    log(
      `reranked: ${documents
        .map((d) => `${d.metadata.source} (${Number(d.metadata.relevanceScore).toFixed(2)})`)
        .join(", ")}`,
    );
    log(`answer: ${await answer.invoke({ question, documents })}`);
  }
}

await runIfMain(import.meta.url, main);
