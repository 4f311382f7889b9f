import { afterEach, describe, expect, it, vi } from "vitest";
import {
  BaseURLError,
  EndpointNotReadyError,
  MalformedResponseError,
  RateLimitError,
  ServiceConnectionError,
  ServiceTimeoutError,
  ServiceUnavailableError,
} from "../../src/errors/errors.js";
import { asServiceError } from "../../src/errors/mapper.js";
import {
  guardBody,
  MAX_ERROR_BODY_BYTES,
  readErrorBody,
  sawDoneEvent,
} from "../../src/transport/body.js";
import { dripBody } from "../helpers/drip.js";

/**
 * What a failure reported by this layer is typed as by the attempt that sent the request: the
 * layer below reports, the attempt types (`UntypedFailure`).
 */
// biome-ignore lint/suspicious/noExplicitAny: read as the other tests read a thrown value
const typed = (error: unknown): any => asServiceError(error, { surface: "hosted" });

const encoder = new TextEncoder();
const RID = "rid-body-1";

/** A body that hands out `chunks` one per read and counts the bytes it was asked for. */
function source(chunks: Array<string | Uint8Array>, end: "close" | "stall" | Error = "close") {
  const counter = { pulls: 0, bytes: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const chunk = chunks[counter.pulls++];
        if (chunk !== undefined) {
          const bytes = typeof chunk === "string" ? encoder.encode(chunk) : chunk;
          counter.bytes += bytes.byteLength;
          controller.enqueue(bytes);
        } else if (end === "close") controller.close();
        else if (end === "stall") await new Promise(() => {});
        else controller.error(end);
      },
      cancel() {
        counter.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, counter };
}

function response(body: ReadableStream<Uint8Array>, type: string, status = 200) {
  return new Response(body, {
    status,
    headers: { "content-type": type, "x-gateway-request-id": RID },
  });
}

const ctx = (surface: "hosted" | "dedicated" = "hosted", idleMs = 5_000) => ({
  idleMs,
  ctx: () => ({ surface, model: "m", serviceName: "t.a", secrets: ["sk-secret-42"] }),
  aborted: () => false,
});

/**
 * The body as a program reads it: a JSON body with `text()`, an SSE body — or, with `events`, any
 * body the SDK reads as a stream — from `body`.
 */
async function readAll(out: Response, events = false): Promise<string> {
  if (!events && !/event-stream/.test(out.headers.get("content-type") ?? "")) return out.text();
  const reader = out.body!.getReader();
  let text = "";
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    text += new TextDecoder().decode(read.value);
  }
  return text;
}

/** What reading `out` fails with (or its text, if it does not fail). */
const failureOf = (out: Response, events = false): Promise<unknown> =>
  readAll(out, events).catch(typed);

/**
 * Runs `read` on fake timers (the drip's and the guard's), advancing the clock by `ms`: what it
 * settled with by then, or "still waiting". Deterministic where a wall clock on a loaded machine
 * is not.
 */
