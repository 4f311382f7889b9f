import { describe, expect, it } from "vitest";
import {
  MalformedResponseError,
  ServiceConnectionError,
  ServiceUnavailableError,
} from "../../src/errors/errors.js";
import { openStream, tagStream } from "../../src/transport/stream.js";

const ctx = { surface: "hosted" as const, model: "m", secrets: ["sk-secret-1234"] };
const headers = new Headers({ "x-gateway-request-id": "rid-1" });
const chunk = (content: string, model = "m-2024") => ({
  model,
  choices: [{ delta: { content } }],
});

/** A stream of `chunks` that then fails with `error`. */
async function* failing(chunks: object[], error: unknown) {
  yield* chunks;
  throw error;
}

async function drain(stream: AsyncIterable<unknown>) {
  const seen: unknown[] = [];
  for await (const value of stream) seen.push(value);
  return seen;
}

describe("tagStream", () => {
  it("passes every chunk through unchanged, the same objects in the same order", async () => {
    const chunks = [chunk("a"), { choices: [] }, chunk("b")];
    async function* source() {
      yield* chunks;
    }
    expect(await drain(tagStream(source(), headers, ctx))).toEqual(chunks);
    const seen = await drain(tagStream(source(), headers, ctx));
    for (const [i, value] of seen.entries()) expect(value).toBe(chunks[i]);
  });

  it("types a cut connection as a mid-stream error keeping the output received so far", async () => {
    const cut = new TypeError("terminated");
    const error = await drain(
      tagStream(failing([chunk("Hel"), chunk("lo")], cut), headers, ctx),
    ).catch((e: unknown) => e);
    expect(ServiceConnectionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ midStream: true, partialOutput: "Hello", surface: "hosted" });
    expect((error as Error).cause).toBe(cut);
  });

  it("types an error event inside the 200 stream by its code, with the text of completions chunks too", async () => {
    const event = Object.assign(new Error("upstream"), {
      error: { code: "", message: "Upstream stream interrupted (request id: rid-9)" },
    });
    const error = await drain(
      tagStream(
        failing([{ choices: [{ text: "par" }] }, { choices: [{ text: "t" }] }], event),
        headers,
        ctx,
      ),
    ).catch((e: unknown) => e);
    expect(ServiceUnavailableError.isInstance(error)).toBe(true);
    // The response's header first, then the event's own suffix (docs/service-contract.md#errors, rule 5).
    expect(error).toMatchObject({
      midStream: true,
      partialOutput: "part",
      requestId: "rid-1",
      requestIds: ["rid-1", "rid-9"],
    });
  });

  it("closes the source when the reader stops early", async () => {
    let closed = false;
    async function* source() {
      try {
        yield chunk("a");
        yield chunk("b");
      } finally {
        closed = true;
      }
    }
    for await (const _ of tagStream(source(), headers, ctx)) break;
    expect(closed).toBe(true);
  });

  it.each([
    ["empty choices", [{ choices: [{}] }, { choices: [{ index: 0 }] }]],
    ["null deltas", [{ choices: [{ delta: null }] }]],
    [
      "a role and empty content only",
      [{ choices: [{ delta: { role: "assistant", content: "" } }] }],
    ],
    [
      "empty tool calls and null content",
      [{ choices: [{ delta: { content: null, tool_calls: [] } }] }],
    ],
    ["empty completions text", [{ choices: [{ text: "" }] }, { choices: [], usage: {} }]],
  ])(
    "refuses a stream whose choices carry nothing (%s) as a MalformedResponseError",
    async (_label, chunks) => {
      async function* source() {
        yield* chunks;
      }
      const error = await drain(tagStream(source(), headers, ctx)).catch((e: unknown) => e);
      expect(MalformedResponseError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({ requestId: "rid-1", retryable: false });
    },
  );

  it.each([
    [
      "tool calls with null content",
      { delta: { content: null, tool_calls: [{ index: 0, id: "c" }] } },
    ],
    ["reasoning only", { delta: { reasoning_content: "hmm" } }],
    ["a refusal", { delta: { refusal: "no" } }],
    ["a finish reason only (an empty answer)", { delta: {}, finish_reason: "stop" }],
    ["completions text", { text: "a" }],
  ])("passes a stream whose choices carry %s", async (_label, choice) => {
    async function* source() {
      yield { choices: [{ index: 0, delta: { role: "assistant" } }] };
      yield { choices: [choice] };
    }
    expect(await drain(tagStream(source(), headers, ctx))).toHaveLength(2);
  });

  it("types a stream that ends with neither a finish reason nor [DONE] as a cut, keeping its output", async () => {
    async function* source() {
      yield chunk("Hel");
      yield chunk("lo");
    }
    const error = await drain(tagStream(source(), headers, ctx, 200, () => false)).catch(
      (e: unknown) => e,
    );
    expect(ServiceConnectionError.isInstance(error), String(error)).toBe(true);
    expect(error).toMatchObject({ midStream: true, partialOutput: "Hello", requestId: "rid-1" });
  });

  it.each([
    ["[DONE] arrived", () => true, chunk("lo")],
    ["a finish reason arrived", () => false, { choices: [{ delta: {}, finish_reason: "length" }] }],
    ["nothing is known of the body", () => undefined, chunk("lo")],
  ])("ends a stream normally when %s", async (_label, sawDone, last) => {
    async function* source() {
      yield chunk("Hel");
      yield last;
    }
    expect(await drain(tagStream(source(), headers, ctx, 200, sawDone))).toHaveLength(2);
  });
});

