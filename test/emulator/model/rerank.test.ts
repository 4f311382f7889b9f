/**
 * The emulator's `/rerank` route and its rerank model: a lexical score that puts the right
 * document first, the answer's shape on the wire, top_n and return_documents, validation,
 * metering, faults and the errors of the chat surface.
 */
import { describe, expect, it } from "vitest";
import {
  DEFAULT_EMBEDDING_MODEL,
  DEFAULT_MODEL,
  DEFAULT_RERANK_MODEL,
  FAULT_HEADER,
} from "../../../src/emulator/index.js";
import { rankedResults, relevanceScores } from "../../../src/emulator/model/rerank.js";
import { countTokens } from "../../../src/emulator/model/tokens.js";
import {
  bearer,
  CHAT,
  chatBody,
  expectHostedRefusals,
  expectPromptOnlyMetering,
  inProcess,
  post,
  REQUEST_ID,
  TRANSPORTS,
  useEmulator,
} from "../helpers.js";

const RERANK = "/inference/v1/rerank";

const DOCS = [
  "A cat purrs when it is content and rubs against people it trusts.",
  "Volcanic eruptions released lava, ash and gases over the island.",
  "Photosynthesis lets a plant turn sunlight, water and carbon dioxide into sugar.",
  "The government of Rome ruled each city through appointed governors.",
  "Dogs bark at strangers to warn the household.",
];
/** Questions that share only forms of their words with the document they ask about. */
const QUESTIONS = [
  ["What do volcanoes release?", 1],
  ["Why do cats purr?", 0],
  ["How do plants photosynthesise?", 2],
  ["Who governed the Roman cities?", 3],
  ["Which dog barked?", 4],
] as const;

const body = (extra: Record<string, unknown> = {}) => ({
  model: DEFAULT_RERANK_MODEL,
  query: "What do volcanoes release?",
  documents: DOCS,
  ...extra,
});

interface RerankAnswer {
  id: string;
  model: string;
  results: Array<{ index: number; relevance_score: number; document?: { text: string } }>;
  usage: { prompt_tokens: number; total_tokens: number };
}

describe("the emulator's relevance scores", () => {
  it("put the document that answers a plain question first, by word forms alone", () => {
    for (const [question, expected] of QUESTIONS) {
      const scores = relevanceScores(question, DOCS);
      const [best, runnerUp] = [...scores].sort((a, b) => b - a);
      expect(scores.indexOf(best!), question).toBe(expected);
      // Nothing else shares a topic word with the question: the others score 0.
      expect(runnerUp, question).toBe(0);
    }
  });

  it("lie in [0, 1) and grow with the share of the query's words a document holds", () => {
    const [none, one, both] = relevanceScores("volcanic ash", [
      "A cat purrs.",
      "The volcano erupted.",
      "The volcano erupted and ash fell.",
    ]);
    expect(none).toBe(0);
    expect(one).toBeGreaterThan(0);
    expect(both).toBeGreaterThan(one!);
    expect(both).toBeLessThan(1);
  });

  it("score every document 0 for a query of function words only", () => {
    expect(relevanceScores("what is the", DOCS)).toEqual(DOCS.map(() => 0));
  });

  it("rank ties in the documents' order", () => {
    expect(rankedResults([0.5, 0.9, 0.5], ["a", "b", "c"], undefined, false)).toEqual([
      { index: 1, relevance_score: 0.9 },
      { index: 0, relevance_score: 0.5 },
      { index: 2, relevance_score: 0.5 },
    ]);
  });
});

