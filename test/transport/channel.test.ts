/**
 * The one channel every model sends through: what it puts on the wire for each API, and how its
 * failures are typed — the request's own Service-Name, per-call header values kept secret, an
 * unknown model's error naming the listed models only where the API names a model.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  ConfigurationError,
  ContextLengthExceededError,
  EndpointNotReadyError,
  InferenceServiceError,
  ModelNotFoundError,
} from "../../src/errors/errors.js";
import { RateLimiter } from "../../src/spend/rate_limiter.js";
import type { CallTrace } from "../../src/telemetry/call_trace.js";
import { Telemetry } from "../../src/telemetry/telemetry.js";
import { APIS } from "../../src/transport/apis.js";
import { ServiceChannel } from "../../src/transport/channel.js";
import type { Fetch } from "../../src/transport/fetch.js";
import { ServiceCaller } from "../../src/transport/retry.js";

const BASE = "https://svc.test/inference/v1";
const KEY = "sk-channel-key-1";

interface Sent {
  url: string;
  method: string;
  headers: Headers;
  body: unknown;
}

/** A fetch that records each request and answers with `reply` (by the request's URL). */
function wire(reply: (url: string) => Response): { fetch: Fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const fetch: Fetch = async (input, init) => {
    const url = String(input);
    const body = typeof init?.body === "string" ? JSON.parse(init.body) : init?.body;
    sent.push({ url, method: init?.method ?? "GET", headers: new Headers(init?.headers), body });
    return reply(url);
  };
  return { fetch, sent };
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });

const notFoundModel = () =>
  json(
    { error: { code: "model_not_found", message: "no such model", type: "new_api_error" } },
    503,
  );

describe("ServiceChannel", () => {
  it("posts a chat request to …/chat/completions with the key, and reads the answer in its context", async () => {
    const { fetch, sent } = wire(() => json({ ok: true }, 200, { "x-gateway-request-id": "r-1" }));
    const channel = new ServiceChannel(
      "chat",
      { apiKey: KEY, baseURL: BASE, fetch },
      { model: "m" },
    );
    const result = await channel.request({ body: { model: "m", messages: [] } }, (answer, ctx) => ({
      result: {
        data: answer.data,
        requestId: answer.response.headers.get("x-gateway-request-id"),
        ctx,
      },
    }));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ url: `${BASE}/chat/completions`, method: "POST" });
    expect(sent[0]!.headers.get("authorization")).toBe(`Bearer ${KEY}`);
    expect(sent[0]!.body).toEqual({ model: "m", messages: [] });
    expect(result).toMatchObject({ data: { ok: true }, requestId: "r-1" });
    expect(result.ctx).toMatchObject({ surface: "hosted", model: "m" });
  });

  it("sends the channel's Service-Name on every dedicated request, a request's own instead", async () => {
    const { fetch, sent } = wire(() => json({ choices: [{ text: "x", finish_reason: "stop" }] }));
    const channel = new ServiceChannel(
      "completions",
      { apiKey: KEY, baseURL: BASE, fetch },
      { serviceName: "t-1.default" },
    );
    const read = () => ({ result: "ok" });
    await channel.request({ body: { prompt: "a" } }, read);
    await channel.request(
      { body: { prompt: "b" }, headers: { "Service-Name": "t-1.other" } },
      read,
    );
    expect(sent.map((s) => s.url)).toEqual([`${BASE}/completions`, `${BASE}/completions`]);
    expect(sent.map((s) => s.headers.get("service-name"))).toEqual(["t-1.default", "t-1.other"]);
  });

  it("names a request's own Service-Name when its endpoint stays Pending past waitForReady", async () => {
    const { fetch, sent } = wire(() => new Response("", { status: 200 }));
    const channel = new ServiceChannel(
      "completions",
      { apiKey: KEY, baseURL: BASE, fetch, retry: { initialDelayMs: 1, maxDelayMs: 1 } },
      { serviceName: "t-1.default", waitForReady: 30 },
    );
    const error = await channel
      .request({ body: { prompt: "a" }, headers: { "Service-Name": "t-1.other" } }, () => ({
        result: "never",
      }))
      .catch((e: unknown) => e);
    expect(EndpointNotReadyError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('"t-1.other" was still not ready');
    expect(sent.length).toBeGreaterThan(1);
  });

  it("keeps a call's own header values out of its errors", async () => {
    const { fetch } = wire(() =>
      json({ error: { message: "bad token hdr-secret-99", code: "invalid_request" } }, 400),
    );
    const channel = new ServiceChannel(
      "chat",
      { apiKey: KEY, baseURL: BASE, fetch },
      { model: "m" },
    );
    const error = await channel
      .request(
        { body: { model: "m" }, options: { headers: { "X-Org-Token": "hdr-secret-99" } } },
        () => ({ result: "never" }),
      )
      .catch((e: unknown) => e);
    expect(InferenceServiceError.isInstance(error)).toBe(true);
    expect(JSON.stringify(error)).not.toContain("hdr-secret-99");
    expect((error as Error).message).not.toContain("hdr-secret-99");
  });

  it("looks the listed models up on an unknown chat model, and not when told otherwise", async () => {
    const models = json({ data: [{ id: "m-1" }, { id: "m-2" }] });
    for (const [lookUpModels, requests, named] of [
      [undefined, 2, true],
      [false, 1, false],
    ] as const) {
      const { fetch, sent } = wire((url) =>
        url.endsWith("/models") ? models.clone() : notFoundModel(),
      );
      const channel = new ServiceChannel(
        "chat",
        { apiKey: KEY, baseURL: BASE, fetch },
        { model: "m-3", lookUpModels },
      );
      const error = await channel
        .request({ body: { model: "m-3" } }, () => ({ result: "x" }))
        .catch((e) => e);
      expect(ModelNotFoundError.isInstance(error)).toBe(true);
      expect(sent).toHaveLength(requests);
      expect((error as ModelNotFoundError).hint.includes("m-1")).toBe(named);
    }
  });

  it("opens a stream on its first event, with the response's request ID", async () => {
    const events = 'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n';
    const { fetch, sent } = wire(
      () =>
        new Response(events, {
          headers: { "content-type": "text/event-stream", "x-gateway-request-id": "r-9" },
        }),
    );
    const channel = new ServiceChannel(
      "chat",
      { apiKey: KEY, baseURL: BASE, fetch },
      { model: "m" },
    );
    const stream = channel.stream<{ choices: Array<{ delta: { content: string } }> }>({
      body: { model: "m", messages: [], stream: true },
    });
    expect(sent).toHaveLength(0);
    expect((await stream.open()).requestId).toBe("r-9");
    const texts: string[] = [];
    for await (const event of stream) texts.push(event.choices[0]!.delta.content);
    expect(texts).toEqual(["hi"]);
    expect(sent[0]!.body).toMatchObject({ stream: true });
  });
});

