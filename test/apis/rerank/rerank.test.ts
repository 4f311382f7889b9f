/**
 * `InferenceServiceRerank` on the wire (nock) and against the in-process emulator: the request it
 * sends, results in the service's order, documents with their metadata, the answer's checks,
 * typed errors and their request counts, usage through callbacks, the rate limiter, a
 * retriever, configuration and secrets.
 */
import { inspect } from "node:util";
import { ContextualCompressionRetriever } from "@langchain/classic/retrievers/contextual_compression";
import { MemoryVectorStore } from "@langchain/classic/vectorstores/memory";
import { Document } from "@langchain/core/documents";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  createEmulator,
  DEFAULT_EMBEDDING_MODEL,
  DEFAULT_RERANK_MODEL,
} from "../../../src/emulator/index.js";
import {
  AuthenticationError,
  BudgetExceededError,
  ConfigurationError,
  ContextLengthExceededError,
  InferenceServiceEmbeddings,
  InferenceServiceRerank,
  type InferenceServiceRerankFields,
  InsufficientCreditError,
  InvalidURLError,
  MalformedResponseError,
  ModelNotFoundError,
  RateLimiter,
  ServiceUnavailableError,
  UsageTracker,
  withUsage,
} from "../../../src/index.js";
import { configurationError } from "../../helpers/errors.js";
import { bodies, RID } from "../../helpers/fixtures.js";
import { BASE, intercept, KEY, type Reply } from "../../helpers/wire.js";

const PATH = "/inference/v1/rerank";
const FAST = { initialDelayMs: 1, maxDelayMs: 2 };
const JSON_HEADERS = { "Content-Type": "application/json", "X-Gateway-Request-Id": RID };

nock.disableNetConnect();

beforeEach(() => {
  for (const name of [
    "INFERENCE_SERVICE_API_KEY",
    "INFERENCE_SERVICE_BASE_URL",
    "INFERENCE_SERVICE_RERANK_MODEL",
  ]) {
    vi.stubEnv(name, "");
  }
});

afterEach(() => {
  nock.cleanAll();
});

function reranker(fields: Omit<InferenceServiceRerankFields, "model"> = {}) {
  return new InferenceServiceRerank("rerank-m", {
    apiKey: KEY,
    baseURL: BASE,
    retry: FAST,
    ...fields,
  });
}

/** A rerank answer listing `order` (positions, best first) with falling scores. */
function answer(order: number[], usage: unknown = { prompt_tokens: 42, total_tokens: 42 }) {
  return {
    id: "rerank-1",
    model: "rerank-m",
    results: order.map((index, rank) => ({ index, relevance_score: 0.9 - rank / 10 })),
    ...(usage === undefined ? {} : { usage }),
  };
}

const ok = (order: number[], usage?: unknown): Reply => [
  200,
  usage === undefined ? answer(order) : answer(order, usage),
  JSON_HEADERS,
];

const caught = (run: () => Promise<unknown>) =>
  run().then(
    () => undefined,
    (error: unknown) => error,
  );

const TEXTS = ["alpha", "beta", "gamma", "delta"];

