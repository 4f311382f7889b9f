/**
 * @module Emulator options: their types (the JSON config file has the same shape) and the check
 * of their top level, made where they enter; each collection is checked by the state it fills.
 */

import type { ReplayOptions } from "../cassette/replayer.js";
import type { InferenceModelProfile } from "../config/profiles.js";
import type { FaultOptions } from "./faults/faults.js";
import { EmulatorConfigError } from "./validate.js";

/** Dedicated endpoint states named in docs/service-contract.md#endpoint-states. */
export type EndpointState = "Pending" | "Running";

/** An API key as configured (options, JSON file, `POST /_emulator/keys`). */
export interface ApiKeyConfig {
  /** The bearer token clients send. */
  secret: string;
  /** Stable handle for the admin API. Default: `key-<n>`. */
  id?: string;
  /** Label shown by the admin API and the CLI. Default: the id. */
  name?: string;
  /** Default: `["Inference Service"]`, so a key added without thought works on both surfaces. */
  permissions?: string[];
  /** Expiry as an ISO date or epoch milliseconds; from then on the key gets 401. Default: never. */
  expiresAt?: string | number;
}

/** A tenant (docs/service-contract.md#resources); its ID is the first half of a Service-Name. */
export interface TenantConfig {
  id: string;
  /** Default: the id. */
  name?: string;
}

/** A dedicated endpoint as configured. */
export interface EndpointConfig {
  tenantId: string;
  jobAlias: string;
  /** Total replicas. Default 1. */
  replicas?: number;
  /** Default "Running". Ignored when `readyAfterMs` is given: the endpoint then starts Pending. */
  state?: EndpointState;
  /** Pending for this long after it is added (or the emulator starts or resets), then Running. */
  readyAfterMs?: number;
}

/** Prices in credit units per million tokens. */
export interface ModelPrices {
  input: number;
  output: number;
  /** Prompt tokens read from the model's prompt cache (see `promptCache`). Default: `input`. */
  cachedInput?: number;
  /** Prompt tokens written to the cache to live five minutes (`promptCache: "breakpoints"`). Default: `input`. */
  cacheWrite?: number;
  /** Prompt tokens written to the cache to live an hour (`promptCache: "breakpoints"`). Default: `cacheWrite`. */
  cacheWrite1h?: number;
}

/** Where an emulated model writes its reasoning, as the model servers behind a gateway do. */
export type ReasoningFormat =
  /** The `reasoning_content` field of the message or delta (DeepSeek's API, most gateways). */
  | "reasoning_content"
  /** The `reasoning` field (vLLM ≥ 0.9). */
  | "reasoning"
  /** `<think>…</think>` opening the content (a server without a reasoning parser). */
  | "tags"
  /** The content up to a lone `</think>`: the chat template wrote the opening tag. */
  | "opened-tags";

/** How an emulated model thinks. */
export interface ModelReasoningConfig {
  /** Where the reasoning goes. */
  format: ReasoningFormat;
  /**
   * What the model makes of reasoning in the messages it is sent: `"ignore"` it (default);
   * `"require"` it, answering 400 "The reasoning_content in the thinking mode must be passed back
   * to the API." unless each assistant message of the current turn (after the last user message)
   * that called tools carries its `reasoning_content`, as DeepSeek's thinking mode does; or
   * `"refuse"` it, answering 400 to any input message with `reasoning_content`, as R1 does.
   */
  input?: "ignore" | "require" | "refuse";
}

