/** @module The fetch layer under the openai SDK: adds a surface's headers and types every failure. */
import { isAbortError, isTimeoutError } from "./abort.js";
import { SERVICE_NAME_HEADER } from "./constants.js";
import { type Failure, type FailureContext, toServiceError } from "./error_mapper.js";
import { ModelNotFoundError } from "./errors.js";
import { listModelIds } from "./model_list.js";

/** The signature of `globalThis.fetch`, which the openai SDK accepts as its `fetch` option. */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Options of {@link createServiceFetch}. */
export interface ServiceFetchOptions extends FailureContext {
  /** The fetch that really sends; defaults to `globalThis.fetch` at call time (so test interceptors apply). */
  fetch?: Fetch;
  /** Headers this surface needs on every request, unless the request already sets them. */
  headers?: Readonly<Record<string, string>>;
  /**
   * On a `ModelNotFoundError` of a `…/chat/completions` call, send one `GET …/models` with the
   * same key (2 s at most, never retried, its failure ignored) and name the listed IDs, and the
   * near misses of the model ID, in the error's hint. @default false
   */
  lookUpModels?: boolean;
}

// Lower case: compared with header names as given, which Headers would normalise.
const SERVICE_NAME = SERVICE_NAME_HEADER.toLowerCase();
// A successful body we can hand to the SDK untouched; anything else is read and classified.
const PASS_THROUGH_TYPE = /json|event-stream/i;

/**
 * The request's headers with the surface's added and, on the hosted surface, `Service-Name`
 * removed (§4.2). Returns the caller's own object when nothing changes: copying headers is the
 * biggest cost of this layer on a hosted call.
 */
function surfaceHeaders(
  given: HeadersInit | undefined,
  extra: ReadonlyArray<[string, string]>,
  surface: FailureContext["surface"],
): HeadersInit | undefined {
  if (extra.length === 0 && surface === "hosted" && !hasServiceName(given)) return given;
  const headers = new Headers(given);
  for (const [name, value] of extra) if (!headers.has(name)) headers.set(name, value);
  if (surface === "hosted") headers.delete(SERVICE_NAME);
  return headers;
}

function hasServiceName(headers: HeadersInit | undefined): boolean {
  if (headers === undefined) return false;
  if (headers instanceof Headers) return headers.has(SERVICE_NAME);
  const names = Array.isArray(headers) ? headers.map(([name]) => name) : Object.keys(headers);
  return names.some((name) => name.toLowerCase() === SERVICE_NAME);
}

/**
 * Wraps `fetch` so that every response the SDK sees is one it can use, and every failure is a
 * typed error thrown from here (the SDK passes it on as the `cause` of its connection error).
 *
 * - adds the surface's headers; on the hosted surface removes `Service-Name` (§4.2);
 * - non-2xx: reads the (small) error body and throws the mapped error, so the SDK never retries it;
 * - 2xx HTML or other non-JSON: throws `BaseURLError` (§7 rule 4); an empty 2xx is mapped too;
 * - successful JSON and SSE bodies are returned as they are: never buffered, never cloned.
 */
export function createServiceFetch(options: ServiceFetchOptions): Fetch {
  const { fetch: baseFetch, headers: extra = {}, lookUpModels = false, ...ctx } = options;
  const extraEntries = Object.entries(extra);
  return async (input, init) => {
    const headers = surfaceHeaders(init?.headers, extraEntries, ctx.surface);
    const failureCtx: FailureContext =
      ctx.surface === "dedicated"
        ? { ...ctx, serviceName: (headers as Headers).get(SERVICE_NAME) ?? ctx.serviceName }
        : ctx;
    let response: Response;
    try {
      response = await (baseFetch ?? globalThis.fetch)(
        input,
        headers === init?.headers ? init : { ...init, headers },
      );
    } catch (error) {
      // Not a network failure: a cancellation passes through as it is, and a timeout is left to
      // the SDK and the mapper, which type it as one (here it would read as a Pending endpoint).
      if (init?.signal?.aborted || isAbortError(error) || isTimeoutError(error)) throw error;
      throw toServiceError({ kind: "network", cause: error }, failureCtx);
    }
    if (!response.ok) {
      const body = await response.text().catch(() => "");
      const failure: Failure = {
        kind: "http",
        status: response.status,
        body,
        headers: response.headers,
      };
      const error = toServiceError(failure, failureCtx);
      if (!lookUpModels || !ModelNotFoundError.isInstance(error)) throw error;
      const availableModels = await lookUp(input, headers, baseFetch, init?.signal);
      throw availableModels ? toServiceError(failure, { ...failureCtx, availableModels }) : error;
    }
    const contentType = response.headers.get("content-type") ?? "";
    if (PASS_THROUGH_TYPE.test(contentType)) {
      if (response.headers.get("content-length") === "0") {
        throw toServiceError(
          { kind: "empty", status: response.status, headers: response.headers },
          failureCtx,
        );
      }
      return response;
    }
    // Not labelled JSON: read it once. Tolerate JSON sent without a content type.
    const body = await response.text().catch(() => "");
    if (body.trim() === "") {
      throw toServiceError(
        { kind: "empty", status: response.status, headers: response.headers },
        failureCtx,
      );
    }
    if (!/^\s*</.test(body)) {
      try {
        JSON.parse(body);
        const fixed = new Headers(response.headers);
        fixed.set("content-type", "application/json");
        return new Response(body, { status: response.status, headers: fixed });
      } catch {
        // fall through: not JSON either
      }
    }
    throw toServiceError(
      {
        kind: "non-json",
        status: response.status,
        body,
        contentType: contentType.split(";")[0] ?? "",
        headers: response.headers,
      },
      failureCtx,
    );
  };
}

const CHAT_PATH = /\/chat\/completions$/;

/** The model IDs the service lists, with the key of the failed call (see `lookUpModels`). */
async function lookUp(
  input: string | URL | Request,
  headers: HeadersInit | undefined,
  fetch: Fetch | undefined,
  signal: AbortSignal | null | undefined,
): Promise<string[] | undefined> {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!CHAT_PATH.test(url.pathname)) return undefined;
  const authorization = new Headers(headers).get("authorization") ?? "";
  return listModelIds({
    baseURL: `${url.origin}${url.pathname.replace(CHAT_PATH, "")}`,
    apiKey: authorization.replace(/^Bearer\s+/i, "") || undefined,
    fetch,
    signal: signal ?? undefined,
  });
}
