/**
 * The emulator's `/embeddings` route and its embedding model: vectors that retrieve, the answer's
 * shape on the wire, metering, and the errors of the chat surface.
 */
import { describe, expect, it } from "vitest";
import {
  DEFAULT_EMBEDDING_DIMENSIONS,
  DEFAULT_EMBEDDING_MODEL,
  DEFAULT_MODEL,
  FAULT_HEADER,
} from "../../../src/emulator/index.js";
import { embed, shuffledOrder } from "../../../src/emulator/model/embeddings.js";
import { keywords } from "../../../src/emulator/model/terms.js";
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

const EMBEDDINGS = "/inference/v1/embeddings";
const body = (input: unknown, extra: Record<string, unknown> = {}) => ({
  model: DEFAULT_EMBEDDING_MODEL,
  input,
  ...extra,
});
const dot = (a: readonly number[], b: readonly number[]) =>
  a.reduce((sum, x, i) => sum + x * b[i]!, 0);

const DOCS = [
  "Dedicated endpoints are called at /inference/v1/completions. The Service-Name header routes each request to the caller's own deployment.",
  "Hosted models are paid per token from account credit. When the Wallet reaches zero the service answers 403 insufficient_user_quota.",
  "An unknown model ID receives 503 with code model_not_found. The service is not down; retrying does not help.",
  "A base URL missing /v1 returns an HTML page with status 200. Set the base URL to the host root or /inference/v1.",
];

/** Documents, and questions that share only forms of their words with the one they ask about. */
const WORD_FORM_DOCS = [
  "Volcanic eruptions released lava, ash and gases over the island.",
  "A cat purrs when it is content and rubs against people it trusts.",
  "Photosynthesis lets a plant turn sunlight, water and carbon dioxide into sugar.",
  "The government of Rome ruled each city through appointed governors.",
  "Dogs bark at strangers to warn the household.",
  "Economic growth depends on investment, trade and productivity.",
];
const WORD_FORM_QUESTIONS = [
  ["What do volcanoes release?", 0],
  ["Why do cats purr?", 1],
  ["How do plants photosynthesise?", 2],
  ["Who governed the Roman cities?", 3],
  ["Which dog barked?", 4],
  ["What makes an economy grow?", 5],
] as const;

describe("the emulator's vectors", () => {
  it("are unit vectors, the same for the same text, of the length asked for", () => {
    for (const dims of [1, 8, DEFAULT_EMBEDDING_DIMENSIONS]) {
      const v = embed("Cities and their weather", dims);
      expect(v).toHaveLength(dims);
      expect(Math.hypot(...v)).toBeCloseTo(1, 10);
      expect(embed("Cities and their weather", dims)).toEqual(v);
    }
  });

  it("put texts that share words near each other: each question retrieves its document", () => {
    const questions = [
      ["Which header routes a request to my own deployment?", 0],
      ["What happens when the wallet credit reaches zero?", 1],
      ["What does an unknown model ID get?", 2],
      ["Why does my base URL return an HTML page?", 3],
    ] as const;
    const docs = DOCS.map((doc) => embed(doc, DEFAULT_EMBEDDING_DIMENSIONS));
    for (const [question, expected] of questions) {
      const q = embed(question, DEFAULT_EMBEDDING_DIMENSIONS);
      const scores = docs.map((doc) => dot(q, doc));
      expect(scores.indexOf(Math.max(...scores)), question).toBe(expected);
    }
  });

  it("put the right document first for questions that share only word forms with it", () => {
    const docs = WORD_FORM_DOCS.map((doc) => embed(doc, DEFAULT_EMBEDDING_DIMENSIONS));
    for (const [question, expected] of WORD_FORM_QUESTIONS) {
      const q = embed(question, DEFAULT_EMBEDDING_DIMENSIONS);
      const scores = docs.map((doc) => dot(q, doc));
      const [best, runnerUp] = [...scores].sort((a, b) => b - a);
      expect(scores.indexOf(best!), question).toBe(expected);
      expect(best! - runnerUp!, question).toBeGreaterThan(0.1);
    }
  });

  it("keep unrelated texts apart: no two documents sharing no topic word look alike", () => {
    const all = [...DOCS, ...WORD_FORM_DOCS];
    const vectors = all.map((doc) => embed(doc, DEFAULT_EMBEDDING_DIMENSIONS));
    const pairs: number[] = [];
    for (let i = 0; i < all.length; i++) {
      for (let j = i + 1; j < all.length; j++) {
        const shared = [...keywords(all[i]!)].some((word) => keywords(all[j]!).has(word));
        if (!shared) pairs.push(Math.abs(dot(vectors[i]!, vectors[j]!)));
      }
    }
    expect(pairs.length).toBeGreaterThan(30);
    expect(Math.max(...pairs)).toBeLessThan(0.2);
  });

  it("let related word forms meet: one stem, one vector; a shared start, a partial match", () => {
    const dims = DEFAULT_EMBEDDING_DIMENSIONS;
    expect(embed("volcanoes", dims)).toEqual(embed("volcanic", dims));
    expect(embed("Cities governed", dims)).toEqual(embed("city government", dims));
    // Forms the stemmer leaves apart still share their first five letters.
    expect(dot(embed("photosynthesis", dims), embed("photosynthetic", dims))).toBeGreaterThan(0.1);
    expect(dot(embed("energetic", dims), embed("energy", dims))).toBeGreaterThan(0.1);
  });

  it("read words as the chat model does: stems and case do not matter, function words do not count", () => {
    const dims = DEFAULT_EMBEDDING_DIMENSIONS;
    expect(embed("The CITIES of Europe", dims)).toEqual(embed("city europe", dims));
    // No topic word at all: one vector for every such text.
    expect(embed("", dims)).toEqual(embed("what is the", dims));
  });

  it("normalise a vector of any length without spreading it into one call", () => {
    // Math.hypot(...vector) overflowed the call stack from about 125,000 coordinates.
    const v = embed("Cities and their weather", 200_000);
    expect(v).toHaveLength(200_000);
    expect(v.reduce((sum, x) => sum + x * x, 0)).toBeCloseTo(1, 10);
  });

  it("shuffle moves at least one item whenever there are two, and is a permutation", () => {
    for (let n = 0; n <= 40; n++) {
      const order = shuffledOrder(n);
      expect([...order].sort((a, b) => a - b)).toEqual([...Array(n).keys()]);
      if (n >= 2) expect(order).not.toEqual([...Array(n).keys()]);
    }
  });
});

