/**
 * `InferenceServiceEmbeddings` on the wire (nock) and against the in-process emulator: the request
 * it sends, vectors placed by index across batches, base64, typed errors and their request
 * counts, the input a refusal is about, configuration and secrets.
 */
import { inspect } from "node:util";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  createEmulator,
  DEFAULT_EMBEDDING_MODEL,
  FAULT_HEADER,
} from "../../../src/emulator/index.js";
import {
  AuthenticationError,
  BudgetExceededError,
  ContextLengthExceededError,
  InferenceServiceEmbeddings,
  type InferenceServiceEmbeddingsFields,
  InsufficientCreditError,
  InvalidURLError,
  MalformedResponseError,
  ModelNotFoundError,
  ServiceUnavailableError,
  UsageTracker,
  withUsage,
} from "../../../src/index.js";
import type { Fetch } from "../../../src/transport/fetch.js";
import { configurationError } from "../../helpers/errors.js";
import { bodies, RID } from "../../helpers/fixtures.js";
import { BASE, intercept, KEY, type Reply } from "../../helpers/wire.js";

const PATH = "/inference/v1/embeddings";
const FAST = { initialDelayMs: 1, maxDelayMs: 2 };
const JSON_HEADERS = { "Content-Type": "application/json", "X-Gateway-Request-Id": RID };

nock.disableNetConnect();

beforeEach(() => {
  for (const name of [
    "INFERENCE_SERVICE_API_KEY",
    "INFERENCE_SERVICE_BASE_URL",
    "INFERENCE_SERVICE_EMBEDDING_MODEL",
  ]) {
    vi.stubEnv(name, "");
  }
});

afterEach(() => {
  nock.cleanAll();
});

function embeddings(fields: Omit<InferenceServiceEmbeddingsFields, "model"> = {}) {
  return new InferenceServiceEmbeddings("embed-m", {
    apiKey: KEY,
    baseURL: BASE,
    retry: FAST,
    ...fields,
  });
}

/** The vector the fake service gives a text: its length and first char code, so a misplaced one shows. */
const vectorOf = (text: string) => [text.length, text.charCodeAt(0) || 0, 0.5];

/** An embeddings answer for `inputs`, items listed in `order` (default: in order). */
function answer(inputs: string[], order = inputs.map((_, i) => i)): Record<string, unknown> {
  return {
    object: "list",
    data: order.map((index) => ({
      object: "embedding",
      index,
      embedding: vectorOf(inputs[index]!),
    })),
    model: "embed-m",
    usage: { prompt_tokens: inputs.length * 2, total_tokens: inputs.length * 2 },
  };
}

/** Float32 little-endian values as base64, as a server sends `encoding_format: "base64"`. */
function base64Of(values: number[]): string {
  const view = new DataView(new ArrayBuffer(values.length * 4));
  for (const [i, x] of values.entries()) view.setFloat32(i * 4, x, true);
  return Buffer.from(view.buffer).toString("base64");
}

/** A service that answers each request with `reply(its inputs)`; returns the inputs it saw. */
function service(reply: (input: string[]) => Reply): string[][] {
  const seen: string[][] = [];
  nock(BASE)
    .post(PATH)
    .times(100)
    .reply((_uri, body) => {
      const { input } = body as { input: string[] };
      seen.push(input);
      return reply(input);
    });
  return seen;
}

/** A service that lists each answer's items in reverse. */
const reversingService = () =>
  service((input) => [200, answer(input, [...input.keys()].reverse()), JSON_HEADERS]);

const caught = (run: () => Promise<unknown>) =>
  run().then(
    () => undefined,
    (error: unknown) => error,
  );

