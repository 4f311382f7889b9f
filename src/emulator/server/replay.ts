/**
 * @module Replay in the emulator (`replay` option): every request under `/inference/v1` gets the
 * answer a cassette recorded for it — status, headers, body, stream events, a cut or refused
 * connection — whatever its key; one the cassette does not hold gets the replayer's 400 at once.
 * Faults apply to replayed answers as to generated ones (`X-Emulator-Fault`, the `faults` option),
 * unless the recording is that fault's answer already. The console and admin API are served as
 * usual, and replayed calls appear in the request log.
 */
import type { NameValue } from "../../cassette/cassette.js";
import { redactValuesProblem, TRANSPORT_RESPONSE_HEADERS } from "../../cassette/redaction.js";
import {
  MISS_STATUS,
  missBody,
  type RecordedAnswer,
  type ReplayAnswer,
  Replayer,
  type ReplayOptions,
  type ReplayRequest,
  type UnusedRecording,
} from "../../cassette/replayer.js";
import { API_PREFIX } from "../../constants.js";
import { MAX_TIMER_MS } from "../../utils/sleep.js";
import { damage, type FaultPlan, faultReply, UnknownFaultError } from "../faults/faults.js";
import {
  dropReply,
  type EmulatorReply,
  type EmulatorRequest,
  type EmulatorResponse,
  headerValue,
  jsonReply,
  REQUEST_ID_HEADER,
} from "../reply.js";
import { badRequest, emulatorFailure } from "../routes/errors.js";
import type { Handler } from "../routes/handler.js";
import type { HandlerContext } from "../routes/handler_context.js";
import { createRequestIdGenerator } from "../routes/request_id.js";
import { EmulatorConfigError, isRecord } from "../validate.js";

/** The `replay` option: a cassette file, or the file with how to match and how fast to answer. */
export type EmulatorReplayOption = string | ReplayOptions;

/** What an emulator that replays tells about its cassette. */
export interface ReplaySession {
  /** The cassette file. */
  cassette: string;
  /** How many recordings it holds. */
  readonly size: number;
  /** The recordings no request was answered with so far (after a run: those the run never used). */
  unused(): UnusedRecording[];
  /** Forgets what was served: each request gets its first recording again. */
  rewind(): void;
}

/** Unused recordings named one by one in {@link unusedNote}; the rest are counted. */
const SHOWN_UNUSED = 5;

/**
 * What a replay did not use, and the command that drops it; undefined when it used everything.
 *
 * @example
 * // cassette test/cassettes/app.har: 1 of 4 recordings were not used by this run: entry 2
 * // (POST /chat/completions (model "emulator-chat")). If no test needs it any more, drop it
 * // with: npx inference-service cassette prune test/cassettes/app.har --drop 2
 */
export function unusedNote(replay: ReplaySession): string | undefined {
  const unused = replay.unused();
  if (unused.length === 0) return undefined;
  const listed = unused
    .slice(0, SHOWN_UNUSED)
    .map(({ index, request }) => `entry ${index} (${request})`)
    .join(", ");
  const more = unused.length > SHOWN_UNUSED ? `, and ${unused.length - SHOWN_UNUSED} more` : "";
  const one = unused.length === 1;
  return `cassette ${replay.cassette}: ${unused.length} of ${replay.size} recordings ${one ? "was" : "were"} not used by this run: ${listed}${more}. If no test needs ${one ? "it" : "them"} any more, drop ${one ? "it" : "them"} with: npx inference-service cassette prune ${replay.cassette} --drop ${unused.map(({ index }) => index).join(",")}`;
}