describe("tagStream: how a stream ends", () => {
  const source = (chunks: object[]) =>
    (async function* () {
      yield* chunks;
    })();

  it("says whether the stream had no choice at all or choices without an answer", async () => {
    const none = await drain(tagStream(source([{ usage: {} }]), headers, ctx)).catch((e) => e);
    expect(none.message).toContain("the stream ended without any choice");
    const empty = await drain(
      tagStream(
        source([{ usage: {} }, { choices: [{ delta: { role: "assistant" } }] }]),
        headers,
        ctx,
      ),
    ).catch((e) => e);
    expect(empty.message).toContain("the stream's choices carried no content");
  });

  it("keeps only the text the stream carried as its partial output", async () => {
    const cut = new TypeError("terminated");
    async function* chunks() {
      yield { choices: [{ delta: { role: "assistant" } }] };
      yield chunk("Hi");
      throw cut;
    }
    const error = await drain(tagStream(chunks(), headers, ctx)).catch((e: unknown) => e);
    expect(error).toMatchObject({ midStream: true, partialOutput: "Hi" });
  });

  it("names why a stream without a finish reason or [DONE] counts as cut", async () => {
    const error = await drain(
      tagStream(source([chunk("Hel")]), headers, ctx, 200, () => false),
    ).catch((e: unknown) => e as Error);
    expect(`${(error as Error).message} ${String((error as Error).cause)}`).toContain(
      "the event stream ended without a finish reason or [DONE]",
    );
  });

  it("ends with the signal's reason when the caller stopped it, however the source ends", async () => {
    for (const ending of ["fails", "ends"] as const) {
      const controller = new AbortController();
      const reason = new Error("stopped");
      async function* chunks() {
        yield chunk("Hel");
        controller.abort(reason);
        if (ending === "fails") throw new TypeError("terminated");
      }
      const error = await drain(
        tagStream(chunks(), headers, ctx, 200, () => false, controller.signal),
      ).catch((e: unknown) => e);
      expect(error).toBe(reason);
    }
  });

  it("closes a source that has no return() without failing", async () => {
    const bare: AsyncIterable<object> = {
      [Symbol.asyncIterator]: () => ({ next: async () => ({ done: false, value: chunk("a") }) }),
    };
    const stream = tagStream(bare, headers, ctx);
    await stream.next();
    expect(await stream.return?.()).toEqual({ done: true, value: undefined });
  });
});

describe("openStream", () => {
  const response = { headers, status: 200 };

  it("types a stream that fails before its first event with the response's request ID", async () => {
    const error = await openStream(failing([], new TypeError("terminated")), response, ctx).catch(
      (e: unknown) => e,
    );
    expect(ServiceConnectionError.isInstance(error), String(error)).toBe(true);
    expect(error).toMatchObject({ requestId: "rid-1" });
  });

  it("types a stream with no event at all as an empty answer", async () => {
    async function* nothing() {}
    const error = await openStream(nothing(), response, ctx).catch((e: unknown) => e);
    expect(MalformedResponseError.isInstance(error), String(error)).toBe(true);
  });

  it("ends with the signal's reason when the caller stopped it before or while the first event came", async () => {
    const controller = new AbortController();
    const reason = new Error("stopped");
    async function* first() {
      controller.abort(reason);
      yield chunk("a");
    }
    await expect(openStream(first(), response, ctx, controller.signal)).rejects.toBe(reason);
    const failed = new AbortController();
    async function* failedFirst() {
      failed.abort(reason);
      yield* failing([], new TypeError("terminated"));
    }
    await expect(openStream(failedFirst(), response, ctx, failed.signal)).rejects.toBe(reason);
  });

  it("keeps the response's request ID on errors later in the stream", async () => {
    const stream = await openStream(
      failing([chunk("a")], new TypeError("terminated")),
      response,
      ctx,
    );
    const error = await drain(stream).catch((e: unknown) => e);
    expect(error).toMatchObject({ midStream: true, requestId: "rid-1", partialOutput: "a" });
  });
});
