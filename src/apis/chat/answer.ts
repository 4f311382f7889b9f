/**
 * @module The check of a 2xx chat completion: a non-empty `choices` array
 * (docs/service-contract.md#errors, rule 4), each choice carrying an answer; anything else is a
 * `MalformedResponseError`, never an empty reply. And a json_schema answer cut short refused as
 * the openai SDK's `parse` would refuse it (this package never calls `parse`: it reads an answer
 * before its `<think>` tags are taken out).
 */
import type { OpenAI } from "openai";
import { ContentFilterFinishReasonError, LengthFinishReasonError } from "openai/error";
import { type FailureContext, toServiceError } from "../../errors/mapper.js";
import { carriesAnswer, throwErrorObject } from "../../transport/answer.js";

/**
 * A chat completion as the hosted surface must answer it: with a non-empty `choices` array
 * (docs/service-contract.md#errors, rule 4) each of which carries an answer
 * ({@link carriesAnswer}); anything else is a `MalformedResponseError`, never an empty reply.
 * Returns `data` unchanged.
 */
export function checkChatCompletion<T>(data: T, headers: Headers, ctx: FailureContext): T {
  const choices = (data as { choices?: unknown } | null | undefined)?.choices;
  const some = Array.isArray(choices) && choices.length > 0;
  if (some && choices.every((choice) => carriesAnswer(choice, "message"))) return data;
  throwErrorObject(data, 200, headers, ctx);
  throw toServiceError(
    {
      kind: "malformed",
      detail: some
        ? "a choice has no message with content, tool calls, reasoning or a finish reason"
        : "the JSON body has no non-empty `choices` array",
      headers,
      status: 200,
    },
    ctx,
  );
}

/**
 * What the openai SDK's `parse` (which `@langchain/openai` calls for a json_schema answer) raises
 * on an answer cut short, where the JSON cannot be whole: the same errors, after the attempt has
 * settled what the service charged for it.
 */
export function checkStructuredFinish(completion: OpenAI.Chat.Completions.ChatCompletion): void {
  for (const choice of completion.choices) {
    if (choice.finish_reason === "length") throw new LengthFinishReasonError();
    if (choice.finish_reason === "content_filter") throw new ContentFilterFinishReasonError();
  }
}
