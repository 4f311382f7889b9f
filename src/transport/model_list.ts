/**
 * @module The one extra request the package makes on its own: `GET …/models`, to list the model
 * IDs the service offers when a model ID is unknown, and the APIs the gateway serves each of them
 * through (its `supported_endpoint_types`). Bounded, never retried, never thrown.
 */

/** Options of {@link listModelIds}. */
export interface ListModelIdsOptions {
  /** The `…/inference/v1` base URL; the request goes to `{baseURL}/models`. */
  baseURL: string;
  /** Sent as `Authorization: Bearer …`, and nowhere else. */
  apiKey?: string;
  /** The fetch that really sends (not the fetch layer: nothing here may throw a typed error). @default `globalThis.fetch` at call time */
  fetch?: (input: string, init?: RequestInit) => Promise<Response>;
  /** Milliseconds the lookup may take. @default 2000 */
  timeoutMs?: number;
  /** Cancels the lookup with the call it belongs to. */
  signal?: AbortSignal;
}

/** The lookup waits this long at most: it only improves a hint. */
export const MODEL_LIST_TIMEOUT_MS = 2_000;
// A gateway's list is a few KB; a body larger than this is not a model list.
const MAX_BODY_CHARS = 1_000_000;
const MAX_IDS = 1_000;

/**
 * The model IDs of `GET {baseURL}/models` (the new-api gateway's list: `{ data: [{ id }] }`), or
 * undefined whenever the service does not answer that route with such a list: any status but
 * 2xx, HTML, another JSON shape, a network failure or the timeout. One request, never retried;
 * it never throws and returns nothing but IDs, so the key cannot leak through it.
 *
 * @example
 * const ids = await listModelIds({ baseURL: "https://host/inference/v1", apiKey });
 * // ["emulator-chat", "emulator-reasoner"], or undefined
 */
export async function listModelIds(options: ListModelIdsOptions): Promise<string[] | undefined> {
  return (await listModels(options))?.map((model) => model.id);
}

/** One model of the service's list. */
export interface ListedModel {
  id: string;
  /**
   * The APIs the gateway serves the model through, as new-api lists them
   * (`supported_endpoint_types`: `"openai"`, `"openai-response"`, `"embeddings"`, …); undefined
   * when the entry does not say.
   */
  endpointTypes?: readonly string[];
}

/**
 * The models of `GET {baseURL}/models`, each with the APIs it is served through when the list
 * says, or undefined as {@link listModelIds} says. One request, never retried, never thrown.
 */
export async function listModels(options: ListModelIdsOptions): Promise<ListedModel[] | undefined> {
  const { baseURL, apiKey, fetch, timeoutMs = MODEL_LIST_TIMEOUT_MS, signal } = options;
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const response = await (fetch ?? globalThis.fetch)(`${baseURL}/models`, {
      method: "GET",
      headers: {
        Accept: "application/json",
        ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}),
      },
      signal: signal ? anySignal([signal, timeout]) : timeout,
    });
    if (!response.ok || Number(response.headers.get("content-length") ?? 0) > MAX_BODY_CHARS) {
      await response.body?.cancel().catch(() => {});
      return undefined;
    }
    const text = await response.text();
    if (text.length > MAX_BODY_CHARS) return undefined;
    return modelsOf(JSON.parse(text));
  } catch {
    // Not JSON, cut off, refused, timed out or cancelled: the hint stays as it was.
    return undefined;
  }
}

function modelsOf(body: unknown): ListedModel[] | undefined {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return undefined;
  const models = new Map<string, ListedModel>();
  for (const item of data) {
    const { id, supported_endpoint_types: types } = (item ?? {}) as Record<string, unknown>;
    if (typeof id !== "string" || id.trim() === "" || models.has(id)) continue;
    const endpointTypes = Array.isArray(types)
      ? types.filter((type): type is string => typeof type === "string")
      : undefined;
    models.set(id, endpointTypes ? { id, endpointTypes } : { id });
    if (models.size === MAX_IDS) break;
  }
  return [...models.values()];
}

/** `AbortSignal.any`, which some runtimes lack; there the timeout alone bounds the lookup. */
function anySignal(signals: AbortSignal[]): AbortSignal {
  const any = (AbortSignal as { any?: (signals: AbortSignal[]) => AbortSignal }).any;
  return any ? any.call(AbortSignal, signals) : signals[signals.length - 1]!;
}
