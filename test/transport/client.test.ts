import { afterEach, describe, expect, it, vi } from "vitest";
import { createServiceClient } from "../../src/transport/client.js";

/** A fetch that answers every request with `status` and keeps what it was sent. */
function recorder(status: number) {
  const sent: Request[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    sent.push(new Request(input, init));
    return new Response(JSON.stringify({ ok: status < 400 }), {
      status,
      headers: { "content-type": "application/json" },
    });
  };
  return { sent, fetch };
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});

describe("createServiceClient", () => {
  it("sends one request for a failing call: the SDK never retries (the ServiceCaller does)", async () => {
    const { sent, fetch } = recorder(503);
    const client = createServiceClient({ apiKey: "sk-x", baseURL: "http://h.invalid/v1", fetch });
    await expect(client.post("/embeddings", { body: {} })).rejects.toThrow();
    expect(sent).toHaveLength(1);
  });

  it("ignores OPENAI_ORG_ID and OPENAI_PROJECT_ID, and sends the key it was given", async () => {
    vi.stubEnv("OPENAI_ORG_ID", "org-leak");
    vi.stubEnv("OPENAI_PROJECT_ID", "proj-leak");
    const { sent, fetch } = recorder(200);
    const client = createServiceClient({ apiKey: "sk-x", baseURL: "http://h.invalid/v1", fetch });
    await client.post("/embeddings", { body: {} });
    expect(sent[0]!.headers.get("openai-organization")).toBeNull();
    expect(sent[0]!.headers.get("openai-project")).toBeNull();
    expect(sent[0]!.headers.get("authorization")).toBe("Bearer sk-x");
  });

  it("keeps a user's extra SDK options but not over its own: no retries, its key and URL", async () => {
    const { sent, fetch } = recorder(503);
    const client = createServiceClient({
      apiKey: "sk-x",
      baseURL: "http://h.invalid/v1",
      fetch,
      extra: { defaultHeaders: { "X-Team": "search" }, maxRetries: 5, apiKey: "sk-other" },
    });
    await expect(client.post("/embeddings", { body: {} })).rejects.toThrow();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.url).toBe("http://h.invalid/v1/embeddings");
    expect(sent[0]!.headers.get("x-team")).toBe("search");
    expect(sent[0]!.headers.get("authorization")).toBe("Bearer sk-x");
  });
});

describe("createServiceClient in a browser", () => {
  it("builds in a browser-like runtime, where guarding the key is the app's", () => {
    vi.stubGlobal("window", { document: {} });
    vi.stubGlobal("navigator", { userAgent: "Mozilla/5.0" });
    const { fetch } = recorder(200);
    expect(() =>
      createServiceClient({ apiKey: "sk-x", baseURL: "http://h.invalid/v1", fetch }),
    ).not.toThrow();
  });
});
