import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { listModelIds } from "../../src/transport/model_list.js";
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
