import { describe, expect, it } from "vitest";
import {
  AuthenticationError,
  BaseURLError,
  EndpointNotReadyError,
  InvalidURLError,
  MalformedResponseError,
  ModelNotFoundError,
  ServiceConnectionError,
  ServiceNameError,
} from "../../src/errors/errors.js";
import { asServiceError } from "../../src/errors/mapper.js";
import { createServiceFetch, type Fetch } from "../../src/transport/fetch.js";

/**
 * What a failure reported by this layer is typed as by the attempt that sent the request: the
 * layer below reports, the attempt types (`UntypedFailure`).
 */
// biome-ignore lint/suspicious/noExplicitAny: read as the other tests read a thrown value
const typed = (error: unknown): any => asServiceError(error, { surface: "hosted" });

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
    const calls: Headers[] = [];
    const fetch: Fetch = async (_input, init) => {
      calls.push(new Headers(init?.headers));
      return new Response("{}", { headers: { "content-type": "application/json" } });
    };
    const wrapped = createServiceFetch({
      surface: "dedicated",
      fetch,
      headers: { "Service-Name": "t.a" },
    });
    await wrapped(URL_, { method: "POST" });
    await wrapped(URL_, { method: "POST", headers: { "Service-Name": "t.b" } });
    expect(calls.map((c) => c.get("service-name"))).toEqual(["t.a", "t.b"]);
  });

  it("strips Service-Name on the hosted surface (docs/service-contract.md#hosted-models)", async () => {
    const { fetch, calls } = stub(
      new Response("{}", { headers: { "content-type": "application/json" } }),
    );
    await createServiceFetch({ surface: "hosted", fetch })(URL_, {
      headers: { "Service-Name": "t.a" },
    });
    expect(calls[0]?.headers.has("service-name")).toBe(false);
  });

  it("hands a successful JSON or SSE body on unread and unchanged, SSE chunk by chunk", async () => {
    for (const [type, chunks] of [
      ["application/json", ['{"id":"c1",', '"choices":[]}']],
      ["text/event-stream; charset=utf-8", ["data: {}\n\n", "data: [DONE]\n\n"]],
    ] as const) {
      let pulled = 0;
      const body = new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            const chunk = chunks[pulled++];
            if (chunk === undefined) controller.close();
            else controller.enqueue(new TextEncoder().encode(chunk));
          },
        },
        { highWaterMark: 0 },
      );
      const { fetch } = stub(
        new Response(body, { headers: { "content-type": type, "x-gateway-request-id": "r1" } }),
      );
      const out = await createServiceFetch({ surface: "hosted", fetch })(URL_);
      // Nothing read before the SDK asks: a stream's first event is not awaited here.
      expect(pulled).toBe(0);
      expect(out.headers.get("x-gateway-request-id")).toBe("r1");
      if (type === "application/json") {
        // The openai SDK reads a JSON body with text().
        expect(await out.text()).toBe(chunks.join(""));
        continue;
      }
      const seen: string[] = [];
      const reader = out.body!.getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        seen.push(new TextDecoder().decode(read.value));
      }
      expect(seen).toEqual(chunks);
    }
  });

  it("accepts JSON sent without a content type", async () => {
    const { fetch } = stub(new Response('{"choices":[]}'));
    const out = await createServiceFetch({ surface: "hosted", fetch })(URL_);
    expect(out.headers.get("content-type")).toBe("application/json");
    expect(await out.json()).toEqual({ choices: [] });
  });

  it("throws BaseURLError for a 200 HTML page (docs/service-contract.md#errors, rule 4)", async () => {
    const { fetch } = stub(
      new Response("<html>console</html>", {
        headers: { "content-type": "text/html", "x-gateway-request-id": "rid-html" },
      }),
    );
    const error = await createServiceFetch({ surface: "hosted", fetch })(URL_).catch(typed);
    expect(BaseURLError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 200, requestId: "rid-html" });
    expect(error.message).toContain("<html>console</html>");
  });

  it("maps an empty 200 to EndpointNotReadyError on the dedicated surface and MalformedResponseError on the hosted one", async () => {
    const empty = () => stub(new Response("", { status: 200 })).fetch;
    const dedicated = await createServiceFetch({ surface: "dedicated", fetch: empty() })(
      URL_,
    ).catch(typed);
    const hosted = await createServiceFetch({ surface: "hosted", fetch: empty() })(URL_).catch(
      typed,
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
    }).catch(typed);
    const hosted = await createServiceFetch({ surface: "hosted", fetch: notFound() })(URL_).catch(
      typed,
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
    })(URL_).catch(typed);
    const hosted = await createServiceFetch({ surface: "hosted", fetch: stub(refused).fetch })(
      URL_,
    ).catch(typed);
    expect(EndpointNotReadyError.isInstance(dedicated)).toBe(true);
    expect(ServiceConnectionError.isInstance(hosted)).toBe(true);
    expect(hosted.cause).toBe(refused);
    const abort = new DOMException("aborted", "AbortError");
    const aborted = await createServiceFetch({ surface: "hosted", fetch: stub(abort).fetch })(
      URL_,
    ).catch(typed);
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
    })(URL_).catch(typed);
    expect(JSON.stringify(error)).not.toContain("sk-secret-123");
    expect(error.serviceMessage).toContain("[redacted]");
  });
});

