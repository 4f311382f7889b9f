import { beforeEach, describe, expect, it, vi } from "vitest";
import {
  type DiagnoseOptions,
  type Diagnosis,
  type DiagnosisCheck,
  diagnose,
} from "../../src/diagnose/diagnose.js";
import {
  createEmulator,
  DEFAULT_MODEL,
  DEFAULT_SERVICE_NAME,
  type EmulatorOptions,
  EXPIRED_API_KEY,
  NO_PERMISSION_API_KEY,
  PENDING_SERVICE_NAME,
} from "../../src/emulator/index.js";
import { ConfigurationError } from "../../src/index.js";
import type { Fetch } from "../../src/transport/fetch.js";
import { bodies } from "../helpers/fixtures.js";

const ENV_VARIABLES = [
  "INFERENCE_SERVICE_API_KEY",
  "INFERENCE_SERVICE_BASE_URL",
  "INFERENCE_SERVICE_TENANT_ID",
  "INFERENCE_SERVICE_JOB_ALIAS",
  "INFERENCE_SERVICE_EMBEDDING_MODEL",
  "INFERENCE_SERVICE_RERANK_MODEL",
];

interface Sent {
  method: string;
  url: string;
  headers: Headers;
  body: Record<string, unknown>;
}

/**
 * An in-process emulator whose fetch records each request and the `X-Gateway-Request-Id` of each
 * response (undefined for a dropped connection); `wrap` may stand between them, like a proxy.
 */
function setup(options?: EmulatorOptions, wrap?: (fetch: Fetch) => Fetch) {
  const emulator = createEmulator(options);
  const sent: Sent[] = [];
  const ids: Array<string | undefined> = [];
  const inner = wrap ? wrap(emulator.fetch) : emulator.fetch;
  const fetch: Fetch = async (input, init) => {
    sent.push({
      method: init?.method ?? "GET",
      url: String(input),
      headers: new Headers(init?.headers),
      body: init?.body === undefined ? {} : JSON.parse(String(init.body)),
    });
    try {
      const response = await inner(input, init);
      ids.push(response.headers.get("x-gateway-request-id") ?? undefined);
      return response;
    } catch (error) {
      ids.push(undefined);
      throw error;
    }
  };
  const run = (overrides: DiagnoseOptions = {}) =>
    diagnose({ apiKey: emulator.apiKey, baseURL: emulator.baseURL, fetch, ...overrides });
  /** The request ID the emulator answered the n-th request with. */
  const requestId = (n: number) => {
    expect(ids[n]).toMatch(/^\d{32}$/);
    return ids[n];
  };
  return { emulator, sent, run, requestId };
}

function checksOf(diagnosis: Diagnosis): Record<DiagnosisCheck["id"], DiagnosisCheck> {
  return Object.fromEntries(diagnosis.checks.map((check) => [check.id, check])) as Record<
    DiagnosisCheck["id"],
    DiagnosisCheck
  >;
}

function statuses(diagnosis: Diagnosis): Record<string, string> {
  return Object.fromEntries(diagnosis.checks.map((check) => [check.id, check.status]));
}

beforeEach(() => {
  // Hermetic: the developer's own configuration must not leak in (readEnv treats "" as unset).
  for (const name of ENV_VARIABLES) vi.stubEnv(name, "");
});

