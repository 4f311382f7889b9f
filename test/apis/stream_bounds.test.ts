/**
 * Both models' streams against a server that keeps the connection busy without ever completing an
 * event (the idle timeout counts complete events, so each fails typed within `idleTimeout`), or
 * that closes it cleanly before the answer is complete (a cut, however clean).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { ChatInferenceService } from "../../src/apis/chat/chat_models.js";
import { DedicatedEndpointLLM } from "../../src/apis/completions/llms.js";
import { ServiceConnectionError, ServiceTimeoutError } from "../../src/errors/errors.js";
import type { Fetch } from "../../src/transport/fetch.js";
import { dripBody } from "../helpers/drip.js";
import { BASE, chatChunk, chatCompletion, KEY } from "../helpers/wire.js";

const IDLE_MS = 300;
const DRIP_MS = 40;
const RID = "rid-drip-1";

/** A fetch answering every request with `type` and a body dripped a piece every {@link DRIP_MS}. */
function dripping(type: string, pieces: string[], forever = false): Fetch {
  return async () =>
    new Response(dripBody(pieces, DRIP_MS, forever), {
      headers: { "content-type": type, "x-gateway-request-id": RID },
    });
}

const bytes = (text: string) => [...text];
const textCompletion = {
  id: "cmpl-1",
  object: "text_completion",
  choices: [{ index: 0, text: "Hello from a slow server", finish_reason: "stop" }],
};

const surfaces = {
  hosted: {
    model: (fetch: Fetch) =>
      new ChatInferenceService("test-model", {
        apiKey: KEY,
        baseURL: BASE,
        fetch,
        timeout: IDLE_MS,
        idleTimeout: IDLE_MS,
        maxRetries: 0,
      }),
    json: JSON.stringify(chatCompletion({ content: "Hello from a slow server" })),
    event: `data: ${JSON.stringify(chatChunk({ content: "Hello from a slow server" }))}\n\n`,
  },
  dedicated: {
    model: (fetch: Fetch) =>
      new DedicatedEndpointLLM({
        apiKey: KEY,
        baseURL: BASE,
        serviceName: "t-1234.summarizer",
        fetch,
        timeout: IDLE_MS,
        idleTimeout: IDLE_MS,
        maxRetries: 0,
      }),
    json: JSON.stringify(textCompletion),
    event: `data: ${JSON.stringify(textCompletion)}\n\n`,
  },
} as const;

describe("a stream that never completes an event", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([
    ["hosted", "a JSON answer, a byte at a time"],
    ["hosted", "one event, a byte at a time"],
    ["hosted", "only `: ping` comments"],
    ["dedicated", "a JSON answer, a byte at a time"],
    ["dedicated", "one event, a byte at a time"],
    ["dedicated", "only `: ping` comments"],
  ] as const)(
    "%s: %s fails with a retryable idle_timeout once idleTimeout passes",
    async (surface, shape) => {
      const { model, json, event } = surfaces[surface];
      const fetch = shape.startsWith("a JSON")
        ? dripping("application/json", bytes(json))
        : shape.startsWith("one event")
          ? dripping("text/event-stream", bytes(event))
          : dripping("text/event-stream", [": ping\n\n"], true);
      // On fake timers (the drip's and the guards'), so "within" is exact on a loaded machine too.
      vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
      let error: unknown = "still waiting";
      const read = (async () => {
        for await (const _ of await model(fetch).stream("hi")) {
          // A chunk would mean an event completed: none ever does.
        }
      })().catch((e: unknown) => {
        error = e;
      });
      await vi.advanceTimersByTimeAsync(IDLE_MS + DRIP_MS);
      expect(ServiceTimeoutError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({ code: "idle_timeout", retryable: true, requestId: RID });
      await read;
    },
  );
});

describe("a stream cut cleanly, between two events", () => {
  const events = {
    hosted: [chatChunk({ role: "assistant", content: "Hel" }), chatChunk({ content: "lo" })],
    dedicated: [
      { ...textCompletion, choices: [{ index: 0, text: "Hel", finish_reason: null }] },
      { ...textCompletion, choices: [{ index: 0, text: "lo", finish_reason: null }] },
    ],
  };
  const body = (list: object[], done: boolean) =>
    list.map((event) => `data: ${JSON.stringify(event)}\n\n`).join("") +
    (done ? "data: [DONE]\n\n" : "");
  const answering =
    (text: string): Fetch =>
    async () =>
      new Response(text, {
        headers: { "content-type": "text/event-stream", "x-gateway-request-id": RID },
      });

  it.each(["hosted", "dedicated"] as const)(
    "%s: ending with neither a finish reason nor [DONE] is a cut keeping what arrived",
    async (surface) => {
      const received: string[] = [];
      const error = await (async () => {
        const model = surfaces[surface].model(answering(body(events[surface], false)));
        for await (const chunk of await model.stream("hi")) {
          received.push(typeof chunk === "string" ? chunk : chunk.text);
        }
      })().catch((e: unknown) => e);
      expect(ServiceConnectionError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({ midStream: true, partialOutput: "Hello", requestId: RID });
      expect(received.join("")).toBe("Hello");
    },
  );

  it.each(["hosted", "dedicated"] as const)(
    "%s: the same events then [DONE] are a whole answer",
    async (surface) => {
      const model = surfaces[surface].model(answering(body(events[surface], true)));
      let text = "";
      for await (const chunk of await model.stream("hi")) {
        text += typeof chunk === "string" ? chunk : chunk.text;
      }
      expect(text).toBe("Hello");
    },
  );
});
