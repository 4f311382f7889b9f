/** @module Names used in more than one place: env variables, the API prefix, headers, LangChain and LangSmith identifiers. */

/** The environment variables this package reads, and only these (never OpenAI's). */
export const ENV = {
  apiKey: "INFERENCE_SERVICE_API_KEY",
  baseURL: "INFERENCE_SERVICE_BASE_URL",
  tenantId: "INFERENCE_SERVICE_TENANT_ID",
  jobAlias: "INFERENCE_SERVICE_JOB_ALIAS",
  embeddingModel: "INFERENCE_SERVICE_EMBEDDING_MODEL",
  rerankModel: "INFERENCE_SERVICE_RERANK_MODEL",
  /** The OpenTelemetry GenAI conventions' switch for recording prompts and replies on spans. */
  captureContent: "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
} as const;

/** The version prefix every call needs (docs/service-contract.md#versioning): a base missing it does not reach the API. */
export const API_PREFIX = "/inference/v1";

/** The header that routes a dedicated-endpoint call (docs/service-contract.md#dedicated-endpoints, rule 1); never sent on the hosted surface (docs/service-contract.md#hosted-models). */
export const SERVICE_NAME_HEADER = "Service-Name";

/** The response header that carries the service's request ID (docs/service-contract.md#errors, rule 5). */
export const REQUEST_ID_HEADER = "X-Gateway-Request-Id";

/** The npm name, reported to LangSmith with the version. */
export const PACKAGE_NAME = "langchain-inference-service";

/** First segment of both models' `lc_namespace`, which serialised models are loaded by. */
export const LC_NAMESPACE = "langchain_inference_service";

/**
 * The provider's name: `ls_provider` in LangSmith traces, the models' `_llmType()`, replies'
 * `response_metadata.model_provider` (which picks their content-block translator) and the prefix
 * of model strings, `"inference-service:<model-id>"`.
 */
export const LS_PROVIDER = "inference-service";

/** Brand of a `RateLimiter` (global symbol registry: recognised across two copies of the package). */
export const RATE_LIMITER_BRAND = Symbol.for("langchain-inference-service.rate-limiter");

/** Brand of a handler that guards spend from the models' call path (a `UsageTracker`). */
export const SPEND_GUARD_BRAND = Symbol.for("langchain-inference-service.spend-guard");

/** Whether `value` carries `brand` (one of the brands above), from this copy of the package or another. */
export function hasBrand(value: unknown, brand: symbol): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<symbol, unknown>)[brand] === true
  );
}