describe("diagnose: a healthy configuration", () => {
  it("passes every check with three max_tokens 1 requests and the free model list, each check carrying its request ID", async () => {
    const { sent, run, requestId } = setup();
    const diagnosis = await run({ model: DEFAULT_MODEL, serviceName: DEFAULT_SERVICE_NAME });

    expect(diagnosis.ok).toBe(true);
    expect(diagnosis.checks.map((check) => [check.id, check.status])).toEqual([
      ["base-url", "pass"],
      ["reachable", "pass"],
      ["api-key", "pass"],
      ["model", "pass"],
      ["credit", "pass"],
      ["embeddings", "skip"],
      ["rerank", "skip"],
      ["service-name", "pass"],
      ["endpoint", "pass"],
    ]);
    expect(sent.map(({ method, url }) => `${method} ${url}`)).toEqual([
      "POST http://emulator.invalid/inference/v1/chat/completions",
      "GET http://emulator.invalid/inference/v1/models",
      "POST http://emulator.invalid/inference/v1/chat/completions",
      "POST http://emulator.invalid/inference/v1/completions",
    ]);
    const prompt = [{ role: "user", content: "ping" }];
    expect(sent.map(({ body }) => body)).toEqual([
      { model: "inference-service-doctor-no-such-model", messages: prompt, max_tokens: 1 },
      {},
      { model: DEFAULT_MODEL, messages: prompt, max_tokens: 1 },
      { prompt: "ping", max_tokens: 1 },
    ]);
    for (const { headers } of sent)
      expect(headers.get("authorization")).toBe("Bearer sk-emulator-demo");
    expect(sent.map(({ headers }) => headers.get("service-name"))).toEqual([
      null,
      null,
      null,
      DEFAULT_SERVICE_NAME,
    ]);
    expect(diagnosis.availableModels).toEqual([
      DEFAULT_MODEL,
      "emulator-reasoner",
      "emulator-thinker",
      "emulator-r1",
      "emulator-vllm",
      "emulator-think-tags",
      "emulator-think-open",
      "emulator-embedding",
      "emulator-rerank",
    ]);

    const checks = checksOf(diagnosis);
    expect(checks["base-url"].detail).toBe(
      "http://emulator.invalid/inference/v1 (from the `baseURL` option; as given).",
    );
    expect(checks.reachable.requestId).toBe(requestId(0));
    expect(checks["api-key"]).toMatchObject({ requestId: requestId(0), title: "API key" });
    expect(checks["api-key"].detail).toContain("sk-e…demo (from the `apiKey` option) accepted");
    expect(checks["api-key"].detail).toContain("costs nothing");
    expect(checks.model.requestId).toBe(requestId(2));
    expect(checks.model.detail).toContain("may cost a few tokens");
    expect(checks.credit.requestId).toBe(requestId(2));
    expect(checks.endpoint.requestId).toBe(requestId(3));
    expect(checks.endpoint.detail).toContain("tenant-demo.demo-endpoint is Running");
    for (const check of diagnosis.checks) expect(check.fix).toBeUndefined();
  });

  it("checks a model ID given with outer spaces as the models would send it: trimmed", async () => {
    const { sent, run } = setup();
    const diagnosis = await run({ model: ` ${DEFAULT_MODEL}\n` });
    expect(checksOf(diagnosis).model.status).toBe("pass");
    expect(sent[2]?.body.model).toBe(DEFAULT_MODEL);
  });

  it("reads the key, base URL, tenant ID and job alias from the models' env variables", async () => {
    const { emulator, sent, run } = setup();
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", emulator.apiKey);
    vi.stubEnv("INFERENCE_SERVICE_BASE_URL", "http://emulator.invalid/");
    vi.stubEnv("INFERENCE_SERVICE_TENANT_ID", "tenant-demo");
    vi.stubEnv("INFERENCE_SERVICE_JOB_ALIAS", "demo-endpoint");
    const diagnosis = await run({ apiKey: undefined, baseURL: undefined });

    expect(diagnosis.ok).toBe(true);
    const checks = checksOf(diagnosis);
    expect(checks["base-url"].detail).toBe(
      "http://emulator.invalid/inference/v1 (from INFERENCE_SERVICE_BASE_URL; added /inference/v1).",
    );
    expect(checks["api-key"].detail).toContain("(from INFERENCE_SERVICE_API_KEY)");
    expect(checks["service-name"].detail).toBe(
      'tenant-demo.demo-endpoint: tenant ID "tenant-demo", job alias "demo-endpoint".',
    );
    expect(checks.model.status).toBe("skip");
    expect(checks.credit.detail).toMatch(/^Skipped: needs a model ID .* may cost a few tokens\.$/);
    expect(sent.at(-1)?.headers.get("service-name")).toBe(DEFAULT_SERVICE_NAME);
  });

  it("never puts the API key in the diagnosis, only its masked form", async () => {
    const { run } = setup();
    const json = JSON.stringify(
      await run({ model: DEFAULT_MODEL, serviceName: PENDING_SERVICE_NAME }),
    );
    expect(json).not.toContain("sk-emulator-demo");
    expect(json).toContain("sk-e…demo");
  });
});

