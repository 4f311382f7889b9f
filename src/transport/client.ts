/** @module The openai SDK client every surface sends through, set up the one way this package needs it. */
import { type ClientOptions, OpenAI } from "openai";
import type { Fetch } from "./fetch.js";

/** The SDK client options a user may add (chat's `configuration`): never the key, URL, fetch or retries. */
export type ClientExtras = Omit<ClientOptions, "apiKey" | "baseURL" | "fetch" | "maxRetries">;

/** What differs between the clients: the key, the URL, the fetch layer, the attempt's timeout. */
export interface ServiceClientOptions {
  apiKey: string;
  baseURL: string;
  /** The surface's fetch layer (`createServiceFetch`). */
  fetch: Fetch;
  /** Milliseconds per attempt; undefined keeps the SDK's default. */
  timeout?: number;
  /** Further SDK options a user passed (the chat model's `configuration`); the fields above win. */
  extra?: ClientOptions;
}

/**
 * An openai SDK client that never retries (the `ServiceCaller` is the one retry layer), never
 * reads `OPENAI_*` variables, and runs in any runtime.
 */
export function createServiceClient({
  apiKey,
  baseURL,
  fetch,
  timeout,
  extra,
}: ServiceClientOptions): OpenAI {
  return new OpenAI({
    ...extra,
    apiKey,
    baseURL,
    fetch,
    timeout,
    maxRetries: 0,
    // Explicit nulls stop the SDK reading OPENAI_ORG_ID / OPENAI_PROJECT_ID from the env.
    organization: null,
    project: null,
    // The main entry runs in browsers and edge runtimes too; guarding the key there is the app's.
    dangerouslyAllowBrowser: true,
  });
}
