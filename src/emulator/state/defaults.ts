/** @module The emulator's demo configuration: keys, tenant, endpoints, models and credit it starts with. */

import type { EmulatorStateConfig, ModelConfig } from "../options.js";
import { DEFAULT_EMBEDDING_DIMENSIONS } from "./state_records.js";

/** The permission a key needs on the dedicated endpoint surface (docs/service-contract.md#resources, docs/service-contract.md#authentication, rule 3). */
export const INFERENCE_SERVICE_PERMISSION = "Inference Service";

/** Demo key with the Inference Service permission: works on both surfaces. */
export const DEFAULT_API_KEY = "sk-emulator-demo";
/** Demo key without the Inference Service permission: 401 on the dedicated surface (docs/service-contract.md#authentication, rule 3). */
export const NO_PERMISSION_API_KEY = "sk-emulator-noperm";
/** Demo key that expired in 2000: 401 on both surfaces. */
export const EXPIRED_API_KEY = "sk-emulator-expired";

/** Demo tenant ID, the first half of every demo Service-Name. */
export const DEFAULT_TENANT_ID = "tenant-demo";
/** Running demo endpoint (Scaling 1/1). */
export const DEFAULT_SERVICE_NAME = "tenant-demo.demo-endpoint";
/** Pending demo endpoint (Scaling 0/1): calls get a closed connection (docs/service-contract.md#endpoint-states). */
export const PENDING_SERVICE_NAME = "tenant-demo.pending-endpoint";

/** Plain hosted demo model. */
export const DEFAULT_MODEL = "emulator-chat";
/** Hosted demo model that returns `reasoning_content` (its ID contains "reason"). */
export const REASONING_MODEL = "emulator-reasoner";
/**
 * Thinks as DeepSeek's thinking mode does: `reasoning_content`, which it needs back on the tool
 * calls of the current turn (else a 400), and a prompt cache.
 */
export const THINKING_MODEL = "emulator-thinker";
/** Thinks as R1 does: `reasoning_content`, and a 400 for any input message that carries it. */
export const R1_MODEL = "emulator-r1";
/** Thinks as a model behind vLLM ≥ 0.9 does: reasoning in the `reasoning` field. */
export const VLLM_REASONING_MODEL = "emulator-vllm";
/** Thinks in `<think>…</think>` at the start of its content, served without a reasoning parser. */
export const THINK_TAGS_MODEL = "emulator-think-tags";
/**
 * Thinks in its content up to a lone `</think>`: its chat template wrote the opening tag into
 * the prompt (DeepSeek R1 and Qwen3 templates on a server without a reasoning parser).
 */
export const OPENED_THINK_TAGS_MODEL = "emulator-think-open";
/**
 * Hosted embedding model, served at `/embeddings`: deterministic vectors in which texts that
 * share words lie near each other (see `embeddings.ts`), so retrieval over a few documents works.
 */
export const DEFAULT_EMBEDDING_MODEL = "emulator-embedding";
// Length of `emulator-embedding`'s vectors: beside the check of an embedding model's settings,
// which defaults to it (state_records.ts, which the console's browser script also reads).
export { DEFAULT_EMBEDDING_DIMENSIONS } from "./state_records.js";
/**
 * Hosted rerank model, served at `/rerank`: scores each document's relevance to a query by the
 * topic words they share (BM25 over stemmed words, see `rerank.ts`), so the document that answers
 * a plain question comes first.
 */
export const DEFAULT_RERANK_MODEL = "emulator-rerank";

/**
 * What every demo model does: call tools (also when forced), answer `response_format`
 * json_schema with a matching instance, read and write text only. Context windows are per model.
 */
const EMULATED_CAPABILITIES = {
  toolCalling: true,
  toolChoice: true,
  structuredOutput: true,
  reasoningOutput: false,
  imageInputs: false,
  imageUrlInputs: false,
  pdfInputs: false,
  audioInputs: false,
  videoInputs: false,
  imageOutputs: false,
  audioOutputs: false,
  videoOutputs: false,
} as const;

/**
 * The APIs the gateway lists `emulator-chat` and `emulator-reasoner` under: Chat Completions and
 * the Responses API (the other chat models get Chat Completions only).
 */
const SERVES_RESPONSES = ["openai", "openai-response"];

/** Starting account credit (Wallet). */
export const DEFAULT_CREDIT = 10;

/** Request bodies larger than this (8 MiB) get 413: no chat request needs more, and parsing one blocks the server. */
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