describe("diagnose: the base URL", () => {
  it.each([
    ["http://emulator.invalid", "pass", "added /inference/v1"],
    ["http://emulator.invalid/inference", "pass", "added /v1"],
    ["http://emulator.invalid/inference/v1/", "pass", "removed the trailing slash"],
    ["http://emulator.invalid/inference/v1/chat/completions", "warn", "removed /chat/completions"],
    ["http://emulator.invalid/inference/v1/chat/completion", "warn", "removed /chat/completion"],
    ["http://emulator.invalid/v1", "warn", "replaced /v1 with /inference/v1"],
  ])("normalises %s (%s: %s) and reaches the API", async (baseURL, status, change) => {
    const { run } = setup();
    const diagnosis = await run({ baseURL });
    const check = checksOf(diagnosis)["base-url"];
    expect(check).toMatchObject({
      status,
      detail: `http://emulator.invalid/inference/v1 (from the \`baseURL\` option; ${change}).`,
    });
    if (status === "warn") {
      expect(check.fix).toBe(
        "Set the `baseURL` option to http://emulator.invalid/inference/v1, so that other clients (the openai SDK, curl) reach the API too.",
      );
    }
    expect(diagnosis.ok).toBe(true);
    expect(checksOf(diagnosis).reachable.status).toBe("pass");
  });

  it("never advises the repaired URL when the check below finds it is not the API either", async () => {
    const { run } = setup();
    const diagnosis = await run({ baseURL: "http://emulator.invalid/api/v1" });
    const checks = checksOf(diagnosis);
    expect(checks.reachable).toMatchObject({ status: "fail", error: { name: "BaseURLError" } });
    expect(checks["base-url"]).toMatchObject({
      status: "warn",
      detail:
        "http://emulator.invalid/api/inference/v1 (from the `baseURL` option; replaced /v1 with /inference/v1).",
      fix: "Set the `baseURL` option to the service's own …/inference/v1 URL: http://emulator.invalid/api/inference/v1, made from it by this package, is not the API either (see the check below).",
    });
    for (const check of diagnosis.checks) {
      expect(check.fix ?? "").not.toMatch(/to http:\/\/emulator\.invalid\/api\/inference\/v1/);
    }
  });

  it("fails with the ConfigurationError's message as the fix when the base URL is unusable, sending nothing", async () => {
    const { sent, run } = setup();
    const missing = checksOf(await run({ baseURL: undefined }))["base-url"];
    expect(missing).toMatchObject({ status: "fail", error: { name: "ConfigurationError" } });
    expect(missing.fix).toContain("Pass `baseURL` or set INFERENCE_SERVICE_BASE_URL");

    const diagnosis = await run({ baseURL: "ftp://emulator.invalid/inference/v1" });
    expect(checksOf(diagnosis)["base-url"].fix).toContain('must use http or https, not "ftp:"');
    expect(statuses(diagnosis)).toMatchObject({
      reachable: "skip",
      "api-key": "skip",
      model: "skip",
      credit: "skip",
      endpoint: "skip",
    });
    expect(sent).toHaveLength(0);
  });

  it.each([
    [
      "to another origin",
      "https://emulator.invalid/inference/v1/chat/completions",
      "cross_origin_redirect",
      "The service redirected the call to another origin (https://emulator.invalid); the key is never sent there. (status 301, code cross_origin_redirect)",
    ],
    [
      "in a loop",
      "/inference/v1/chat/completions/?token=abc",
      "too_many_redirects",
      "The service redirected the call 5 times without answering (a redirect loop, last to http://emulator.invalid/inference/v1/chat/completions/). (status 301, code too_many_redirects)",
    ],
  ])(
    "says a base URL that redirects %s was redirected, and where, not that it answered HTML",
    async (_how, location, code, summary) => {
      const { run } = setup(
        undefined,
        (fetch) => async (input, init) =>
          new URL(String(input)).pathname.startsWith("/inference/v1/chat/completions")
            ? new Response(null, { status: 301, headers: { location } })
            : fetch(input, init),
      );
      const check = checksOf(await run()).reachable;
      expect(check).toMatchObject({
        status: "fail",
        detail: `POST http://emulator.invalid/inference/v1/chat/completions was redirected: ${summary}`,
        error: { name: "BaseURLError", code, status: 301 },
      });
      expect(check.detail).not.toMatch(/HTML|abc/);
    },
  );

  it("recognises the HTML 200 of a base that does not reach /inference/v1 (docs/service-contract.md#hosted-models, rule 2)", async () => {
    const { sent, run, requestId } = setup();
    const diagnosis = await run({
      baseURL: "http://emulator.invalid/console",
      model: DEFAULT_MODEL,
      serviceName: DEFAULT_SERVICE_NAME,
    });

    expect(diagnosis.ok).toBe(false);
    const check = checksOf(diagnosis).reachable;
    expect(check).toMatchObject({
      status: "fail",
      requestId: requestId(0),
      error: { name: "BaseURLError", status: 200 },
      fix: "That URL is not the inference service's API (a console page, or a wrong path prefix): set `baseURL` to the service's host root or its …/inference/v1 URL.",
    });
    expect(check.detail).toContain(
      "answered HTTP 200 with an HTML page instead of the API's JSON.",
    );
    expect(statuses(diagnosis)).toMatchObject({
      "api-key": "skip",
      model: "skip",
      credit: "skip",
      "service-name": "pass",
      endpoint: "skip",
    });
    expect(sent).toHaveLength(1);
  });

  it("recognises a 404 Invalid URL, e.g. from a proxy that rewrites the path (docs/service-contract.md#hosted-models, rule 1)", async () => {
    const singular: (fetch: Fetch) => Fetch = (fetch) => (input, init) =>
      fetch(String(input).replace("/chat/completions", "/chat/completion"), init);
    const { run, requestId } = setup(undefined, singular);
    const check = checksOf(await run()).reachable;
    expect(check).toMatchObject({
      status: "fail",
      requestId: requestId(0),
      error: { name: "InvalidURLError", status: 404, code: "" },
    });
    expect(check.detail).toContain("HTTP 404 Invalid URL (POST /v1/chat/completion)");
    expect(check.fix).toContain("the path is plural: /chat/completions");
  });

  it("passes the probe's expected answers without showing an error status next to the ✔", async () => {
    const cases: Array<[DiagnoseOptions, EmulatorOptions | undefined, string]> = [
      [{}, undefined, "said it does not know it, as expected"],
      [{ apiKey: "sk-not-a-real-key" }, undefined, "it refused the API key"],
    ];
    for (const [overrides, options, words] of cases) {
      const { run } = setup(options);
      const check = checksOf(await run(overrides)).reachable;
      expect(check.status).toBe("pass");
      expect(check.detail).toContain(words);
      expect(check.detail).not.toMatch(/HTTP \d|503|401|error/i);
    }
  });

  it.each(["429", "500", "502", "503"])(
    "warns, not passes, when the probe gets a %s the service means as a failure",
    async (fault) => {
      const faulty: (fetch: Fetch) => Fetch = (fetch) => (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set("X-Emulator-Fault", fault);
        return fetch(input, { ...init, headers });
      };
      const { run, requestId } = setup(undefined, faulty);
      const diagnosis = await run();
      const check = checksOf(diagnosis).reachable;
      expect(check).toMatchObject({ status: "warn", requestId: requestId(0) });
      expect(check.detail).toContain("reached the service, but its answer was unexpected");
      expect(check.detail).toContain(`status ${fault}`);
      expect(check.fix).toBeDefined();
      expect(checksOf(diagnosis)["api-key"].status).toBe("warn");
    },
  );

  it("fails on an unreachable host with the connection error's fix, and checks nothing else", async () => {
    const refused: Fetch = async () => {
      throw new TypeError("fetch failed", {
        cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), {
          code: "ECONNREFUSED",
        }),
      });
    };
    const diagnosis = await diagnose({
      apiKey: "sk-emulator-demo",
      baseURL: "http://127.0.0.1:9",
      model: DEFAULT_MODEL,
      serviceName: DEFAULT_SERVICE_NAME,
      fetch: refused,
    });
    const check = checksOf(diagnosis).reachable;
    expect(check).toMatchObject({
      status: "fail",
      error: { name: "ServiceConnectionError" },
      fix: "Check the host and port of `baseURL` and that the service is up there; connection failures are retried automatically.",
    });
    expect(check.detail).toBe(
      "Could not reach the inference service at http://127.0.0.1:9/inference/v1/chat/completions: nothing accepted the connection on that host and port (ECONNREFUSED).",
    );
    expect(check.requestId).toBeUndefined();
    expect(statuses(diagnosis)).toMatchObject({
      "api-key": "skip",
      model: "skip",
      credit: "skip",
      endpoint: "skip",
    });
  });

  it("fails a request that outlives `timeout` as a typed timeout", async () => {
    const silent: Fetch = (_input, init) =>
      new Promise((_resolve, reject) => {
        init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
      });
    const diagnosis = await diagnose({
      apiKey: "sk-emulator-demo",
      baseURL: "http://emulator.invalid",
      fetch: silent,
      timeout: 1,
    });
    expect(checksOf(diagnosis).reachable).toMatchObject({
      status: "fail",
      detail: "The service did not answer before the timeout. (code timeout)",
      error: { name: "ServiceTimeoutError", code: "timeout" },
    });
  });

  it("rejects an invalid `timeout` where it enters", async () => {
    await expect(diagnose({ timeout: 0 })).rejects.toThrow(ConfigurationError);
    await expect(diagnose({ timeout: 0 })).rejects.toThrow("`timeout` must be");
  });
});