/** Statuses whose answer has no body, whatever a cassette holds. */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/** `handler` with replay in front of it, for every path under `/inference/v1`. */
export function replayHandler(
  option: EmulatorReplayOption,
  context: HandlerContext,
  handler: Handler,
): { handle: Handler; session: ReplaySession } {
  const checked = checkReplayOption(option);
  const replayer = Replayer.open(checked);
  const nextRequestId = createRequestIdGenerator(context.clock);
  const handle: Handler = (request) => {
    const query = request.url.indexOf("?");
    const path = query < 0 ? request.url : request.url.slice(0, query);
    if (path !== API_PREFIX && !path.startsWith(`${API_PREFIX}/`)) return handler(request);
    try {
      return replay(replayer, context, request, nextRequestId);
    } catch (error) {
      // A recorded answer a fault cannot damage must still get an answer, never hang the client.
      const reply = emulatorFailure(nextRequestId(), (error as Error).message);
      log(context, request, reply, "replay");
      return reply;
    }
  };
  return {
    handle,
    session: {
      cassette: typeof checked === "string" ? checked : checked.cassette,
      size: replayer.size,
      unused: () => replayer.unused(),
      rewind: () => replayer.rewind(),
    },
  };
}

/** One replayed call: its fault, its recording, and the reply they make. */
function replay(
  replayer: Replayer,
  context: HandlerContext,
  request: EmulatorRequest,
  nextRequestId: () => string,
): EmulatorReply {
  const shape: ReplayRequest = {
    method: request.method,
    path: request.url,
    body: request.body,
    headers: request.headers,
  };
  let plan: FaultPlan;
  try {
    plan = context.faults.plan(headerValue(request, "x-emulator-fault"));
  } catch (error) {
    if (!(error instanceof UnknownFaultError)) throw error;
    const reply = badRequest(nextRequestId(), error.message);
    log(context, request, reply, "replay");
    return reply;
  }
  if (plan.label === undefined)
    return served(context, request, replayer.answer(shape), nextRequestId);
  // A recording made with this request's fault is that fault's answer already: replayed as it is.
  const peek = replayer.answer(shape, { consume: false });
  if ("hit" in peek && peek.hit.recordedFault !== undefined) {
    return served(context, request, replayer.answer(shape), nextRequestId);
  }
  // A fault that answers in place of the service leaves the recording for the next call (a retry).
  const instead = faultReply(plan.fault, {
    requestId: nextRequestId(),
    body: request.body,
    url: request.url,
    retryAfterSeconds: context.faults.retryAfterSeconds,
  });
  if (instead) {
    instead.delayMs = plan.latencyMs;
    log(context, request, instead, plan.label);
    return instead;
  }
  const answer = replayer.answer(shape);
  const reply = "hit" in answer ? replyOf(answer.hit) : missReply(answer.miss, nextRequestId());
  const damaged =
    reply.kind === "response" && "hit" in answer
      ? damage(reply, plan.fault, requestIdOf(reply) ?? nextRequestId())
      : reply;
  damaged.delayMs = Math.min(damaged.delayMs + plan.latencyMs, MAX_TIMER_MS);
  log(context, request, damaged, "hit" in answer ? `replay, ${plan.label}` : "not-in-cassette");
  return damaged;
}

/** The reply of a request with no fault: its recording, or the miss. */
function served(
  context: HandlerContext,
  request: EmulatorRequest,
  answer: ReplayAnswer,
  nextRequestId: () => string,
): EmulatorReply {
  const reply = "hit" in answer ? replyOf(answer.hit) : missReply(answer.miss, nextRequestId());
  log(context, request, reply, "hit" in answer ? "replay" : "not-in-cassette");
  return reply;
}

/** The answer to a request the cassette does not hold: a 400 `not_in_cassette` with a request ID. */
export function missReply(message: string, requestId: string): EmulatorResponse {
  return jsonReply(MISS_STATUS, JSON.parse(missBody(message)), requestId);
}

/**
 * The recorded answer as the transports write replies: events as a stream, a failure as a cut or
 * drop. The transport's own headers (`Content-Length`, `Transfer-Encoding`, …) are left to the
 * transport, which sets them for the body it sends; a status that has no body sends none.
 */
