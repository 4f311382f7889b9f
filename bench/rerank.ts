/**
 * @module Benchmark 12, rerank: one rerank of 100 documents through `InferenceServiceRerank`
 * (`rerank` on strings, and `compressDocuments` on LangChain documents, as a retriever calls it)
 * against a raw `fetch` of the same request to the same emulator, with the openai SDK's
 * `client.post` of it between them: what the channel would cost if it sent rerank through the SDK
 * as it sends the other APIs. Twice:
 * on the emulator as it is (it ranks 100 documents in well under a millisecond), and with 20 ms
 * of model time (`X-Emulator-Fault: latency=20`), nearer what a cross-encoder takes.
 */

import { Document } from "@langchain/core/documents";
import OpenAI from "openai";
import { FAULT_HEADER } from "../src/emulator/index.js";
import { InferenceServiceRerank } from "../src/index.js";
import { scaled } from "./lib/config.js";
import type { BenchContext } from "./lib/context.js";
import type { Section, Table } from "./lib/report.js";
import { type Contender, timeRounds } from "./lib/rounds.js";
import { ms, pairedRatio, summarize } from "./lib/stats.js";

const MODEL = "emulator-rerank";
const DOCUMENTS = 100;
const TOP_N = 10;
const GOAL = 1.1;
const MODEL_TIME_MS = 20;
const QUERY = "Which header routes a request to a dedicated endpoint, and what does a 503 mean?";

const OURS = "InferenceServiceRerank.rerank";
const COMPRESS = "InferenceServiceRerank.compressDocuments";
const SDK = "openai SDK client.post";
const FETCH = "raw fetch + JSON.parse";

/** Pieces of about 300 characters, all different, as a splitter would cut a few documents. */
function corpus(count: number): string[] {
  const topics = [
    "the Service-Name header routes a request to a dedicated endpoint deployment",
    "an unknown model ID receives HTTP 503 with the code model_not_found",
    "the Wallet credit pays hosted models per token, and a 403 means it is empty",
    "a base URL without the /v1 prefix answers an HTML page instead of JSON",
    "a Pending endpoint closes the connection until its Scaling shows 1/1",
  ];
  return Array.from({ length: count }, (_, i) => {
    const topic = topics[i % topics.length]!;
    return (
      `Note ${i} for tenant ${i % 17}: ${topic}. ` +
      `It was written for release ${1 + (i % 9)} of the gateway, reviewed on day ${i % 28}, ` +
      `and it says that ${topic}, which the operators of region ${i % 5} confirmed again.`
    );
  });
}

