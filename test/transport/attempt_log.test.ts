/**
 * How an attempt and the fetch layer find each other: the attempt's private header names its
 * record, the fetch layer takes the header off before the request leaves and notes the answer's
 * headers in that record — whichever form the request's headers come in.
 */
import { describe, expect, it } from "vitest";
import { AttemptLog, type AttemptRecord } from "../../src/transport/attempt_log.js";
import { createServiceFetch, type Fetch } from "../../src/transport/fetch.js";

const URL_ = "https://svc.test/inference/v1/chat/completions";
const ATTEMPT = "x-inference-service-attempt";

/** A fetch layer over a wire that records each request's headers and answers with request ID `r-1`. */
function layer() {
  const attempts = new AttemptLog();
  const sent: Headers[] = [];
  const fetch: Fetch = async (_input, init) => {
    sent.push(new Headers(init?.headers));
    return new Response("{}", {
      headers: { "content-type": "application/json", "x-gateway-request-id": "r-1" },
    });
  };
  const serviceFetch = createServiceFetch({ surface: "hosted", fetch, attempts });
  return { attempts, sent, serviceFetch };
}

/** The pairs of a request's headers as they left, attempt header or not. */
const pairs = (headers: Headers) => [...headers];

describe("an attempt's header under the fetch layer", () => {
  it("is taken off Headers, pairs in any place or a record in any case, and the attempt's record gets the answer's headers", async () => {
    const forms: ((id: string) => HeadersInit)[] = [
      (id) => new Headers({ "x-own": "1", [ATTEMPT]: id }),
      (id) => [
        [ATTEMPT, id],
        ["x-own", "1"],
      ],
      (id) => [
        ["x-own", "1"],
        ["X-Inference-Service-Attempt", id],
      ],
      (id) => ({ "x-own": "1", "X-Inference-Service-Attempt": id }),
    ];
    for (const form of forms) {
      const { attempts, sent, serviceFetch } = layer();
      const record: AttemptRecord = {};
      const { [ATTEMPT]: id } = attempts.open(record);
      await serviceFetch(URL_, { method: "POST", headers: form(id) });
      expect(pairs(sent[0]!)).toEqual([["x-own", "1"]]);
      expect(record.headers?.get("x-gateway-request-id")).toBe("r-1");
    }
  });

  it("leaves a request that names no attempt as it was, whatever form its headers take or none", async () => {
    const forms: (HeadersInit | undefined)[] = [
      new Headers({ "x-own": "1" }),
      [["x-own", "1"]],
      { "x-own": "1" },
    ];
    for (const headers of forms) {
      const { attempts, sent, serviceFetch } = layer();
      const record: AttemptRecord = {};
      attempts.open(record);
      await serviceFetch(URL_, { method: "POST", headers });
      expect(pairs(sent[0]!)).toEqual([["x-own", "1"]]);
      expect(record.headers).toBeUndefined();
    }
    const { sent, serviceFetch } = layer();
    const response = await serviceFetch(URL_);
    expect(response.ok).toBe(true);
    expect(pairs(sent[0]!)).toEqual([]);
  });

  it("names each open attempt apart, and none once it has closed", async () => {
    const { attempts, sent, serviceFetch } = layer();
    const first: AttemptRecord = {};
    const second: AttemptRecord = {};
    const firstHeaders = attempts.open(first);
    const secondHeaders = attempts.open(second);
    await serviceFetch(URL_, { method: "POST", headers: new Headers(secondHeaders) });
    expect(second.headers?.get("x-gateway-request-id")).toBe("r-1");
    expect(first.headers).toBeUndefined();

    attempts.close(firstHeaders);
    await serviceFetch(URL_, { method: "POST", headers: new Headers(firstHeaders) });
    expect(first.headers).toBeUndefined();
    // Closed or not, the header never leaves.
    expect(sent.map((headers) => headers.has(ATTEMPT))).toEqual([false, false]);
  });
});