describe("createServiceFetch with lookUpModels", () => {
  const CHAT_URL = "https://svc.test/inference/v1/chat/completions";
  const KEY = "sk-lookup-secret-0001";
  const notFound = () =>
    new Response(
      JSON.stringify({
        error: {
          code: "model_not_found",
          message: "No available channel for model emulator-caht (request id: r1)",
          type: "new_api_error",
        },
      }),
      { status: 503, headers: { "content-type": "application/json" } },
    );

  /** Answers the chat call with `chat`, and GET …/models with `models` (or throws it). */
  function service(chat: () => Response, models: () => Response) {
    const calls: Array<{ method: string; url: string; authorization: string | null }> = [];
    const fetch: Fetch = async (input, init) => {
      const method = init?.method ?? "GET";
      calls.push({
        method,
        url: String(input),
        authorization: new Headers(init?.headers).get("authorization"),
      });
      return method === "GET" ? models() : chat();
    };
    const wrapped = createServiceFetch({
      surface: "hosted",
      model: "emulator-caht",
      fetch,
      lookUpModels: true,
    });
    const call = () =>
      wrapped(CHAT_URL, {
        method: "POST",
        headers: { Authorization: `Bearer ${KEY}` },
        body: "{}",
      });
    return { call, calls };
  }
  const list = (ids: string[]) => () =>
    new Response(
      JSON.stringify({ object: "list", data: ids.map((id) => ({ id, object: "model" })) }),
      {
        headers: { "content-type": "application/json" },
      },
    );

  it("names the listed IDs and the near miss in the ModelNotFoundError hint, after one GET with the same key", async () => {
    const { call, calls } = service(notFound, list(["emulator-chat", "emulator-reasoner"]));
    const error = await call().catch(typed);
    expect(ModelNotFoundError.isInstance(error)).toBe(true);
    expect((error as ModelNotFoundError).hint).toBe(
      'Check the model ID passed as `model`; retrying will not help. Did you mean "emulator-chat"? The service lists 2 models: emulator-chat, emulator-reasoner.',
    );
    expect((error as ModelNotFoundError).requestId).toBe("r1");
    expect(calls).toEqual([
      { method: "POST", url: CHAT_URL, authorization: `Bearer ${KEY}` },
      {
        method: "GET",
        url: "https://svc.test/inference/v1/models",
        authorization: `Bearer ${KEY}`,
      },
    ]);
    expect(JSON.stringify(error)).not.toContain(KEY);
  });

  it.each([
    [
      "a 404",
      () => new Response('{"error":{"message":"Invalid URL (GET /v1/models)"}}', { status: 404 }),
    ],
    [
      "an HTML page",
      () => new Response("<!doctype html>", { headers: { "content-type": "text/html" } }),
    ],
    ["a 500", () => new Response("{}", { status: 500 })],
  ])(
    "keeps today's hint when the service answers the list route with %s",
    async (_name, models) => {
      const { call, calls } = service(notFound, models);
      const error = await call().catch(typed);
      expect((error as ModelNotFoundError).hint).toBe(
        "Check the model ID passed as `model`; retrying will not help.",
      );
      expect(calls.map((c) => c.method)).toEqual(["POST", "GET"]);
    },
  );

  it("looks nothing up for any other failure", async () => {
    const unauthorized = () =>
      new Response('{"error":{"code":"","message":"Invalid token"}}', { status: 401 });
    const { call, calls } = service(unauthorized, list(["emulator-chat"]));
    expect(AuthenticationError.isInstance(await call().catch(typed))).toBe(true);
    expect(calls.map((c) => c.method)).toEqual(["POST"]);
  });
});

