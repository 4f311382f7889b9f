/**
 * @module What `useResponsesApi: "auto"` remembers, per process: the service's model list, read
 * once per base URL and key, and the models the gateway could not serve through the Responses
 * API, per base URL, key and model — each for {@link AUTO_MEMORY_TTL_MS}, so that a new model
 * instance with the same key skips what an earlier one learnt, and a fixed gateway is tried again
 * (docs/responses.md#auto). Keys are kept as their hash (`apiKeyId`), never themselves.
 */
import { apiKeyId } from "../../spend/rate_limiter.js";
import { type ListedModel, listModels } from "../../transport/model_list.js";

/** How long "auto" trusts what it learnt: 10 minutes. */
export const AUTO_MEMORY_TTL_MS = 10 * 60 * 1000;

/** The endpoint type new-api lists for a model it serves through the Responses API. */
export const RESPONSES_ENDPOINT_TYPE = "openai-response";

interface Remembered<T> {
  until: number;
  value: T;
}

const lists = new Map<string, Remembered<Promise<ListedModel[] | undefined>>>();
const fallbacks = new Map<string, Remembered<true>>();

/** Where a model is served: its base URL, its key's hash and its ID. */
export interface AutoTarget {
  baseURL: string;
  apiKey: string;
  model: string;
  fetch?: (input: string, init?: RequestInit) => Promise<Response>;
}

const listKey = ({ baseURL, apiKey }: AutoTarget) => `${baseURL}\u0000${apiKeyId(apiKey)}`;
const modelKey = (target: AutoTarget) => `${listKey(target)}\u0000${target.model}`;

function fresh<T>(map: Map<string, Remembered<T>>, key: string): T | undefined {
  const entry = map.get(key);
  if (entry === undefined) return undefined;
  if (entry.until > Date.now()) return entry.value;
  map.delete(key);
  return undefined;
}

/**
 * Whether "auto" sends `target`'s calls to the Responses API: its model is listed with
 * {@link RESPONSES_ENDPOINT_TYPE}, and the gateway has not failed to serve it there lately. The
 * list is read once per base URL and key (one `GET …/models`, never retried); a list the service
 * does not give means Chat Completions.
 */
export async function autoUsesResponses(target: AutoTarget): Promise<boolean> {
  if (fresh(fallbacks, modelKey(target))) return false;
  const key = listKey(target);
  let listed = fresh(lists, key);
  if (listed === undefined) {
    const { baseURL, apiKey, fetch } = target;
    listed = listModels({ baseURL, apiKey, ...(fetch ? { fetch } : {}) });
    lists.set(key, { until: Date.now() + AUTO_MEMORY_TTL_MS, value: listed });
  }
  const entry = (await listed)?.find((model) => model.id === target.model);
  return entry?.endpointTypes?.includes(RESPONSES_ENDPOINT_TYPE) === true;
}

/** The gateway could not serve `target` through the Responses API: Chat Completions for a while. */
export function rememberFallback(target: AutoTarget): void {
  fallbacks.set(modelKey(target), { until: Date.now() + AUTO_MEMORY_TTL_MS, value: true });
}

/**
 * Forgets what `useResponsesApi: "auto"` learnt in this process — the model lists it read and
 * the models it fell back to Chat Completions for — so that the next call asks again (after a
 * gateway's channels changed, or between tests).
 *
 * @example
 * ```ts
 * import { resetResponsesAuto } from "langchain-inference-service";
 * resetResponsesAuto();
 * ```
 */
export function resetResponsesAuto(): void {
  lists.clear();
  fallbacks.clear();
}
