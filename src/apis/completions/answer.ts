/**
 * @module The generations of a 2xx `/completions` answer, whose body
 * docs/service-contract.md#dedicated-endpoints leaves "not shown": read tolerantly, in the
 * completions shape or the chat shape.
 */
import type { Generation } from "@langchain/core/outputs";
import { type FailureContext, headerRequestId, toServiceError } from "../../errors/mapper.js";
import { tokenUsageFromWire } from "../../spend/usage.js";
import {
  carriesAnswer,
  type RawChoice,
  textOfChoice,
  throwErrorObject,
} from "../../transport/answer.js";
import { withoutUndefined } from "../../utils/without_undefined.js";

/**
 * The generations of one non-streamed answer, each with its finish reason, the request ID
 * (`X-Gateway-Request-Id`, docs/service-contract.md#errors, rule 5) and the answer's usage. An empty body is the empty answer of
 * a Pending endpoint (docs/service-contract.md#endpoint-states); a body without readable choices is a `MalformedResponseError`.
 */
export function parseCompletion(
  data: unknown,
  response: Response,
  ctx: FailureContext,
): Generation[] {
  // The SDK turns an empty JSON body into `undefined`: the empty answer of a Pending endpoint (docs/service-contract.md#endpoint-states).
  if (data === undefined || data === "") {
    throw toServiceError(
      { kind: "empty", status: response.status, headers: response.headers },
      ctx,
    );
  }
  const choices = (data as { choices?: unknown } | null)?.choices;
  const texts = Array.isArray(choices)
    ? choices.map((choice: RawChoice) => textOfChoice(choice, "message"))
    : [];
  const unread = texts.length === 0 || texts.some((text) => text === undefined);
  // An empty text counts only with a finish reason, as in a stream (`carriesAnswer`).
  if (unread || !(choices as unknown[]).every((choice) => carriesAnswer(choice, "message"))) {
    throwErrorObject(data, response.status, response.headers, ctx);
    // The mapper quotes the start of the body, redacting secrets before it cuts.
    throw toServiceError(
      {
        kind: "malformed",
        detail: unread
          ? "the JSON body has neither choices[].text nor choices[].message.content"
          : "a choice has an empty text and no finish reason",
        body: data,
        headers: response.headers,
        status: response.status,
      },
      ctx,
    );
  }
  const requestId = headerRequestId(response.headers);
  const tokenUsage = tokenUsageFromWire((data as { usage?: unknown }).usage);
  return (choices as RawChoice[]).map((choice, i) => ({
    text: texts[i] ?? "",
    generationInfo: withoutUndefined({
      finishReason: choice.finish_reason ?? undefined,
      requestId,
      tokenUsage,
    }),
  }));
}