describe("the request", () => {
  it("posts model, input and encoding_format to …/embeddings with the key and no Service-Name", async () => {
    const seen = intercept(PATH, [200, answer(["hello"]), JSON_HEADERS]);
    await embeddings({ configuration: { baseURL: `${BASE}/inference/v1/` } }).embedQuery("hello");
    expect(seen).toHaveLength(1);
    expect(seen[0]!.path).toBe(PATH);
    expect(seen[0]!.body).toEqual({
      model: "embed-m",
      input: ["hello"],
      encoding_format: "base64",
    });
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(seen[0]!.headers["service-name"]).toBeUndefined();
  });

  it("sends dimensions and the float encoding when asked", async () => {
    const vector = new Array(64).fill(0.125);
    const seen = intercept(PATH, [
      200,
      { data: [0, 1].map((index) => ({ index, embedding: vector })) },
      JSON_HEADERS,
    ]);
    await embeddings({ dimensions: 64, encodingFormat: "float" }).embedDocuments(["a", "b"]);
    expect(seen[0]!.body).toEqual({
      model: "embed-m",
      input: ["a", "b"],
      encoding_format: "float",
      dimensions: 64,
    });
  });

  it("sends nothing for an empty list", async () => {
    const seen = intercept(PATH, [200, answer([]), JSON_HEADERS]);
    expect(await embeddings().embedDocuments([])).toEqual([]);
    expect(seen).toHaveLength(0);
  });
});

describe("vectors in the order of the texts", () => {
  it("places each vector by its index when the service lists the items in another order", async () => {
    const seen = reversingService();
    const texts = ["alpha", "beta", "gamma", "delta"];
    expect(await embeddings().embedDocuments(texts)).toEqual(texts.map(vectorOf));
    expect(seen).toEqual([texts]);
  });

  it("keeps the order across batches of batchSize, sent maxConcurrency at a time", async () => {
    const seen = reversingService();
    const texts = ["a1", "b22", "c333", "d4444", "e55555"];
    const vectors = await embeddings({ batchSize: 2, maxConcurrency: 3 }).embedDocuments(texts);
    expect(vectors).toEqual(texts.map(vectorOf));
    expect(seen.map((input) => input.join(",")).sort()).toEqual(["a1,b22", "c333,d4444", "e55555"]);
  });

  it("keeps the order when a later batch is answered first", async () => {
    // The first batch's answer waits until every other batch has been answered.
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let answered = 0;
    const fetch: Fetch = async (_input, init) => {
      const { input: texts } = JSON.parse(String(init?.body)) as { input: string[] };
      if (texts[0] === "first") await gate;
      else if (++answered === 2) release();
      return new Response(JSON.stringify(answer(texts)), { headers: JSON_HEADERS });
    };
    const texts = ["first", "x", "second", "y", "third", "z"];
    const vectors = await embeddings({ fetch, batchSize: 2, maxConcurrency: 3 }).embedDocuments(
      texts,
    );
    expect(vectors).toEqual(texts.map(vectorOf));
  });

  it("never has more than maxConcurrency requests in flight", async () => {
    let inFlight = 0;
    let most = 0;
    const fetch: Fetch = async (_input, init) => {
      inFlight++;
      most = Math.max(most, inFlight);
      const { input } = JSON.parse(String(init?.body)) as { input: string[] };
      await Promise.resolve();
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      return new Response(JSON.stringify(answer(input)), { headers: JSON_HEADERS });
    };
    const texts = Array.from({ length: 20 }, (_, i) => `t${i}`);
    const vectors = await embeddings({ fetch, batchSize: 1, maxConcurrency: 3 }).embedDocuments(
      texts,
    );
    expect(vectors).toEqual(texts.map(vectorOf));
    expect(most).toBe(3);
  });

  it("holds vectors in order against the emulator's shuffle fault, over many batches", async () => {
    const emulator = createEmulator();
    const fetch: Fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set(FAULT_HEADER, "shuffle");
      return emulator.fetch(input, { ...init, headers });
    };
    const texts = Array.from({ length: 30 }, (_, i) => `document number ${i} about topic${i}`);
    const shuffled = new InferenceServiceEmbeddings(DEFAULT_EMBEDDING_MODEL, {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch,
      batchSize: 7,
    });
    const plain = new InferenceServiceEmbeddings(DEFAULT_EMBEDDING_MODEL, {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch: emulator.fetch,
      batchSize: 30,
    });
    const expected = await plain.embedDocuments(texts);
    expect(await shuffled.embedDocuments(texts)).toEqual(expected);
    expect(emulator.state.requests().filter((r) => r.fault === "shuffle")).toHaveLength(5);
  });
});