describe("diagnose: key, model and credit (hosted surface)", () => {
  it("fails an invalid key with 401 and skips model and credit", async () => {
    const { sent, run, requestId } = setup();
    const diagnosis = await run({ apiKey: "sk-not-a-real-key", model: DEFAULT_MODEL });
    expect(diagnosis.ok).toBe(false);
    expect(checksOf(diagnosis)["api-key"]).toMatchObject({
      status: "fail",
      detail:
        "sk-n…-key (from the `apiKey` option) rejected with HTTP 401: the key is missing, invalid or expired.",
      fix: "Set a valid, unexpired key with `apiKey` or INFERENCE_SERVICE_API_KEY.",
      requestId: requestId(0),
      error: { name: "AuthenticationError", status: 401, code: "" },
    });
    expect(statuses(diagnosis)).toMatchObject({ reachable: "pass", model: "skip", credit: "skip" });
    expect(sent).toHaveLength(1);
    expect(JSON.stringify(diagnosis)).not.toContain("sk-not-a-real-key");
  });

  it("fails an expired key on both surfaces (docs/service-contract.md#authentication, rule 3, docs/service-contract.md#errors, rule 7)", async () => {
    const { run, requestId } = setup();
    const checks = checksOf(
      await run({ apiKey: EXPIRED_API_KEY, serviceName: DEFAULT_SERVICE_NAME }),
    );
    expect(checks["api-key"]).toMatchObject({ status: "fail", requestId: requestId(0) });
    expect(checks.endpoint).toMatchObject({
      status: "fail",
      requestId: requestId(1),
      error: { name: "AuthenticationError", status: 401 },
      fix: "Use a valid, unexpired key that has the Inference Service permission (set `apiKey` or INFERENCE_SERVICE_API_KEY).",
    });
    expect(checks.endpoint.detail).toContain("the key is invalid or expired");
  });

  it("fails a missing key with the ConfigurationError's message, still probing the base without one", async () => {
    const { sent, run } = setup();
    const diagnosis = await run({ apiKey: undefined, model: DEFAULT_MODEL });
    const checks = checksOf(diagnosis);
    expect(checks.reachable).toMatchObject({ status: "pass" });
    expect(checks.reachable.detail).toContain("it refused the API key");
    expect(checks["api-key"]).toMatchObject({
      status: "fail",
      fix: "Inference service API key not found. Pass `apiKey` or set INFERENCE_SERVICE_API_KEY (OPENAI_API_KEY and the other OPENAI_* variables are not read).",
      error: { name: "ConfigurationError" },
    });
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers.has("authorization")).toBe(false);
  });

  it("fails a key no header can carry as a check, by its position, before and without any request", async () => {
    const { sent, run } = setup();
    const key = "sk-emulator-demo\u200b";
    const diagnosis = await run({
      apiKey: key,
      model: DEFAULT_MODEL,
      serviceName: DEFAULT_SERVICE_NAME,
    });
    const checks = checksOf(diagnosis);
    expect(diagnosis.ok).toBe(false);
    expect(checks["api-key"]).toMatchObject({
      status: "fail",
      detail:
        "The API key cannot be sent: it holds a character that cannot be part of a key; no request carried it.",
      error: { name: "ConfigurationError" },
    });
    expect(checks["api-key"].fix).toMatch(
      /^`apiKey` has a zero-width space \(U\+200B\) at character 17 of the key: /,
    );
    expect(checks.endpoint).toMatchObject({
      status: "skip",
      detail: "Skipped: the API key cannot be sent.",
    });
    expect(JSON.stringify(diagnosis)).not.toContain("emulator-demo");
    expect(sent.every((request) => !request.headers.has("authorization"))).toBe(true);

    // Known without a request: it fails even when the base URL leaves nothing to probe.
    const unreachable = checksOf(await run({ apiKey: key, baseURL: "ftp://nowhere" }));
    expect(unreachable.reachable.status).toBe("skip");
    expect(unreachable["api-key"]).toMatchObject({
      status: "fail",
      error: { name: "ConfigurationError" },
    });
  });

  it("fails an unknown model with 503 model_not_found, naming the listed models and the near miss, and skips the credit", async () => {
    const { run, requestId } = setup();
    const diagnosis = await run({ model: "emulator-caht" });
    expect(checksOf(diagnosis).model).toMatchObject({
      status: "fail",
      detail:
        '"emulator-caht" is unknown to the service: HTTP 503 model_not_found; the service is not down.',
      fix: 'Check the model ID passed as `model`; retrying will not help. Did you mean "emulator-chat"? The service lists 9 models: emulator-chat, emulator-reasoner, emulator-thinker, emulator-r1, emulator-vllm, emulator-think-tags, emulator-think-open, emulator-embedding, emulator-rerank.',
      requestId: requestId(2),
      error: { name: "ModelNotFoundError", status: 503, code: "model_not_found" },
    });
    expect(checksOf(diagnosis).credit).toMatchObject({
      status: "skip",
      detail: "Skipped: needs a model ID the service knows.",
    });
  });

  it("keeps the plain fix, and sends no second list request, when the service does not serve the list route", async () => {
    const { run, sent } = setup(
      undefined,
      (inner) => async (input, init) =>
        init?.method === "GET"
          ? new Response("<!doctype html><title>console</title>", {
              headers: { "content-type": "text/html" },
            })
          : inner(input, init),
    );
    const diagnosis = await run({ model: "no-such-model" });
    expect(checksOf(diagnosis).model.fix).toBe(
      "Check the model ID passed as `model`; retrying will not help.",
    );
    expect(diagnosis.availableModels).toBeUndefined();
    expect(sent.filter(({ method }) => method === "GET")).toHaveLength(1);
  });

  it("names the listed models when the model check is skipped for want of a model ID", async () => {
    const { run } = setup();
    expect(checksOf(await run()).model.detail).toBe(
      "Skipped: no model ID given (`model`). The service lists 9 models: emulator-chat, emulator-reasoner, emulator-thinker, emulator-r1, emulator-vllm, emulator-think-tags, emulator-think-open, emulator-embedding, emulator-rerank.",
    );
  });

  it("fails an account without credit with 403 insufficient_user_quota, and knows the model", async () => {
    const { emulator, run, requestId } = setup();
    emulator.state.setCredit(0);
    const diagnosis = await run({ model: DEFAULT_MODEL });
    const checks = checksOf(diagnosis);
    expect(checks.credit).toMatchObject({
      status: "fail",
      fix: "Top up the account's credit; this is not a rate limit and retrying will not help.",
      requestId: requestId(2),
      error: { name: "InsufficientCreditError", status: 403, code: "insufficient_user_quota" },
    });
    expect(checks.credit.detail).toContain("not a rate limit");
    // The probe's unknown model got 503 with no credit: the service checks the model first.
    expect(checks.model).toMatchObject({ status: "pass", requestId: requestId(2) });
    expect(checks.model.detail).toContain("checks the model before the credit");
    expect(diagnosis.ok).toBe(false);
  });

  it("cannot see an empty Wallet without a model ID, and says so", async () => {
    const { emulator, run } = setup();
    emulator.state.setCredit(0);
    const diagnosis = await run();
    expect(diagnosis.ok).toBe(true);
    expect(checksOf(diagnosis).credit.status).toBe("skip");
  });

  it("reports the credit from the key probe when a service checks credit before the model", async () => {
    const creditFirst: Fetch = async () =>
      new Response(JSON.stringify(bodies.noCredit), {
        status: 403,
        headers: { "content-type": "application/json", "x-gateway-request-id": "rid-403" },
      });
    const diagnosis = await diagnose({
      apiKey: "sk-emulator-demo",
      baseURL: "http://emulator.invalid",
      fetch: creditFirst,
      model: DEFAULT_MODEL,
    });
    expect(statuses(diagnosis)).toMatchObject({
      "api-key": "pass",
      model: "skip",
      credit: "fail",
    });
    expect(checksOf(diagnosis).model.detail).toContain("refused the call for credit before");
    expect(checksOf(diagnosis).credit.requestId).toBe("rid-403");
  });

  it("fails a model whose 200 has no choices with the chat model's own check (docs/service-contract.md#errors, rule 4)", async () => {
    const { sent, run } = setup(undefined, (fetch) => async (input, init) => {
      const body = JSON.parse(String(init?.body ?? "{}")) as { model?: string };
      if (body.model !== DEFAULT_MODEL) return fetch(input, init);
      return new Response(JSON.stringify({ object: "chat.completion", choices: [] }), {
        headers: { "content-type": "application/json", "x-gateway-request-id": "rid-empty" },
      });
    });
    const checks = checksOf(await run({ model: DEFAULT_MODEL }));
    expect(sent).toHaveLength(3);
    expect(checks.model).toMatchObject({
      status: "fail",
      requestId: "rid-empty",
      error: { name: "MalformedResponseError" },
    });
    expect(checks.model.detail).toMatch(
      /^"emulator-chat" answered: The service's answer is not usable: the JSON body has no non-empty `choices` array/,
    );
    expect(checks.credit.status).toBe("skip");
  });

  it("warns, without failing, when a passing fault hides the key's verdict", async () => {
    const faulty: (fetch: Fetch) => Fetch = (fetch) => (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("X-Emulator-Fault", "502");
      return fetch(input, { ...init, headers });
    };
    const { run, requestId } = setup(undefined, faulty);
    const diagnosis = await run();
    const check = checksOf(diagnosis)["api-key"];
    expect(check).toMatchObject({
      status: "warn",
      requestId: requestId(0),
      error: { name: "ServiceUnavailableError", status: 502 },
    });
    expect(check.detail).toMatch(
      /^sk-e…demo \(from the `apiKey` option\) could not be confirmed: /,
    );
    expect(diagnosis.ok).toBe(true);
  });
});

