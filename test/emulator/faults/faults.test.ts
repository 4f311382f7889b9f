import { afterEach, describe, expect, it, vi } from "vitest";
import { FaultInjector } from "../../../src/emulator/faults/faults.js";
import {
  DEFAULT_SERVICE_NAME,
  EmulatorConfigError,
  type FaultKind,
} from "../../../src/emulator/index.js";
import {
  bearer,
  CHAT,
  COMPLETIONS,
  chatBody,
  inProcess,
  parseSse,
  post,
  readUntilEnd,
  type TestEmulator,
  TRANSPORTS,
  useEmulator,
} from "../helpers.js";

const fault = (kind: string) => ({ ...bearer(), "x-emulator-fault": kind });

describe.each(TRANSPORTS)("X-Emulator-Fault over the %s", (_name, make) => {
  const emulator = useEmulator(make);

  it("answers 429 rate_limit_exceeded with Retry-After", async () => {
    const response = await post(emulator, CHAT, chatBody(), fault("429"));
    const requestId = response.headers.get("x-gateway-request-id");
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("1");
    expect(await response.json()).toEqual({
      error: {
        code: "rate_limit_exceeded",
        message: `Rate limit exceeded, please retry later (request id: ${requestId})`,
        type: "new_api_error",
      },
    });
  });

  it.each([500, 502, 503])(
    "answers %i with code upstream_error, never model_not_found",
    async (status) => {
      const response = await post(emulator, CHAT, chatBody(), fault(String(status)));
      expect(response.status).toBe(status);
      const { error } = (await response.json()) as { error: Record<string, string> };
      expect(error).toEqual({
        code: "upstream_error",
        message: expect.stringMatching(/ \(request id: \d{32}\)$/),
        type: "new_api_error",
      });
    },
  );

  it("closes the connection with no response for reset", async () => {
    await expect(post(emulator, CHAT, chatBody(), fault("reset"))).rejects.toThrow("fetch failed");
    expect(emulator.state.lastRequest()).toMatchObject({ status: 0, fault: "reset", cost: 0 });
  });

  it("cuts a stream in the middle, without [DONE], for truncate", async () => {
    const response = await post(
      emulator,
      CHAT,
      chatBody("Hello there", { stream: true }),
      fault("truncate"),
    );
    expect(response.status).toBe(200);
    const { text, error } = await readUntilEnd(response);
    expect(error).toBeInstanceOf(TypeError);
    expect(text).toMatch(/^data: \{/);
    expect(text).not.toContain("[DONE]");
    expect(emulator.state.lastRequest()).toMatchObject({
      status: 200,
      fault: "truncate",
      cost: 0,
      totalTokens: 0,
    });
  });

  it("sends half the JSON of a non-streamed call for truncate", async () => {
    const before = emulator.state.credit;
    const response = await post(emulator, CHAT, chatBody(), fault("truncate"));
    const { text, error } = await readUntilEnd(response);
    expect(error).toBeInstanceOf(TypeError);
    expect(text).toMatch(/^\{"id":"chatcmpl-/);
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    expect(emulator.state.credit).toBe(before);
  });

  it("sends two chunks and then an SSE error event for stream-error", async () => {
    const response = await post(
      emulator,
      CHAT,
      chatBody("Hello there", { stream: true }),
      fault("stream-error"),
    );
    const events = parseSse(await response.text());
    const requestId = response.headers.get("x-gateway-request-id");
    expect(events).toHaveLength(3);
    expect(events[2]).toEqual({
      error: {
        code: "upstream_error",
        message: `Upstream stream interrupted (request id: ${requestId})`,
        type: "new_api_error",
      },
    });
  });

  it("answers a non-streamed call 500 upstream_error for stream-error", async () => {
    const response = await post(emulator, CHAT, chatBody(), fault("stream-error"));
    expect(response.status).toBe(500);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      "upstream_error",
    );
  });

  it("injects faults on the dedicated surface too", async () => {
    const response = await post(
      emulator,
      COMPLETIONS,
      { prompt: "Hi" },
      { ...fault("502"), "service-name": DEFAULT_SERVICE_NAME },
    );
    expect(response.status).toBe(502);
  });

  it("applies faults only after authentication", async () => {
    const response = await post(emulator, CHAT, chatBody(), { "x-emulator-fault": "503" });
    expect(response.status).toBe(401);
  });

  it.each([
    ["429-cn", 429, "", "new_api_error", /^您已达到请求数限制.* \(request id: \d{32}\)$/],
    ["access_denied", 403, "access_denied", "new_api_error", /IP .* \(request id: \d{32}\)$/],
    [
      "403-model",
      403,
      "",
      "new_api_error",
      /^This token has no access to model emulator-chat \(request id/,
    ],
    [
      "pre_consume_token_quota_failed",
      403,
      "pre_consume_token_quota_failed",
      "new_api_error",
      /^token quota is not enough/,
    ],
    ["insufficient_user_quota", 403, "insufficient_user_quota", "new_api_error", /^预扣费额度失败/],
    ["invalid_request", 500, "invalid_request", "new_api_error", /^field messages is required/],
    ["sensitive_words_detected", 500, "sensitive_words_detected", "new_api_error", /\(request id/],
    ["prompt_blocked", 400, "prompt_blocked", "prompt_blocked", /^request blocked by Gemini API/],
    ["model_price_error", 400, "model_price_error", "new_api_error", /^model emulator-chat ratio/],
    ["read_request_body_failed", 413, "read_request_body_failed", "new_api_error", /too large/],
    ["api_not_implemented", 501, "api_not_implemented", "new_api_error", /^API not implemented$/],
    ["system_cpu_overloaded", 503, "system_cpu_overloaded", "new_api_error", /负载过高/],
    ["system_memory_overloaded", 503, "system_memory_overloaded", "new_api_error", /负载过高/],
    ["system_disk_overloaded", 503, "system_disk_overloaded", "new_api_error", /负载过高/],
    ["do_request_failed", 500, "do_request_failed", "do_request_failed", /do request failed/],
    [
      "context_length_exceeded",
      400,
      "context_length_exceeded",
      "invalid_request_error",
      /maximum context length/,
    ],
    ["200-error", 200, "upstream_error", "upstream_error", /\(request id: \d{32}\)$/],
  ] as const)(
    "answers %s as the gateway does: HTTP %i, code %j, type %s",
    async (kind, status, code, type, message) => {
      const response = await post(emulator, CHAT, chatBody(), fault(kind));
      expect(response.status).toBe(status);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect(response.headers.get("x-gateway-request-id")).toMatch(/^\d{32}$/);
      const { error } = (await response.json()) as { error: Record<string, string> };
      expect(error).toMatchObject({ code, type, message: expect.stringMatching(message) });
      // Not metered: the call failed.
      expect(emulator.state.lastRequest()).toMatchObject({ status, fault: kind, cost: 0 });
    },
  );

  it("answers 429-empty with the status alone", async () => {
    const response = await post(emulator, CHAT, chatBody(), fault("429-empty"));
    expect(response.status).toBe(429);
    expect(response.headers.get("content-type")).toBeNull();
    expect(await response.text()).toBe("");
  });

  it("answers 503-sse with a JSON error labelled text/event-stream", async () => {
    const response = await post(emulator, CHAT, chatBody("Hi", { stream: true }), fault("503-sse"));
    expect(response.status).toBe(503);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("");
  });

  it("answers html-json with the console page labelled application/json", async () => {
    const response = await post(emulator, CHAT, chatBody(), fault("html-json"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.text()).toMatch(/^<!doctype html>/);
  });

  it("answers redirect-loop with a 307 back to the same path", async () => {
    const response = await emulator.fetch(`${emulator.url}${CHAT}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...fault("redirect-loop") },
      body: JSON.stringify(chatBody()),
      redirect: "manual",
    });
    expect(response.status).toBe(307);
    expect(response.headers.get("location")).toBe(CHAT);
  });

  it.each([
    ["a stream", true],
    ["a JSON answer", false],
  ])("sends the headers of %s and then nothing for stall", async (_what, stream) => {
    const controller = new AbortController();
    const response = await emulator.fetch(`${emulator.url}${CHAT}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...fault("stall") },
      body: JSON.stringify(chatBody("Hi", { stream })),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const first = reader.read().then(
      () => "data",
      () => "aborted",
    );
    const waited = await Promise.race([
      first,
      new Promise((resolve) => setTimeout(() => resolve("nothing"), 100)),
    ]);
    expect(waited).toBe("nothing");
    controller.abort();
    await reader.cancel().catch(() => {});
  });

  it("sends half the events and then nothing for stall-mid", async () => {
    const controller = new AbortController();
    const response = await emulator.fetch(`${emulator.url}${CHAT}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...fault("stall-mid") },
      body: JSON.stringify(chatBody("Hello there, world", { stream: true })),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    let text = "";
    const decoder = new TextDecoder();
    for (;;) {
      const next = await Promise.race([
        reader.read(),
        new Promise<"stalled">((resolve) => setTimeout(() => resolve("stalled"), 100)),
      ]);
      if (next === "stalled") break;
      if (next.done) throw new Error("the stream ended");
      text += decoder.decode(next.value);
    }
    expect(parseSse(text).length).toBeGreaterThan(0);
    expect(text).not.toContain("[DONE]");
    controller.abort();
    await reader.cancel().catch(() => {});
  });

  it("answers empty with a 200 and no body, streamed or not", async () => {
    for (const stream of [true, false]) {
      const response = await post(emulator, CHAT, chatBody("Hi", { stream }), fault("empty"));
      expect(response.status).toBe(200);
      expect(await response.text()).toBe("");
    }
  });

  it("answers no-choices with choices: [] or a stream of the usage chunk alone", async () => {
    const json = await post(emulator, CHAT, chatBody(), fault("no-choices"));
    expect(((await json.json()) as { choices: unknown[] }).choices).toEqual([]);
    const streamed = await post(
      emulator,
      CHAT,
      chatBody("Hi", { stream: true, stream_options: { include_usage: true } }),
      fault("no-choices"),
    );
    const events = parseSse(await streamed.text());
    expect(events.at(-1)).toBe("[DONE]");
    expect(events.slice(0, -1)).toEqual([
      expect.objectContaining({ choices: [], usage: expect.any(Object) }),
    ]);
  });

  it("lists an embeddings answer out of order for shuffle, and leaves a chat answer as it is", async () => {
    const input = ["one", "two", "three"];
    const shuffled = await post(
      emulator,
      "/inference/v1/embeddings",
      { model: "emulator-embedding", input },
      fault("shuffle"),
    );
    const { data } = (await shuffled.json()) as { data: Array<{ index: number }> };
    expect(data.map((item) => item.index)).not.toEqual([0, 1, 2]);
    const chat = await post(emulator, CHAT, chatBody("Hi"), fault("shuffle"));
    expect(((await chat.json()) as { choices: unknown[] }).choices).toHaveLength(1);
  });

  it("answers a json_schema or json_object request in prose for ignore-response-format, billed as any answer", async () => {
    const schema = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };
    const formats = [
      { type: "json_schema", json_schema: { name: "extract", schema } },
      { type: "json_object" },
    ];
    for (const response_format of formats) {
      const body = chatBody("Ada is 36. Reply in JSON with the key `name`.", { response_format });
      const honoured = await post(emulator, CHAT, body);
      const ignored = await post(emulator, CHAT, body, fault("ignore-response-format"));
      const contentOf = async (response: Response) =>
        ((await response.json()) as { choices: Array<{ message: { content: string } }> })
          .choices[0]!.message.content;
      expect(JSON.parse(await contentOf(honoured))).toHaveProperty("name");
      const prose = await contentOf(ignored);
      expect(prose).toMatch(/^Emulated reply to: "/);
      expect(() => JSON.parse(prose)).toThrow();
    }
    const [, ignored] = emulator.state.requests();
    expect(ignored).toMatchObject({ status: 200, fault: "ignore-response-format" });
    expect(ignored!.cost).toBeGreaterThan(0);
  });

  it("answers as configured with ignoresResponseFormat: prose whatever the response_format", async () => {
    emulator.state.addModel({ id: "prose-model", ignoresResponseFormat: true });
    const response = await post(
      emulator,
      CHAT,
      chatBody("Ada is 36", { model: "prose-model", response_format: { type: "json_object" } }),
    );
    const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0]!.message.content).toBe('Emulated reply to: "Ada is 36"');
    expect(() =>
      inProcess({ models: [{ id: "x", ignoresResponseFormat: "yes" as never }] }),
    ).toThrow("models[0].ignoresResponseFormat must be true or false");
  });

  it.each(["teapot", "toString", "constructor"])(
    "answers 400 for an unknown fault name (%s)",
    async (name) => {
      const response = await post(emulator, CHAT, chatBody(), fault(name));
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
        `"${name}"`,
      );
    },
  );
});

describe("latency faults", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("holds the reply back for the given milliseconds", async () => {
    vi.useFakeTimers();
    const emulator = inProcess();
    let settled = false;
    const call = post(emulator, CHAT, chatBody(), fault("latency=1000, 503")).then((response) => {
      settled = true;
      return response;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect((await call).status).toBe(503);
    expect(emulator.state.lastRequest()).toMatchObject({ status: 503, fault: "latency=1000, 503" });
  });

  it("holds a reply back even for a latency longer than one timer holds (it would fire at once)", async () => {
    vi.useFakeTimers();
    const emulator = inProcess();
    let settled = false;
    const controller = new AbortController();
    const call = emulator
      .fetch(`${emulator.url}${CHAT}`, {
        method: "POST",
        headers: fault("latency=3000000000"),
        body: JSON.stringify(chatBody()),
        signal: controller.signal,
      })
      .then(
        () => (settled = true),
        () => "aborted",
      );
    await vi.advanceTimersByTimeAsync(60_000);
    expect(settled).toBe(false);
    controller.abort();
    expect(await call).toBe("aborted");
  });

  it("rejects with the abort reason when the caller gives up during the delay", async () => {
    const emulator = inProcess();
    const controller = new AbortController();
    const call = emulator.fetch(`${emulator.url}${CHAT}`, {
      method: "POST",
      headers: fault("latency=60000"),
      body: JSON.stringify(chatBody()),
      signal: controller.signal,
    });
    controller.abort(new Error("client timeout"));
    await expect(call).rejects.toThrow("client timeout");
  });
});

describe("random faults", () => {
  const statuses = async (emulator: TestEmulator, count: number) => {
    const result: Array<number | string> = [];
    for (let i = 0; i < count; i++) {
      try {
        const response = await post(emulator, CHAT, chatBody());
        await response.text();
        result.push(response.status);
      } catch (error) {
        result.push((error as Error).message);
      }
    }
    return result;
  };

  it("injects the configured kinds at the configured rate", async () => {
    const emulator = inProcess({ faults: { rate: 1, kinds: ["502"] } });
    expect(await statuses(emulator, 5)).toEqual([502, 502, 502, 502, 502]);
  });

  it("draws the same faults for the same seed", async () => {
    const kinds: FaultKind[] = ["429", "503", "reset"];
    const first = await statuses(inProcess({ faults: { rate: 0.5, kinds, seed: 7 } }), 40);
    const second = await statuses(inProcess({ faults: { rate: 0.5, kinds, seed: 7 } }), 40);
    expect(second).toEqual(first);
    expect(new Set(first)).toEqual(new Set([200, 429, 503, "fetch failed"]));
  });

  it("uses retryAfterSeconds for injected 429s", async () => {
    const emulator = inProcess({ faults: { rate: 1, kinds: ["429"], retryAfterSeconds: 3 } });
    expect((await post(emulator, CHAT, chatBody())).headers.get("retry-after")).toBe("3");
  });

  it.each([
    [{ rate: 2 }, "faults.rate must be between 0 and 1"],
    [{ rate: 0.1, kinds: ["boom"] }, 'faults.kinds[0] "boom" is not a fault kind'],
    [{ rate: 0.1, kinds: ["toString"] }, 'faults.kinds[0] "toString" is not a fault kind'],
    [{ rate: 0.1, kinds: [] }, "faults.kinds must not be empty"],
  ])("rejects the options %j", (options, message) => {
    expect(() => new FaultInjector(options as never)).toThrow(new EmulatorConfigError(message));
  });
});
