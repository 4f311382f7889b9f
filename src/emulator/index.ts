/** @module `langchain-inference-service/emulator`: the Node-only local emulator of the inference service. */

export { CassetteError } from "../cassette/cassette.js";
export type { ReplayOptions, ReplayTiming, UnusedRecording } from "../cassette/replayer.js";
export { loadEmulatorConfig } from "./config_file.js";
export {
  FAULT_HEADER,
  type FaultKind,
  type FaultOptions,
  type GatewayFaultKind,
} from "./faults/faults.js";
export type {
  ApiKeyConfig,
  EmbeddingModelConfig,
  EmulatorOptions,
  EmulatorStateConfig,
  EndpointConfig,
  EndpointState,
  ModelConfig,
  ModelPrices,
  ModelReasoningConfig,
  ReasoningFormat,
  StartEmulatorOptions,
  TenantConfig,
} from "./options.js";
export { REQUEST_ID_HEADER } from "./reply.js";
export { createEmulator, type InProcessEmulator } from "./server/in_process.js";
export { type RunningEmulator, startEmulator } from "./server/node_server.js";
export type { ReplaySession } from "./server/replay.js";
export {
  DEFAULT_API_KEY,
  DEFAULT_CREDIT,
  DEFAULT_EMBEDDING_DIMENSIONS,
  DEFAULT_EMBEDDING_MODEL,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MODEL,
  DEFAULT_RERANK_MODEL,
  DEFAULT_SERVICE_NAME,
  DEFAULT_STATE,
  DEFAULT_TENANT_ID,
  EXPIRED_API_KEY,
  IN_PROCESS_ORIGIN,
  INFERENCE_SERVICE_PERMISSION,
  NO_PERMISSION_API_KEY,
  OPENED_THINK_TAGS_MODEL,
  PENDING_SERVICE_NAME,
  R1_MODEL,
  REASONING_MODEL,
  THINK_TAGS_MODEL,
  THINKING_MODEL,
  VLLM_REASONING_MODEL,
} from "./state/defaults.js";
export {
  EmulatorState,
  type EmulatorStateOptions,
  type EmulatorStateSnapshot,
} from "./state/state.js";
export type {
  ApiKey,
  Endpoint,
  HostedModel,
  KeyDescription,
  RequestLogEntry,
  Surface,
  Tenant,
} from "./state/state_records.js";
export { EmulatorConfigError } from "./validate.js";
