/**
 * @module The worst case of a `POST …/responses` body, before it is sent (for budget reservations
 * and token rate limits), by the package's one estimate (`spend/estimate.ts`): each input item as
 * a chat message is counted — its content, the arguments and outputs of function calls, and the
 * reasoning sent back (its summary and encrypted content, which lean high) — with the
 * instructions, tools and output format, and `max_output_tokens` of output.
 */

import {
  contentTokens,
  estimateTokens,
  jsonTokens,
  PER_CHAT_REQUEST,
  PER_MESSAGE,
  type RequestEstimate,
} from "../../spend/estimate.js";
import type { MediaRates } from "../../spend/media_tokens.js";

type Fields = Record<string, unknown>;

/**
 * The tokens of one input item: a message (its `input_image` and `input_file` parts at what they
 * may be billed, at the profile's `rates`), a function call or its output, a reasoning item.
 */
function itemTokens(item: Fields, rates: MediaRates | undefined): number {
  if (typeof item !== "object" || item === null) return 0;
  let tokens = PER_MESSAGE + contentTokens(item.content, rates);
  if (typeof item.arguments === "string") tokens += estimateTokens(item.arguments);
  if (typeof item.name === "string") tokens += estimateTokens(item.name);
  if (item.output !== undefined) {
    // A function's output may hold images and files as parts too.
    tokens +=
      typeof item.output === "string"
        ? estimateTokens(item.output)
        : Array.isArray(item.output)
          ? contentTokens(item.output, rates)
          : jsonTokens(item.output);
  }
  if (Array.isArray(item.summary)) tokens += contentTokens(item.summary);
  if (typeof item.encrypted_content === "string") tokens += estimateTokens(item.encrypted_content);
  return tokens;
}

/**
 * The estimate of a `/responses` body: its input items (images and files at the model's profile's
 * `rates`, as on Chat Completions), instructions, tools and format.
 */
export function estimateResponsesRequest(
  body: Fields,
  model: string,
  rates?: MediaRates,
): RequestEstimate {
  let inputTokens = PER_CHAT_REQUEST;
  const { input } = body;
  if (typeof input === "string") inputTokens += PER_MESSAGE + estimateTokens(input);
  else if (Array.isArray(input))
    for (const item of input) inputTokens += itemTokens(item as Fields, rates);
  if (typeof body.instructions === "string") inputTokens += estimateTokens(body.instructions);
  inputTokens += jsonTokens(body.tools) + jsonTokens((body.text as Fields | undefined)?.format);
  const max = body.max_output_tokens;
  const maxOutputTokens =
    typeof max === "number" && Number.isFinite(max) && max >= 0 ? max : undefined;
  return {
    model,
    inputTokens,
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    choices: 1,
  };
}