/** Where the in-process emulator pretends to live; `.invalid` can never resolve (RFC 2606). */
export const IN_PROCESS_ORIGIN = "http://emulator.invalid";

/** The state every emulator starts with; each collection given in the options replaces its default. */
export const DEFAULT_STATE: Readonly<Required<EmulatorStateConfig>> = deepFreeze({
  keys: [
    {
      id: "key-demo",
      name: "Demo key",
      secret: DEFAULT_API_KEY,
      permissions: [INFERENCE_SERVICE_PERMISSION],
    },
    {
      id: "key-noperm",
      name: "Key without Inference Service",
      secret: NO_PERMISSION_API_KEY,
      permissions: [],
    },
    {
      id: "key-expired",
      name: "Expired key",
      secret: EXPIRED_API_KEY,
      permissions: [INFERENCE_SERVICE_PERMISSION],
      expiresAt: "2000-01-01T00:00:00.000Z",
    },
  ],
  tenants: [{ id: DEFAULT_TENANT_ID, name: "Demo Tenant" }],
  endpoints: [
    { tenantId: DEFAULT_TENANT_ID, jobAlias: "demo-endpoint", replicas: 1, state: "Running" },
    { tenantId: DEFAULT_TENANT_ID, jobAlias: "pending-endpoint", replicas: 1, state: "Pending" },
  ],
  models: [
    {
      id: DEFAULT_MODEL,
      prices: { input: 0.5, output: 1.5 },
      endpointTypes: SERVES_RESPONSES,
      profile: { ...EMULATED_CAPABILITIES, maxInputTokens: 32_768, maxOutputTokens: 4_096 },
    },
    {
      id: REASONING_MODEL,
      prices: { input: 1, output: 4 },
      endpointTypes: SERVES_RESPONSES,
      profile: {
        ...EMULATED_CAPABILITIES,
        maxInputTokens: 65_536,
        maxOutputTokens: 8_192,
        reasoningOutput: true,
      },
    },
    ...thinkingModels(),
    {
      id: DEFAULT_EMBEDDING_MODEL,
      // An embedding model reads text and writes no tokens: only input is priced.
      prices: { input: 0.02, output: 0 },
      profile: { maxInputTokens: 8_192 },
      embedding: { dimensions: DEFAULT_EMBEDDING_DIMENSIONS },
    },
    {
      id: DEFAULT_RERANK_MODEL,
      // A reranker reads the query with each document and writes no tokens.
      prices: { input: 0.02, output: 0 },
      profile: { maxInputTokens: 8_192 },
      rerank: true,
    },
  ],
  credit: DEFAULT_CREDIT,
});

/**
 * The demo models of each way a model served behind the gateway thinks. Their profiles say what
 * a client must declare for them: R1 gets no reasoning back, the opened-tag model's answer starts
 * inside its reasoning.
 */
function thinkingModels(): ModelConfig[] {
  const thinking = {
    ...EMULATED_CAPABILITIES,
    maxInputTokens: 131_072,
    maxOutputTokens: 8_192,
    reasoningOutput: true,
  };
  // DeepSeek-like prices: a cache hit costs a tenth of a miss.
  const deepseek = { input: 0.28, cachedInput: 0.028, output: 0.42 };
  const served = { input: 0.2, output: 0.6 };
  return [
    {
      id: THINKING_MODEL,
      prices: deepseek,
      profile: thinking,
      reasoning: { format: "reasoning_content", input: "require" },
      promptCache: true,
    },
    {
      id: R1_MODEL,
      prices: { input: 0.55, cachedInput: 0.14, output: 2.19 },
      profile: { ...thinking, maxInputTokens: 65_536, reasoningRoundTrip: "never" },
      reasoning: { format: "reasoning_content", input: "refuse" },
      promptCache: true,
    },
    {
      id: VLLM_REASONING_MODEL,
      prices: served,
      profile: { ...thinking, maxInputTokens: 32_768 },
      reasoning: { format: "reasoning" },
    },
    {
      id: THINK_TAGS_MODEL,
      prices: served,
      profile: { ...thinking, maxInputTokens: 32_768 },
      reasoning: { format: "tags" },
    },
    {
      id: OPENED_THINK_TAGS_MODEL,
      prices: served,
      profile: { ...thinking, maxInputTokens: 32_768, reasoningTags: "opened" },
      reasoning: { format: "opened-tags" },
    },
  ];
}

/** Frozen all the way down: a caller mutating a default must not change every later emulator. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