describe("diagnose: an embedding model (a route the service contract does not show)", () => {
  it("skips the check, sending nothing for it, when no embedding model is configured", async () => {
    const { sent, run } = setup();
    const diagnosis = await run();
    expect(checksOf(diagnosis).embeddings).toMatchObject({
      title: "Embedding model",
      status: "skip",
      detail:
        "Skipped: no embedding model ID given (`embeddingModel` or INFERENCE_SERVICE_EMBEDDING_MODEL).",
    });
    expect(sent.some(({ url }) => url.endsWith("/embeddings"))).toBe(false);
  });

  it("passes with one embedding of one word, taking the ID from the option, trimmed, or the env variable", async () => {
    for (const [options, env] of [
      [{ embeddingModel: "  emulator-embedding " }, ""],
      [{}, "emulator-embedding"],
    ] as const) {
      vi.stubEnv("INFERENCE_SERVICE_EMBEDDING_MODEL", env);
      const { sent, run, requestId } = setup();
      const diagnosis = await run(options);
      const posted = sent.findIndex(({ url }) => url.endsWith("/inference/v1/embeddings"));
      expect(sent[posted]?.body).toEqual({
        model: "emulator-embedding",
        input: ["ping"],
        encoding_format: "float",
      });
      expect(checksOf(diagnosis).embeddings).toEqual({
        id: "embeddings",
        title: "Embedding model",
        status: "pass",
        detail:
          '"emulator-embedding" answered one embedding of 256 dimensions (1 token used); this check may cost a token or two.',
        requestId: requestId(posted),
      });
      expect(diagnosis.ok).toBe(true);
    }
  });

  it("fails an unknown embedding model with 503 model_not_found, naming the option and the near miss", async () => {
    const { run } = setup();
    const diagnosis = await run({ embeddingModel: "emulator-embeding" });
    expect(diagnosis.ok).toBe(false);
    expect(checksOf(diagnosis).embeddings).toMatchObject({
      status: "fail",
      detail:
        '"emulator-embeding" is unknown to the service: HTTP 503 model_not_found; the service is not down.',
      fix: expect.stringMatching(
        /^Check the model ID passed as `embeddingModel`; retrying will not help\. Did you mean "emulator-embedding"\?/,
      ),
      error: { name: "ModelNotFoundError", status: 503, code: "model_not_found" },
    });
  });

  /** An emulator whose `/embeddings` answers `status` and `body` instead, with the request ID `rid`. */
  const answeringEmbeddings = (status: number, body: unknown, rid: string) =>
    setup(
      undefined,
      (inner) => async (input, init) =>
        String(input).endsWith("/embeddings")
          ? new Response(JSON.stringify(body), {
              status,
              headers: { "content-type": "application/json", "x-gateway-request-id": rid },
            })
          : inner(input, init),
    );

  it("fails with 'no embeddings at this URL' where the deployment answers the route with 404", async () => {
    const { run } = answeringEmbeddings(
      404,
      {
        error: {
          message: "Invalid URL (POST /v1/embeddings)",
          type: "invalid_request_error",
          code: "",
        },
      },
      "2026112400000000000000000000abcd",
    );
    const diagnosis = await run({ embeddingModel: "emulator-embedding" });
    expect(checksOf(diagnosis).embeddings).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(
        /^The service offers no embeddings at this URL: Invalid URL \(POST \/v1\/embeddings\)\./,
      ),
      fix: expect.stringContaining("does not serve /embeddings"),
      requestId: "2026112400000000000000000000abcd",
      error: { name: "InvalidURLError", status: 404 },
    });
  });

  it.each([
    ["an empty vector", []],
    ["a base64 vector holding NaN", "AADAfw=="],
  ])("fails on an answer with %s, as the embeddings class refuses it", async (_name, embedding) => {
    const { run } = answeringEmbeddings(
      200,
      { data: [{ index: 0, embedding }] },
      "2026112400000000000000000000abce",
    );
    const diagnosis = await run({ embeddingModel: "emulator-embedding" });
    expect(checksOf(diagnosis).embeddings).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(
        /^"emulator-embedding" answered: The service's answer is not usable: `data\[0\]\.embedding` (is empty|holds NaN or ±Infinity)/,
      ),
      requestId: "2026112400000000000000000000abce",
      error: { name: "MalformedResponseError", status: 200 },
    });
  });

  it("skips the check when the key was not accepted", async () => {
    const { sent, run } = setup();
    const diagnosis = await run({ apiKey: "sk-wrong", embeddingModel: "emulator-embedding" });
    expect(checksOf(diagnosis).embeddings).toMatchObject({
      status: "skip",
      detail: "Skipped: the API key was not accepted.",
    });
    expect(sent.some(({ url }) => url.endsWith("/embeddings"))).toBe(false);
  });
});