describe.each(TRANSPORTS)("POST /inference/v1/embeddings over the %s", (_name, make) => {
  const emulator = useEmulator(make);

  it("answers OpenAI's list shape, one item per input in order, with usage and a request ID", async () => {
    const response = await post(emulator, EMBEDDINGS, body(["alpha beta", "gamma"]));
    expect(response.status).toBe(200);
    expect(response.headers.get("x-gateway-request-id")).toMatch(REQUEST_ID);
    const json = await response.json();
    expect(json).toMatchObject({
      object: "list",
      model: DEFAULT_EMBEDDING_MODEL,
      data: [
        { object: "embedding", index: 0, embedding: embed("alpha beta", 256) },
        { object: "embedding", index: 1, embedding: embed("gamma", 256) },
      ],
      usage: { prompt_tokens: expect.any(Number), total_tokens: expect.any(Number) },
    });
    expect(json.usage.prompt_tokens).toBeGreaterThan(0);
    expect(json.usage.total_tokens).toBe(json.usage.prompt_tokens);
  });

  it("takes one string, honours dimensions, and sends base64 float32 little-endian on request", async () => {
    const response = await post(
      emulator,
      EMBEDDINGS,
      body("alpha beta", { dimensions: 8, encoding_format: "base64" }),
    );
    const { data } = await response.json();
    expect(data).toHaveLength(1);
    const bytes = Buffer.from(data[0].embedding, "base64");
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const floats = Array.from({ length: bytes.length / 4 }, (_, i) => view.getFloat32(i * 4, true));
    expect(floats).toHaveLength(8);
    for (const [i, x] of embed("alpha beta", 8).entries()) expect(floats[i]).toBeCloseTo(x, 6);
  });

  it("debits the credit for the prompt tokens and logs the call", async () => {
    await expectPromptOnlyMetering(emulator, EMBEDDINGS, body(DOCS), 0.02);
  });

  it("lists the items out of order, each keeping its index, with X-Emulator-Fault: shuffle", async () => {
    const inputs = ["one", "two", "three", "four", "five"];
    const response = await post(emulator, EMBEDDINGS, body(inputs), {
      ...bearer(),
      [FAULT_HEADER]: "shuffle",
    });
    const { data } = await response.json();
    const indexes = data.map((item: { index: number }) => item.index);
    expect(indexes).not.toEqual([0, 1, 2, 3, 4]);
    expect([...indexes].sort()).toEqual([0, 1, 2, 3, 4]);
    for (const item of data) expect(item.embedding).toEqual(embed(inputs[item.index]!, 256));
    // A shuffled answer is a whole answer: it is metered.
    expect(emulator.state.lastRequest()).toMatchObject({ fault: "shuffle", status: 200 });
    expect(emulator.state.lastRequest()!.promptTokens).toBeGreaterThan(0);
  });

  it("answers an unknown model with 503 model_not_found, a bad key with 401, no credit with 403", async () => {
    await expectHostedRefusals(emulator, EMBEDDINGS, body("x"));
  });

  it("injects faults as on the chat surface", async () => {
    const response = await post(emulator, EMBEDDINGS, body("x"), {
      ...bearer(),
      [FAULT_HEADER]: "system_cpu_overloaded",
    });
    expect(response.status).toBe(503);
    expect((await response.json()).error.code).toBe("system_cpu_overloaded");
    expect(emulator.state.lastRequest()).toMatchObject({ promptTokens: 0, cost: 0 });
  });

  it("refuses an input over the model's maxInputTokens with 400 context_length_exceeded naming it", async () => {
    const long = "word ".repeat(9_000);
    const response = await post(emulator, EMBEDDINGS, body(["short", long]));
    expect(response.status).toBe(400);
    const { error } = await response.json();
    expect(error).toMatchObject({
      code: "context_length_exceeded",
      type: "invalid_request_error",
      param: "input",
    });
    expect(error.message).toMatch(/maximum context length is 8192 tokens.* in input\[1\]/);
    expect(emulator.state.lastRequest()).toMatchObject({ status: 400, cost: 0 });
  });

  it("refuses a chat model at /embeddings, the embedding model at /chat/completions, and bad bodies, with 400", async () => {
    const chat = await post(emulator, EMBEDDINGS, body("x", { model: DEFAULT_MODEL }));
    expect(chat.status).toBe(400);
    expect((await chat.json()).error.message).toMatch(/does not support embeddings/);
    const reverse = await post(emulator, CHAT, chatBody("hi", { model: DEFAULT_EMBEDDING_MODEL }));
    expect(reverse.status).toBe(400);
    expect((await reverse.json()).error.message).toMatch(/is an embedding model/);
    for (const bad of [
      body([]),
      body([1, 2]),
      body("x", { dimensions: 0 }),
      body("x", { dimensions: 257 }),
      body("x", { encoding_format: "int8" }),
    ]) {
      const response = await post(emulator, EMBEDDINGS, bad);
      expect(response.status, JSON.stringify(bad)).toBe(400);
      expect((await response.json()).error.code).toBe("invalid_request");
    }
  });

  it("refuses more than 2048 inputs in one request with 400 naming input", async () => {
    const ok = await post(emulator, EMBEDDINGS, body(Array.from({ length: 2048 }, () => "a")));
    expect(ok.status).toBe(200);
    const response = await post(
      emulator,
      EMBEDDINGS,
      body(Array.from({ length: 2049 }, () => "a")),
    );
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({
      code: "invalid_request",
      param: "input",
      message: expect.stringMatching(/^input must hold at most 2048 texts; send the others in/),
    });
    expect(emulator.state.lastRequest()).toMatchObject({ status: 400, cost: 0 });
  });

  it("embeds a text naming Object's own members (constructor) like any other", async () => {
    const response = await post(emulator, EMBEDDINGS, body(["What does a constructor do?"]));
    expect(response.status).toBe(200);
    expect((await response.json()).data[0].embedding).toEqual(
      embed("What does a constructor do?", 256),
    );
  });

  it("lists the embedding model in /models", async () => {
    const response = await emulator.fetch(`${emulator.url}/inference/v1/models`, {
      headers: bearer(),
    });
    const ids = (await response.json()).data.map((m: { id: string }) => m.id);
    expect(ids).toContain(DEFAULT_EMBEDDING_MODEL);
  });
});

describe("embedding models in the emulator's configuration", () => {
  it("take their vector length from embedding.dimensions, and refuse a bad one", () => {
    const emulator = inProcess({ models: [{ id: "tiny", embedding: { dimensions: 4 } }] });
    expect(emulator.state.model("tiny")).toEqual({
      id: "tiny",
      prices: { input: 1, output: 1 },
      embedding: { dimensions: 4 },
      endpointTypes: ["embeddings"],
    });
    expect(() => inProcess({ models: [{ id: "x", embedding: { dimensions: 0 } }] })).toThrow(
      /models\[0\]\.embedding\.dimensions must be a finite number >= 1/,
    );
    expect(() => inProcess({ models: [{ id: "x", embedding: { dimensions: 1.5 } }] })).toThrow(
      /whole number/,
    );
  });
});
