/**
 * @module The gateway's error replies beyond docs/service-contract.md#errors, as the new-api gateway the service runs on sends
 * them (status, `code`, `type`, message and where the `(request id: …)` suffix is): injected with
 * `X-Emulator-Fault: <name>` so that a program's handling of each can be tested offline. Named
 * after the gateway's code where there is one; a reply named after a code is sent as the client's
 * table of gateway codes samples it (src/errors/gateway_codes.ts), so the two cannot drift apart.
 */

import { GATEWAY_CODES, type GatewayErrorBody } from "../../errors/gateway_codes.js";
import { consolePage } from "../console/index.js";
import { type EmulatorResponse, jsonReply, REQUEST_ID_HEADER } from "../reply.js";
import type { FaultContext, FaultDefinition } from "./fault.js";

const suffix = (requestId: string) => ` (request id: ${requestId})`;

/** The status and sample body of each code in the table of gateway codes (its first row of the code). */
const SAMPLES: ReadonlyMap<string, { status: number; sample: GatewayErrorBody }> = new Map(
  [...GATEWAY_CODES]
    .reverse()
    .map((row) => [row.code, { status: row.status[0], sample: row.sample }]),
);

/**
 * The gateway's reply with `code`, as the table of gateway codes samples it: the status it comes
 * with and its body, `{requestId}` and `{model}` filled in.
 */
export function gatewayReply(code: string, requestId: string, model: string): EmulatorResponse {
  const row = SAMPLES.get(code);
  if (row === undefined) throw new Error(`The table of gateway codes has no row for "${code}"`);
  const fill = (text: string) =>
    text.replace(/\{(requestId|model)\}/g, (_all, name: string) =>
      name === "model" ? model : requestId,
    );
  const error = Object.fromEntries(
    Object.entries(row.sample.error).map(([key, value]) => [key, fill(value)]),
  );
  return jsonReply(row.status, { error }, requestId);
}

/** `{"error": {message, type, code}}` in the key order of the gateway's `abortWithOpenAiMessage`. */
function gatewayError(
  status: number,
  code: string,
  message: string,
  requestId: string,
  type = "new_api_error",
): EmulatorResponse {
  return jsonReply(status, { error: { message, type, code } }, requestId);
}

/**
 * One gateway reply: a line for people, and either how it is built (a reply that carries no code
 * of the table of gateway codes) or nothing, for one sent as the table samples the code it is
 * named after.
 */
interface GatewayFaultRow {
  summary: string;
  answer?: (context: FaultContext) => EmulatorResponse;
  /**
   * Set for a reply about one part of a request: the body it is sent for. Any other request is
   * answered as usual (so a client's second try without that part gets its answer).
   */
  appliesTo?: (body: string) => boolean;
}

/** Whether a request body asks for a `json_schema` response format; never throws. */
function asksJsonSchema(body: string): boolean {
  try {
    const format = (JSON.parse(body) as { response_format?: { type?: unknown } } | null)
      ?.response_format;
    return format?.type === "json_schema";
  } catch {
    return false;
  }
}

/** A model server's 400 to a request with a `json_schema` response format, passed through by the gateway. */
const refusesJsonSchema = (why: string): GatewayFaultRow => ({
  summary: `400 to a \`json_schema\` \`response_format\`: ${why}; other requests are answered`,
  appliesTo: asksJsonSchema,
});