describe("ServiceChannel's attempts", () => {
  it("name themselves to the fetch layer by a header that never reaches the wire, whatever the API", async () => {
    const { fetch, sent } = wire(() =>
      json({ results: [], choices: [] }, 200, { "x-gateway-request-id": "r-9" }),
    );
    const chat = new ServiceChannel("chat", { apiKey: KEY, baseURL: BASE, fetch }, { model: "m" });
    const rerank = new ServiceChannel(
      "rerank",
      { apiKey: KEY, baseURL: BASE, fetch },
      { model: "r" },
    );
    const read = (answer: { response: Response }) => ({
      result: answer.response.headers.get("x-gateway-request-id"),
    });
    expect(await chat.request({ body: { model: "m", messages: [] } }, read)).toBe("r-9");
    expect(
      await chat.request(
        { body: { model: "m", messages: [] }, options: { headers: new Headers({ "X-Own": "1" }) } },
        read,
      ),
    ).toBe("r-9");
    expect(await rerank.request({ body: { model: "r", query: "q", documents: [] } }, read)).toBe(
      "r-9",
    );
    expect(sent).toHaveLength(3);
    for (const { headers } of sent) expect(headers.has("x-inference-service-attempt")).toBe(false);
    // A call's own headers given as Headers still go out.
    expect(sent[1]!.headers.get("x-own")).toBe("1");
  });

  it("keep the request ID of an answer the SDK fails to read after its headers arrived", async () => {
    const fetch: Fetch = async () =>
      new Response('{"choices": [', {
        headers: { "content-type": "application/json", "x-gateway-request-id": "rid-77" },
      });
    const chat = new ServiceChannel(
      "chat",
      { apiKey: KEY, baseURL: BASE, fetch, maxRetries: 0 },
      { model: "m" },
    );
    const error = await chat
      .request({ body: { model: "m", messages: [] } }, (answer) => ({ result: answer.data }))
      .catch((e: unknown) => e);
    expect(InferenceServiceError.isInstance(error)).toBe(true);
    expect((error as InferenceServiceError).requestId).toBe("rid-77");
  });
});

