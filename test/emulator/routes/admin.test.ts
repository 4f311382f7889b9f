import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FAULT_KINDS, FAULT_SUMMARIES } from "../../../src/emulator/faults/faults.js";
import { DEFAULT_API_KEY, DEFAULT_SERVICE_NAME } from "../../../src/emulator/index.js";
import {
  DETAIL_TEXT_LIMIT,
  REQUEST_DETAILS_KEPT,
  type RequestDetail,
} from "../../../src/emulator/state/request_details.js";
import {
  bearer,
  CHAT,
  COMPLETIONS,
  chatBody,
  inProcess,
  overHttp,
  post,
  REQUEST_ID,
  type TestEmulator,
  TRANSPORTS,
  useEmulator,
} from "../helpers.js";

async function admin(
  emulator: TestEmulator,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown>; requestId: string | null }> {
  const response = await emulator.fetch(`${emulator.url}/_emulator${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    requestId: response.headers.get("x-gateway-request-id"),
  };
}

function errorMessage(body: Record<string, unknown>): unknown {
  return (body.error as { message?: unknown } | undefined)?.message;
}

describe("the admin API", () => {
  const emulator = inProcess();
  afterEach(() => emulator.state.reset());

  it("shows the state with secrets masked except the last 4 characters", async () => {
    const { status, body, requestId } = await admin(emulator, "GET", "/state");
    expect(status).toBe(200);
    expect(requestId).toMatch(REQUEST_ID);
    expect(body).toEqual({
      credit: 10,
      keys: [
        {
          id: "key-demo",
          name: "Demo key",
          secret: "****demo",
          permissions: ["Inference Service"],
          expired: false,
        },
        {
          id: "key-noperm",
          name: "Key without Inference Service",
          secret: "****perm",
          permissions: [],
          expired: false,
        },
        {
          id: "key-expired",
          name: "Expired key",
          secret: "****ired",
          permissions: ["Inference Service"],
          expiresAt: "2000-01-01T00:00:00.000Z",
          expired: true,
        },
      ],
      tenants: [{ id: "tenant-demo", name: "Demo Tenant" }],
      endpoints: [
        {
          serviceName: "tenant-demo.demo-endpoint",
          tenantId: "tenant-demo",
          jobAlias: "demo-endpoint",
          replicas: 1,
          state: "Running",
          scaling: "1/1",
        },
        {
          serviceName: "tenant-demo.pending-endpoint",
          tenantId: "tenant-demo",
          jobAlias: "pending-endpoint",
          replicas: 1,
          state: "Pending",
          scaling: "0/1",
        },
      ],
      models: [
        {
          id: "emulator-chat",
          prices: { input: 0.5, output: 1.5 },
          profile: expect.objectContaining({ maxInputTokens: 32_768, maxOutputTokens: 4_096 }),
          endpointTypes: ["openai", "openai-response"],
        },
        {
          id: "emulator-reasoner",
          prices: { input: 1, output: 4 },
          profile: expect.objectContaining({ maxInputTokens: 65_536, reasoningOutput: true }),
          endpointTypes: ["openai", "openai-response"],
        },
        ...[
          "emulator-thinker",
          "emulator-r1",
          "emulator-vllm",
          "emulator-think-tags",
          "emulator-think-open",
        ].map((id) => expect.objectContaining({ id, reasoning: expect.any(Object) })),
        {
          id: "emulator-embedding",
          prices: { input: 0.02, output: 0 },
          profile: { maxInputTokens: 8_192 },
          embedding: { dimensions: 256 },
          endpointTypes: ["embeddings"],
        },
        {
          id: "emulator-rerank",
          prices: { input: 0.02, output: 0 },
          profile: { maxInputTokens: 8_192 },
          rerank: true,
          endpointTypes: ["jina-rerank"],
        },
      ],
      requestCount: 0,
      faults: {
        rate: 0,
        kinds: ["429", "502", "503", "reset", "truncate"],
        retryAfterSeconds: 1,
        available: FAULT_KINDS,
        summaries: FAULT_SUMMARIES,
      },
    });
    expect(JSON.stringify(body)).not.toContain(DEFAULT_API_KEY);
  });

  it("sets the credit, after which hosted calls get 403", async () => {
    expect(await admin(emulator, "PUT", "/credit", { credit: 0 })).toMatchObject({
      status: 200,
      body: { credit: 0 },
    });
    expect((await post(emulator, CHAT, chatBody())).status).toBe(403);
  });

  it("creates a key, showing its full secret once, and deletes it by suffix", async () => {
    const created = await admin(emulator, "POST", "/keys", { name: "CI key", permissions: [] });
    expect(created).toMatchObject({
      status: 201,
      body: {
        id: "key-1",
        name: "CI key",
        secret: expect.stringMatching(/^sk-emu-[0-9a-f]{24}$/),
        permissions: [],
      },
    });
    const secret = created.body.secret as string;
    expect((await post(emulator, CHAT, chatBody(), bearer(secret))).status).toBe(200);
    const deleted = await admin(emulator, "DELETE", `/keys/${secret.slice(-6)}`);
    expect(deleted).toMatchObject({
      status: 200,
      body: { deleted: { id: "key-1", secret: `****${secret.slice(-4)}` } },
    });
    expect((await post(emulator, CHAT, chatBody(), bearer(secret))).status).toBe(401);
    expect((await admin(emulator, "DELETE", "/keys/key-1")).status).toBe(404);
  });

  it("adds an endpoint and switches it between Pending and Running", async () => {
    const created = await admin(emulator, "POST", "/endpoints", {
      tenantId: "acme",
      jobAlias: "llama",
      replicas: 2,
    });
    expect(created).toMatchObject({
      status: 201,
      body: { serviceName: "acme.llama", state: "Running", scaling: "2/2" },
    });
    const call = () =>
      post(emulator, COMPLETIONS, { prompt: "Hi" }, { ...bearer(), "service-name": "acme.llama" });
    expect((await call()).status).toBe(200);
    const pending = await admin(emulator, "PATCH", "/endpoints/acme.llama", { state: "Pending" });
    expect(pending.body).toMatchObject({ state: "Pending", scaling: "0/2" });
    await expect(call()).rejects.toThrow("fetch failed");
    await admin(emulator, "PATCH", "/endpoints/acme.llama", { state: "Running" });
    expect((await call()).status).toBe(200);
    expect(emulator.state.tenant("acme")).toEqual({ id: "acme", name: "acme" });
  });

  it("adds a model whose prices meter its calls", async () => {
    await admin(emulator, "POST", "/models", {
      id: "pricey",
      prices: { input: 1000, output: 2000 },
    });
    const response = await post(emulator, CHAT, chatBody("Hi", { model: "pricey" }));
    const { usage } = (await response.json()) as {
      usage: { prompt_tokens: number; completion_tokens: number };
    };
    expect(emulator.state.lastRequest()!.cost).toBe(
      (usage.prompt_tokens * 1000 + usage.completion_tokens * 2000) / 1e6,
    );
  });

  it("adds a model with a profile, shown in the state", async () => {
    const created = await admin(emulator, "POST", "/models", {
      id: "long-context",
      profile: { maxInputTokens: 200_000, reasoningOutput: true },
    });
    expect(created).toMatchObject({
      status: 201,
      body: { id: "long-context", profile: { maxInputTokens: 200_000, reasoningOutput: true } },
    });
    expect(emulator.state.modelProfiles()["long-context"]).toEqual({
      maxInputTokens: 200_000,
      reasoningOutput: true,
    });
  });

  it("lists and clears the request log", async () => {
    await post(emulator, CHAT, chatBody());
    const { body } = await admin(emulator, "GET", "/requests");
    expect(body.requests).toEqual([expect.objectContaining({ surface: "hosted", status: 200 })]);
    await admin(emulator, "DELETE", "/requests");
    expect(emulator.state.requests()).toEqual([]);
  });

  it("keeps a short request log whatever model ID and Service-Name callers send", async () => {
    const long = "x".repeat(2 * 1024 * 1024);
    expect((await post(emulator, CHAT, chatBody("hi", { model: long }))).status).toBe(503);
    const dedicated = await post(
      emulator,
      COMPLETIONS,
      { prompt: "hi" },
      { ...bearer(), "service-name": long },
    );
    expect(dedicated.status).toBe(404);
    const response = await emulator.fetch(`${emulator.url}/_emulator/requests`);
    const text = await response.text();
    expect(text.length).toBeLessThan(2_000);
    expect(JSON.parse(text).requests).toEqual([
      expect.objectContaining({ model: `${"x".repeat(256)}…`, status: 503 }),
      expect.objectContaining({ serviceName: `${"x".repeat(256)}…`, status: 404 }),
    ]);
  });

  it("returns only the entries after a request ID, or the whole log once that entry is gone", async () => {
    await post(emulator, CHAT, chatBody("one"));
    const first = emulator.state.lastRequest()!.requestId;
    await post(emulator, CHAT, chatBody("two"));
    const { body } = await admin(emulator, "GET", `/requests?after=${first}`);
    expect(body).toEqual({
      requests: [expect.objectContaining({ requestId: emulator.state.lastRequest()!.requestId })],
      continued: true,
    });
    emulator.state.clearRequests();
    expect((await admin(emulator, "GET", `/requests?after=${first}`)).body).toEqual({
      requests: [],
      continued: false,
    });
  });

  it("tops up the Wallet by an amount, refusing one that is not above zero", async () => {
    expect((await admin(emulator, "POST", "/top-up", { amount: 2.5 })).body).toEqual({
      credit: 12.5,
    });
    const refused = await admin(emulator, "POST", "/top-up", { amount: -1 });
    expect(refused.status).toBe(400);
    expect(emulator.state.credit).toBe(12.5);
  });

  it("refuses top-ups that would take the Wallet past its bound with a 400 naming it", async () => {
    const first = await admin(emulator, "POST", "/top-up", { amount: 1e308 });
    const second = await admin(emulator, "POST", "/top-up", { amount: 1e308 });
    for (const refused of [first, second]) {
      expect(refused).toMatchObject({
        status: 400,
        body: {
          error: {
            code: "invalid_request",
            message: expect.stringMatching(/above the most the emulator's Wallet holds/),
            type: "emulator_admin_error",
          },
        },
      });
    }
    expect((await admin(emulator, "GET", "/state")).body).toMatchObject({ credit: 10 });
  });

  it("replaces the fault settings at run time", async () => {
    const { body } = await admin(emulator, "PUT", "/faults", { rate: 1, kinds: ["503"] });
    expect(body).toEqual({
      rate: 1,
      kinds: ["503"],
      retryAfterSeconds: 1,
      available: FAULT_KINDS,
      summaries: FAULT_SUMMARIES,
    });
    // Every fault the header takes, the gateway's replies included, so the console lists them all.
    expect(body.available).toEqual(expect.arrayContaining(["stall", "redirect-loop", "503"]));
    expect((await post(emulator, CHAT, chatBody())).status).toBe(503);
    await admin(emulator, "PUT", "/faults", {});
    expect((await post(emulator, CHAT, chatBody())).status).toBe(200);
  });

  it("resets to the configured state", async () => {
    emulator.state.setCredit(0);
    emulator.state.addModel({ id: "extra" });
    const { body } = await admin(emulator, "POST", "/reset");
    expect(body).toMatchObject({ credit: 10, requestCount: 0 });
    expect(emulator.state.model("extra")).toBeUndefined();
  });

  it.each([
    ["PUT", "/credit", { credit: "lots" }, "credit must be a finite number"],
    [
      "POST",
      "/endpoints",
      { tenantId: "a.b", jobAlias: "x" },
      "endpoint.tenantId must not contain dots or whitespace",
    ],
    [
      "PATCH",
      `/endpoints/${DEFAULT_SERVICE_NAME}`,
      { state: "Sleeping" },
      'state must be "Pending" or "Running"',
    ],
    [
      "POST",
      "/models",
      { id: "m", prices: { input: -1, output: 1 } },
      "model.prices.input must be a finite number >= 0",
    ],
    [
      "POST",
      "/models",
      { id: "m", profile: { maxInputTokens: "big" } },
      "model.profile.maxInputTokens must be a whole number of tokens ≥ 1 (the context window)",
    ],
    ["POST", "/keys", { secret: DEFAULT_API_KEY }, "key.secret is already in use"],
    [
      "POST",
      "/keys",
      { secret: "sk-\u200bkey" },
      "key.secret has U+200B at character 4: a key arrives in the Authorization header and holds visible ASCII characters only",
    ],
    ["PUT", "/credit", "{oops", expect.stringContaining("JSON")],
  ])("answers %s %s with 400 naming the field", async (method, path, body, message) => {
    expect(await admin(emulator, method, path, body)).toMatchObject({
      status: 400,
      body: { error: { code: "invalid_request", message, type: "emulator_admin_error" } },
    });
  });

  it("refuses dates and delays past the Date range with a 400, and the state stays readable", async () => {
    const refusals = [
      await admin(emulator, "POST", "/keys", { expiresAt: 1e20 }),
      await admin(emulator, "POST", "/keys", { expiresAt: -1e20 }),
      await admin(emulator, "POST", "/endpoints", {
        tenantId: "acme",
        jobAlias: "slow",
        readyAfterMs: 1e20,
      }),
      await admin(emulator, "PATCH", `/endpoints/${DEFAULT_SERVICE_NAME}`, { readyAfterMs: 1e20 }),
    ];
    expect(refusals.map(({ status, body }) => [status, errorMessage(body)])).toEqual([
      [400, expect.stringMatching(/^key\.expiresAt must be a date JavaScript can hold/)],
      [400, expect.stringMatching(/^key\.expiresAt must be a date JavaScript can hold/)],
      [400, "endpoint.readyAfterMs must be at most 2147483647 (about 24.8 days)"],
      [400, "readyAfterMs must be at most 2147483647 (about 24.8 days)"],
    ]);
    const state = await admin(emulator, "GET", "/state");
    expect(state.status).toBe(200);
    expect(state.body.keys).toHaveLength(3);
    expect(state.body.endpoints).toHaveLength(2);
  });

  it("refuses an embedding model whose vectors are too long to serve", async () => {
    const refused = await admin(emulator, "POST", "/models", {
      id: "huge",
      embedding: { dimensions: 200_000_000 },
    });
    expect([refused.status, errorMessage(refused.body)]).toEqual([
      400,
      "model.embedding.dimensions must be a whole number from 1 to 8192",
    ]);
    expect(emulator.state.model("huge")).toBeUndefined();
  });

  it.each([
    ["DELETE", "/keys/%E0%A4%A"],
    ["PATCH", "/endpoints/%zz"],
  ])("answers %s %s, a malformed percent-encoding, with 400", async (method, path) => {
    expect(await admin(emulator, method, path, {})).toMatchObject({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: `The admin path /_emulator${path} has a malformed percent-encoding; encode each segment with encodeURIComponent`,
        },
      },
    });
  });

  it("answers 404 for an unknown admin route", async () => {
    expect(await admin(emulator, "GET", "/nothing")).toMatchObject({
      status: 404,
      body: { error: { code: "not_found", message: "No admin route GET /_emulator/nothing" } },
    });
  });
});

describe("the admin API over the node:http server", () => {
  let emulator: TestEmulator;
  beforeAll(async () => {
    emulator = await overHttp();
  });
  afterAll(() => emulator.close());

  it("changes the state the server serves", async () => {
    await admin(emulator, "PUT", "/credit", { credit: 0 });
    expect((await post(emulator, CHAT, chatBody())).status).toBe(403);
    expect(emulator.state.credit).toBe(0);
  });
});

describe.each(TRANSPORTS)("the admin API's request details, over the %s", (_name, make) => {
  const emulator = useEmulator(make);
  const requestIdOf = (response: Response) => response.headers.get("x-gateway-request-id")!;
  const detailOf = async (requestId: string) =>
    (await admin(emulator, "GET", `/requests/${requestId}`)).body as unknown as RequestDetail;

  it("shows a call's request and reply, its latency, and that it did not stream", async () => {
    const response = await post(emulator, CHAT, chatBody("Show me"), {
      ...bearer(),
      "x-emulator-fault": "latency=50",
    });
    const reply = await response.text();
    const detail = await detailOf(requestIdOf(response));
    expect(detail).toMatchObject({
      requestId: requestIdOf(response),
      request: {
        method: "POST",
        url: CHAT,
        body: { text: JSON.stringify(chatBody("Show me")), truncated: false },
      },
      response: { status: 200, body: { text: reply, truncated: false } },
      stream: false,
    });
    expect(detail.request.headers.authorization).toBe("Bearer ****demo");
    expect(detail.response!.headers["X-Gateway-Request-Id"]).toBe(requestIdOf(response));
    expect(detail.latencyMs).toBeGreaterThanOrEqual(50);
    expect(JSON.stringify(detail)).not.toContain(DEFAULT_API_KEY);
  });

  it("shows a stream's events, how many were relayed, and its latency once it ended", async () => {
    const response = await post(emulator, CHAT, chatBody("Stream it", { stream: true }));
    const sent = await response.text();
    const events = sent.split("\n\n").filter((event) => event !== "");
    const detail = await detailOf(requestIdOf(response));
    expect(detail).toMatchObject({
      stream: true,
      response: { status: 200, body: { text: sent, truncated: false } },
      events: { total: events.length, delivered: events.length },
    });
    expect(detail.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it("says a call with no reply was reset, and a stalled one never ends", async () => {
    const reset = await post(emulator, CHAT, chatBody(), {
      ...bearer(),
      "x-emulator-fault": "reset",
    })
      .then(() => undefined)
      .catch(() => emulator.state.lastRequest()!.requestId);
    expect(await detailOf(reset!)).toMatchObject({ dropped: "reset", stream: false });
    expect((await detailOf(reset!)).response).toBeUndefined();
    const controller = new AbortController();
    const stalled = await emulator.fetch(`${emulator.url}${CHAT}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(), "x-emulator-fault": "stall" },
      body: JSON.stringify(chatBody()),
      signal: controller.signal,
    });
    const detail = await detailOf(requestIdOf(stalled));
    expect(detail).toMatchObject({ stalled: true });
    expect(detail.latencyMs).toBeUndefined();
    controller.abort();
  });

  it("masks every key and credential: in headers, in the query and in the bodies", async () => {
    const secret = "sk-a-key-the-caller-typed-by-mistake";
    const response = await emulator.fetch(`${emulator.url}${CHAT}?api-key=${secret}&model=x`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${secret}`,
        "x-api-key": "another-secret-value",
      },
      body: JSON.stringify(chatBody(`my key is ${secret}, the demo one ${DEFAULT_API_KEY}`)),
    });
    expect(response.status).toBe(401);
    const detail = await detailOf(requestIdOf(response));
    const text = JSON.stringify(detail);
    for (const hidden of [secret, DEFAULT_API_KEY, "another-secret-value"]) {
      expect(text).not.toContain(hidden);
    }
    expect(detail.request.url).toBe(`${CHAT}?api-key=****${secret.slice(-4)}&model=x`);
    expect(detail.request.headers.authorization).toBe(`Bearer ****${secret.slice(-4)}`);
    expect(detail.request.body.text).toContain(
      `my key is ****${secret.slice(-4)}, the demo one ****demo`,
    );
  });

  it("keeps the bodies of the newest calls only, each cut and marked as such", async () => {
    const long = "many words ".repeat(DETAIL_TEXT_LIMIT / 10);
    const first = requestIdOf(await post(emulator, CHAT, chatBody(long)));
    const cut = (await detailOf(first)).request.body;
    expect(cut.truncated).toBe(true);
    expect(cut.text).toHaveLength(DETAIL_TEXT_LIMIT);
    for (let i = 0; i < REQUEST_DETAILS_KEPT; i++) await post(emulator, CHAT, chatBody(`${i}`));
    const gone = await admin(emulator, "GET", `/requests/${first}`);
    expect(gone.status).toBe(404);
    expect(errorMessage(gone.body)).toContain(`last ${REQUEST_DETAILS_KEPT} calls`);
  });

  it("forgets the bodies when the log is cleared", async () => {
    const requestId = requestIdOf(await post(emulator, CHAT, chatBody()));
    await admin(emulator, "DELETE", "/requests");
    expect((await admin(emulator, "GET", `/requests/${requestId}`)).status).toBe(404);
  });
});
