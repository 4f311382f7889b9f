/**
 * The attempt pipeline under every channel: each attempt reserves and waits its turn, sends, and
 * settles or releases what it held; only retryable errors come round again.
 */
import { describe, expect, it } from "vitest";
import {
  BadRequestError,
  InferenceServiceError,
  ServiceUnavailableError,
} from "../../src/errors/errors.js";
import type { FailureContext } from "../../src/errors/mapper.js";
import { CallMeter } from "../../src/spend/call_meter.js";
import type { RequestEstimate } from "../../src/spend/estimate.js";
import { UsageTracker } from "../../src/spend/usage_tracker.js";
import { MemoryStore } from "../../src/stores/memory_store.js";
import type { CallTrace } from "../../src/telemetry/call_trace.js";
import { type Answer, sendRequest } from "../../src/transport/attempt.js";
import { AttemptLog } from "../../src/transport/attempt_log.js";
import { createServiceFetch } from "../../src/transport/fetch.js";
import { ServiceCaller } from "../../src/transport/retry.js";

const ctx: FailureContext = { surface: "hosted", model: "m", secrets: ["sk-secret-1"] };
const init = { summary: "s.", hint: "h.", surface: "hosted" as const };
const ESTIMATE: RequestEstimate = {
  model: "m",
  inputTokens: 100,
  maxOutputTokens: 100,
  choices: 1,
};
const caller = () => new ServiceCaller({ initialDelayMs: 1, maxDelayMs: 2, maxRetries: 2 });
const answer = (data: unknown): Answer<unknown> => ({ data, response: new Response("{}") });

/** A tracker with a budget, and the meter a model would build for a call of run "run-1". */
async function metered() {
  const store = new MemoryStore();
  const usage = new UsageTracker({ prices: { m: { input: 0, output: 1000 } }, budget: 1, store });
  const meter = new CallMeter({ run: { runId: "run-1", handlers: [usage] } });
  return { store, usage, meter };
}

describe("sendRequest", () => {
  it("sends once and returns what read makes of the answer", async () => {
    let sent = 0;
    const result = await sendRequest({
      caller: caller(),
      ctx,
      send: async () => {
        sent++;
        return answer({ ok: 1 });
      },
      read: ({ data }) => data,
    });
    expect(result).toEqual({ ok: 1 });
    expect(sent).toBe(1);
  });

  it("retries a retryable failure and stops at the first non-retryable one, seeing each typed", async () => {
    const thrown = [new ServiceUnavailableError(init), new BadRequestError(init)];
    const seen: unknown[] = [];
    let sent = 0;
    const error = await sendRequest({
      caller: caller(),
      ctx,
      send: async () => {
        throw thrown[sent++];
      },
      read: () => "never",
      onError: (e) => seen.push(e),
    }).catch((e: unknown) => e);
    expect(error).toBe(thrown[1]);
    expect(sent).toBe(2);
    expect(seen).toEqual(thrown);
  });

  it("reserves before each attempt, releases a failed one and settles the one that answered", async () => {
    const { store, usage, meter } = await metered();
    const held: number[] = [];
    let sent = 0;
    await sendRequest({
      caller: caller(),
      ctx,
      meter,
      estimate: () => ESTIMATE,
      send: async () => {
        held.push(store.reservations);
        if (sent++ === 0) throw new ServiceUnavailableError(init);
        return answer({});
      },
      read: async (_answer, attempt) => {
        await attempt?.settle({ inputTokens: 100, outputTokens: 10 }, 0);
        return "done";
      },
    });
    expect(held).toEqual([1, 1]);
    expect(store.reservations).toBe(0);
    expect((await usage.budgetStatus()).spent).toBeCloseTo(0.01, 12);
  });

  it("fails a read that throws like a failed request: typed, released, not retried unless retryable", async () => {
    const { store, meter } = await metered();
    let sent = 0;
    const error = await sendRequest({
      caller: caller(),
      ctx,
      meter,
      estimate: () => ESTIMATE,
      send: async () => {
        sent++;
        return answer({});
      },
      read: () => {
        throw new BadRequestError(init);
      },
    }).catch((e: unknown) => e);
    expect(BadRequestError.isInstance(error)).toBe(true);
    expect(sent).toBe(1);
    expect(store.reservations).toBe(0);
  });

  it("computes no estimate when the call has no meter", async () => {
    let estimated = 0;
    await sendRequest({
      caller: caller(),
      ctx,
      estimate: () => {
        estimated++;
        return ESTIMATE;
      },
      send: async () => answer({}),
      read: () => "ok",
    });
    expect(estimated).toBe(0);
  });

  it("keeps the request ID of an answer whose body fails after its headers arrived", async () => {
    const attempts = new AttemptLog();
    const serviceFetch = createServiceFetch({
      ...ctx,
      attempts,
      fetch: async () =>
        new Response('{"choices": [', {
          headers: { "content-type": "application/json", "x-gateway-request-id": "rid-42" },
        }),
    });
    const error = await sendRequest({
      caller: new ServiceCaller({ maxRetries: 0 }),
      ctx,
      attempts,
      send: async (attemptHeaders) => {
        const response = await serviceFetch("https://svc.test/inference/v1/chat/completions", {
          method: "POST",
          headers: new Headers(attemptHeaders),
        });
        // Read as the SDK would, outside the fetch layer.
        throw new SyntaxError(
          `Unexpected end of JSON input ${await response.text().catch(() => "")}`,
        );
      },
      read: () => "never",
    }).catch((e: unknown) => e);
    expect(InferenceServiceError.isInstance(error)).toBe(true);
    expect((error as InferenceServiceError).requestId).toBe("rid-42");
  });

  it("sends nothing once the caller's signal is aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    let sent = 0;
    const error = await sendRequest({
      caller: caller(),
      ctx,
      signal: controller.signal,
      send: async () => {
        sent++;
        return answer({});
      },
      read: () => "never",
    }).catch((e: unknown) => e);
    expect((error as Error).name).toBe("AbortError");
    expect(sent).toBe(0);
  });
});

