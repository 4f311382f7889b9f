/**
 * @module The fault soak's driver and checker, shared by `test/soak.test.ts` and the child-process
 * script `test/soak/child.ts`: concurrent calls through the emulator's seeded random faults, each
 * judged against what the wire saw on its last attempt.
 */
import {
  DEFAULT_MODEL,
  DEFAULT_SERVICE_NAME,
  FAULT_HEADER,
  type FaultKind,
  type FaultOptions,
  REQUEST_ID_HEADER,
  type RequestLogEntry,
} from "../../src/emulator/index.js";
import {
  ChatInferenceService,
  DedicatedEndpointLLM,
  EndpointNotReadyError,
  type InferenceServiceError,
  RateLimitError,
  ServiceConnectionError,
  ServiceUnavailableError,
} from "../../src/index.js";
import type { Fetch } from "../../src/transport/fetch.js";

export const MODES = ["chat.invoke", "chat.stream", "llm.invoke", "llm.stream"] as const;
export type Mode = (typeof MODES)[number];

export const KINDS: FaultKind[] = ["429", "502", "503", "reset", "truncate", "stream-error"];
const RETRY_AFTER_SECONDS = 0.002;

/** Random faults on 60% of requests: enough that every fault ends calls of every mode. */
export const SOAK_FAULTS: Required<FaultOptions> = {
  rate: 0.6,
  kinds: KINDS,
  seed: 20_261_122,
  retryAfterSeconds: RETRY_AFTER_SECONDS,
};

/** Retries per mode: the models' own (2 and 3), and a per-call override for LLM streams. */
export const MAX_RETRIES: Record<Mode, number> = {
  "chat.invoke": 2,
  "chat.stream": 2,
  "llm.invoke": 3,
  "llm.stream": 2,
};
const RETRY = { initialDelayMs: 1, maxDelayMs: 5 };

/** One HTTP request of a call, as the fetch under the SDK saw it. */
export interface Attempt {
  status?: number;
  requestId?: string;
  /** The fetch rejected: no response at all. */
  refused?: boolean;
}

/** One call of the soak and how it ended. */
export interface SoakCall {
  index: number;
  mode: Mode;
  prompt: string;
  attempts: Attempt[];
  /** Text received: the whole answer, or the chunks streamed before a failure. */
  received: string;
  error?: unknown;
}

export interface SoakOptions {
  baseURL: string;
  apiKey: string;
  calls: number;
  concurrency: number;
  /** A safety net only: a call reaching it is reported as a hang. */
  callTimeoutMs?: number;
  /** Sent as `X-Emulator-Fault` on every request, instead of the emulator's random draw. */
  fault?: FaultKind;
}

/** What the emulator's rule-based model answers to a short prompt (docs/emulator.md, rule 6). */
export function expectedText(mode: Mode, prompt: string): string {
  return mode.startsWith("chat")
    ? `Emulated reply to: "${prompt}"`
    : `Emulated completion of: "${prompt}"`;
}

/**
 * Runs `calls` calls, cycling through the four modes, on `concurrency` workers. Each worker owns a
 * chat model and an LLM whose fetch records every request of the worker's current call.
 */