describe.each(TRANSPORTS)("POST /inference/v1/rerank over the %s", (_name, make) => {
  const emulator = useEmulator(make);

  it("answers every document best first, with an ID, the model, usage and a request ID", async () => {
    const response = await post(emulator, RERANK, body());
    expect(response.status).toBe(200);
    const requestId = response.headers.get("x-gateway-request-id");
    expect(requestId).toMatch(REQUEST_ID);
    const json = (await response.json()) as RerankAnswer;
    const scores = relevanceScores("What do volcanoes release?", DOCS);
    expect(json).toEqual({
      id: `rerank-${requestId}`,
      model: DEFAULT_RERANK_MODEL,
      results: [1, 0, 2, 3, 4].map((index) => ({ index, relevance_score: scores[index] })),
      usage: { prompt_tokens: expect.any(Number), total_tokens: expect.any(Number) },
    });
    // Each document is read with the query, as a cross-encoder reads them.
    const query = countTokens("What do volcanoes release?");
    const expected = DOCS.reduce((sum, doc) => sum + query + countTokens(doc), 0);
    expect(json.usage).toEqual({ prompt_tokens: expected, total_tokens: expected });
  });

  it("answers the top_n best, with their texts when return_documents, from strings or { text }", async () => {
    const response = await post(
      emulator,
      RERANK,
      body({ documents: DOCS.map((text) => ({ text })), top_n: 2, return_documents: true }),
    );
    const { results } = (await response.json()) as RerankAnswer;
    expect(results.map((result) => [result.index, result.document])).toEqual([
      [1, { text: DOCS[1] }],
      [0, { text: DOCS[0] }],
    ]);
    const all = await post(emulator, RERANK, body({ top_n: 99 }));
    const { results: every } = (await all.json()) as RerankAnswer;
    expect(every).toHaveLength(DOCS.length);
    expect(every.every((result) => result.document === undefined)).toBe(true);
  });

  it("debits the credit for the prompt tokens and logs the call", async () => {
    await expectPromptOnlyMetering(emulator, RERANK, body(), 0.02);
  });

  it.each([
    [{ query: undefined }, "query", /^query must be a non-empty string/],
    [{ query: "" }, "query", /^query must be a non-empty string/],
    [{ documents: [] }, "documents", /^documents must be a non-empty array/],
    [{ documents: "one text" }, "documents", /^documents must be a non-empty array/],
    [
      { documents: ["fine", { content: "no text" }] },
      "documents",
      /^documents\[1\] must be a string or an object with a string "text"/,
    ],
    [{ top_n: 0 }, "top_n", /^top_n must be a whole number ≥ 1/],
    [{ top_n: 1.5 }, "top_n", /^top_n must be a whole number ≥ 1/],
    [{ top_n: "2" }, "top_n", /^top_n must be a whole number ≥ 1/],
    [{ return_documents: "yes" }, "return_documents", /^return_documents must be true or false/],
    [{ model: 7 }, "", /^model must be a string/],
  ])("refuses %j with 400 naming %s", async (extra, param, message) => {
    const response = await post(emulator, RERANK, body(extra));
    expect(response.status).toBe(400);
    expect((await response.json()).error).toEqual({
      code: "invalid_request",
      message: expect.stringMatching(message),
      type: "new_api_error",
      param,
    });
    expect(emulator.state.lastRequest()).toMatchObject({ status: 400, cost: 0 });
  });

  it("answers a body that is not JSON with 400", async () => {
    const response = await post(emulator, RERANK, "{oops");
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toMatch(/^Request body is not valid JSON/);
  });

  it("answers an unknown model with 503 model_not_found, a bad key with 401, no credit with 403", async () => {
    await expectHostedRefusals(emulator, RERANK, body());
  });

  it("refuses a chat or embedding model at /rerank, and the rerank model at /chat/completions", async () => {
    for (const model of [DEFAULT_MODEL, DEFAULT_EMBEDDING_MODEL]) {
      const response = await post(emulator, RERANK, body({ model }));
      expect(response.status).toBe(400);
      expect((await response.json()).error.message).toMatch(
        new RegExp(`^model ${model} does not support rerank`),
      );
    }
    const reverse = await post(emulator, CHAT, chatBody("hi", { model: DEFAULT_RERANK_MODEL }));
    expect(reverse.status).toBe(400);
    expect((await reverse.json()).error.message).toMatch(
      /^model emulator-rerank is a rerank model; call \/rerank/,
    );
  });

  it("refuses a document that with the query passes maxInputTokens with 400 context_length_exceeded", async () => {
    const long = "word ".repeat(9_000);
    const response = await post(emulator, RERANK, body({ documents: ["short", long] }));
    expect(response.status).toBe(400);
    const { error } = await response.json();
    expect(error).toMatchObject({
      code: "context_length_exceeded",
      type: "invalid_request_error",
      param: "documents",
    });
    expect(error.message).toMatch(/maximum context length is 8192 tokens.* in documents\[1\]/);
  });

  it("injects faults as on the chat surface, metering only an intact answer", async () => {
    const overloaded = await post(emulator, RERANK, body(), {
      ...bearer(),
      [FAULT_HEADER]: "system_cpu_overloaded",
    });
    expect(overloaded.status).toBe(503);
    expect((await overloaded.json()).error.code).toBe("system_cpu_overloaded");
    expect(emulator.state.lastRequest()).toMatchObject({
      fault: "system_cpu_overloaded",
      promptTokens: 0,
      cost: 0,
    });
    const upstream = await post(emulator, RERANK, body(), { ...bearer(), [FAULT_HEADER]: "502" });
    expect(upstream.status).toBe(502);
    const cut = await post(emulator, RERANK, body(), { ...bearer(), [FAULT_HEADER]: "truncate" });
    await expect(cut.json()).rejects.toThrow();
    expect(emulator.state.lastRequest()).toMatchObject({ fault: "truncate", cost: 0 });
  });

  it("lists the rerank model in /models", async () => {
    const response = await emulator.fetch(`${emulator.url}/inference/v1/models`, {
      headers: bearer(),
    });
    const ids = (await response.json()).data.map((m: { id: string }) => m.id);
    expect(ids).toContain(DEFAULT_RERANK_MODEL);
  });
});

describe("rerank models in the emulator's configuration", () => {
  it("are marked with rerank: true, and refuse a bad flag or a model that is both kinds", () => {
    const emulator = inProcess({ models: [{ id: "ranker", rerank: true }] });
    expect(emulator.state.model("ranker")).toEqual({
      id: "ranker",
      prices: { input: 1, output: 1 },
      rerank: true,
      endpointTypes: ["jina-rerank"],
    });
    expect(() => inProcess({ models: [{ id: "x", rerank: "yes" as never }] })).toThrow(
      "models[0].rerank must be true or false",
    );
    expect(() =>
      inProcess({ models: [{ id: "x", rerank: true, embedding: { dimensions: 8 } }] }),
    ).toThrow("models[0] cannot be both an embedding model and a rerank model");
  });
});