describe("sendRequest: what a cancelled attempt does with what it held", () => {
  /** A meter whose attempts record what they were told; `onBegin` runs while the reservation is made. */
  function recordingMeter(onBegin: () => void = () => {}) {
    const told: string[] = [];
    const attempt = {
      answered: () => void told.push("answered"),
      settle: async (_usage: unknown, cost: number) => void told.push(`settle ${cost}`),
      fail: async () => void told.push("fail"),
      cancelled: async () => void told.push("cancelled"),
    };
    const meter = {
      begin: async () => {
        onBegin();
        return attempt;
      },
    };
    return { meter: meter as never, told };
  }

  const plan = (signal: AbortSignal) => ({
    caller: caller(),
    ctx,
    signal,
    estimate: () => ESTIMATE,
  });

  /** What the meter's attempt is told when the caller cancels while the request is sent or read. */
  async function cancelledWhile(phase: "sending" | "reading", stream: boolean) {
    const controller = new AbortController();
    const { meter, told } = recordingMeter();
    const cancel = () => {
      controller.abort(new Error("user abort"));
      throw new Error("aborted");
    };
    await sendRequest({
      ...plan(controller.signal),
      meter,
      stream,
      send: async () => (phase === "sending" ? cancel() : answer({})),
      read: () => (phase === "reading" ? cancel() : "never"),
    }).catch(() => undefined);
    return told;
  }

  it("sends nothing and releases the hold of a call cancelled while it reserved", async () => {
    const controller = new AbortController();
    const { meter, told } = recordingMeter(() => controller.abort(new Error("user abort")));
    let sent = 0;
    const error = await sendRequest({
      ...plan(controller.signal),
      meter,
      send: async () => {
        sent++;
        return answer({});
      },
      read: () => "never",
    }).catch((e: unknown) => e);
    expect(error).toEqual(new Error("user abort"));
    expect(sent).toBe(0);
    expect(told).toEqual(["fail"]);
  });

  it("keeps the hold of a call cancelled once sent (it may be billed), before or after its answer", async () => {
    for (const stream of [false, true]) {
      const told = await cancelledWhile("sending", stream);
      expect(told).toEqual(["cancelled"]);
    }
  });

  it("settles a stream cancelled after its answer began at its prompt, and anything else as cancelled", async () => {
    for (const [stream, expected] of [
      [true, ["answered", "settle 0"]],
      [false, ["answered", "cancelled"]],
    ] as const) {
      expect(await cancelledWhile("reading", stream)).toEqual(expected);
    }
  });

  it("without a meter, ends a cancelled call with the signal's reason", async () => {
    for (const stream of [false, true]) {
      const controller = new AbortController();
      const error = await sendRequest({
        caller: caller(),
        ctx,
        signal: controller.signal,
        stream,
        send: async () => answer({}),
        read: () => {
          controller.abort(new Error("user abort"));
          throw new Error("aborted");
        },
      }).catch((e: unknown) => e);
      expect(error).toEqual(new Error("user abort"));
    }
  });

  it("retries as often as the request's own maxRetries says", async () => {
    let sent = 0;
    await sendRequest({
      caller: caller(),
      ctx,
      maxRetries: 0,
      send: async () => {
        sent++;
        throw new ServiceUnavailableError(init);
      },
      read: () => "never",
    }).catch(() => undefined);
    expect(sent).toBe(1);
  });

  it("tells the call's trace each attempt, sent inside its span, and each retry with its delay", async () => {
    const log: string[] = [];
    let inSpan = false;
    const trace = {
      attempt: () => {
        log.push("attempt");
        return {
          run: async <T>(send: () => Promise<T>) => {
            inSpan = true;
            try {
              return await send();
            } finally {
              inSpan = false;
            }
          },
          succeeded: (status: number) => log.push(`succeeded ${status}`),
          failed: (error: Error) => log.push(`failed ${error.name}`),
        };
      },
      retrying: (error: Error, delayMs: number) =>
        log.push(`retrying ${error.name} after ${delayMs > 0 ? "a delay" : "none"}`),
    } as unknown as CallTrace;
    let sent = 0;
    await sendRequest({
      caller: caller(),
      ctx,
      trace,
      send: async () => {
        log.push(`send, in its span: ${inSpan}`);
        if (sent++ === 0) throw new ServiceUnavailableError(init);
        return { data: {}, response: new Response("{}", { status: 200 }) };
      },
      read: () => "read",
    });
    expect(log).toEqual([
      "attempt",
      "send, in its span: true",
      "failed ServiceUnavailableError",
      "retrying ServiceUnavailableError after a delay",
      "attempt",
      "send, in its span: true",
      "succeeded 200",
    ]);
  });
});
