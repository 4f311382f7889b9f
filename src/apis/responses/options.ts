/**
 * @module The options of the Responses API on `ChatInferenceService`: `useResponsesApi`, and the
 * reasoning summary only that API writes (docs/responses.md).
 */
import { z } from "zod";
import { ConfigurationError } from "../../errors/errors.js";

/** Which API a chat model calls: Chat Completions (`false`), Responses (`true`), or by the model list (`"auto"`). */
export type ResponsesMode = boolean | "auto";

/** The `useResponsesApi` option's check (its field, JSDoc and default are in `apis/options.ts`). */
export const useResponsesApiSchema = z
  .union([z.boolean(), z.literal("auto")])
  .describe(
    'true (POST …/responses), false (POST …/chat/completions) or "auto" (…/responses for a model the service lists with "openai-response")',
  );

/** Whether a `reasoning` option asks for a summary, which only the Responses API writes. */
export function asksForSummary(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const { summary, generate_summary } = value as Record<string, unknown>;
  return summary != null || generate_summary != null;
}

/**
 * A reasoning summary on a model that calls Chat Completions is a `ConfigurationError`: only the
 * Responses API writes one, and `ChatOpenAI` would switch APIs on its own for it.
 */
export function checkReasoningSummary(reasoning: unknown, mode: ResponsesMode | undefined): void {
  if (mode !== undefined && mode !== false) return;
  if (!asksForSummary(reasoning)) return;
  throw new ConfigurationError(
    "reasoning",
    '`reasoning.summary` is written only by the Responses API: set `useResponsesApi: true` (or "auto") to ask for one, or leave `summary` out (a Chat Completions model\'s own reasoning arrives as `reasoning_content`).',
  );
}