describe("diagnose: a rerank model (a route the service contract does not show)", () => {
  it("skips the check, sending nothing for it, when no rerank model is configured", async () => {
    const { sent, run } = setup();
    const diagnosis = await run();
    expect(checksOf(diagnosis).rerank).toMatchObject({
      title: "Rerank model",
      status: "skip",
      detail:
        "Skipped: no rerank model ID given (`rerankModel` or INFERENCE_SERVICE_RERANK_MODEL).",
    });
    expect(sent.some(({ url }) => url.endsWith("/rerank"))).toBe(false);
  });

  it("passes with one rerank of one document, taking the ID from the option, trimmed, or the env variable", async () => {
    for (const [options, env] of [
      [{ rerankModel: "  emulator-rerank " }, ""],
      [{}, "emulator-rerank"],
    ] as const) {
      vi.stubEnv("INFERENCE_SERVICE_RERANK_MODEL", env);
      const { sent, run, requestId } = setup();
      const diagnosis = await run(options);
      const posted = sent.findIndex(({ url }) => url.endsWith("/inference/v1/rerank"));
      expect(sent[posted]?.body).toEqual({
        model: "emulator-rerank",
        query: "ping",
        documents: ["ping"],
        top_n: 1,
        return_documents: false,
      });
      expect(checksOf(diagnosis).rerank).toEqual({
        id: "rerank",
        title: "Rerank model",
        status: "pass",
        detail:
          '"emulator-rerank" ranked one document, relevance score 0.667 (2 tokens used); this check may cost a token or two.',
        requestId: requestId(posted),
      });
      expect(diagnosis.ok).toBe(true);
    }
  });

  it("fails an unknown rerank model with 503 model_not_found, naming the option and the near miss", async () => {
    const { run } = setup();
    const diagnosis = await run({ rerankModel: "emulator-rerankk" });
    expect(diagnosis.ok).toBe(false);
    expect(checksOf(diagnosis).rerank).toMatchObject({
      status: "fail",
      detail:
        '"emulator-rerankk" is unknown to the service: HTTP 503 model_not_found; the service is not down.',
      fix: expect.stringMatching(
        /^Check the model ID passed as `rerankModel`; retrying will not help\. Did you mean "emulator-rerank"\?/,
      ),
      error: { name: "ModelNotFoundError", status: 503, code: "model_not_found" },
    });
  });

  /** An emulator whose `/rerank` answers `status` and `body` instead, with the request ID `rid`. */
  const answeringRerank = (status: number, body: unknown, rid: string) =>
    setup(
      undefined,
      (inner) => async (input, init) =>
        String(input).endsWith("/rerank")
          ? new Response(JSON.stringify(body), {
              status,
              headers: { "content-type": "application/json", "x-gateway-request-id": rid },
            })
          : inner(input, init),
    );

  it("fails with 'no rerank at this URL' where the deployment answers the route with 404", async () => {
    const { run } = answeringRerank(
      404,
      {
        error: {
          message: "Invalid URL (POST /v1/rerank)",
          type: "invalid_request_error",
          code: "",
        },
      },
      "2026112400000000000000000000abcf",
    );
    const diagnosis = await run({ rerankModel: "emulator-rerank" });
    expect(checksOf(diagnosis).rerank).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(
        /^The service offers no rerank at this URL: Invalid URL \(POST \/v1\/rerank\)\./,
      ),
      fix: expect.stringContaining("does not serve /rerank"),
      requestId: "2026112400000000000000000000abcf",
      error: { name: "InvalidURLError", status: 404 },
    });
  });

  it.each([
    ["no results", { results: [] }, /`results` holds 0 results for 1 documents/],
    [
      "an index out of range",
      { results: [{ index: 3, relevance_score: 0.5 }] },
      /`results\[0\]\.index` is not a position of the documents/,
    ],
    [
      "a score that is not a number",
      { results: [{ index: 0, relevance_score: "high" }] },
      /`results\[0\]\.relevance_score` is not a finite number/,
    ],
  ])("fails on an answer with %s, as the rerank class refuses it", async (_name, body, detail) => {
    const { run } = answeringRerank(200, body, "2026112400000000000000000000abd0");
    const diagnosis = await run({ rerankModel: "emulator-rerank" });
    expect(checksOf(diagnosis).rerank).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(detail),
      requestId: "2026112400000000000000000000abd0",
      error: { name: "MalformedResponseError", status: 200 },
    });
  });

  it("skips the check when the key was not accepted, or the API could not be reached", async () => {
    const { sent, run } = setup();
    const refused = await run({ apiKey: "sk-wrong", rerankModel: "emulator-rerank" });
    expect(checksOf(refused).rerank).toMatchObject({
      status: "skip",
      detail: "Skipped: the API key was not accepted.",
    });
    const unreached = await diagnose({
      apiKey: "sk-emulator-demo",
      baseURL: "http://127.0.0.1:1",
      rerankModel: "emulator-rerank",
      timeout: 2_000,
    });
    expect(checksOf(unreached).rerank).toMatchObject({
      status: "skip",
      detail: "Skipped: the API could not be reached.",
    });
    expect(sent.some(({ url }) => url.endsWith("/rerank"))).toBe(false);
  });
});

