/**
 * @module The requests of `diagnose`: each the cheapest that answers its question, sent through
 * a channel as the models send theirs, so every failure arrives as the typed error a model would
 * throw; never retried, never metered.
 */
import { InferenceServiceError } from "../errors/errors.js";
import { asServiceError, type FailureContext, headerRequestId } from "../errors/mapper.js";
import { tokenUsageFromWire } from "../spend/usage.js";
import type { Api } from "../transport/apis.js";
import { ServiceChannel } from "../transport/channel.js";
import type { Fetch } from "../transport/fetch.js";

/** Sent by the key check: no service can know it, so the key is judged without any cost. */
export const NO_SUCH_MODEL = "inference-service-doctor-no-such-model";
/** The one-word prompt of every request (docs/service-contract.md#dedicated-endpoints, docs/service-contract.md#hosted-models), with `max_tokens: 1`. */
export const PROMPT = "ping";

/** Where the requests go, and with what. */
export interface Target {
  baseURL: string;
  apiKey?: string;
  fetch?: Fetch;
  timeout: number;
}

/** The answer to one request: a parsed 2xx body, or the typed error the package maps it to. */
export type Outcome =
  | { ok: true; data: unknown; response: Response; ctx: FailureContext; requestId?: string }
  | { ok: false; error: InferenceServiceError };

/** Whom a request is for, and the model IDs its `ModelNotFoundError` may name. */
export interface Addressee {
  model?: string;
  serviceName?: string;
  availableModels?: string[];
}

/**
 * One request through a channel of its own (`maxRetries: 0`, no meter); a 2xx answer is then
 * checked by the models' own checks (see {@link answerError}). `diagnose` lists the models
 * itself, once, so the channel does not look them up on an unknown model.
 */
export async function post(
  target: Target,
  api: Api,
  body: Record<string, unknown>,
  { model, serviceName, availableModels }: Addressee,
): Promise<Outcome> {
  const channel = new ServiceChannel(
    api,
    {
      // A probe without a key still tells a 401 from HTML or a 404
      // (docs/service-contract.md#authentication, rule 4): the header is left out below.
      apiKey: target.apiKey ?? "no-key",
      baseURL: target.baseURL,
      fetch: target.fetch,
      timeout: target.timeout,
      idleTimeout: target.timeout,
      maxRetries: 0,
    },
    { model, serviceName, lookUpModels: false },
  );
  try {
    return await channel.request(
      {
        body,
        ...(target.apiKey ? {} : { headers: { Authorization: null } }),
        ...(availableModels ? { context: { availableModels } } : {}),
      },
      ({ data, response }, ctx) => ({
        result: {
          ok: true,
          data,
          response,
          ctx,
          requestId: headerRequestId(response.headers),
        } satisfies Outcome,
      }),
    );
  } catch (error) {
    if (InferenceServiceError.isInstance(error)) return { ok: false, error };
    throw error;
  }
}

/** One chat completion of `max_tokens: 1` from `model`. */
export function postChat(target: Target, model: string, availableModels?: string[]) {
  const body = { model, messages: [{ role: "user", content: PROMPT }], max_tokens: 1 };
  return post(target, "chat", body, { model, availableModels });
}

/** One completion of `max_tokens: 1` from the dedicated endpoint `serviceName`. */
export function postCompletion(target: Target, serviceName: string): Promise<Outcome> {
  // docs/service-contract.md#dedicated-endpoints, rule 1: the Service-Name header must be added explicitly.
  const body = { prompt: PROMPT, max_tokens: 1 };
  return post(target, "completions", body, { serviceName });
}

/**
 * Runs a model's own check of a 2xx answer (`checkChatCompletion`, `parseCompletion`): the typed
 * error it throws, or undefined when the answer is usable.
 */
export function answerError(
  outcome: Extract<Outcome, { ok: true }>,
  check: () => unknown,
): InferenceServiceError | undefined {
  try {
    check();
    return undefined;
  } catch (thrown) {
    const error = asServiceError(thrown, outcome.ctx);
    if (!InferenceServiceError.isInstance(error)) throw error;
    return error;
  }
}

/** ` (N tokens used)` from a passing answer's usage, or nothing when it reports none. */
export function tokensUsed(outcome: Extract<Outcome, { ok: true }>): string {
  const used = tokenUsageFromWire((outcome.data as { usage?: unknown }).usage)?.totalTokens;
  return used === undefined ? "" : ` (${used} ${used === 1 ? "token" : "tokens"} used)`;
}