export function replyOf(answer: RecordedAnswer): EmulatorReply {
  const waitMs = Math.min(answer.waitMs, MAX_TIMER_MS);
  if (answer.status === 0) return { ...dropReply(false), delayMs: waitMs };
  const { body } = answer;
  const headers = headerRecord(answer.headers);
  if (NULL_BODY_STATUSES.has(answer.status)) {
    return {
      kind: "response",
      status: answer.status,
      headers,
      body: "",
      abort: false,
      delayMs: waitMs,
    };
  }
  const events = "events" in body ? body.events : undefined;
  return {
    kind: "response",
    status: answer.status,
    headers,
    body:
      "events" in body
        ? body.events.map((event) => event.text)
        : // A body that was not UTF-8 is written as its text: the transports write strings.
          body.encoding === "base64"
          ? Buffer.from(body.text, "base64").toString("utf8")
          : body.text,
    abort: answer.error !== undefined,
    delayMs: waitMs,
    ...(events?.some((event) => event.time > 0)
      ? {
          chunkDelaysMs: events.map((event, i) =>
            Math.min(Math.max(0, event.time - (events[i - 1]?.time ?? 0)), MAX_TIMER_MS),
          ),
        }
      : {}),
  };
}

/** Repeated names joined with `, `, as HTTP folds them; the transport's own left out. */
function headerRecord(headers: readonly NameValue[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { name, value } of headers) {
    if (TRANSPORT_RESPONSE_HEADERS.has(name.toLowerCase())) continue;
    out[name] = name in out ? `${out[name]}, ${value}` : value;
  }
  return out;
}

function requestIdOf(reply: EmulatorReply): string | undefined {
  if (reply.kind !== "response") return undefined;
  return reply.headers[REQUEST_ID_HEADER.toLowerCase()] ?? reply.headers[REQUEST_ID_HEADER];
}

/** Replayed calls in the request log, so the console and `state.requests()` show them. */
function log(
  context: HandlerContext,
  request: EmulatorRequest,
  reply: EmulatorReply,
  fault: string,
): void {
  const response = reply.kind === "response" ? reply : undefined;
  const serviceName = headerValue(request, "service-name");
  let model: string | undefined;
  try {
    model = (JSON.parse(request.body) as { model?: unknown }).model as string | undefined;
  } catch {
    model = undefined;
  }
  context.state.record({
    requestId: requestIdOf(reply) ?? "",
    time: new Date(context.clock()).toISOString(),
    surface: request.url.startsWith(`${API_PREFIX}/completions`) ? "dedicated" : "hosted",
    ...(typeof model === "string" ? { model } : {}),
    ...(serviceName ? { serviceName } : {}),
    stream: Array.isArray(response?.body),
    promptTokens: 0,
    completionTokens: 0,
    totalTokens: 0,
    cost: 0,
    status: response?.status ?? 0,
    fault,
  });
}

/** The option as given, checked where it enters. */
function checkReplayOption(option: unknown): ReplayOptions | string {
  if (typeof option === "string" && option !== "") return option;
  if (isRecord(option) && typeof option.cassette === "string" && option.cassette !== "") {
    const { ignore, timing, redact, loop } = option;
    const strings = (value: unknown) =>
      value === undefined ||
      (Array.isArray(value) && value.every((item) => typeof item === "string"));
    if (!strings(ignore))
      throw new EmulatorConfigError(
        'replay.ignore must be a list of body field paths such as "user" or "metadata.run_id"',
      );
    if (!strings(redact)) throw new EmulatorConfigError("replay.redact must be a list of strings");
    const short = redactValuesProblem(
      (redact as string[] | undefined) ?? [],
      (index) => `replay.redact[${index}]`,
    );
    if (short) throw new EmulatorConfigError(short);
    if (timing !== undefined && timing !== "fast" && timing !== "recorded") {
      throw new EmulatorConfigError(
        `replay.timing must be "fast" or "recorded", got ${JSON.stringify(timing)}`,
      );
    }
    if (loop !== undefined && typeof loop !== "boolean") {
      throw new EmulatorConfigError(
        `replay.loop must be true or false, got ${JSON.stringify(loop)}`,
      );
    }
    return option as unknown as ReplayOptions;
  }
  throw new EmulatorConfigError(
    "replay must be a cassette file path, or { cassette: path, ignore?, timing?, redact?, loop? }",
  );
}
