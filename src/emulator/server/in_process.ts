/** @module The in-process emulator: a `fetch` function served by the handler, with no socket. */

import type { EmulatorOptions } from "../options.js";
import type { EmulatorResponse } from "../reply.js";
import { IN_PROCESS_ORIGIN } from "../state/defaults.js";
import type { EmulatorState } from "../state/state.js";
import { createCore } from "./core.js";
import type { ReplaySession } from "./replay.js";
import { wirePlan } from "./wire.js";

/** An emulator living in this process. */
export interface InProcessEmulator {
  /** Pass it to the openai SDK (`fetch`) or LangChain (`configuration: { fetch }`). Any origin is accepted. */
  fetch: typeof globalThis.fetch;
  state: EmulatorState;
  /** `http://emulator.invalid/inference/v1`. */
  baseURL: string;
  /** `http://emulator.invalid`, for the HTML page and the admin API. */
  url: string;
  /** The demo key (`sk-emulator-demo` unless the options replaced the keys). */
  apiKey: string;
  /** With the `replay` option: the cassette, the recordings not served yet, and `rewind()` to serve them again. */
  replay?: ReplaySession;
}

/**
 * Creates an emulator served in-process: fast and port-free for unit tests.
 *
 * A Pending endpoint or a `reset` fault makes `fetch` reject like undici's
 * (`TypeError("fetch failed")` with an `ECONNRESET` cause); a truncated response makes the body
 * stream error.
 *
 * @example
 * const emulator = createEmulator({ credit: 1 });
 * const chat = new ChatOpenAI({
 *   model: "emulator-chat",
 *   apiKey: emulator.apiKey,
 *   configuration: { baseURL: emulator.baseURL, fetch: emulator.fetch },
 * });
 */
export function createEmulator(options: EmulatorOptions = {}): InProcessEmulator {
  const core = createCore(options);
  const delay = core.streamChunkDelayMs;

  const emulatorFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const { signal } = request;
    signal.throwIfAborted();
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const body = await readBody(request, core.context.maxBodyBytes);
    const reply = core.handle({
      method: request.method,
      url: url.pathname + url.search,
      headers,
      body: body ?? "",
      bodyTooLarge: body === undefined,
    });
    if (reply.delayMs > 0) await sleep(reply.delayMs, signal);
    if (reply.kind === "drop") throw connectionFailure();
    return toResponse(reply, delay, signal);
  };

  return {
    fetch: emulatorFetch,
    state: core.context.state,
    baseURL: `${IN_PROCESS_ORIGIN}/inference/v1`,
    url: IN_PROCESS_ORIGIN,
    apiKey: core.apiKey,
    ...(core.replay ? { replay: core.replay } : {}),
  };
}

/** The body as text, or undefined once it passes `limit` bytes (the rest is never read). */
async function readBody(request: Request, limit: number): Promise<string | undefined> {
  if (!request.body) return "";
  if (Number(request.headers.get("content-length") ?? 0) > limit) {
    await request.body.cancel();
    return undefined;
  }
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const decoder = new TextDecoder();
  return chunks
    .map((chunk, i) => decoder.decode(chunk, { stream: i < chunks.length - 1 }))
    .join("");
}

function toResponse(reply: EmulatorResponse, delayMs: number, signal: AbortSignal): Response {
  const plan = wirePlan(reply, delayMs);
  const { status, headers, pieces, waits, ending } = plan;
  // A Response of these statuses may have no body at all (the constructor throws otherwise).
  if (status === 204 || status === 205 || status === 304) {
    return new Response(null, { status, headers });
  }
  if (plan.whole !== undefined) {
    // No body at all, as on the wire: `new Response("")` would add a text/plain content type.
    return new Response(plan.whole === "" ? null : plan.whole, { status, headers });
  }
  const encoder = new TextEncoder();
  let next = 0;
  // Pull-driven, one piece per read: an error raised after the last piece must not discard
  // pieces the reader has not taken yet, as erroring a stream with a queue would.
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const piece = pieces[next];
        if (piece !== undefined) {
          const wait = waits[next]!;
          if (wait > 0) {
            try {
              await sleep(wait, signal);
            } catch (error) {
              plan.relayed(next);
              throw error;
            }
          }
          next++;
          controller.enqueue(encoder.encode(piece));
          if (next === pieces.length && ending === "end") plan.relayed(pieces.length);
        } else if (ending === "cut") {
          // A cut connection surfaces in the body, as undici reports it: TypeError("terminated").
          controller.error(new TypeError("terminated", { cause: connectionReset() }));
        } else if (ending === "hold") {
          // Nothing more, ever: the read waits until the client cancels the body or aborts.
          await new Promise<never>((_resolve, reject) => {
            signal.addEventListener("abort", () => reject(signal.reason), { once: true });
          });
        } else {
          controller.close();
        }
      },
      cancel() {
        plan.relayed(plan.instant ? pieces.length : next);
      },
      // Nothing is handed out before the reader asks: a paced stream relays what it took.
    },
    { highWaterMark: 0 },
  );
  return new Response(stream, { status, headers });
}

/** What undici's fetch rejects with when the peer closes the socket before any response. */
function connectionFailure(): TypeError {
  return new TypeError("fetch failed", { cause: connectionReset() });
}

function connectionReset(): Error {
  return Object.assign(new Error("read ECONNRESET"), {
    code: "ECONNRESET",
    errno: -104,
    syscall: "read",
  });
}

/** Resolves after `ms`, or rejects with the signal's reason, leaving no timer behind either way. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