/** A hosted model as configured. */
export interface ModelConfig {
  id: string;
  /** Default `{ input: 1, output: 1 }`. */
  prices?: ModelPrices;
  /**
   * What the model can do and its context window, as a client declares it in
   * `ChatInferenceService`'s `profiles` (the service itself publishes none: docs/service-contract.md#hosted-models). Informative
   * for a chat model (the emulator does not enforce it); an embedding model refuses an input
   * over its `maxInputTokens`. Default none.
   */
  profile?: InferenceModelProfile;
  /**
   * How the model thinks. Default: none, except that a model whose ID contains "reason" writes
   * `reasoning_content`. A request that switches thinking off (`thinking: { type: "disabled" }`,
   * `enable_thinking: false`, `chat_template_kwargs: { enable_thinking: false }`) gets none.
   */
  reasoning?: ModelReasoningConfig;
  /**
   * How the model caches prompts. `true`: as DeepSeek's API and OpenAI's automatic caching do —
   * the prompt tokens of a prefix the model has seen before (same model, same leading messages
   * and tools, same `prompt_cache_key`, since start or `reset()`) are reported as
   * `usage.prompt_tokens_details.cached_tokens`, in blocks of 64 tokens, and charged at
   * `prices.cachedInput`. `"breakpoints"`: as a Claude model behind the gateway does — the prompt
   * up to each `cache_control` breakpoint of a content block (or a tool) is written to the cache,
   * for an hour when the breakpoint says `ttl: "1h"`, else five minutes; a later prompt reads the
   * longest prefix written before. Reads and writes are reported in the gateway's fields
   * (`cached_tokens`, `cached_creation_tokens`, `claude_cache_creation_5_m_tokens`,
   * `claude_cache_creation_1_h_tokens`; `prompt_tokens` counts them all) and charged at
   * `cachedInput`, `cacheWrite` and `cacheWrite1h`. Default false: no cache.
   */
  promptCache?: boolean | "breakpoints";
  /**
   * Makes it an embedding model, served at `/embeddings` (and refused at `/chat/completions`):
   * `dimensions` is the length of its vectors, and `profile.maxInputTokens`, when given, is
   * enforced on each input. Default none: a chat model.
   */
  embedding?: EmbeddingModelConfig;
  /**
   * Makes it a rerank model, served at `/rerank` (and refused at `/chat/completions`): it scores
   * each document's relevance to a query. Default false: a chat model.
   */
  rerank?: boolean;
  /**
   * The APIs the gateway serves the model through, listed as its `supported_endpoint_types` in
   * `GET /models` (new-api's names). A chat model that lacks `"openai-response"` is refused at
   * `/responses` as new-api refuses a channel without that API: a 500 `convert_request_failed`.
   * Default: `["openai"]` for a chat model, `["embeddings"]`, `["jina-rerank"]`.
   */
  endpointTypes?: string[];
  /**
   * The model ignores `response_format` and answers `json_schema` and `json_object` requests in
   * prose, as behind a channel that does not read the field; `GET /models` says so in its
   * `description`. Default false.
   */
  ignoresResponseFormat?: boolean;
}

/** What makes a model an embedding model. */
export interface EmbeddingModelConfig {
  /** Length of the vectors it returns; a request may ask for fewer with `dimensions`. Default 256. */
  dimensions?: number;
}

/** The configurable part of the state: the shape of the options and of the JSON config file. */
export interface EmulatorStateConfig {
  keys?: ApiKeyConfig[];
  tenants?: TenantConfig[];
  endpoints?: EndpointConfig[];
  models?: ModelConfig[];
  /** Account credit (Wallet). */
  credit?: number;
}

/**
 * Options of {@link createEmulator}; the JSON config file has the same shape (without `clock`).
 * Each of `keys`, `tenants`, `endpoints`, `models` given replaces its default list.
 */
export interface EmulatorOptions extends EmulatorStateConfig {
  /** Random fault injection. Default: none (faults come only from the `X-Emulator-Fault` header). */
  faults?: FaultOptions;
  /** How many request log entries are kept. Default 1000. */
  requestLogLimit?: number;
  /** Pause between streamed events, in milliseconds, to emulate generation speed. Default 0. */
  streamChunkDelayMs?: number;
  /**
   * Request bodies larger than this many bytes get 413; the emulator stops reading them there.
   * Default 8 MiB (`DEFAULT_MAX_BODY_BYTES`).
   */
  maxBodyBytes?: number;
  /** Time source for key expiry, `readyAfterMs`, `created` and request IDs. Default `Date.now`. */
  clock?: () => number;
  /**
   * Replay a cassette (docs/testing.md): every request under `/inference/v1` gets the answer
   * recorded for it, whatever its key; one the cassette does not hold gets a 400
   * `not_in_cassette` at once. A file path, or `{ cassette, ignore?, timing?, redact? }`.
   * Default: none (the emulator answers).
   */
  replay?: string | ReplayOptions;
}

/** Options of {@link startEmulator}. */
export interface StartEmulatorOptions extends EmulatorOptions {
  /** TCP port; 0 picks a free one. Default 0. */
  port?: number;
  /** Interface to listen on. Default `127.0.0.1` (loopback only: the admin API has no authentication). */
  host?: string;
}

const KNOWN_OPTIONS = new Set([
  "keys",
  "tenants",
  "endpoints",
  "models",
  "credit",
  "faults",
  "requestLogLimit",
  "streamChunkDelayMs",
  "maxBodyBytes",
  "clock",
  "replay",
  "port",
  "host",
]);

/** Checks the options' top level: an object, every key known, `clock` a function. */
export function checkEmulatorOptions(options: EmulatorOptions): void {
  if (typeof options !== "object" || options === null) {
    throw new EmulatorConfigError("emulator options must be an object");
  }
  const unknown = Object.keys(options).filter((key) => !KNOWN_OPTIONS.has(key));
  if (unknown.length > 0) throw new EmulatorConfigError(`unknown emulator option "${unknown[0]}"`);
  if (options.clock !== undefined && typeof options.clock !== "function") {
    throw new EmulatorConfigError("clock must be a function returning epoch milliseconds");
  }
}
