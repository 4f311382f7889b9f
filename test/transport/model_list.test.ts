import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { listModelIds, listModels } from "../../src/transport/model_list.js";
import { BASE, KEY } from "../helpers/wire.js";

const BASE_URL = `${BASE}/inference/v1`;
const MODELS = "/inference/v1/models";

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

describe("listModelIds", () => {
  it("sends one GET …/models with the key and returns the listed IDs", async () => {
    const seen: Array<Record<string, unknown>> = [];
    nock(BASE)
      .get(MODELS)
      .reply(function () {
        seen.push({ ...this.req.headers });
        return [
          200,
          { object: "list", data: [{ id: "a", object: "model" }, { id: "b" }, { id: "a" }, {}] },
        ];
      });
    expect(await listModelIds({ baseURL: BASE_URL, apiKey: KEY })).toEqual(["a", "b"]);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ authorization: `Bearer ${KEY}` });
  });

  it.each([
    [
      "a 404",
      () =>
        nock(BASE)
          .get(MODELS)
          .reply(404, { error: { message: "Invalid URL" } }),
    ],
    ["an HTML page", () => nock(BASE).get(MODELS).reply(200, "<!doctype html><p>console</p>")],
    [
      "another JSON shape",
      () =>
        nock(BASE)
          .get(MODELS)
          .reply(200, { models: ["a"] }),
    ],
    ["a 503, not retried", () => nock(BASE).get(MODELS).reply(503, {})],
    ["a refused connection", () => nock(BASE).get(MODELS).replyWithError({ code: "ECONNREFUSED" })],
  ])("returns undefined, after one request, for %s", async (_name, reply) => {
    const scope = reply();
    expect(await listModelIds({ baseURL: BASE_URL, apiKey: KEY })).toBeUndefined();
    expect(scope.isDone()).toBe(true);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it("gives up after timeoutMs", async () => {
    nock(BASE)
      .get(MODELS)
      .delay(2_000)
      .reply(200, { data: [{ id: "late" }] });
    expect(await listModelIds({ baseURL: BASE_URL, apiKey: KEY, timeoutMs: 50 })).toBeUndefined();
  });
});

describe("listModelIds: what it takes for a list", () => {
  /** A fetch that answers `response` and keeps the request it got. */
  function answering(response: () => Response) {
    const seen: RequestInit[] = [];
    const fetch = async (_url: string | URL | Request, init?: RequestInit) => {
      seen.push(init ?? {});
      init?.signal?.throwIfAborted();
      return response();
    };
    return { fetch, seen };
  }
  const list = (data: unknown, init?: ResponseInit) => new Response(JSON.stringify({ data }), init);

  it("asks for JSON, and keeps only the non-blank string IDs, each once", async () => {
    const { fetch, seen } = answering(() =>
      list([null, { id: "a" }, { id: "  " }, { id: "" }, { id: 3 }, { id: "a" }]),
    );
    expect(await listModelIds({ baseURL: BASE_URL, fetch })).toEqual(["a"]);
    expect(new Headers(seen[0]?.headers).get("accept")).toBe("application/json");
  });

  it("keeps at most 1000 IDs", async () => {
    const data = Array.from({ length: 1001 }, (_, i) => ({ id: `m${i}` }));
    const { fetch } = answering(() => list(data));
    const ids = await listModelIds({ baseURL: BASE_URL, fetch });
    expect(ids).toHaveLength(1000);
    expect(ids?.at(-1)).toBe("m999");
  });

  it("takes no list from an error status, whatever its body", async () => {
    const { fetch } = answering(() => list([{ id: "a" }], { status: 500 }));
    expect(await listModelIds({ baseURL: BASE_URL, fetch })).toBeUndefined();
  });

  it("takes no list over 1,000,000 characters, declared or read, and one of exactly that many", async () => {
    const declared = answering(() =>
      list([{ id: "a" }], { headers: { "content-length": "1000001" } }),
    );
    expect(await listModelIds({ baseURL: BASE_URL, fetch: declared.fetch })).toBeUndefined();
    const atMost = answering(() =>
      list([{ id: "a" }], { headers: { "content-length": "1000000" } }),
    );
    expect(await listModelIds({ baseURL: BASE_URL, fetch: atMost.fetch })).toEqual(["a"]);
    const padded = (chars: number) => {
      const head = '{"data":[{"id":"a"}],"pad":"';
      return new Response(`${head}${"x".repeat(chars - head.length - 2)}"}`);
    };
    expect(
      await listModelIds({ baseURL: BASE_URL, fetch: answering(() => padded(1_000_001)).fetch }),
    ).toBeUndefined();
    expect(
      await listModelIds({ baseURL: BASE_URL, fetch: answering(() => padded(1_000_000)).fetch }),
    ).toEqual(["a"]);
  });

  it("sends nothing useful once the caller's signal has aborted", async () => {
    const { fetch } = answering(() => list([{ id: "a" }]));
    const signal = AbortSignal.abort(new Error("gone"));
    expect(await listModelIds({ baseURL: BASE_URL, fetch, signal })).toBeUndefined();
  });
});

describe("listModels", () => {
  it("keeps each model's supported_endpoint_types, and none where the entry says nothing", async () => {
    nock(BASE)
      .get(MODELS)
      .reply(200, {
        data: [
          { id: "a", supported_endpoint_types: ["openai", "openai-response", 7] },
          { id: "b" },
          { id: "a", supported_endpoint_types: ["openai"] },
        ],
      });
    expect(await listModels({ baseURL: BASE_URL, apiKey: KEY })).toEqual([
      { id: "a", endpointTypes: ["openai", "openai-response"] },
      { id: "b" },
    ]);
  });
});