describe("ServiceChannel options", () => {
  it("bounds a stream's wait for its next event by timeout when no idleTimeout is given", async () => {
    const first = new TextEncoder().encode(
      'data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\n',
    );
    const fetch: Fetch = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(first);
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      );
    const channel = new ServiceChannel(
      "chat",
      { apiKey: KEY, baseURL: BASE, fetch, timeout: 50, maxRetries: 0 },
      { model: "m" },
    );
    const stream = channel.stream({ body: { model: "m", messages: [], stream: true } });
    const error = await (async () => {
      for await (const _event of stream) {
        // the first event, then the stream stalls
      }
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "ServiceTimeoutError" });
  });
});

describe("ServiceChannel's context", () => {
  it("types failures with the surface, the API and its wording, the model given and the key as a secret, nothing more", () => {
    const rerank = new ServiceChannel("rerank", { apiKey: KEY, baseURL: BASE }, { model: "r" });
    expect(rerank.context).toStrictEqual({
      surface: "hosted",
      api: "rerank",
      inputWording: APIS.rerank.inputWording,
      model: "r",
      secrets: [KEY],
    });
    const bare = new ServiceChannel("chat", { apiKey: KEY, baseURL: BASE });
    expect(bare.context).toStrictEqual({ surface: "hosted", secrets: [KEY] });
  });

  it("adds a dedicated endpoint's Service-Name, and the values of configured headers as secrets", () => {
    const channel = new ServiceChannel(
      "completions",
      {
        apiKey: KEY,
        baseURL: BASE,
        configuration: { defaultHeaders: { "X-Team-Token": "team-token-7781" } },
      },
      { serviceName: "tenant.a" },
    );
    expect(channel.context).toStrictEqual({
      surface: "dedicated",
      serviceName: "tenant.a",
      secrets: [KEY, "team-token-7781"],
    });
  });

  it("shows its key, its caller and, without a limiter, no rate limiter", () => {
    const channel = new ServiceChannel("chat", { apiKey: KEY, baseURL: BASE }, { model: "m" });
    expect(channel.apiKey).toBe(KEY);
    expect(channel.caller).toBeInstanceOf(ServiceCaller);
    expect(channel.rateLimiter).toBeUndefined();
  });
});

describe("ServiceChannel's meter", () => {
  it("meters a call when the channel has a rate limiter, even without trackers", async () => {
    const limiter = new RateLimiter({ requestsPerMinute: 60 });
    const acquire = vi.spyOn(limiter, "acquire");
    const { fetch } = wire(() => json({ ok: true }));
    const channel = new ServiceChannel(
      "chat",
      { apiKey: KEY, baseURL: BASE, fetch, rateLimiter: limiter },
      { model: "m" },
    );
    expect(channel.rateLimiter).toBe(limiter);
    const estimate = () => ({ model: "m", inputTokens: 1, maxOutputTokens: 1, choices: 1 });
    await channel.request({ body: { model: "m" }, estimate }, () => ({ result: "ok" }));
    expect(acquire).toHaveBeenCalledTimes(1);
  });
});

