/**
 * The direct JSON request of an API the openai SDK has no method for (rerank): what it puts on
 * the wire, and that its timeout, its cancellation and its answer behave as the SDK's would.
 */
import nock from "nock";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ServiceTimeoutError } from "../../src/errors/errors.js";
import { ServiceChannel } from "../../src/transport/channel.js";
import { type DirectTarget, postJSON } from "../../src/transport/post.js";

const ORIGIN = "https://svc.test";
const BASE = `${ORIGIN}/inference/v1`;
const KEY = "sk-direct-key-1";
const RESULTS = { results: [{ index: 0, relevance_score: 0.9 }] };

afterEach(() => {
  nock.cleanAll();
});

function rerankChannel() {
  return new ServiceChannel(
    "rerank",
    { apiKey: KEY, baseURL: BASE, maxRetries: 0 },
    { model: "r" },
  );
}

const readData = (answer: { data: unknown }) => ({ result: answer.data });

describe("postJSON", () => {
  it("posts the JSON body with the key, JSON content type and accept, and none of the SDK's headers", async () => {
    let headers: Record<string, string | string[] | undefined> = {};
    const scope = nock(ORIGIN)
      .post("/inference/v1/rerank", { model: "r", query: "q" })
      .reply(function () {
        headers = this.req.headers;
        return [200, RESULTS, { "content-type": "application/json" }];
      });
    const data = await rerankChannel().request({ body: { model: "r", query: "q" } }, readData);
    expect(data).toEqual(RESULTS);
    expect(headers.authorization).toBe(`Bearer ${KEY}`);
    expect(headers["content-type"]).toBe("application/json");
    expect(headers.accept).toBe("application/json");
    expect(Object.keys(headers).filter((name) => name.startsWith("x-stainless"))).toEqual([]);
    scope.done();
  });

  it("adds a request's own headers over its own, and drops one set to null", async () => {
    const seen: Array<[string, string | null]> = [];
    const target: DirectTarget = {
      url: `${BASE}/rerank`,
      apiKey: KEY,
      fetch: async (_url, init) => {
        const sent = new Headers(init?.headers);
        for (const name of ["accept", "x-trace", "authorization"]) {
          seen.push([name, sent.get(name)]);
        }
        return new Response(JSON.stringify(RESULTS), {
          headers: { "content-type": "application/json" },
        });
      },
    };
    await postJSON(target, {
      body: {},
      headers: { "X-Trace": "t-1", Accept: null },
    });
    expect(seen).toEqual([
      ["accept", null],
      ["x-trace", "t-1"],
      ["authorization", `Bearer ${KEY}`],
    ]);
  });

  it("answers as withResponse() does: the parsed body and the response with its request ID", async () => {
    nock(ORIGIN)
      .post("/inference/v1/rerank")
      .reply(200, RESULTS, { "content-type": "application/json", "x-gateway-request-id": "g-7" });
    const { data, requestId } = await rerankChannel().request({ body: {} }, (answer) => ({
      result: {
        data: answer.data,
        requestId: answer.response.headers.get("x-gateway-request-id"),
      },
    }));
    expect(data).toEqual(RESULTS);
    expect(requestId).toBe("g-7");
  });

  it("fails an attempt that outlasts timeout with a retryable ServiceTimeoutError, and retries it", async () => {
    const scope = nock(ORIGIN)
      .post("/inference/v1/rerank")
      .delay(10_000)
      .reply(200, RESULTS)
      .post("/inference/v1/rerank")
      .reply(200, RESULTS, { "content-type": "application/json" });
    const failures: unknown[] = [];
    const data = await new ServiceChannel(
      "rerank",
      {
        apiKey: KEY,
        baseURL: BASE,
        // Long enough for the second, prompt answer to arrive on a loaded machine.
        timeout: 1_000,
        maxRetries: 1,
        retry: { initialDelayMs: 0, maxDelayMs: 0 },
        onFailedAttempt: (error) => failures.push(error),
      },
      { model: "r" },
    ).request({ body: {} }, readData);
    expect(data).toEqual(RESULTS);
    expect(failures).toHaveLength(1);
    expect(ServiceTimeoutError.isInstance(failures[0])).toBe(true);
    expect((failures[0] as ServiceTimeoutError).retryable).toBe(true);
    scope.done();
  });

  it("ends with the signal's own reason when the caller aborts while it waits for the answer", async () => {
    nock(ORIGIN).post("/inference/v1/rerank").delay(2_000).reply(200, RESULTS);
    const controller = new AbortController();
    const reason = new Error("the user pressed stop");
    const call = rerankChannel().request({ body: {}, signal: controller.signal }, readData);
    setTimeout(() => controller.abort(reason), 10);
    await expect(call).rejects.toBe(reason);
  });

  it("hands fetch an aborted signal when the caller's is aborted already, so nothing is sent", async () => {
    let sent = 0;
    const target: DirectTarget = {
      url: `${BASE}/rerank`,
      apiKey: KEY,
      fetch: async (_url, init) => {
        sent++;
        init?.signal?.throwIfAborted();
        return new Response("{}");
      },
    };
    const reason = new Error("stopped before");
    await expect(postJSON(target, { body: {}, signal: AbortSignal.abort(reason) })).rejects.toBe(
      reason,
    );
    expect(sent).toBe(1);
  });
});

describe("postJSON's own timer", () => {
  it("leaves no timer behind once the answer is read", async () => {
    vi.useFakeTimers();
    try {
      const target: DirectTarget = {
        url: `${BASE}/rerank`,
        apiKey: KEY,
        fetch: async () => new Response(JSON.stringify(RESULTS)),
      };
      const answer = await postJSON(target, { body: {} });
      expect(answer.data).toEqual(RESULTS);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("aborts the request with a TimeoutError that says so once timeout has passed", async () => {
    const target: DirectTarget = {
      url: `${BASE}/rerank`,
      apiKey: KEY,
      timeout: 5,
      fetch: (_url, init) =>
        new Promise((_resolve, reject) => {
          init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
        }),
    };
    const error = await postJSON(target, { body: {} }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "TimeoutError", message: "The request timed out." });
  });
});
