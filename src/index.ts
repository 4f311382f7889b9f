/** @module Public API of langchain-inference-service; runs in any JS runtime (no node:* imports). */
export {
  ChatInferenceService,
  type ChatInferenceServiceCallOptions,
  type ChatInferenceServiceFields,
} from "./chat_models.js";
export { buildServiceName, normalizeBaseURL, validateServiceName } from "./config.js";
export { API_PREFIX, ENV } from "./constants.js";
export { type DiagnoseOptions, type Diagnosis, type DiagnosisCheck, diagnose } from "./diagnose.js";
export { type Failure, type FailureContext, toServiceError } from "./error_mapper.js";
export {
  AuthenticationError,
  BadRequestError,
  BaseURLError,
  BudgetExceededError,
  type BudgetExceededErrorInit,
  ConfigurationError,
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
} from "./errors.js";
export type { RequestEstimate } from "./estimate.js";
export { createServiceFetch, type Fetch, type ServiceFetchOptions } from "./fetch.js";
export {
  DedicatedEndpointLLM,
  type DedicatedEndpointLLMCallOptions,
  type DedicatedEndpointLLMFields,
  type LLMLangSmithParams,
} from "./llms.js";
export { MemoryStore } from "./memory_store.js";
export { type InitChatInferenceServiceFields, initChatInferenceService } from "./model_string.js";
export {
  DEFAULT_DEDICATED_PROFILE,
  DEFAULT_HOSTED_PROFILE,
  type ModelProfiles,
} from "./profiles.js";
export { RateLimiter, type RateLimiterOptions, type RatePermit } from "./rate_limiter.js";
export { DEFAULT_MAX_RETRIES, type RetryOptions } from "./retry.js";
export type {
  BudgetReservation,
  BudgetState,
  RateGrant,
  RatePenalty,
  RateTake,
  ReserveOutcome,
  UsageStore,
} from "./usage_store.js";
export {
  type BudgetStatus,
  type ModelPrice,
  type UsageRecord,
  type UsageSnapshot,
  type UsageTotals,
  UsageTracker,
  type UsageTrackerOptions,
} from "./usage_tracker.js";
export { VERSION } from "./version.js";
export { type WithUsageResult, withUsage } from "./with_usage.js";