describe("ServiceChannel's request context", () => {
  it("names an embeddings request's own inputs when the service refuses them", async () => {
    const { fetch } = wire(() =>
      json({ error: { code: "context_length_exceeded", message: "too many tokens" } }, 400),
    );
    const channel = new ServiceChannel(
      "embeddings",
      { apiKey: KEY, baseURL: BASE, fetch, maxRetries: 0 },
      { model: "e" },
    );
    const error = await channel
      .request(
        { body: { model: "e", input: ["a", "b"] }, context: { inputs: { first: 4, count: 2 } } },
        () => ({ result: "never" }),
      )
      .catch((e: unknown) => e);
    expect(ContextLengthExceededError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("The inputs at positions 4–5 include one longer");
  });

  it("keeps the channel's secrets in a request's own context", async () => {
    const { fetch } = wire(() =>
      json({ error: { message: "bad token team-token-7781", code: "invalid_request" } }, 400),
    );
    const channel = new ServiceChannel(
      "embeddings",
      {
        apiKey: KEY,
        baseURL: BASE,
        fetch,
        configuration: { defaultHeaders: { "X-Team-Token": "team-token-7781" } },
      },
      { model: "e" },
    );
    const error = await channel
      .request(
        { body: { model: "e", input: ["a"] }, context: { inputs: { first: 0, count: 1 } } },
        () => ({ result: "never" }),
      )
      .catch((e: unknown) => e);
    expect(InferenceServiceError.isInstance(error)).toBe(true);
    expect(JSON.stringify(error)).not.toContain("team-token-7781");
    expect((error as Error).message).not.toContain("team-token-7781");
  });

  it("refuses a call's header value a header cannot carry, naming options.headers", async () => {
    const { fetch, sent } = wire(() => json({ ok: true }));
    const channel = new ServiceChannel(
      "chat",
      { apiKey: KEY, baseURL: BASE, fetch },
      { model: "m" },
    );
    const error = await Promise.resolve()
      .then(() =>
        channel.request(
          { body: { model: "m" }, options: { headers: { "X-Org": "a\u0001b" } } },
          () => ({ result: "x" }),
        ),
      )
      .catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("options.headers");
    expect(sent).toHaveLength(0);
  });

  it.each([
    ["a string", "boom"],
    ["null", null],
  ])("hands on %s thrown by the answer's reader as it is", async (_name, thrown) => {
    const { fetch } = wire(() => json({ ok: true }));
    const channel = new ServiceChannel(
      "chat",
      { apiKey: KEY, baseURL: BASE, fetch, maxRetries: 0 },
      { model: "m" },
    );
    const error = await channel
      .request({ body: { model: "m" } }, () => {
        throw thrown;
      })
      .then(
        () => "resolved",
        (e: unknown) => e,
      );
    expect(error).toBe(thrown);
  });
});

/** A stand-in for a request's telemetry that records what the channel tells it. */
function recordingTrace() {
  const calls: Array<[string, ...unknown[]]> = [];
  const trace = {
    begin: (...args: unknown[]) => calls.push(["begin", ...args]),
    attempt: () => undefined,
    answered: (...args: unknown[]) => calls.push(["answered", ...args]),
    chunk: () => calls.push(["chunk"]),
    opened: () => calls.push(["opened"]),
    end: (...args: unknown[]) => calls.push(["end", ...args]),
  };
  vi.spyOn(Telemetry.prototype, "trace").mockReturnValue(trace as unknown as CallTrace);
  return { trace: trace as unknown as CallTrace, calls };
}

describe("ServiceChannel's telemetry", () => {
  afterEach(() => vi.restoreAllMocks());

  const sse = (...events: string[]) =>
    new Response(events.map((e) => `data: ${e}\n\n`).join(""), {
      headers: { "content-type": "text/event-stream" },
    });

  it("traces a JSON request: begun, answered, ended", async () => {
    const { fetch } = wire(() => json({ ok: 1 }));
    const channel = new ServiceChannel("chat", { apiKey: KEY, baseURL: BASE, fetch }, {});
    const { calls } = recordingTrace();
    await channel.request({ body: { model: "m" } }, () => ({ result: "read" }));
    expect(calls.map(([what]) => what)).toEqual(["begin", "answered", "end"]);
    expect(calls[0]!.slice(1)).toEqual([{ model: "m" }, channel.context, false]);
    expect(calls[1]![1]).toEqual({ ok: 1 });
    expect(calls[2]).toEqual(["end"]);
  });

  it("ends a failed JSON request's trace with its error", async () => {
    const { fetch } = wire(() => json({ error: { code: "invalid_request" } }, 400));
    const channel = new ServiceChannel("chat", { apiKey: KEY, baseURL: BASE, fetch }, {});
    const { calls } = recordingTrace();
    const error = await channel
      .request({ body: {} }, () => ({ result: "x" }))
      .catch((e: unknown) => e);
    expect(calls.at(-1)).toEqual(["end", error]);
  });

  it("traces a stream's opening and each event read, and ends it when the stream ends", async () => {
    const { fetch } = wire(() =>
      sse('{"choices":[{"index":0,"delta":{"content":"a"}}]}', "[DONE]"),
    );
    const channel = new ServiceChannel("chat", { apiKey: KEY, baseURL: BASE, fetch }, {});
    const { calls } = recordingTrace();
    const stream = channel.stream({ body: { stream: true } });
    await stream.open();
    expect(calls.map(([what]) => what)).toEqual(["begin", "opened"]);
    expect(calls[0]![3]).toBe(true);
    for await (const _event of stream) {
      // read to the end
    }
    expect(calls.map(([what]) => what)).toEqual(["begin", "opened", "chunk", "end"]);
    expect(calls.at(-1)).toEqual(["end", undefined, "ended"]);
  });

  it.each([
    ["failed", false],
    ["aborted", true],
  ])("ends the trace of a stream that never opened as %s", async (how, abort) => {
    const controller = new AbortController();
    const fetch: Fetch = async () => {
      if (abort) controller.abort();
      return json({ error: { code: "invalid_request" } }, 400);
    };
    const channel = new ServiceChannel(
      "chat",
      { apiKey: KEY, baseURL: BASE, fetch, maxRetries: 0 },
      {},
    );
    const { calls } = recordingTrace();
    const error = await channel
      .stream({ body: { stream: true }, signal: controller.signal })
      .open()
      .catch((e: unknown) => e);
    expect(calls.at(-1)).toEqual(["end", error, how]);
    expect(calls.filter(([what]) => what === "end")).toHaveLength(1);
  });
});