describe("diagnose: dedicated endpoint (docs/service-contract.md#dedicated-endpoints, docs/service-contract.md#errors, rule 7)", () => {
  it("passes a Running endpoint with its request ID", async () => {
    const { run, requestId } = setup();
    const checks = checksOf(await run({ tenantId: "tenant-demo", jobAlias: "demo-endpoint" }));
    expect(checks["service-name"].status).toBe("pass");
    expect(checks.endpoint).toMatchObject({ status: "pass", requestId: requestId(2) });
  });

  it("fails a key without the Inference Service permission that works on the hosted surface", async () => {
    const { run, requestId } = setup();
    const diagnosis = await run({
      apiKey: NO_PERMISSION_API_KEY,
      serviceName: DEFAULT_SERVICE_NAME,
    });
    const checks = checksOf(diagnosis);
    expect(checks["api-key"].status).toBe("pass");
    expect(checks.endpoint).toMatchObject({
      status: "fail",
      detail:
        "HTTP 401 from tenant-demo.demo-endpoint: the key works on the hosted surface, so it lacks the Inference Service permission.",
      fix: "Use a valid, unexpired key that has the Inference Service permission (set `apiKey` or INFERENCE_SERVICE_API_KEY).",
      requestId: requestId(2),
      error: { name: "AuthenticationError", status: 401 },
    });
  });

  it("fails an unknown Service-Name with 404 and the Service-Name fix", async () => {
    const { run, requestId } = setup();
    const check = checksOf(await run({ serviceName: "tenant-demo.no-such-endpoint" })).endpoint;
    expect(check).toMatchObject({
      status: "fail",
      requestId: requestId(2),
      error: { name: "ServiceNameError", status: 404 },
      fix: "Service-Name must be <TENANT_ID>.<JOB_ALIAS_NAME>: the tenant ID from the console sidebar, one dot, the endpoint's job alias.",
    });
    expect(check.detail).toContain(
      "no deployment answers to Service-Name tenant-demo.no-such-endpoint",
    );
  });

  it("fails a Pending endpoint (closed connection) as not ready, with no request ID to quote", async () => {
    const { run } = setup();
    const check = checksOf(await run({ serviceName: PENDING_SERVICE_NAME })).endpoint;
    expect(check).toMatchObject({
      status: "fail",
      detail:
        'The dedicated endpoint "tenant-demo.pending-endpoint" at http://emulator.invalid/inference/v1/completions is not serving yet (still Pending): the server closed the connection without answering (ECONNRESET).',
      error: { name: "EndpointNotReadyError" },
    });
    expect(check.fix).toContain(
      "Wait until the endpoint's Scaling in the console shows every replica running",
    );
    expect(check.fix).not.toContain("Pending");
    expect(check.requestId).toBeUndefined();
  });

  it("fails an endpoint's empty 200 as not ready, by the fetch layer's check the model uses", async () => {
    const { run } = setup(
      undefined,
      (fetch) => async (input, init) =>
        String(input).endsWith("/v1/completions")
          ? new Response("", {
              headers: { "content-type": "application/json", "content-length": "0" },
            })
          : fetch(input, init),
    );
    const check = checksOf(await run({ serviceName: DEFAULT_SERVICE_NAME })).endpoint;
    expect(check).toMatchObject({ status: "fail", error: { name: "EndpointNotReadyError" } });
    expect(check.detail).toContain(
      "answered with an empty response: it is not serving yet (still Pending).",
    );
  });

  it("fails an endpoint whose 200 has no readable choice by the LLM's own parser", async () => {
    const { run } = setup(
      undefined,
      (fetch) => async (input, init) =>
        String(input).endsWith("/v1/completions")
          ? new Response(JSON.stringify({ choices: [{ index: 0 }] }), {
              headers: { "content-type": "application/json" },
            })
          : fetch(input, init),
    );
    const check = checksOf(await run({ serviceName: DEFAULT_SERVICE_NAME })).endpoint;
    expect(check).toMatchObject({ status: "fail", error: { name: "MalformedResponseError" } });
    expect(check.detail).toMatch(/^tenant-demo\.demo-endpoint answered: /);
  });

  it("fails a malformed Service-Name without sending the endpoint request", async () => {
    const { sent, run } = setup();
    const diagnosis = await run({ serviceName: "tenant-demo" });
    const checks = checksOf(diagnosis);
    expect(checks["service-name"]).toMatchObject({
      status: "fail",
      detail: "The Service-Name is malformed; no request was sent.",
      error: { name: "ConfigurationError" },
    });
    expect(checks["service-name"].fix).toContain("must contain exactly one dot, found 0");
    expect(checks.endpoint).toMatchObject({ status: "skip" });
    expect(
      sent
        .map(({ url }) => url)
        .filter((url) => url.endsWith("/completions") && !url.includes("chat")),
    ).toEqual([]);
  });

  it("fails a Service-Name with only one of its parts configured", async () => {
    const { sent, run } = setup();
    vi.stubEnv("INFERENCE_SERVICE_TENANT_ID", "tenant-demo");
    const check = checksOf(await run())["service-name"];
    expect(check.status).toBe("fail");
    expect(check.fix).toContain("`jobAlias` not found");
    expect(check.fix).toContain("INFERENCE_SERVICE_JOB_ALIAS");
    expect(sent).toHaveLength(2);
  });

  it("skips the endpoint when no Service-Name is configured", async () => {
    const { run } = setup();
    const checks = checksOf(await run());
    expect(checks["service-name"].status).toBe("skip");
    expect(checks.endpoint).toMatchObject({
      status: "skip",
      detail: "Skipped: no Service-Name configured.",
    });
  });
});

describe("diagnose: whether a model serves the Responses API", () => {
  it("says so from the model list, at no cost: emulator-chat is listed with it, emulator-thinker without", async () => {
    const { run, sent } = setup();
    const served = (await run({ model: "emulator-chat" })).checks.find((c) => c.id === "model")!;
    expect(served.detail).toMatch(/lists it with the Responses API \("openai-response"\)/);
    const chat = (await run({ model: "emulator-thinker" })).checks.find((c) => c.id === "model")!;
    expect(chat.detail).toMatch(/lists it without the Responses API/);
    expect(sent.filter((s) => s.url.endsWith("/responses"))).toEqual([]);
  });
});