async function settledWithin<T>(ms: number, read: () => Promise<T>): Promise<T | "still waiting"> {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  let outcome: { value: T } | undefined;
  const done = read().then((value) => {
    outcome = { value };
  });
  await vi.advanceTimersByTimeAsync(ms);
  if (outcome === undefined) return "still waiting";
  await done;
  return outcome.value;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("readErrorBody", () => {
  it("reads at most 64 KiB of an error body and cancels the rest", async () => {
    const chunk = "x".repeat(16 * 1024);
    const { stream, counter } = source(Array.from({ length: 100 }, () => chunk));
    const text = await readErrorBody(response(stream, "application/json", 500), 5_000);
    expect(text).toHaveLength(MAX_ERROR_BODY_BYTES);
    expect(counter.bytes).toBeLessThanOrEqual(MAX_ERROR_BODY_BYTES + chunk.length);
    expect(counter.cancelled).toBe(true);
  });

  it("keeps what arrived when an error body stalls or breaks", async () => {
    const stalled = source(['{"error":{"code":"x"'], "stall");
    expect(await readErrorBody(response(stalled.stream, "application/json", 503), 20)).toBe(
      '{"error":{"code":"x"',
    );
    const broken = source(['{"error"'], new TypeError("terminated"));
    expect(await readErrorBody(response(broken.stream, "application/json", 503), 5_000)).toBe(
      '{"error"',
    );
  });
});

describe("readErrorBody, dripped", () => {
  it("gives an error body idleMs in all, however steadily it drips, keeping what came", async () => {
    const body = '{"error":{"code":"upstream_error","message":"slow"}}';
    const text = await settledWithin(100, () =>
      readErrorBody(response(dripBody([...body], 10), "application/json", 502), 100),
    );
    expect(text).not.toBe("still waiting");
    expect(body.startsWith(text)).toBe(true);
    expect(text.length).toBeLessThan(body.length);
  });
});

describe("guardBody", () => {
  it("keeps the response object, and reads a stream request's JSON answer as a stream", async () => {
    const { stream } = source(['{"error":{"code":"do_request_failed","message":"m"}}']);
    const given = response(stream, "application/json");
    const out = guardBody(given, "sse", ctx());
    expect(out).toBe(given);
    const error = await out.body!.getReader().read().catch(typed);
    expect(ServiceUnavailableError.isInstance(error)).toBe(true);
  });

  it("types an HTML page where events were expected as BaseURLError", async () => {
    const { stream } = source(["<!doctype html><p>console</p>"]);
    const error = await failureOf(guardBody(response(stream, "text/event-stream"), "sse", ctx()));
    expect(BaseURLError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 200, requestId: RID });
  });

  it("hands a JSON body on whole, the bytes unchanged", async () => {
    const chunks = ['{"id":"c","choices":[', '{"index":0}', "]}"];
    const { stream } = source(chunks);
    expect(await readAll(guardBody(response(stream, "application/json"), "json", ctx()))).toBe(
      chunks.join(""),
    );
  });

  it("passes JSON literals and an `error: null` success body through", async () => {
    for (const body of ["null", "42", '{"error":null,"id":"c","choices":[]}']) {
      const { stream } = source([body]);
      expect(await readAll(guardBody(response(stream, "application/json"), "json", ctx()))).toBe(
        body,
      );
    }
  });

  it("fails a stream read that waits longer than idleMs as a retryable ServiceTimeoutError with the request ID", async () => {
    const { stream, counter } = source(['data: {"id":"c"}\n\n'], "stall");
    const error = await failureOf(
      guardBody(response(stream, "text/event-stream"), "sse", ctx("hosted", 30)),
    );
    expect(ServiceTimeoutError.isInstance(error), String(error)).toBe(true);
    expect(error).toMatchObject({ code: "idle_timeout", retryable: true, requestId: RID });
    // The stalled body is cancelled, which closes the connection.
    expect(counter.cancelled).toBe(true);
  });

  it("counts only the time spent waiting on the network, not a slow consumer", async () => {
    const { stream } = source(["data: {}\n\n", "data: {}\n\n", "data: [DONE]\n\n"]);
    const reader = guardBody(
      response(stream, "text/event-stream"),
      "sse",
      ctx("hosted", 30),
    ).body!.getReader();
    const seen: string[] = [];
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      seen.push(new TextDecoder().decode(read.value));
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    expect(seen).toHaveLength(3);
  });

  it.each([
    ["one event, a byte at a time", [...'data: {"id":"c"}\n\n'], false],
    ["only comments", [": ping\n\n"], true],
    ["events that never end (no empty line)", ['data: {"id":"c"}\n'], true],
    ["a JSON document, a byte at a time", [...'{"id":"c","choices":[]}'], false],
  ] as const)(
    "restarts the idle timer on complete events only: %s stalls within idleMs",
    async (_name, chunks, forever) => {
      // Failed once 100 ms pass without a complete event: the drip's first byte comes at 10 ms.
      const error = await settledWithin(110, () =>
        failureOf(
          guardBody(
            response(dripBody([...chunks], 10, forever), "text/event-stream"),
            "sse",
            ctx("hosted", 100),
          ),
        ),
      );
      expect(ServiceTimeoutError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({ code: "idle_timeout", retryable: true, requestId: RID });
    },
  );

  it("keeps a stream whose events each arrive within idleMs, however long the whole takes", async () => {
    const event = 'data: {"id":"c"}\n\n';
    const chunks = [...Array(8)].flatMap(() => [event.slice(0, 9), event.slice(9)]);
    // 16 pieces 25 ms apart: 400 ms in all, four times idleMs.
    const text = await settledWithin(16 * 25 + 25, () =>
      readAll(
        guardBody(response(dripBody(chunks, 25), "text/event-stream"), "sse", ctx("hosted", 100)),
      ),
    );
    expect(text).toBe(event.repeat(8));
  });

  it("types a broken connection as a retryable ServiceConnectionError keeping the request ID", async () => {
    const cut = new TypeError("terminated");
    const { stream } = source(['{"id":'], cut);
    const error = await failureOf(guardBody(response(stream, "application/json"), "json", ctx()));
    expect(ServiceConnectionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ retryable: true, requestId: RID, cause: cut });
  });

  it("types JSON that ends before its closing bracket as a cut connection", async () => {
    const { stream } = source(['{"id":"c","choices":[']);
    const error = await failureOf(guardBody(response(stream, "application/json"), "json", ctx()));
    expect(ServiceConnectionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ retryable: true, requestId: RID });
  });

  it("types an empty body per surface, with the request ID", async () => {
    const hosted = await failureOf(
      guardBody(response(source([]).stream, "text/event-stream"), "sse", ctx("hosted")),
    );
    const dedicated = await failureOf(
      guardBody(response(source([]).stream, "text/event-stream"), "sse", ctx("dedicated")),
    );
    expect(MalformedResponseError.isInstance(hosted)).toBe(true);
    expect(EndpointNotReadyError.isInstance(dedicated)).toBe(true);
    expect([hosted, dedicated]).toMatchObject([{ requestId: RID }, { requestId: RID }]);
  });

  it("types an HTML page labelled JSON as BaseURLError, quoting it redacted", async () => {
    const { stream } = source(["  <html><body>console sk-secret-42", "</body></html>"]);
    const error = await failureOf(guardBody(response(stream, "application/json"), "json", ctx()));
    expect(BaseURLError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 200, requestId: RID });
    expect((error as Error).message).toContain("console [redacted]");
  });

  it.each([
    ["a JSON body", "application/json", "json"],
    ["an SSE body", "text/event-stream", "sse"],
  ] as const)(
    "types an error object sent as %s with a 200 by its code, split over chunks",
    async (_name, type, kind) => {
      const body =
        '{"error":{"message":"m (request id: r2)","type":"new_api_error","code":"do_request_failed"}}';
      const { stream } = source([body.slice(0, 3), body.slice(3, 20), body.slice(20)]);
      const error = await failureOf(guardBody(response(stream, type), kind, ctx()));
      expect(ServiceUnavailableError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({
        code: "do_request_failed",
        status: 200,
        requestIds: [RID, "r2"],
      });
    },
  );

  it("types an SSE body that is JSON but neither a completion nor an error object as malformed", async () => {
    const { stream } = source(['{"id":"c","object":"list"}']);
    const error = await failureOf(guardBody(response(stream, "text/event-stream"), "sse", ctx()));
    expect(MalformedResponseError.isInstance(error)).toBe(true);
  });

  it("passes a whole completion sent where events were expected on as the events of a stream", async () => {
    const completion = {
      id: "c",
      object: "chat.completion",
      choices: [{ index: 0, message: { role: "assistant", content: "Hi" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 2, completion_tokens: 1, total_tokens: 3 },
    };
    const body = JSON.stringify(completion);
    const { stream } = source([body.slice(0, 10), body.slice(10)]);
    const text = await readAll(guardBody(response(stream, "application/json"), "sse", ctx()), true);
    const base = { id: "c", object: "chat.completion.chunk" };
    expect(text).toBe(
      `data: ${JSON.stringify({ ...base, choices: [{ index: 0, finish_reason: "stop", delta: { role: "assistant", content: "Hi" } }] })}\n\n` +
        `data: ${JSON.stringify({ ...base, choices: [], usage: completion.usage })}\n\n` +
        "data: [DONE]\n\n",
    );
  });

  it.each([
    ["ends early", "close"],
    ["breaks", new TypeError("terminated")],
  ] as const)(
    "types a JSON document that %s where events were expected as a retryable cut",
    async (_name, end) => {
      const { stream } = source(['{"id":"c","choices":[{"index":0,'], end);
      const error = await failureOf(
        guardBody(response(stream, "application/json"), "sse", ctx()),
        true,
      );
      expect(ServiceConnectionError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({ retryable: true, requestId: RID });
    },
  );

  it("lets the caller's cancellation through as it is", async () => {
    const abort = new DOMException("This operation was aborted", "AbortError");
    const { stream } = source(['{"id":'], abort);
    const error = await failureOf(
      guardBody(response(stream, "application/json"), "json", { ...ctx(), aborted: () => true }),
    );
    expect(error).toBe(abort);
  });
});

describe("readErrorBody at its edges", () => {
  it("reads nothing from a response without a body", async () => {
    expect(await readErrorBody(new Response(null, { status: 500 }), 5_000)).toBe("");
  });

  it("cuts one chunk larger than the bound at exactly 64 KiB", async () => {
    const { stream } = source(["x".repeat(MAX_ERROR_BODY_BYTES + 100)]);
    const text = await readErrorBody(response(stream, "text/plain", 500), 5_000);
    expect(text).toHaveLength(MAX_ERROR_BODY_BYTES);
  });
});

describe("guardBody: bodies with nothing in them, and JSON's edges", () => {
  it("types a response without a body as empty, read as JSON or as a stream", async () => {
    const bodyless = () =>
      new Response(null, {
        headers: { "content-type": "application/json", "x-gateway-request-id": RID },
      });
    const json = await failureOf(guardBody(bodyless(), "json", ctx()));
    const sse = await failureOf(guardBody(bodyless(), "sse", ctx()), true);
    expect(MalformedResponseError.isInstance(json)).toBe(true);
    expect(MalformedResponseError.isInstance(sse)).toBe(true);
    expect([json, sse]).toMatchObject([{ requestId: RID }, { requestId: RID }]);
  });

  it("types a JSON body of whitespace alone as empty", async () => {
    const { stream } = source([" \n\t "]);
    const error = await failureOf(guardBody(response(stream, "application/json"), "json", ctx()));
    expect(MalformedResponseError.isInstance(error)).toBe(true);
    expect((error as Error).message).not.toMatch(/closing bracket/);
  });

  it("finds a short error object (under 32 characters) in a 200 JSON body", async () => {
    const short = '{"error":{"code":"busy"}}';
    expect(short.length).toBeLessThan(32);
    const { stream } = source([short]);
    const error = await failureOf(guardBody(response(stream, "application/json"), "json", ctx()));
    expect(ServiceUnavailableError.isInstance(error), String(error)).toBe(true);
    expect(error).toMatchObject({ requestId: RID });
  });

  it("reads JSON followed by whitespace as whole, and an array without its ] as cut", async () => {
    const whole = source(['{"a":1}', "\n\r\n"]).stream;
    expect(await readAll(guardBody(response(whole, "application/json"), "json", ctx()))).toBe(
      '{"a":1}\n\r\n',
    );
    const cut = source(["[1,2"]).stream;
    const error = await failureOf(guardBody(response(cut, "application/json"), "json", ctx()));
    expect(ServiceConnectionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ retryable: true });
    expect(String((error as Error).cause)).toContain(
      "the JSON body ended before its closing bracket",
    );
  });
});

describe("guardBody: what opens a stream", () => {
  const RATE_LIMITED =
    '{"error":{"message":"slow down","type":"rate_limit_exceeded","code":"rate_limit_exceeded"}}';

  it("quotes the whole of an HTML page that arrived in one chunk", async () => {
    const { stream } = source(["<html>console</html>"]);
    const error = await failureOf(guardBody(response(stream, "text/event-stream"), "sse", ctx()));
    expect(BaseURLError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("<html>console</html>");
  });

  it("reads an error object after whitespace of any kind, in the first chunk or the next", async () => {
    for (const chunks of [[`\r\n\t ${RATE_LIMITED}`], ["\n", RATE_LIMITED]]) {
      const { stream } = source(chunks);
      const error = await failureOf(guardBody(response(stream, "text/event-stream"), "sse", ctx()));
      expect(RateLimitError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({ requestId: RID });
    }
  });

  it("says what a JSON document that is not a completion was", async () => {
    const { stream } = source(['{"id":"c","object":"list"}']);
    const error = await failureOf(guardBody(response(stream, "text/event-stream"), "sse", ctx()));
    expect((error as Error).message).toContain(
      "the event stream holds a JSON document instead of events",
    );
  });

  it("notes whether a guarded stream carried [DONE], and knows nothing of one it did not guard", async () => {
    const out = guardBody(
      response(source(['data: {"id":1}\n\n', "data: [DONE]\n\n"]).stream, "text/event-stream"),
      "sse",
      ctx(),
    );
    expect(sawDoneEvent(out)).toBe(false);
    await readAll(out);
    expect(sawDoneEvent(out)).toBe(true);
    expect(sawDoneEvent(new Response("{}"))).toBeUndefined();
  });

  it("cancels the body underneath when the reader cancels the stream", async () => {
    const { stream, counter } = source(['data: {"id":1}\n\n'], "stall");
    const out = guardBody(response(stream, "text/event-stream"), "sse", ctx());
    const reader = out.body!.getReader();
    await reader.read();
    await reader.cancel(new Error("done with it"));
    expect(counter.cancelled).toBe(true);
  });
});