/** Every gateway reply the emulator can inject, by fault name, in the order of their table. */
const ROWS = {
  "429-cn": {
    summary: "The model rate limiter's 429: a Chinese message and an empty `code`",
    answer: ({ requestId }) =>
      gatewayError(
        429,
        "",
        `您已达到请求数限制：1分钟内最多请求60次${suffix(requestId)}`,
        requestId,
      ),
  },
  "429-empty": {
    summary: "The global rate limiter's 429: the status alone, no body, no content type",
    answer: ({ requestId }) => ({
      kind: "response",
      status: 429,
      headers: { [REQUEST_ID_HEADER]: requestId },
      body: "",
      abort: false,
      delayMs: 0,
    }),
  },
  access_denied: { summary: "403: the key may not be used from this IP address" },
  "403-model": {
    summary: "403 with an empty `code`: the key's model limits leave out this model",
    answer: ({ requestId, body }) =>
      gatewayError(
        403,
        "",
        `This token has no access to model ${modelOfBody(body) ?? "this model"}${suffix(requestId)}`,
        requestId,
      ),
  },
  pre_consume_token_quota_failed: { summary: "403: the key's own quota cannot cover the call" },
  insufficient_user_quota: {
    summary:
      "403: the Wallet cannot cover what the call reserves, in the gateway's other wording (credit 0 gives the usual one)",
  },
  invalid_request: {
    summary: "500 for a request the relay cannot read: a client error, despite its status",
  },
  sensitive_words_detected: { summary: "500: the gateway's word filter refused the prompt" },
  // Written by the Gemini channel, with the model server's status and no request ID in it.
  prompt_blocked: { summary: "400: the Gemini channel's safety check blocked the prompt" },
  model_price_error: { summary: "400: the operator has set no price for the model" },
  read_request_body_failed: { summary: "413: the request body is larger than the gateway reads" },
  // RelayNotImplemented: no request ID in the message.
  api_not_implemented: { summary: "501: the gateway has no relay for this route" },
  system_cpu_overloaded: { summary: "503: the gateway sheds load, its CPU overloaded" },
  system_memory_overloaded: { summary: "503: the gateway sheds load, its memory overloaded" },
  system_disk_overloaded: { summary: "503: the gateway sheds load, its disk overloaded" },
  do_request_failed: { summary: "500: the gateway could not reach the model server" },
  // The model server's own error, passed through with its status, type and code.
  context_length_exceeded: {
    summary:
      "400: the model server's own error, passed through: the prompt is longer than its context",
  },
  // OpenAI's refusal of a schema that breaks its strict rules, passed through with its status.
  invalid_json_schema: refusesJsonSchema("OpenAI's strict rules refuse its schema"),
  // DeepSeek's refusal of the format type, under its code for any refused request.
  invalid_request_error: refusesJsonSchema("DeepSeek does not take that type"),
  "200-error": {
    summary: "A model server's error, passed on with its 200",
    answer: ({ requestId }) =>
      gatewayError(
        200,
        "upstream_error",
        `The upstream model failed to answer${suffix(requestId)}`,
        requestId,
        "upstream_error",
      ),
  },
  "503-sse": {
    summary:
      "503 whose JSON error is labelled `text/event-stream`: written after a stream's headers were set",
    answer: ({ requestId }) => {
      const message = `当前分组上游负载已饱和，请稍后再试${suffix(requestId)}`;
      const reply = gatewayError(503, "", message, requestId);
      return { ...reply, headers: { ...reply.headers, "Content-Type": "text/event-stream" } };
    },
  },
  "html-json": {
    summary:
      "200 labelled JSON whose body is an HTML page (the console's), as a proxy in the way sends",
    answer: ({ requestId }) => {
      const page = consolePage(requestId);
      return {
        ...page,
        headers: { ...page.headers, "Content-Type": "application/json; charset=utf-8" },
      };
    },
  },
} as const satisfies Readonly<Record<string, GatewayFaultRow>>;

/** The gateway's replies beyond docs/service-contract.md#errors, by the name `X-Emulator-Fault` takes. */
export type GatewayFaultKind = keyof typeof ROWS;

/** Every gateway reply the emulator can inject, by fault name: a row named after a code answers with its sample. */
export const GATEWAY_FAULTS: Readonly<Record<GatewayFaultKind, FaultDefinition>> =
  Object.fromEntries(
    Object.entries(ROWS).map(([name, row]: [string, GatewayFaultRow]) => [
      name,
      {
        summary: row.summary,
        answer: (context: FaultContext) =>
          row.appliesTo && !row.appliesTo(context.body)
            ? undefined
            : (row.answer?.(context) ??
              gatewayReply(name, context.requestId, modelOfBody(context.body) ?? "unknown")),
      },
    ]),
  ) as Record<GatewayFaultKind, FaultDefinition>;

/** The `model` of a JSON request body, or undefined; never throws. */
export function modelOfBody(body: string): string | undefined {
  try {
    const model = (JSON.parse(body) as { model?: unknown } | null)?.model;
    return typeof model === "string" ? model : undefined;
  } catch {
    return undefined;
  }
}
