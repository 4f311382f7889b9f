/**
 * @module Replay in the emulator (`replay` option): every request under `/inference/v1` gets the
 * answer a cassette recorded for it — status, headers, body, stream events, a cut or refused
 * connection — whatever its key; one the cassette does not hold gets the replayer's 400 at once.
 * The console and admin API are served as usual, and replayed calls appear in the request log.
 */
import type { NameValue } from "../cassette/cassette.js";
import {
  MISS_STATUS,
  missBody,
  type RecordedAnswer,
  Replayer,
  type ReplayOptions,
} from "../cassette/replayer.js";
import { API_PREFIX } from "../constants.js";
import type { Handler } from "./handler.js";
import type { HandlerContext } from "./handler_context.js";
import {
  dropReply,
  type EmulatorReply,
  type EmulatorRequest,
  type EmulatorResponse,
  headerValue,
  jsonReply,
  REQUEST_ID_HEADER,
} from "./reply.js";
import { createRequestIdGenerator } from "./request_id.js";
import { EmulatorConfigError, isRecord } from "./validate.js";

/** The `replay` option: a cassette file, or the file with how to match and how fast to answer. */
export type EmulatorReplayOption = string | ReplayOptions;

/** `handler` with replay in front of it, for every path under `/inference/v1`. */
export function replayHandler(
  option: EmulatorReplayOption,
  context: HandlerContext,
  handler: Handler,
): Handler {
  const replayer = Replayer.open(checkReplayOption(option));
  const nextRequestId = createRequestIdGenerator(context.clock);
  return (request) => {
    const query = request.url.indexOf("?");
    const path = query < 0 ? request.url : request.url.slice(0, query);
    if (path !== API_PREFIX && !path.startsWith(`${API_PREFIX}/`)) return handler(request);
    const answer = replayer.answer({
      method: request.method,
      path: request.url,
      body: request.body,
      headers: request.headers,
    });
    const reply = "hit" in answer ? replyOf(answer.hit) : missReply(answer.miss, nextRequestId());
    log(context, request, reply, "miss" in answer);
    return reply;
  };
}

/** The answer to a request the cassette does not hold: a 400 `not_in_cassette` with a request ID. */
export function missReply(message: string, requestId: string): EmulatorResponse {
  return jsonReply(MISS_STATUS, JSON.parse(missBody(message)), requestId);
}

/** The recorded answer as the transports write replies: events as a stream, a failure as a cut or drop. */
export function replyOf(answer: RecordedAnswer): EmulatorReply {
  if (answer.status === 0) return { ...dropReply(false), delayMs: answer.waitMs };
  const { body } = answer;
  const events = "events" in body ? body.events : undefined;
  return {
    kind: "response",
    status: answer.status,
    headers: headerRecord(answer.headers),
    body:
      "events" in body
        ? body.events.map((event) => event.text)
        : // A body that was not UTF-8 is written as its text: the transports write strings.
          body.encoding === "base64"
          ? Buffer.from(body.text, "base64").toString("utf8")
          : body.text,
    abort: answer.error !== undefined,
    delayMs: answer.waitMs,
    ...(events?.some((event) => event.time > 0)
      ? {
          chunkDelaysMs: events.map((event, i) =>
            Math.max(0, event.time - (events[i - 1]?.time ?? 0)),
          ),
        }
      : {}),
  };
}

/** Repeated names joined with `, `, as HTTP folds them. */
function headerRecord(headers: readonly NameValue[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { name, value } of headers) out[name] = name in out ? `${out[name]}, ${value}` : value;
  return out;
}

/** Replayed calls in the request log, so the console and `state.requests()` show them. */
function log(
  context: HandlerContext,
  request: EmulatorRequest,
  reply: EmulatorReply,
  miss: boolean,
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
    requestId:
      response?.headers[REQUEST_ID_HEADER.toLowerCase()] ??
      response?.headers[REQUEST_ID_HEADER] ??
      "",
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
    fault: miss ? "not-in-cassette" : "replay",
  });
}

/** The option as given, checked where it enters. */
function checkReplayOption(option: unknown): ReplayOptions | string {
  if (typeof option === "string" && option !== "") return option;
  if (isRecord(option) && typeof option.cassette === "string" && option.cassette !== "") {
    const { ignore, timing, redact } = option;
    const strings = (value: unknown) =>
      value === undefined ||
      (Array.isArray(value) && value.every((item) => typeof item === "string"));
    if (!strings(ignore))
      throw new EmulatorConfigError(
        'replay.ignore must be a list of body field paths such as "user" or "metadata.run_id"',
      );
    if (!strings(redact)) throw new EmulatorConfigError("replay.redact must be a list of strings");
    if (timing !== undefined && timing !== "fast" && timing !== "recorded") {
      throw new EmulatorConfigError(
        `replay.timing must be "fast" or "recorded", got ${JSON.stringify(timing)}`,
      );
    }
    return option as unknown as ReplayOptions;
  }
  throw new EmulatorConfigError(
    "replay must be a cassette file path, or { cassette: path, ignore?, timing?, redact? }",
  );
}