describe("the request", () => {
  it("posts model, query, documents, top_n and return_documents: false to …/rerank with the key and no Service-Name", async () => {
    const seen = intercept(PATH, ok([2, 0, 3]));
    await reranker({ configuration: { baseURL: `${BASE}/inference/v1/` } }).rerank(TEXTS, "which?");
    expect(seen).toHaveLength(1);
    expect(seen[0]!.path).toBe(PATH);
    expect(seen[0]!.body).toEqual({
      model: "rerank-m",
      query: "which?",
      documents: TEXTS,
      top_n: 3,
      return_documents: false,
    });
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(seen[0]!.headers["service-name"]).toBeUndefined();
  });

  it("sends the text of strings, LangChain documents and { text } objects alike", async () => {
    const seen = intercept(PATH, ok([1, 0, 2]));
    await reranker().rerank(
      ["one", new Document({ pageContent: "two", metadata: { a: 1 } }), { text: "three" }],
      "q",
    );
    expect(seen[0]!.body.documents).toEqual(["one", "two", "three"]);
  });

  it("asks for the call's topN, the instance's, or every document, never more than there are", async () => {
    const seen = intercept(PATH, ok([1]), ok([1, 0]), ok([3, 1, 0, 2]), ok([1, 0]));
    await reranker().rerank(TEXTS, "q", { topN: 1 });
    await reranker({ topN: 2 }).rerank(TEXTS, "q");
    await reranker({ topN: Number.POSITIVE_INFINITY }).rerank(TEXTS, "q");
    await reranker({ topN: 10 }).rerank(["a", "b"], "q");
    expect(seen.map(({ body }) => body.top_n)).toEqual([1, 2, 4, 2]);
  });

  it("sends nothing, and starts no run, for no documents", async () => {
    const seen = intercept(PATH, ok([0]));
    const usage = new UsageTracker();
    const model = reranker({ callbacks: [usage] });
    expect(await model.rerank([], "q")).toEqual([]);
    expect(await model.compressDocuments([], "q")).toEqual([]);
    expect(seen).toHaveLength(0);
    expect(usage.records).toEqual([]);
  });

  it.each([
    [
      "an empty query",
      () => reranker().rerank(["a"], ""),
      "query",
      /`query` must be a non-empty string/,
    ],
    [
      "a query that is not a string",
      () => reranker().rerank(["a"], 42 as unknown as string),
      "query",
      /`query` must be a non-empty string/,
    ],
    [
      "a document that is neither text nor a document",
      () => reranker().rerank(["a", 7 as unknown as string], "q"),
      "documents[1]",
      /`documents\[1\]` must be a string, a LangChain Document or an object with a string `text`/,
    ],
    [
      "a topN of 0",
      () => reranker().rerank(["a"], "q", { topN: 0 }),
      "topN",
      /`topN` must be a whole number ≥ 1, or Infinity/,
    ],
  ])("refuses %s before any request, naming it", async (_name, run, option, message) => {
    const seen = intercept(PATH, ok([0]));
    const error = await caught(run);
    expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
    expect(error).toMatchObject({ option });
    expect((error as Error).message).toMatch(message);
    expect(seen).toHaveLength(0);
  });
});

describe("results in the service's order", () => {
  it("returns each result's index and score as the service lists them, without re-sorting", async () => {
    // Not sorted by score: the order is the service's to decide.
    intercept(PATH, [
      200,
      {
        results: [
          { index: 3, relevance_score: 0.2 },
          { index: 0, relevance_score: 0.7 },
          { index: 1, relevance_score: 0 },
        ],
      },
      JSON_HEADERS,
    ]);
    expect(await reranker().rerank(TEXTS, "q")).toEqual([
      { index: 3, relevanceScore: 0.2 },
      { index: 0, relevanceScore: 0.7 },
      { index: 1, relevanceScore: 0 },
    ]);
  });

  it("compressDocuments returns the documents in that order, at most topN, with their metadata, id and relevanceScore", async () => {
    intercept(PATH, ok([2, 0]));
    const documents = TEXTS.map(
      (text, i) =>
        new Document({ pageContent: text, metadata: { source: `${text}.md`, i }, id: `d${i}` }),
    );
    const compressed = await reranker({ topN: 2 }).compressDocuments(documents, "q");
    expect(compressed).toEqual([
      new Document({
        pageContent: "gamma",
        metadata: { source: "gamma.md", i: 2, relevanceScore: 0.9 },
        id: "d2",
      }),
      new Document({
        pageContent: "alpha",
        metadata: { source: "alpha.md", i: 0, relevanceScore: 0.8 },
        id: "d0",
      }),
    ]);
    // The caller's documents are left as they were.
    expect(documents[2]!.metadata).toEqual({ source: "gamma.md", i: 2 });
  });
});