describe("reading the answer", () => {
  it("decodes base64 float32 little-endian vectors", async () => {
    const values = [0.25, -1.5, 3.125, 0];
    intercept(PATH, [
      200,
      { object: "list", data: [{ index: 0, embedding: base64Of(values) }] },
      JSON_HEADERS,
    ]);
    expect(await embeddings().embedQuery("x")).toEqual(values);
  });

  it("reads items without any index in the order they come", async () => {
    intercept(PATH, [200, { data: [{ embedding: [1] }, { embedding: [2] }] }, JSON_HEADERS]);
    expect(await embeddings().embedDocuments(["a", "b"])).toEqual([[1], [2]]);
  });

  it.each([
    ["no data array", { object: "list" }],
    ["fewer items than inputs", { data: [{ index: 0, embedding: [1] }] }],
    [
      "an index twice",
      {
        data: [
          { index: 0, embedding: [1] },
          { index: 0, embedding: [2] },
        ],
      },
    ],
    [
      "an index out of range",
      {
        data: [
          { index: 0, embedding: [1] },
          { index: 2, embedding: [2] },
        ],
      },
    ],
    [
      "an embedding that is not numbers",
      {
        data: [
          { index: 0, embedding: [1] },
          { index: 1, embedding: ["x"] },
        ],
      },
    ],
    [
      "an embedding that is not base64 float32",
      {
        data: [
          { index: 0, embedding: "AAAAAAA=" },
          { index: 1, embedding: "not base64!" },
        ],
      },
    ],
    [
      "vectors of two lengths",
      {
        data: [
          { index: 0, embedding: [1, 2] },
          { index: 1, embedding: [1] },
        ],
      },
    ],
  ])(
    "turns an answer with %s into a MalformedResponseError after one request",
    async (_name, body) => {
      const seen = intercept(PATH, [200, body, JSON_HEADERS]);
      const error = await caught(() => embeddings().embedDocuments(["a", "b"]));
      expect(MalformedResponseError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({ status: 200, requestId: RID, retryable: false });
      expect(seen).toHaveLength(1);
    },
  );
});

describe("every vector checked the same way, all of one length", () => {
  it.each([
    ["a base64 vector holding NaN", base64Of([0.5, Number.NaN])],
    ["a base64 vector holding +Infinity", base64Of([0.5, Number.POSITIVE_INFINITY])],
    ["a base64 vector holding -Infinity", base64Of([0.5, Number.NEGATIVE_INFINITY])],
    // JSON has no NaN or Infinity, but a number beyond float64 parses as ±Infinity.
    ["floats beyond float64 (±Infinity)", "FLOATS"],
  ])("refuses %s after one request, as it refuses the same floats", async (_name, embedding) => {
    const body =
      embedding === "FLOATS"
        ? '{"data":[{"index":0,"embedding":[0.5,1e999]},{"index":1,"embedding":[0.5,-1e999]}]}'
        : { data: ["a", "b"].map((_, index) => ({ index, embedding })) };
    const seen = intercept(PATH, [200, body, JSON_HEADERS]);
    const error = await caught(() => embeddings().embedDocuments(["a", "b"]));
    expect(MalformedResponseError.isInstance(error), String(error)).toBe(true);
    expect(error).toMatchObject({ status: 200, requestId: RID, retryable: false });
    expect((error as MalformedResponseError).summary).toMatch(
      /`data\[0\]\.embedding` holds NaN or ±Infinity/,
    );
    expect(seen).toHaveLength(1);
  });

  it.each([
    ["an empty base64 string", ""],
    ["an empty array", []],
  ])("refuses %s as a vector instead of returning a zero-length one", async (_name, embedding) => {
    const seen = intercept(PATH, [200, { data: [{ index: 0, embedding }] }, JSON_HEADERS]);
    const error = await caught(() => embeddings().embedQuery("x"));
    expect(MalformedResponseError.isInstance(error), String(error)).toBe(true);
    expect(error).toMatchObject({ status: 200, requestId: RID, retryable: false });
    expect((error as MalformedResponseError).summary).toMatch(/`data\[0\]\.embedding` is empty/);
    expect(seen).toHaveLength(1);
  });

  it("refuses a call whose batches answer vectors of different lengths, naming the batch's request ID", async () => {
    let n = 0;
    const seen = service((input) => {
      n += 1;
      const length = n === 1 ? 3 : 2;
      return [
        200,
        { data: input.map((_, index) => ({ index, embedding: new Array(length).fill(0.5) })) },
        { ...JSON_HEADERS, "X-Gateway-Request-Id": `rid-${n}` },
      ];
    });
    const error = await caught(() =>
      embeddings({ batchSize: 2, maxConcurrency: 1 }).embedDocuments(["a", "b", "c", "d"]),
    );
    expect(MalformedResponseError.isInstance(error), String(error)).toBe(true);
    expect(error).toMatchObject({ status: 200, requestId: "rid-2", retryable: false });
    expect((error as MalformedResponseError).summary).toMatch(
      /`data\[0\]\.embedding` has 2 dimensions where the call's earlier vectors have 3/,
    );
    expect(seen).toEqual([
      ["a", "b"],
      ["c", "d"],
    ]);
  });

  it("refuses vectors of another length than the dimensions asked for, after one request", async () => {
    const seen = intercept(PATH, [
      200,
      { data: [{ index: 0, embedding: base64Of([0.5, 0.25]) }] },
      JSON_HEADERS,
    ]);
    const error = await caught(() => embeddings({ dimensions: 3 }).embedQuery("x"));
    expect(MalformedResponseError.isInstance(error), String(error)).toBe(true);
    expect(error).toMatchObject({ status: 200, requestId: RID, retryable: false });
    expect((error as MalformedResponseError).summary).toMatch(
      /`data\[0\]\.embedding` has 2 dimensions where `dimensions` asked for 3/,
    );
    expect(seen.map(({ body }) => body.dimensions)).toEqual([3]);
  });

  it("returns vectors of the dimensions asked for, across batches, in either encoding", async () => {
    let n = 0;
    service((input) => {
      n += 1;
      return [
        200,
        {
          data: input.map((_, index) => ({
            index,
            embedding: n === 1 ? [0.5, 0.25] : base64Of([0.5, 0.25]),
          })),
        },
        JSON_HEADERS,
      ];
    });
    const vectors = await embeddings({
      dimensions: 2,
      batchSize: 1,
      maxConcurrency: 1,
    }).embedDocuments(["a", "b"]);
    expect(vectors).toEqual([
      [0.5, 0.25],
      [0.5, 0.25],
    ]);
  });
});

describe("typed errors", () => {
  it("names the listed models in a ModelNotFoundError, after one GET /models with the same key", async () => {
    const seen = intercept(PATH, [503, bodies.modelNotFound, JSON_HEADERS]);
    let listed = 0;
    nock(BASE)
      .get("/inference/v1/models")
      .reply(function () {
        listed++;
        expect(this.req.headers.authorization).toBe(`Bearer ${KEY}`);
        return [200, { object: "list", data: [{ id: "embed-model" }, { id: "chat-model" }] }];
      });
    const error = await caught(() => embeddings().embedQuery("x"));
    expect(ModelNotFoundError.isInstance(error), String(error)).toBe(true);
    expect(error).toMatchObject({ status: 503, code: "model_not_found", requestId: RID });
    expect((error as ModelNotFoundError).hint).toContain('Did you mean "embed-model"?');
    expect(seen).toHaveLength(1);
    expect(listed).toBe(1);
  });

  it("says a 404 means no embeddings at this URL, after one request", async () => {
    const seen = intercept(PATH, [
      404,
      {
        error: {
          code: "",
          message: "Invalid URL (POST /v1/embeddings)",
          type: "invalid_request_error",
          param: "",
        },
      },
      JSON_HEADERS,
    ]);
    const error = await caught(() => embeddings().embedDocuments(["a"]));
    expect(InvalidURLError.isInstance(error), String(error)).toBe(true);
    const e = error as InvalidURLError;
    expect(e.summary).toBe(
      "The service offers no embeddings at this URL: Invalid URL (POST /v1/embeddings).",
    );
    expect(e.hint).toMatch(/does not serve \/embeddings/);
    expect(e.status).toBe(404);
    expect(seen).toHaveLength(1);
  });

  it("retries a 503 and answers from the retry", async () => {
    const seen = intercept(
      PATH,
      [503, { error: { code: "", message: "busy" } }, JSON_HEADERS],
      [200, answer(["a"]), JSON_HEADERS],
    );
    expect(await embeddings().embedQuery("a")).toEqual(vectorOf("a"));
    expect(seen).toHaveLength(2);
  });

  it("gives up after maxRetries retries of a retryable failure", async () => {
    const seen = intercept(PATH, [502, { error: { code: "" } }, JSON_HEADERS]);
    const error = await caught(() => embeddings({ maxRetries: 1 }).embedQuery("a"));
    expect(ServiceUnavailableError.isInstance(error)).toBe(true);
    expect(seen).toHaveLength(2);
  });

  it("stops the batches not yet sent once one fails for good", async () => {
    const seen = intercept(PATH, [401, bodies.unauthorized, JSON_HEADERS]);
    const error = await caught(() =>
      embeddings({ batchSize: 1, maxConcurrency: 1 }).embedDocuments(["a", "b", "c", "d"]),
    );
    expect(AuthenticationError.isInstance(error)).toBe(true);
    expect(seen).toHaveLength(1);
  });

  it("names the position of an input the model refuses as too long: the longest of its batch, sent alone once", async () => {
    const refusal: Reply = [
      400,
      {
        error: {
          message: `This model's maximum context length is 8192 tokens (request id: ${RID})`,
          type: "invalid_request_error",
          param: "input",
          code: "context_length_exceeded",
        },
      },
      JSON_HEADERS,
    ];
    const long = "long ".repeat(50);
    const seen = service((input) =>
      input.includes(long) ? refusal : [200, answer(input), JSON_HEADERS],
    );
    const error = await caught(() =>
      embeddings({ batchSize: 3, maxConcurrency: 1 }).embedDocuments([
        "a",
        "b",
        "c",
        "d",
        long,
        "f",
      ]),
    );
    expect(ContextLengthExceededError.isInstance(error), String(error)).toBe(true);
    const e = error as ContextLengthExceededError;
    expect(e.inputIndex).toBe(4);
    expect(e.summary).toMatch(/^The input at position 4 is longer than the embedding model takes/);
    expect(e.hint).toMatch(/^Split the text into smaller pieces/);
    expect(e.toJSON()).toMatchObject({ inputIndex: 4 });
    expect(seen).toEqual([["a", "b", "c"], ["d", long, "f"], [long]]);
  });

  it("names the longest input of a batch of 200,000 texts too (no spread over the batch, which overflows the stack)", async () => {
    const count = 200_000;
    const texts = Array.from({ length: count }, (_, i) =>
      i === count - 2 ? "long ".repeat(20) : "a",
    );
    const seen: number[] = [];
    nock(BASE)
      .post(PATH)
      .times(2)
      .reply((_uri, body) => {
        const { input } = body as { input: string[] };
        seen.push(input.length);
        return [
          400,
          { error: { code: "context_length_exceeded", message: "too many tokens" } },
          JSON_HEADERS,
        ];
      });
    const error = await caught(() => embeddings({ batchSize: count }).embedDocuments(texts));
    expect(ContextLengthExceededError.isInstance(error), String(error)).toBe(true);
    expect((error as ContextLengthExceededError).inputIndex).toBe(count - 2);
    expect(seen).toEqual([count, 1]);
  });

  it("throws the batch's own refusal when its longest input passes alone (a limit on the request's total)", async () => {
    const seen = service((input) =>
      input.length > 1
        ? [
            400,
            { error: { code: "context_length_exceeded", message: "too many tokens" } },
            JSON_HEADERS,
          ]
        : [200, answer(input), JSON_HEADERS],
    );
    const error = await caught(() => embeddings().embedDocuments(["aa", "bbbb", "c"]));
    expect(ContextLengthExceededError.isInstance(error)).toBe(true);
    const e = error as ContextLengthExceededError;
    expect(e.inputIndex).toBeUndefined();
    expect(e.summary).toMatch(/^The inputs at positions 0–2 include one longer/);
    expect(e.hint).toMatch(/lower `batchSize`/);
    expect(seen).toEqual([["aa", "bbbb", "c"], ["bbbb"]]);
  });

  it("answers the emulator's refusal with the position of the input, and its credit and key errors as for chat", async () => {
    const emulator = createEmulator();
    const make = (apiKey = emulator.apiKey) =>
      new InferenceServiceEmbeddings(DEFAULT_EMBEDDING_MODEL, {
        apiKey,
        baseURL: emulator.baseURL,
        fetch: emulator.fetch,
      });
    const tooLong = await caught(() =>
      make().embedDocuments(["fine", "fine too", "word ".repeat(9_000)]),
    );
    expect(tooLong).toMatchObject({ name: "ContextLengthExceededError", inputIndex: 2 });
    expect(await caught(() => make("sk-wrong").embedQuery("x"))).toMatchObject({
      name: "AuthenticationError",
      status: 401,
    });
    emulator.state.setCredit(0);
    const broke = await caught(() => make().embedQuery("x"));
    expect(InsufficientCreditError.isInstance(broke)).toBe(true);
  });
});

describe("usage: the embeddings' runs reach UsageTracker through callbacks", () => {
  const prices = { [DEFAULT_EMBEDDING_MODEL]: { input: 0.02, output: 0 } };
  function emulated(fields: Omit<InferenceServiceEmbeddingsFields, "model"> = {}) {
    const emulator = createEmulator();
    const model = new InferenceServiceEmbeddings(DEFAULT_EMBEDDING_MODEL, {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch: emulator.fetch,
      ...fields,
    });
    return { emulator, model };
  }

  it("records one call of several batches: the service's prompt tokens, no output, cost and the first request ID", async () => {
    const usage = new UsageTracker({ prices, budget: 1 });
    const { emulator, model } = emulated({ callbacks: [usage], batchSize: 2 });
    await model.embedDocuments(["red apples", "green pears", "blue plums"]);
    const log = emulator.state.requests();
    const tokens = log.reduce((sum, entry) => sum + entry.promptTokens, 0);
    expect(log).toHaveLength(2);
    expect(usage.records).toEqual([
      expect.objectContaining({
        model: DEFAULT_EMBEDDING_MODEL,
        inputTokens: tokens,
        outputTokens: 0,
        totalTokens: tokens,
        requestId: log[0]!.requestId,
        cost: (tokens * 0.02) / 1e6,
      }),
    ]);
    // What the tracker charged the budget is what the emulator debited.
    const { spent, reserved } = await usage.budgetStatus();
    expect(reserved).toBe(0);
    expect(spent).toBeCloseTo(
      log.reduce((sum, entry) => sum + entry.cost, 0),
      15,
    );
  });

  it("reserves each request against the budget before it is sent: one over the budget is never sent", async () => {
    const usage = new UsageTracker({ prices, budget: 1e-9 });
    const { emulator, model } = emulated({ callbacks: [usage] });
    const error = await caught(() =>
      model.embedQuery("a text whose tokens cost more than the budget"),
    );
    expect(BudgetExceededError.isInstance(error), String(error)).toBe(true);
    expect(error).toMatchObject({ model: DEFAULT_EMBEDDING_MODEL, budget: 1e-9 });
    expect(emulator.state.requests()).toHaveLength(0);
    expect(usage.records).toEqual([
      expect.objectContaining({ error: expect.objectContaining({ name: "BudgetExceededError" }) }),
    ]);
  });

  it("records a failed call with its request ID and what its sent batches used", async () => {
    const usage = new UsageTracker({ prices });
    const { emulator, model } = emulated({ callbacks: [usage], batchSize: 1, maxConcurrency: 1 });
    const error = await caught(() => model.embedDocuments(["fine", "word ".repeat(9_000)]));
    expect(ContextLengthExceededError.isInstance(error)).toBe(true);
    const [ok, refused] = emulator.state.requests();
    expect(usage.records).toEqual([
      expect.objectContaining({
        inputTokens: ok!.promptTokens,
        requestId: refused!.requestId,
        error: expect.objectContaining({ name: "ContextLengthExceededError" }),
      }),
    ]);
  });

  it("counts calls made inside withUsage without any callbacks option", async () => {
    const { emulator, model } = emulated();
    const { result, usage } = await withUsage(() => model.embedQuery("hello world"), { prices });
    expect(result).toHaveLength(256);
    expect(usage.records).toEqual([
      expect.objectContaining({
        model: DEFAULT_EMBEDDING_MODEL,
        inputTokens: emulator.state.lastRequest()!.promptTokens,
      }),
    ]);
  });
});

describe("configuration and secrets", () => {
  it("takes the model from INFERENCE_SERVICE_EMBEDDING_MODEL, trimmed", async () => {
    vi.stubEnv("INFERENCE_SERVICE_EMBEDDING_MODEL", " env-embed ");
    const seen = intercept(PATH, [200, answer(["x"]), JSON_HEADERS]);
    const fromEnv = new InferenceServiceEmbeddings({ apiKey: KEY, baseURL: BASE });
    expect(fromEnv.model).toBe("env-embed");
    await fromEnv.embedQuery("x");
    expect(seen[0]!.body.model).toBe("env-embed");
  });

  it("refuses a missing model, key or URL, or a bad option, naming it, before any request", () => {
    const noModel = configurationError(
      () => new InferenceServiceEmbeddings({ apiKey: KEY, baseURL: BASE }),
    );
    expect(noModel).toMatchObject({ option: "model", envVar: "INFERENCE_SERVICE_EMBEDDING_MODEL" });
    expect(
      configurationError(() => new InferenceServiceEmbeddings("m", { baseURL: BASE })),
    ).toMatchObject({
      option: "apiKey",
    });
    expect(configurationError(() => embeddings({ batchSize: 0 }))).toMatchObject({
      option: "batchSize",
    });
    expect(
      configurationError(() => embeddings({ encodingFormat: "int8" as "float" })).message,
    ).toMatch(/`encodingFormat` must be "base64" or "float"/);
    expect(
      configurationError(() =>
        embeddings({ stripNewLines: true } as InferenceServiceEmbeddingsFields),
      ),
    ).toMatchObject({ option: "stripNewLines" });
  });

  it("never shows the key: not in JSON, not in inspect, not in an error", async () => {
    const model = embeddings();
    expect(JSON.stringify(model)).not.toContain(KEY);
    expect(inspect(model, { depth: 5 })).not.toContain(KEY);
    intercept(PATH, [400, { error: { code: "", message: `bad key ${KEY}` } }, JSON_HEADERS]);
    const error = await caught(() => model.embedQuery("x"));
    expect(String((error as Error).message)).not.toContain(KEY);
  });
});