/** The four contenders, each sending the same request built afresh, with `headers` added. */
function contenders(ctx: BenchContext, headers: Record<string, string>): Contender[] {
  const { emulatorBaseURL: baseURL, emulatorApiKey: apiKey } = ctx.servers;
  const texts = corpus(DOCUMENTS);
  const documents = texts.map((text, i) => new Document({ pageContent: text, metadata: { i } }));
  const withHeaders: typeof fetch = (input, init) => {
    const sent = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) sent.set(name, value);
    return fetch(input, { ...init, headers: sent });
  };
  const reranker = new InferenceServiceRerank(MODEL, {
    apiKey,
    baseURL,
    topN: TOP_N,
    ...(Object.keys(headers).length > 0 ? { fetch: withHeaders } : {}),
  });
  const client = new OpenAI({ apiKey, baseURL, maxRetries: 0, defaultHeaders: headers });
  const body = () => ({
    model: MODEL,
    query: QUERY,
    documents: texts,
    top_n: TOP_N,
    return_documents: false,
  });
  const expectTopN = (results: unknown) => {
    if (!Array.isArray(results) || results.length !== TOP_N) throw new Error("not top_n results");
  };
  return [
    { name: OURS, run: async () => expectTopN(await reranker.rerank(texts, QUERY)) },
    {
      name: COMPRESS,
      run: async () => expectTopN(await reranker.compressDocuments(documents, QUERY)),
    },
    {
      name: SDK,
      run: async () =>
        expectTopN(
          (await client.post<{ results: unknown[] }>("/rerank", { body: body() })).results,
        ),
    },
    {
      name: FETCH,
      run: async () => {
        const response = await fetch(`${baseURL}/rerank`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${apiKey}`,
            "content-type": "application/json",
            ...headers,
          },
          body: JSON.stringify(body()),
        });
        const answer = (await response.json()) as { results?: unknown[] };
        if (!response.ok) throw new Error(`raw fetch got ${response.status}`);
        expectTopN(answer.results);
      },
    },
  ];
}

interface Measured {
  table: Table;
  ours: ReturnType<typeof pairedRatio>;
  compress: ReturnType<typeof pairedRatio>;
  sdk: ReturnType<typeof pairedRatio>;
}

async function measure(
  ctx: BenchContext,
  title: string,
  headers: Record<string, string>,
  options: { warmup: number; rounds: number; perRound: number },
): Promise<Measured> {
  ctx.progress(`rerank: ${title}, ${options.rounds}×${options.perRound} calls each`);
  const rounds = await timeRounds(contenders(ctx, headers), options);
  const base = rounds.get(FETCH)!;
  const baseMedian = summarize(base.flat()).median;
  const rows = [...rounds].map(([name, r]) => {
    const wall = summarize(r.flat());
    const paired = pairedRatio(r, base);
    const isBase = name === FETCH;
    return [
      name,
      ms(wall.median),
      ms(wall.p95),
      isBase ? "1.000×" : `${paired.median.toFixed(3)}×`,
      isBase ? "–" : `${paired.q1.toFixed(2)}–${paired.q3.toFixed(2)}`,
      isBase ? "–" : `+${Math.round((wall.median - baseMedian) * 1000)} µs`,
    ];
  });
  return {
    ours: pairedRatio(rounds.get(OURS)!, base),
    compress: pairedRatio(rounds.get(COMPRESS)!, base),
    sdk: pairedRatio(rounds.get(SDK)!, base),
    table: {
      title: `One rerank of ${DOCUMENTS} documents (top_n ${TOP_N}), ${title}`,
      how:
        `${options.rounds} rounds × ${options.perRound} sequential calls per contender after ` +
        `${options.warmup} warm-up calls each, taking turns within each round; the same body, ` +
        `built afresh each call (${DOCUMENTS} pieces of about 300 characters, \`${MODEL}\`, ` +
        "`return_documents: false`), to the same emulator in a child process. × raw fetch is " +
        "paired: the median over rounds of this round's median ÷ raw fetch's median in the " +
        "same round, with its interquartile range.",
      goal: `ours ≤ ${GOAL.toFixed(2)}× a raw fetch of the same request (issue 31).`,
      headers: [
        "contender",
        "median",
        "p95",
        "× raw fetch (paired)",
        "IQR of the ratio",
        "over raw fetch",
      ],
      rows,
    },
  };
}

export async function rerank(ctx: BenchContext): Promise<Section> {
  const bare = await measure(
    ctx,
    "emulator",
    {},
    {
      warmup: scaled(200, 20),
      rounds: scaled(100, 10),
      perRound: scaled(10, 5),
    },
  );
  const timed = await measure(
    ctx,
    `emulator with ${MODEL_TIME_MS} ms of model time`,
    { [FAULT_HEADER]: `latency=${MODEL_TIME_MS}` },
    { warmup: scaled(20, 4), rounds: scaled(30, 4), perRound: scaled(5, 3) },
  );
  const figure = (m: Measured) =>
    `ours **${m.ours.median.toFixed(3)}×** (IQR ${m.ours.q1.toFixed(2)}–${m.ours.q3.toFixed(2)}), ` +
    `compressDocuments ${m.compress.median.toFixed(3)}×, the openai SDK's own post ${m.sdk.median.toFixed(3)}×`;
  bare.table.summary = [
    `Rerank, ${DOCUMENTS} documents, ÷ a raw fetch of the same request: ${figure(bare)} on the ` +
      `emulator; with ${MODEL_TIME_MS} ms of model time ${figure(timed)} — goal ≤ ${GOAL.toFixed(2)}×.`,
  ];
  bare.table.notes = [
    "The emulator ranks 100 documents in well under a millisecond, so any fixed cost is a large " +
      "share of a call. Rerank goes straight through the package's fetch layer (`transport/post.ts`); " +
      "the openai SDK's row shows what sending it through the SDK, as the other APIs are, would " +
      `add. With ${MODEL_TIME_MS} ms of model time every contender is within a few percent.`,
  ];
  return { name: "rerank", heading: "12. Rerank", tables: [bare.table, timed.table] };
}