describe("reading the answer", () => {
  it.each([
    ["no results array", { usage: { prompt_tokens: 1 } }, /the JSON body has no `results` array/],
    [
      "a result missing (fewer than top_n)",
      answer([0, 1]),
      /`results` holds 2 results for top_n 3 of 4 documents/,
    ],
    ["more results than top_n", answer([0, 1, 2, 3]), /`results` holds 4 results for top_n 3/],
    ["an index twice", answer([1, 2, 1]), /two results have the index 1/],
    [
      "an index out of range",
      answer([0, 4, 1]),
      /`results\[1\]\.index` is not a position of the documents \(0 to 3\)/,
    ],
    [
      "a negative index",
      answer([0, -1, 1]),
      /`results\[1\]\.index` is not a position of the documents/,
    ],
    [
      "an index that is not a whole number",
      {
        results: [
          { index: 0, relevance_score: 1 },
          { index: 1.5, relevance_score: 1 },
          { index: 2, relevance_score: 1 },
        ],
      },
      /`results\[1\]\.index` is not a position of the documents/,
    ],
    [
      "a result that is not an object",
      { results: [{ index: 0, relevance_score: 1 }, null, { index: 2, relevance_score: 1 }] },
      /`results\[1\]\.index` is not a position of the documents/,
    ],
    [
      "a score that is a string",
      {
        results: [
          { index: 0, relevance_score: "0.5" },
          { index: 1, relevance_score: 1 },
          { index: 2, relevance_score: 1 },
        ],
      },
      /`results\[0\]\.relevance_score` is not a finite number/,
    ],
    [
      "a score missing",
      {
        results: [{ index: 0 }, { index: 1, relevance_score: 1 }, { index: 2, relevance_score: 1 }],
      },
      /`results\[0\]\.relevance_score` is not a finite number/,
    ],
    [
      // JSON has no NaN or Infinity, but a number beyond float64 parses as ±Infinity.
      "a score beyond float64 (Infinity)",
      '{"results":[{"index":0,"relevance_score":1},{"index":1,"relevance_score":1e999},{"index":2,"relevance_score":0}]}',
      /`results\[1\]\.relevance_score` is not a finite number/,
    ],
  ])(
    "turns an answer with %s into a MalformedResponseError with the request ID, after one request",
    async (_name, body, detail) => {
      const seen = intercept(PATH, [200, body as Record<string, unknown>, JSON_HEADERS]);
      const error = await caught(() => reranker().rerank(TEXTS, "q"));
      expect(MalformedResponseError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({ status: 200, requestId: RID, retryable: false });
      expect((error as MalformedResponseError).summary).toMatch(detail);
      expect(seen).toHaveLength(1);
    },
  );

  it("checks one result per document when every document is asked for", async () => {
    intercept(PATH, ok([3, 1, 0]));
    const error = await caught(() =>
      reranker({ topN: Number.POSITIVE_INFINITY }).rerank(TEXTS, "q"),
    );
    expect(MalformedResponseError.isInstance(error), String(error)).toBe(true);
    expect((error as MalformedResponseError).summary).toMatch(
      /`results` holds 3 results for 4 documents/,
    );
  });

  it("throws the error object a 200 answer carries as that error", async () => {
    intercept(PATH, [200, bodies.modelNotFound, JSON_HEADERS]);
    nock(BASE).get("/inference/v1/models").reply(200, { data: [] });
    const error = await caught(() => reranker().rerank(["a"], "q"));
    expect(ModelNotFoundError.isInstance(error), String(error)).toBe(true);
  });
});

describe("typed errors", () => {
  it("says a 404 means no rerank at this URL, after one request", async () => {
    const seen = intercept(PATH, [
      404,
      {
        error: {
          code: "",
          message: "Invalid URL (POST /v1/rerank)",
          type: "invalid_request_error",
          param: "",
        },
      },
      JSON_HEADERS,
    ]);
    const error = await caught(() => reranker().rerank(["a"], "q"));
    expect(InvalidURLError.isInstance(error), String(error)).toBe(true);
    const e = error as InvalidURLError;
    expect(e.summary).toBe(
      "The service offers no rerank at this URL: Invalid URL (POST /v1/rerank).",
    );
    expect(e.hint).toMatch(/does not serve \/rerank/);
    expect(e).toMatchObject({ status: 404, requestId: RID, retryable: false });
    expect(seen).toHaveLength(1);
  });

  it("names the listed models in a ModelNotFoundError, after one GET /models with the same key", async () => {
    const seen = intercept(PATH, [503, bodies.modelNotFound, JSON_HEADERS]);
    let listed = 0;
    nock(BASE)
      .get("/inference/v1/models")
      .reply(function () {
        listed++;
        expect(this.req.headers.authorization).toBe(`Bearer ${KEY}`);
        return [200, { object: "list", data: [{ id: "rerank-model" }, { id: "chat-model" }] }];
      });
    const error = await caught(() => reranker().rerank(["a"], "q"));
    expect(ModelNotFoundError.isInstance(error), String(error)).toBe(true);
    expect(error).toMatchObject({ status: 503, code: "model_not_found", requestId: RID });
    expect((error as ModelNotFoundError).hint).toContain('Did you mean "rerank-model"?');
    expect(seen).toHaveLength(1);
    expect(listed).toBe(1);
  });

  it("turns a 401 into an AuthenticationError after one request", async () => {
    const seen = intercept(PATH, [401, bodies.unauthorized, JSON_HEADERS]);
    const error = await caught(() => reranker().rerank(["a"], "q"));
    expect(AuthenticationError.isInstance(error), String(error)).toBe(true);
    expect(error).toMatchObject({ status: 401, requestId: RID, retryable: false });
    expect(seen).toHaveLength(1);
  });

  it("retries a 503 and answers from the retry", async () => {
    const seen = intercept(PATH, [503, bodies.upstream, JSON_HEADERS], ok([0]));
    expect(await reranker().rerank(["a"], "q")).toEqual([{ index: 0, relevanceScore: 0.9 }]);
    expect(seen).toHaveLength(2);
  });

  it("gives up after maxRetries retries of a retryable failure, calling onFailedAttempt for each", async () => {
    const seen = intercept(PATH, [502, { error: { code: "" } }, JSON_HEADERS]);
    const failed: unknown[] = [];
    const error = await caught(() =>
      reranker({ maxRetries: 1, onFailedAttempt: (e) => failed.push(e) }).rerank(["a"], "q"),
    );
    expect(ServiceUnavailableError.isInstance(error)).toBe(true);
    expect(seen).toHaveLength(2);
    expect(failed).toHaveLength(2);
  });

  it("stops in a retry's backoff when its signal is aborted, sending nothing more, and records the run as aborted", async () => {
    const seen = intercept(PATH, [503, bodies.upstream, JSON_HEADERS]);
    const controller = new AbortController();
    const usage = new UsageTracker({ prices: { "rerank-m": { input: 1, output: 0 } }, budget: 1 });
    const error = await caught(() =>
      reranker({
        maxRetries: 3,
        retry: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
        onFailedAttempt: () => controller.abort(),
        callbacks: [usage],
      }).rerank(["a"], "q", { signal: controller.signal }),
    );
    expect((error as Error | undefined)?.name).toBe("AbortError");
    expect(seen).toHaveLength(1);
    expect(usage.records).toEqual([expect.objectContaining({ aborted: true, inputTokens: 0 })]);
    expect((await usage.budgetStatus()).reserved).toBe(0);
  });

  it("answers the emulator's refusal of a document too long, and its credit and key errors as for chat", async () => {
    const emulator = createEmulator();
    const make = (apiKey = emulator.apiKey) =>
      new InferenceServiceRerank(DEFAULT_RERANK_MODEL, {
        apiKey,
        baseURL: emulator.baseURL,
        fetch: emulator.fetch,
      });
    const tooLong = await caught(() => make().rerank(["fine", "word ".repeat(9_000)], "q"));
    expect(ContextLengthExceededError.isInstance(tooLong), String(tooLong)).toBe(true);
    const e = tooLong as ContextLengthExceededError;
    expect(e.summary).toMatch(
      /^A document, read with the query, is longer than the rerank model takes: .*documents\[1\]/,
    );
    expect(e.hint).toMatch(/^Split the documents into smaller pieces/);
    expect(await caught(() => make("sk-wrong").rerank(["a"], "q"))).toMatchObject({
      name: "AuthenticationError",
      status: 401,
    });
    emulator.state.setCredit(0);
    const broke = await caught(() => make().rerank(["a"], "q"));
    expect(InsufficientCreditError.isInstance(broke)).toBe(true);
  });
});

describe("usage: the reranker's runs reach UsageTracker through callbacks", () => {
  const prices = { [DEFAULT_RERANK_MODEL]: { input: 0.02, output: 0 } };
  function emulated(fields: Omit<InferenceServiceRerankFields, "model"> = {}) {
    const emulator = createEmulator();
    const model = new InferenceServiceRerank(DEFAULT_RERANK_MODEL, {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch: emulator.fetch,
      ...fields,
    });
    return { emulator, model };
  }

  it("records the call: the service's prompt tokens, no output, its cost and request ID; the reservation settled", async () => {
    const usage = new UsageTracker({ prices, budget: 1 });
    const { emulator, model } = emulated({ callbacks: [usage] });
    await model.rerank(["red apples", "green pears", "blue plums"], "which fruit is green?");
    const [entry] = emulator.state.requests();
    expect(usage.records).toEqual([
      expect.objectContaining({
        model: DEFAULT_RERANK_MODEL,
        inputTokens: entry!.promptTokens,
        outputTokens: 0,
        totalTokens: entry!.promptTokens,
        requestId: entry!.requestId,
        cost: (entry!.promptTokens * 0.02) / 1e6,
      }),
    ]);
    const { spent, reserved } = await usage.budgetStatus();
    expect(reserved).toBe(0);
    expect(spent).toBeCloseTo(entry!.cost, 15);
  });

  it("reserves the request against the budget before it is sent: one over the budget is never sent", async () => {
    const usage = new UsageTracker({ prices, budget: 1e-9 });
    const { emulator, model } = emulated({ callbacks: [usage] });
    const error = await caught(() => model.rerank(["a document"], "a query that costs more"));
    expect(BudgetExceededError.isInstance(error), String(error)).toBe(true);
    expect(error).toMatchObject({ model: DEFAULT_RERANK_MODEL, budget: 1e-9 });
    expect(emulator.state.requests()).toHaveLength(0);
    expect(usage.records).toEqual([
      expect.objectContaining({ error: expect.objectContaining({ name: "BudgetExceededError" }) }),
    ]);
    expect((await usage.budgetStatus()).reserved).toBe(0);
  });

  it("releases the reservation of a failed call and records it with its request ID", async () => {
    const usage = new UsageTracker({ prices, budget: 1 });
    const { emulator, model } = emulated({ callbacks: [usage] });
    const error = await caught(() => model.rerank(["fine", "word ".repeat(9_000)], "q"));
    expect(ContextLengthExceededError.isInstance(error)).toBe(true);
    expect(usage.records).toEqual([
      expect.objectContaining({
        inputTokens: 0,
        requestId: emulator.state.lastRequest()!.requestId,
        error: expect.objectContaining({ name: "ContextLengthExceededError" }),
      }),
    ]);
    expect(await usage.budgetStatus()).toMatchObject({ reserved: 0, spent: 0 });
  });

  it("reads the usage of a server that reports only total_tokens (Jina), and settles to the estimate when none is reported (Cohere's search units)", async () => {
    intercept(PATH, ok([0], { total_tokens: 17 }), ok([0], null));
    const usage = new UsageTracker({ prices: { "rerank-m": { input: 1, output: 0 } } });
    const model = reranker({ callbacks: [usage] });
    await model.rerank(["a"], "q");
    const cohere = { ...answer([0]), meta: { billed_units: { search_units: 1 } } };
    nock.cleanAll();
    intercept(PATH, [200, { ...cohere, usage: undefined }, JSON_HEADERS]);
    await model.rerank(["a"], "q");
    // The second call reported no tokens: it is counted at the package's estimate ("q" and "a"
    // read together: a token each), and marked so.
    expect(
      usage.records.map((r) => [r.inputTokens, r.outputTokens, r.requestId, r.estimated]),
    ).toEqual([
      [17, 0, RID, undefined],
      [2, 0, RID, true],
    ]);
  });

  it("counts calls made inside withUsage without any callbacks option, and a retriever's run through compressDocuments", async () => {
    const { emulator, model } = emulated();
    const { usage } = await withUsage(() => model.rerank(["hello world"], "hello"), { prices });
    expect(usage.records).toEqual([
      expect.objectContaining({
        model: DEFAULT_RERANK_MODEL,
        inputTokens: emulator.state.lastRequest()!.promptTokens,
      }),
    ]);
    const tracker = new UsageTracker({ prices });
    const store = await MemoryVectorStore.fromTexts(
      ["Volcanic eruptions release lava.", "A cat purrs."],
      [{}, {}],
      new InferenceServiceEmbeddings(DEFAULT_EMBEDDING_MODEL, {
        apiKey: emulator.apiKey,
        baseURL: emulator.baseURL,
        fetch: emulator.fetch,
      }),
    );
    const retriever = new ContextualCompressionRetriever({
      baseCompressor: model,
      baseRetriever: store.asRetriever({ k: 2 }),
    });
    await retriever.invoke("What do volcanoes release?", { callbacks: [tracker] });
    expect(tracker.records.map((r) => r.model)).toContain(DEFAULT_RERANK_MODEL);
    expect(tracker.records.find((r) => r.model === DEFAULT_RERANK_MODEL)).toMatchObject({
      requestId: emulator.state.lastRequest()!.requestId,
    });
  });
});

describe("the rate limiter", () => {
  it("counts each request with its estimate: the query read with each document, no output", async () => {
    intercept(PATH, ok([1, 0]));
    const limiter = new RateLimiter({ requestsPerMinute: 6000 });
    const acquire = vi.spyOn(limiter, "acquire");
    await reranker({ rateLimiter: limiter }).rerank(["abcdef", "abc"], "abc");
    expect(acquire).toHaveBeenCalledTimes(1);
    // One token per three bytes: (1 + 2) + (1 + 1).
    expect(acquire.mock.calls[0]![0]).toEqual({
      model: "rerank-m",
      inputTokens: 5,
      maxOutputTokens: 0,
      choices: 1,
    });
  });
});

describe("against the emulator, end to end", () => {
  const DOCS = [
    "A cat purrs when it is content and rubs against people it trusts.",
    "Volcanic eruptions released lava, ash and gases over the island.",
    "Photosynthesis lets a plant turn sunlight, water and carbon dioxide into sugar.",
    "The government of Rome ruled each city through appointed governors.",
  ];

  it("puts the document that answers a plain question first, by word forms alone", async () => {
    const emulator = createEmulator();
    const model = new InferenceServiceRerank(DEFAULT_RERANK_MODEL, {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch: emulator.fetch,
      topN: 1,
    });
    for (const [question, expected] of [
      ["What do volcanoes release?", 1],
      ["Why do cats purr?", 0],
      ["How do plants photosynthesise?", 2],
      ["Who governed the Roman cities?", 3],
    ] as const) {
      const [best] = await model.rerank(DOCS, question);
      expect(best!.index, question).toBe(expected);
      expect(best!.relevanceScore).toBeGreaterThan(0);
    }
  });

  it("reranks what a retriever found, in a ContextualCompressionRetriever", async () => {
    const emulator = createEmulator();
    const connection = {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch: emulator.fetch,
    };
    const store = await MemoryVectorStore.fromDocuments(
      DOCS.map((text, i) => new Document({ pageContent: text, metadata: { n: i } })),
      new InferenceServiceEmbeddings(DEFAULT_EMBEDDING_MODEL, connection),
    );
    const retriever = new ContextualCompressionRetriever({
      baseCompressor: new InferenceServiceRerank(DEFAULT_RERANK_MODEL, { ...connection, topN: 2 }),
      baseRetriever: store.asRetriever({ k: 4 }),
    });
    const found = await retriever.invoke("What do volcanoes release?");
    expect(found).toHaveLength(2);
    expect(found[0]!.metadata).toMatchObject({ n: 1, relevanceScore: expect.any(Number) });
    expect(found[0]!.metadata.relevanceScore).toBeGreaterThan(found[1]!.metadata.relevanceScore);
    expect(emulator.state.lastRequest()).toMatchObject({
      model: DEFAULT_RERANK_MODEL,
      status: 200,
    });
  });
});

describe("configuration and secrets", () => {
  it("takes the model from INFERENCE_SERVICE_RERANK_MODEL, trimmed", async () => {
    vi.stubEnv("INFERENCE_SERVICE_RERANK_MODEL", " env-rerank ");
    const seen = intercept(PATH, ok([0]));
    const fromEnv = new InferenceServiceRerank({ apiKey: KEY, baseURL: BASE });
    expect(fromEnv.model).toBe("env-rerank");
    await fromEnv.rerank(["x"], "q");
    expect(seen[0]!.body.model).toBe("env-rerank");
  });

  it("refuses a missing model, key or URL, or a bad option, naming it, before any request", () => {
    const noModel = configurationError(
      () => new InferenceServiceRerank({ apiKey: KEY, baseURL: BASE }),
    );
    expect(noModel).toMatchObject({ option: "model", envVar: "INFERENCE_SERVICE_RERANK_MODEL" });
    expect(noModel.message).toMatch(/new InferenceServiceRerank\("my-rerank-model"\)/);
    expect(
      configurationError(() => new InferenceServiceRerank("m", { baseURL: BASE })),
    ).toMatchObject({
      option: "apiKey",
    });
    expect(configurationError(() => reranker({ topN: 0 })).message).toMatch(
      /`topN` must be a whole number ≥ 1, or Infinity/,
    );
    expect(
      configurationError(() => reranker({ returnDocuments: true } as InferenceServiceRerankFields)),
    ).toMatchObject({ option: "returnDocuments" });
  });

  it("never shows the key: not in JSON, not in inspect, not in an error", async () => {
    const model = reranker();
    expect(JSON.stringify(model)).not.toContain(KEY);
    expect(inspect(model, { depth: 5 })).not.toContain(KEY);
    intercept(PATH, [400, { error: { code: "", message: `bad key ${KEY}` } }, JSON_HEADERS]);
    const error = await caught(() => model.rerank(["x"], "q"));
    expect(String((error as Error).message)).not.toContain(KEY);
    expect(JSON.stringify(error)).not.toContain(KEY);
  });
});