describe("secrets of the request", () => {
  it("redacts every header value the request carries but the protocol's own", async () => {
    const { fetch } = stub(
      new Response(
        '{"error":{"code":"","message":"saw hdr-call-9911 and sk-secret-123 as application/json (request id: r1)"}}',
        { status: 401 },
      ),
    );
    const error = await createServiceFetch({ surface: "hosted", fetch })(URL_, {
      headers: {
        Authorization: "Bearer sk-secret-123",
        "X-Call-Token": "hdr-call-9911",
        "Content-Type": "application/json",
      },
    }).catch(typed);
    expect(error.serviceMessage).toBe(
      "saw [redacted] and [redacted] as application/json (request id: r1)",
    );
  });
});

describe("redirects", () => {
  it("follows same-origin redirects itself, at most 5 times", async () => {
    const urls: string[] = [];
    const fetch: Fetch = async (input, init) => {
      urls.push(String(input));
      expect(init?.redirect).toBe("manual");
      return new Response(null, { status: 302, headers: { location: "/loop" } });
    };
    const error = await createServiceFetch({ surface: "hosted", fetch })(URL_).catch(typed);
    expect(BaseURLError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "too_many_redirects", status: 302, retryable: false });
    expect(urls).toEqual([URL_, ...Array.from({ length: 5 }, () => "https://svc.test/loop")]);
  });

  it("ends at a redirect the runtime hides (a browser's opaque redirect)", async () => {
    // What a browser gives for redirect "manual": type opaqueredirect, status 0, no headers.
    const opaque = Object.defineProperties(new Response(null, { status: 200 }), {
      type: { value: "opaqueredirect" },
      status: { value: 0 },
    });
    const error = await createServiceFetch({ surface: "hosted", fetch: stub(opaque).fetch })(
      URL_,
    ).catch(typed);
    expect(error).toMatchObject({ name: "BaseURLError", code: "cross_origin_redirect" });
  });
});

describe("the request's headers", () => {
  const json = () => new Response("{}", { headers: { "content-type": "application/json" } });

  /** The `headers` the base fetch was given, as they were given. */
  async function sentHeaders(
    options: Parameters<typeof createServiceFetch>[0],
    headers: HeadersInit | undefined,
  ) {
    let seen: HeadersInit | undefined;
    const fetch: Fetch = async (_input, init) => {
      seen = init?.headers;
      return json();
    };
    await createServiceFetch({ ...options, fetch })(URL_, { headers });
    return seen;
  }

  it("passes the caller's own headers on untouched on a hosted call with nothing to add or remove", async () => {
    const record = { Authorization: "Bearer k" };
    expect(await sentHeaders({ surface: "hosted" }, record)).toBe(record);
    expect(await sentHeaders({ surface: "hosted" }, undefined)).toBeUndefined();
  });

  it("adds the surface's headers on a hosted call too", async () => {
    const sent = await sentHeaders({ surface: "hosted", headers: { "X-Extra": "1" } }, {});
    expect(new Headers(sent).get("x-extra")).toBe("1");
  });

  it("strips Service-Name on the hosted surface however the headers are given", async () => {
    for (const given of [
      new Headers({ "Service-Name": "t.a" }),
      [
        ["Authorization", "Bearer k"],
        ["service-name", "t.a"],
      ] as [string, string][],
      { Authorization: "Bearer k", "SERVICE-NAME": "t.a" },
    ]) {
      const sent = new Headers(await sentHeaders({ surface: "hosted" }, given));
      expect(sent.has("service-name")).toBe(false);
    }
  });
});

