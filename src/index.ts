/** @module Public API of langchain-inference-service; runs in any JS runtime (no node:* imports). */

export { normalizeBaseURL } from "./config/base_url.js";
export {
  DEFAULT_DEDICATED_PROFILE,
  DEFAULT_HOSTED_PROFILE,
  type ModelProfiles,
} from "./config/profiles.js";
export { buildServiceName, validateServiceName } from "./config/service_name.js";
export { API_PREFIX, ENV } from "./constants.js";
export {
  type DiagnoseOptions,
  type Diagnosis,
  type DiagnosisCheck,
  diagnose,
} from "./diagnose/diagnose.js";
export {
  AuthenticationError,
  BadRequestError,
  BaseURLError,
  BudgetExceededError,
  type BudgetExceededErrorInit,
  ConfigurationError,
  ContentFilterError,
  ContextLengthExceededError,
  EndpointNotReadyError,
  InferenceServiceError,
  type InferenceServiceErrorInit,
  InsufficientCreditError,
  InvalidURLError,
  KeyQuotaExceededError,
  MalformedResponseError,
  ModelNotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServiceConnectionError,
  ServiceNameError,
  ServiceTimeoutError,
  ServiceUnavailableError,
  type Surface,
  UsageStoreError,
  type UsageStoreErrorInit,
} from "./errors/errors.js";
export { type Failure, type FailureContext, toServiceError } from "./errors/mapper.js";
export {
  ChatInferenceService,
  type ChatInferenceServiceCallOptions,
  type ChatInferenceServiceFields,
} from "./models/chat_models.js";
export {
  DedicatedEndpointLLM,
  type DedicatedEndpointLLMCallOptions,
  type DedicatedEndpointLLMFields,
  type LLMLangSmithParams,
} from "./models/llms.js";
export {
  type InitChatInferenceServiceFields,
  initChatInferenceService,
} from "./models/model_string.js";
export type { RequestEstimate } from "./spend/estimate.js";
export { RateLimiter, type RateLimiterOptions, type RatePermit } from "./spend/rate_limiter.js";
export {
  type BudgetStatus,
  type ModelPrice,
  type UsageRecord,
  type UsageSnapshot,
  type UsageTotals,
  UsageTracker,
  type UsageTrackerOptions,
} from "./spend/usage_tracker.js";
export { type WithUsageResult, withUsage } from "./spend/with_usage.js";
export { MemoryStore } from "./stores/memory_store.js";
export type {
  BudgetReservation,
  BudgetState,
  RateGrant,
  RatePenalty,
  RateTake,
  ReserveOutcome,
  UsageStore,
} from "./stores/usage_store.js";
export { createServiceFetch, type Fetch, type ServiceFetchOptions } from "./transport/fetch.js";
export { DEFAULT_MAX_RETRIES, type RetryOptions } from "./transport/retry.js";
export { VERSION } from "./version.js";
