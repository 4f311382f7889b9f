/**
 * @module Retrieval-augmented generation: load a few Markdown files, split them, embed the
 * pieces with `InferenceServiceEmbeddings` into a vector store, retrieve for each question and
 * answer from what was retrieved with `ChatInferenceService`.
 *
 * Packages: langchain-inference-service @langchain/core @langchain/classic @langchain/textsplitters
 */
import { readdir, readFile } from "node:fs/promises";
import { MemoryVectorStore } from "@langchain/classic/vectorstores/memory";
import { Document } from "@langchain/core/documents";
import { StringOutputParser } from "@langchain/core/output_parsers";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnablePassthrough, RunnableSequence } from "@langchain/core/runnables";
import { RecursiveCharacterTextSplitter } from "@langchain/textsplitters";
import { ChatInferenceService, InferenceServiceEmbeddings } from "langchain-inference-service";
import { EMBEDDING_MODEL, type Log, MODEL, runIfMain } from "./connection.js";

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

const formatDocs = (docs: Document[]) =>
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

  const retriever = store.asRetriever({ k: 2 });
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

  for (const question of QUESTIONS) {
    const [best] = await retriever.invoke(question);
    log(`question: ${question}`);
    log(`retrieved: ${best?.metadata.source}`);
    log(`answer: ${await chain.invoke(question)}`);
  }
}

await runIfMain(import.meta.url, main);
