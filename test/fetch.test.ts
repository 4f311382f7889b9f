import { describe, expect, it } from "vitest";
import {
  BaseURLError,
  EndpointNotReadyError,
  InvalidURLError,
  MalformedResponseError,
  ServiceConnectionError,
  ServiceNameError,
} from "../src/errors.js";
import { createServiceFetch, type Fetch } from "../src/fetch.js";

/** A fetch that records the request and answers with `response` (or throws it). */
function stub(response: Response | Error) {
  const calls: { url: string; headers: Headers }[] = [];
  const fetch: Fetch = async (input, init) => {
    calls.push({ url: String(input), headers: new Headers(init?.headers) });
    if (response instanceof Error) throw response;
    return response;
  };
  return { fetch, calls };
}

const URL_ = "https://svc.test/inference/v1/completions";

describe("createServiceFetch", () => {
  it("adds the surface's headers unless the request sets its own", async () => {
    const { fetch, calls } = stub(
      new Response("{}", { headers: { "content-type": "application/json" } }),
    );
    const wrapped = createServiceFetch({
      surface: "dedicated",
      fetch,
      headers: { "Service-Name": "t.a" },
    });
    await wrapped(URL_, { method: "POST" });
    await wrapped(URL_, { method: "POST", headers: { "Service-Name": "t.b" } });
    expect(calls.map((c) => c.headers.get("service-name"))).toEqual(["t.a", "t.b"]);
  });

  it("strips Service-Name on the hosted surface (§4.2)", async () => {
    const { fetch, calls } = stub(
      new Response("{}", { headers: { "content-type": "application/json" } }),
    );
    await createServiceFetch({ surface: "hosted", fetch })(URL_, {
      headers: { "Service-Name": "t.a" },
    });
    expect(calls[0]?.headers.has("service-name")).toBe(false);
  });

  it("hands a successful JSON or SSE response through as the same object, unread", async () => {
    for (const type of ["application/json", "text/event-stream; charset=utf-8"]) {
      const response = new Response("data: {}\n\n", { headers: { "content-type": type } });
      const { fetch } = stub(response);
      const out = await createServiceFetch({ surface: "hosted", fetch })(URL_);
      expect(out).toBe(response);
      expect(out.bodyUsed).toBe(false);
    }
  });

  it("accepts JSON sent without a content type", async () => {
    const { fetch } = stub(new Response('{"choices":[]}'));
    const out = await createServiceFetch({ surface: "hosted", fetch })(URL_);
    expect(out.headers.get("content-type")).toBe("application/json");
    expect(await out.json()).toEqual({ choices: [] });
  });

  it("throws BaseURLError for a 200 HTML page (§7 rule 4)", async () => {
    const { fetch } = stub(
      new Response("<html>console</html>", {
        headers: { "content-type": "text/html", "x-gateway-request-id": "rid-html" },
      }),
    );
    const error = await createServiceFetch({ surface: "hosted", fetch })(URL_).catch((e) => e);
    expect(BaseURLError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 200, requestId: "rid-html" });
    expect(error.message).toContain("<html>console</html>");
  });

  it("maps an empty 200 to EndpointNotReadyError on the dedicated surface and MalformedResponseError on the hosted one", async () => {
    const empty = () => stub(new Response("", { status: 200 })).fetch;
    const dedicated = await createServiceFetch({ surface: "dedicated", fetch: empty() })(
      URL_,
    ).catch((e) => e);
    const hosted = await createServiceFetch({ surface: "hosted", fetch: empty() })(URL_).catch(
      (e) => e,
    );
    expect(EndpointNotReadyError.isInstance(dedicated)).toBe(true);
    expect(MalformedResponseError.isInstance(hosted)).toBe(true);
  });

  it("maps a 404 per surface and names the Service-Name actually sent", async () => {
    const notFound = () =>
      stub(
        new Response('{"error":{"code":"","message":"Invalid URL (POST /v1/completions)"}}', {
          status: 404,
        }),
      ).fetch;
    const dedicated = await createServiceFetch({ surface: "dedicated", fetch: notFound() })(URL_, {
      headers: { "Service-Name": "tenant.wrong" },
    }).catch((e) => e);
    const hosted = await createServiceFetch({ surface: "hosted", fetch: notFound() })(URL_).catch(
      (e) => e,
    );
    expect(ServiceNameError.isInstance(dedicated)).toBe(true);
    expect(dedicated.message).toContain('"tenant.wrong"');
    expect(InvalidURLError.isInstance(hosted)).toBe(true);
  });

  it("maps refused connections per surface and leaves aborts alone", async () => {
    const refused = Object.assign(new TypeError("fetch failed"), {
      cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
    });
    const dedicated = await createServiceFetch({
      surface: "dedicated",
      fetch: stub(refused).fetch,
    })(URL_).catch((e) => e);
    const hosted = await createServiceFetch({ surface: "hosted", fetch: stub(refused).fetch })(
      URL_,
    ).catch((e) => e);
    expect(EndpointNotReadyError.isInstance(dedicated)).toBe(true);
    expect(ServiceConnectionError.isInstance(hosted)).toBe(true);
    expect(hosted.cause).toBe(refused);
    const abort = new DOMException("aborted", "AbortError");
    const aborted = await createServiceFetch({ surface: "hosted", fetch: stub(abort).fetch })(
      URL_,
    ).catch((e) => e);
    expect(aborted).toBe(abort);
  });

  it("redacts secrets the service might echo back", async () => {
    const { fetch } = stub(
      new Response('{"error":{"code":"","message":"bad key sk-secret-123 (request id: r1)"}}', {
        status: 401,
      }),
    );
    const error = await createServiceFetch({
      surface: "hosted",
      fetch,
      secrets: ["sk-secret-123"],
    })(URL_).catch((e) => e);
    expect(JSON.stringify(error)).not.toContain("sk-secret-123");
    expect(error.serviceMessage).toContain("[redacted]");
  });
});
