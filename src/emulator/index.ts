/** @module `langchain-inference-service/emulator`: the Node-only local emulator of the inference service. */

export {
  DEFAULT_API_KEY,
  DEFAULT_CREDIT,
  DEFAULT_MODEL,
  DEFAULT_SERVICE_NAME,
  DEFAULT_STATE,
  DEFAULT_TENANT_ID,
  EXPIRED_API_KEY,
  IN_PROCESS_ORIGIN,
  INFERENCE_SERVICE_PERMISSION,
  NO_PERMISSION_API_KEY,
  PENDING_SERVICE_NAME,
  REASONING_MODEL,
} from "./defaults.js";
export { FAULT_HEADER, type FaultKind, type FaultOptions } from "./faults.js";
export { createEmulator, type InProcessEmulator } from "./in_process.js";
export { type RunningEmulator, startEmulator } from "./node_server.js";
export { type EmulatorOptions, loadEmulatorConfig, type StartEmulatorOptions } from "./options.js";
export { REQUEST_ID_HEADER } from "./reply.js";
export {
  type ApiKey,
  type ApiKeyConfig,
  EmulatorState,
  type EmulatorStateConfig,
  type EmulatorStateOptions,
  type EmulatorStateSnapshot,
  type Endpoint,
  type EndpointConfig,
  type EndpointState,
  type HostedModel,
  type KeyDescription,
  type ModelConfig,
  type ModelPrices,
  type RequestLogEntry,
  type Surface,
  type Tenant,
  type TenantConfig,
} from "./state.js";
export { EmulatorConfigError } from "./validate.js";