export async function runSoak(options: SoakOptions): Promise<SoakCall[]> {
  const { baseURL, apiKey, calls, concurrency, callTimeoutMs = 20_000, fault } = options;
  const done: SoakCall[] = [];
  let next = 0;

  const worker = async () => {
    let current: SoakCall | undefined;
    const fetch: Fetch = async (input, init) => {
      const attempt: Attempt = {};
      current?.attempts.push(attempt);
      const headers = new Headers(init?.headers);
      if (fault !== undefined) headers.set(FAULT_HEADER, fault);
      try {
        const response = await globalThis.fetch(input, { ...init, headers });
        attempt.status = response.status;
        attempt.requestId = response.headers.get(REQUEST_ID_HEADER) ?? undefined;
        return response;
      } catch (error) {
        attempt.refused = true;
        throw error;
      }
    };
    const chat = new ChatInferenceService(DEFAULT_MODEL, {
      apiKey,
      baseURL,
      fetch,
      maxRetries: MAX_RETRIES["chat.invoke"],
      retry: RETRY,
    });
    const llm = new DedicatedEndpointLLM({
      serviceName: DEFAULT_SERVICE_NAME,
      apiKey,
      baseURL,
      fetch,
      maxRetries: MAX_RETRIES["llm.invoke"],
      retry: RETRY,
    });
    for (let index = next++; index < calls; index = next++) {
      const mode = MODES[index % MODES.length]!;
      const call: SoakCall = {
        index,
        mode,
        prompt: `soak call ${index}`,
        attempts: [],
        received: "",
      };
      current = call;
      done.push(call);
      const signal = AbortSignal.timeout(callTimeoutMs);
      try {
        switch (mode) {
          case "chat.invoke":
            call.received = String((await chat.invoke(call.prompt, { signal })).content);
            break;
          case "chat.stream":
            for await (const chunk of await chat.stream(call.prompt, { signal })) {
              call.received += chunk.text;
            }
            break;
          case "llm.invoke":
            call.received = await llm.invoke(call.prompt, { signal });
            break;
          case "llm.stream":
            for await (const text of await llm.stream(call.prompt, {
              signal,
              maxRetries: MAX_RETRIES["llm.stream"],
            })) {
              call.received += text;
            }
            break;
        }
      } catch (error) {
        call.error = error;
      }
    }
  };

  await Promise.all(Array.from({ length: concurrency }, worker));
  return done.sort((a, b) => a.index - b.index);
}

type Fault = FaultKind | "none";
type ErrorClass = { isInstance(value: unknown): boolean; name: string };

/** The typed error a call must end in when its last attempt got `fault`. */
interface Expected {
  cls: ErrorClass;
  midStream: boolean;
  status?: number;
  code?: string;
}

/**
 * The mapping of each injected fault, per mode. Streams are never retried once their first event
 * was handed out, so a cut or an error event there ends the call mid-stream, keeping its output.
 */
export function expectedError(mode: Mode, fault: FaultKind): Expected {
  const dedicated = mode.startsWith("llm");
  const stream = mode.endsWith("stream");
  switch (fault) {
    case "429":
      return { cls: RateLimitError, midStream: false, status: 429, code: "rate_limit_exceeded" };
    case "500":
    case "502":
    case "503":
      return {
        cls: ServiceUnavailableError,
        midStream: false,
        status: Number(fault),
        code: "upstream_error",
      };
    case "reset":
      // docs/service-contract.md#errors, rule 7: a dedicated endpoint that closes the connection unanswered is Pending.
      return { cls: dedicated ? EndpointNotReadyError : ServiceConnectionError, midStream: false };
    case "truncate":
      // A body cut after its 200: the service answered, so a broken connection on both surfaces.
      return { cls: ServiceConnectionError, midStream: stream };
    case "stream-error":
      return stream
        ? { cls: ServiceUnavailableError, midStream: true, code: "upstream_error" }
        : { cls: ServiceUnavailableError, midStream: false, status: 500, code: "upstream_error" };
    default:
      throw new Error(`the soak does not inject ${fault}`);
  }
}

/** Counts of how calls ended, per mode: `ok`, or `<last fault> → <error class>`. */
export type Tally = Record<Mode, Record<string, number>>;

export interface SoakReport {
  problems: string[];
  tally: Tally;
  requests: number;
}

/**
 * Judges every call against the emulator's request log (which fault each request got, by its
 * `X-Gateway-Request-Id`; a refused fetch is a `reset`): the right outcome, the right number of
 * attempts, and the right class and fields of its error. Returns the problems found, if any.
 */