describe("2xx bodies that are not labelled JSON", () => {
  it("maps a JSON answer of length 0 and a blank text answer as empty", async () => {
    const zero = new Response("", {
      headers: { "content-type": "application/json", "content-length": "0" },
    });
    const blank = new Response("  \n", { headers: { "content-type": "text/plain" } });
    for (const response of [zero, blank]) {
      const error = await createServiceFetch({ surface: "hosted", fetch: stub(response).fetch })(
        URL_,
      ).catch(typed);
      expect(MalformedResponseError.isInstance(error)).toBe(true);
    }
  });

  it("accepts unlabelled JSON whose strings hold a '<'", async () => {
    const { fetch } = stub(new Response('{"text":"a <b> tag"}'));
    const out = await createServiceFetch({ surface: "hosted", fetch })(URL_);
    expect(await out.json()).toEqual({ text: "a <b> tag" });
  });

  it("names the content type without its parameters, and the URL without its query", async () => {
    const { fetch } = stub(
      new Response("plain words", { headers: { "content-type": "text/plain; charset=utf-8" } }),
    );
    const error = await createServiceFetch({ surface: "hosted", fetch })(`${URL_}?k=v`).catch(
      typed,
    );
    expect(BaseURLError.isInstance(error)).toBe(true);
    expect(error.message).toContain("text/plain");
    expect(error.message).not.toContain("charset");
  });
});

describe("failures before a response", () => {
  it("names the URL a 404 of the hosted surface was sent to, without its query", async () => {
    const { fetch } = stub(
      new Response('{"error":{"code":"","message":"Invalid URL (POST /v1/completions)"}}', {
        status: 404,
      }),
    );
    const error = await createServiceFetch({ surface: "hosted", fetch })(`${URL_}?k=v`).catch(
      typed,
    );
    expect(InvalidURLError.isInstance(error)).toBe(true);
    expect(error.message).toContain(`(${URL_})`);
  });

  it("passes any failure of a request the caller cancelled through as it is", async () => {
    const controller = new AbortController();
    const failure = new TypeError("fetch failed");
    const fetch: Fetch = async () => {
      controller.abort();
      throw failure;
    };
    const error = await createServiceFetch({ surface: "hosted", fetch })(URL_, {
      signal: controller.signal,
    }).catch((e: unknown) => e);
    expect(error).toBe(failure);
  });

  it("does not look the model up unless asked to", async () => {
    const calls: string[] = [];
    const fetch: Fetch = async (input) => {
      calls.push(String(input));
      return new Response(
        '{"error":{"code":"model_not_found","message":"The model `x` does not exist"}}',
        { status: 404 },
      );
    };
    await createServiceFetch({ surface: "hosted", fetch })(
      "https://svc.test/inference/v1/chat/completions",
      { method: "POST" },
    ).catch(typed);
    expect(calls).toHaveLength(1);
  });
});

describe("redirects, one hop", () => {
  it("follows one same-origin redirect to the answer", async () => {
    const urls: string[] = [];
    const fetch: Fetch = async (input) => {
      urls.push(String(input));
      return urls.length === 1
        ? new Response(null, { status: 307, headers: { location: "/moved" } })
        : new Response("{}", { headers: { "content-type": "application/json" } });
    };
    const out = await createServiceFetch({ surface: "hosted", fetch })(URL_);
    expect(await out.json()).toEqual({});
    expect(urls).toEqual([URL_, "https://svc.test/moved"]);
  });

  it("ends at a redirect without a Location, naming it hidden", async () => {
    const { fetch, calls } = stub(new Response(null, { status: 302 }));
    const error = await createServiceFetch({ surface: "hosted", fetch })(URL_).catch(typed);
    expect(error).toMatchObject({ name: "BaseURLError", code: "cross_origin_redirect" });
    expect(error.message).toContain("a hidden location");
    expect(calls).toHaveLength(1);
  });
});
