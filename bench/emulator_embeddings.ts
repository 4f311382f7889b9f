/**
 * @module The emulator's embedding vectors, old against new, in one run: the work the
 * `/embeddings` route does per request that changed (a vector per input, then the JSON body),
 * with the previous vector function kept below as the baseline, and the whole route in-process
 * for reference. The route's other steps (key, faults, body, tokens, log) are the same for both,
 * so the route's ratio lies between 1 and the ratio of the changed work; it is estimated from the
 * measured difference. Run with `npx tsx bench/emulator_embeddings.ts [rounds]`.
 */

import { createEmulator, DEFAULT_EMBEDDING_MODEL } from "../src/emulator/index.js";
import { embed, embeddingListBody } from "../src/emulator/model/embeddings.js";
import { timeRounds } from "./lib/rounds.js";
import { pairedRatio, summarize } from "./lib/stats.js";

const BATCH = 512;
const DIMENSIONS = 256;

// ---- the baseline: the vector function before the change, frozen here for the comparison ----
// (A copy on purpose: the stemming and hashing it measures no longer exist in src/.)

const OLD_STOPWORDS = new Set(
  (
    "a an the and or but if of to in on at by for with from into about as is are was were be been " +
    "being do does did have has had i me my we our us you your he she it its they them their this " +
    "that these those what which who whom whose when where why how can could would should will " +
    "shall may might must please tell give show get let make some any all no not yes than then " +
    "there here so such very just also want need like know s t don doesn isn what's it's i'm"
  ).split(" "),
);
const OLD_SYNONYMS: Readonly<Record<string, string>> = {
  plus: "add",
  sum: "add",
  addition: "add",
  total: "add",
  times: "multiply",
  multiplied: "multiply",
  product: "multiply",
  minus: "subtract",
  difference: "subtract",
  divided: "divide",
  quotient: "divide",
  forecast: "weather",
  temperature: "weather",
  lookup: "search",
  find: "search",
  look: "search",
};

function oldStem(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith("ing")) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith("ed")) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

function oldWords(text: string): string[] {
  return text
    .replace(/([\p{Ll}\d])(\p{Lu})/gu, "$1 $2")
    .split(/[^\p{L}\p{N}']+/u)
    .map((word) => word.replace(/^'+|'+$/g, ""))
    .filter((word) => word.length > 0);
}

function oldKeywords(text: string): Set<string> {
  const result = new Set<string>();
  for (const word of oldWords(text)) {
    const lower = word.toLowerCase();
    if (OLD_STOPWORDS.has(lower)) continue;
    const stemmed = oldStem(OLD_SYNONYMS[lower] ?? lower);
    result.add(OLD_SYNONYMS[stemmed] ?? stemmed);
  }
  return result;
}

function oldFnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The vector function as it was: one coordinate per word, 256 buckets shared by all words. */
export function oldEmbed(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const found = oldKeywords(text);
  for (const word of found.size > 0 ? found : [""]) {
    const hash = oldFnv1a(word);
    vector[hash % dimensions]! += hash & 0x80000000 ? -1 : 1;
  }
  let sumOfSquares = 0;
  for (const x of vector) sumOfSquares += x * x;
  const norm = Math.sqrt(sumOfSquares);
  if (norm === 0) {
    vector[0] = 1;
    return vector;
  }
  return vector.map((x) => x / norm);
}

// ---- the measurement -------------------------------------------------------------------------

/** Short texts, all different, as a corpus split into small pieces would be (benchmark 10's). */
function corpus(count: number, offset: number): string[] {
  const topics = ["wallet credit", "service name", "model list", "base url", "stream events"];
  return Array.from({ length: count }, (_, j) => {
    const i = offset + j;
    return `Note ${i} on the ${topics[i % topics.length]} of tenant ${i % 97}.`;
  });
}

/** What the route does per request that the vector function touches: the vectors, the body. */
function vectorsAndBody(vector: (text: string, dimensions: number) => number[], texts: string[]) {
  const vectors = texts.map((text) => vector(text, DIMENSIONS));
  return JSON.stringify(
    embeddingListBody(DEFAULT_EMBEDDING_MODEL, vectors, 1, [...vectors.keys()]),
  );
}

export async function measureEmbeddingVectors(rounds = 15) {
  const emulator = createEmulator();
  let batch = 0;
  // A new batch each call: the emulator remembers token counts of texts it has seen.
  const next = () => corpus(BATCH, BATCH * batch++);
  const route = async () => {
    const response = await emulator.fetch(`${emulator.baseURL}/embeddings`, {
      method: "POST",
      headers: { Authorization: `Bearer ${emulator.apiKey}`, "Content-Type": "application/json" },
      body: JSON.stringify({ model: DEFAULT_EMBEDDING_MODEL, input: next() }),
    });
    if (response.status !== 200) throw new Error(`the route answered ${response.status}`);
    await response.text();
  };
  const times = await timeRounds(
    [
      { name: "old", run: async () => vectorsAndBody(oldEmbed, next()) },
      { name: "new", run: async () => vectorsAndBody(embed, next()) },
      { name: "route", run: route },
    ],
    { warmup: 5, rounds, perRound: 5 },
  );
  const median = (name: string) => summarize(times.get(name)!.flat()).median;
  const work = pairedRatio(times.get("new")!, times.get("old")!);
  const routeNew = median("route");
  const routeOld = routeNew - median("new") + median("old");
  return { work, oldMs: median("old"), newMs: median("new"), routeNew, routeOld };
}

if (process.argv[1]?.endsWith("emulator_embeddings.ts")) {
  const rounds = Number(process.argv[2] ?? 15);
  const { work, oldMs, newMs, routeNew, routeOld } = await measureEmbeddingVectors(rounds);
  const perSecond = (ms: number) => ((BATCH * 1000) / ms).toFixed(0);
  console.log(
    `emulator embeddings, ${BATCH} texts a request, ${DIMENSIONS} dimensions:\n` +
      `  vectors + body: old ${oldMs.toFixed(2)} ms, new ${newMs.toFixed(2)} ms a request; ` +
      `new/old throughput ${(1 / work.median).toFixed(2)} (paired rounds, quartiles ` +
      `${(1 / work.q3).toFixed(2)}–${(1 / work.q1).toFixed(2)})\n` +
      `  route (in-process): new ${routeNew.toFixed(2)} ms a request, ${perSecond(routeNew)} ` +
      `texts/s; with the old vectors about ${routeOld.toFixed(2)} ms, ${perSecond(routeOld)} ` +
      `texts/s: new/old throughput ${(routeOld / routeNew).toFixed(2)}`,
  );
}
