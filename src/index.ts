/**
 * @module Public API of langchain-inference-service: what the docs teach, and nothing else. Runs
 * in any JS runtime (no node:* imports). Writing your own `UsageStore` takes the types of
 * `langchain-inference-service/stores`; the Redis store is `langchain-inference-service/redis`;
 * the emulator is `langchain-inference-service/emulator`.
 */

// The models
export {
  ChatInferenceService,
  type ChatInferenceServiceCallOptions,
  type ChatInferenceServiceFields,
} from "./apis/chat/chat_models.js";
export { requestIdOf } from "./apis/chat/converters.js";
export {
  type InitChatInferenceServiceFields,
  initChatInferenceService,
} from "./apis/chat/model_string.js";
export {
  STRUCTURED_OUTPUT_STEP_DOWN_EVENT,
  type StructuredOutputStepDownEvent,
} from "./apis/chat/step_down.js";
export type { StructuredOutputWithRaw } from "./apis/chat/structured_output.js";
export {
  DedicatedEndpointLLM,
  type DedicatedEndpointLLMCallOptions,
  type DedicatedEndpointLLMFields,
} from "./apis/completions/llms.js";
export {
  InferenceServiceEmbeddings,
  type InferenceServiceEmbeddingsFields,
} from "./apis/embeddings/embeddings.js";
export {
  InferenceServiceRerank,
  type InferenceServiceRerankFields,
  type RerankCallOptions,
  type RerankDocument,
  type RerankResult,
} from "./apis/rerank/rerank.js";
export { resetResponsesAuto } from "./apis/responses/fallbacks.js";
export {
  DEFAULT_DEDICATED_PROFILE,
  DEFAULT_HOSTED_PROFILE,
  type InferenceModelProfile,
  type ModelProfiles,
} from "./config/profiles.js";
// Checking a configuration
export {
  type DiagnoseOptions,
  type Diagnosis,
  type DiagnosisCheck,
  diagnose,
} from "./diagnose/diagnose.js";
// Errors
export {
  AuthenticationError,
  BadRequestError,
  BaseURLError,
  BudgetExceededError,
  ConfigurationError,
  ContentFilterError,
  ContextLengthExceededError,
  EndpointNotReadyError,
  InferenceServiceError,
  InsufficientCreditError,
  InvalidURLError,
  KeyQuotaExceededError,
  MalformedResponseError,
  ModelNotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ResponseFormatError,
  ServiceConnectionError,
  ServiceNameError,
  ServiceTimeoutError,
  ServiceUnavailableError,
  StructuredOutputError,
  type StructuredOutputMethod,
  type Surface,
  UsageStoreError,
} from "./errors/errors.js";
export type { BudgetStatus } from "./spend/budget.js";
// Usage, cost, budgets and rate limits
export { RateLimiter, type RateLimiterOptions } from "./spend/rate_limiter.js";
export type {
  Settlement,
  UsageRecord,
  UsageSnapshot,
  UsageTotals,
} from "./spend/usage_records.js";
export { UsageTracker } from "./spend/usage_tracker.js";
export type { ModelPrice, UsageTrackerOptions } from "./spend/usage_tracker_options.js";
export { type WithUsageResult, withUsage } from "./spend/with_usage.js";
export { MemoryStore } from "./stores/memory_store.js";
export type { UsageStore } from "./stores/usage_store.js";
export type { RetryOptions } from "./transport/retry.js";

export { VERSION } from "./version.js";