export function checkSoak(calls: SoakCall[], log: RequestLogEntry[]): SoakReport {
  const problems: string[] = [];
  const tally = Object.fromEntries(MODES.map((m) => [m, {}])) as Tally;
  const faultById = new Map(log.map((entry) => [entry.requestId, entry.fault]));
  const faultOf = (attempt: Attempt): Fault | undefined =>
    attempt.refused
      ? "reset"
      : attempt.requestId === undefined || !faultById.has(attempt.requestId)
        ? undefined
        : ((faultById.get(attempt.requestId) as FaultKind | undefined) ?? "none");

  for (const call of calls) {
    const say = (what: string) => problems.push(`call ${call.index} (${call.mode}): ${what}`);
    const faults = call.attempts.map(faultOf);
    const last = faults.at(-1);
    const maxAttempts = 1 + MAX_RETRIES[call.mode];
    if (faults.length === 0 || faults.includes(undefined)) {
      say(`attempts missing from the emulator's log: ${JSON.stringify(call.attempts)}`);
      continue;
    }
    if (faults.length > maxAttempts) say(`${faults.length} attempts, more than ${maxAttempts}`);
    const retried = faults.slice(0, -1);
    if (retried.includes("none")) say(`retried after a success: ${faults}`);
    // A stream is retried only before its first event; the chat model hands its stream out as
    // soon as the headers arrive, the LLM after reading the first event.
    const neverRetried: Fault[] =
      call.mode === "chat.stream"
        ? ["truncate", "stream-error"]
        : call.mode === "llm.stream"
          ? ["stream-error"]
          : [];
    if (retried.some((f) => neverRetried.includes(f!))) say(`retried a stream: ${faults}`);
    const name = (call.error as { name?: unknown } | undefined)?.name;
    if (name === "TimeoutError" || name === "AbortError") {
      say("hit the safety timeout (a hang)");
      continue;
    }
    const expected = expectedText(call.mode, call.prompt);
    if (last === "none") {
      tally[call.mode].ok = (tally[call.mode].ok ?? 0) + 1;
      if (call.error !== undefined) say(`failed after a clean response: ${String(call.error)}`);
      else if (call.received !== expected) say(`received ${JSON.stringify(call.received)}`);
      continue;
    }
    const want = expectedError(call.mode, last as FaultKind);
    const key = `${last} → ${want.cls.name}`;
    tally[call.mode][key] = (tally[call.mode][key] ?? 0) + 1;
    if (!want.cls.isInstance(call.error)) {
      say(`last fault ${last}: expected ${want.cls.name}, got ${String(call.error)}`);
      continue;
    }
    const error = call.error as InferenceServiceError;
    const lastAttempt = call.attempts.at(-1)!;
    const mismatches = [
      ["surface", error.surface, call.mode.startsWith("chat") ? "hosted" : "dedicated"],
      ["midStream", error.midStream, want.midStream],
      ["status", error.status, want.status],
      ["code", error.code, want.code],
      ["retryable", error.retryable, true],
      ["retryAfterMs", error.retryAfterMs, last === "429" ? RETRY_AFTER_SECONDS * 1000 : undefined],
    ].filter(([, got, wanted]) => got !== wanted);
    for (const [field, got, wanted] of mismatches) say(`${field} ${got}, expected ${wanted}`);
    if (want.status !== undefined || want.code !== undefined) {
      if (error.requestId !== lastAttempt.requestId) say(`requestId ${error.requestId}`);
    }
    if (!error.message.includes(error.hint)) say("the message does not carry the hint");
    if (want.midStream) {
      // Not retried: the output was handed out already, and the error keeps exactly that.
      if (error.partialOutput !== call.received) say(`partialOutput ${error.partialOutput}`);
      if (!expected.startsWith(call.received)) say(`received ${JSON.stringify(call.received)}`);
    } else if (faults.length !== maxAttempts) {
      say(`a retryable ${last} was tried ${faults.length} times, not ${maxAttempts}`);
    }
  }

  const attempts = calls.reduce((n, call) => n + call.attempts.length, 0);
  if (attempts !== log.length) {
    problems.push(`the clients sent ${attempts} requests, the emulator logged ${log.length}`);
  }
  return { problems, tally, requests: attempts };
}

/** The (mode, fault) pairs that ended no call: the soak must see every fault end every mode. */
export function uncovered(tally: Tally): string[] {
  const missing: string[] = [];
  for (const mode of MODES) {
    if (!tally[mode].ok) missing.push(`${mode}: ok`);
    for (const fault of KINDS) {
      const key = `${fault} → ${expectedError(mode, fault).cls.name}`;
      if (!tally[mode][key]) missing.push(`${mode}: ${key}`);
    }
  }
  return missing;
}
