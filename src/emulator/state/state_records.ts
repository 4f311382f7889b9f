/** @module What the emulator's state holds, as the handler, the admin API and tests see it. */

import type { InferenceModelProfile } from "../../config/profiles.js";
import type { EndpointState, ModelPrices, ModelReasoningConfig } from "../options.js";

/** The two call surfaces of docs/service-contract.md#the-two-surfaces. */
export type Surface = "hosted" | "dedicated";

/** An API key as stored. */
export interface ApiKey {
  readonly id: string;
  readonly name: string;
  readonly secret: string;
  readonly permissions: readonly string[];
  /** Epoch milliseconds, or undefined for a key that never expires. */
  readonly expiresAt: number | undefined;
}

export interface Tenant {
  readonly id: string;
  readonly name: string;
}

/** A dedicated endpoint as reported by `EmulatorState.endpoint` and the admin API. */
export interface Endpoint {
  /** `<TENANT_ID>.<JOB_ALIAS_NAME>`, the value of the Service-Name header (docs/service-contract.md#dedicated-endpoints). */
  readonly serviceName: string;
  readonly tenantId: string;
  readonly jobAlias: string;
  readonly replicas: number;
  readonly state: EndpointState;
  /** `<running_replicas>/<total_replicas>` (docs/service-contract.md#resources): every replica runs when Running, none when Pending. */
  readonly scaling: string;
  /** When a Pending endpoint with `readyAfterMs` turns Running (ISO date). */
  readonly readyAt?: string;
}

export interface HostedModel {
  readonly id: string;
  readonly prices: Readonly<ModelPrices>;
  readonly profile?: Readonly<InferenceModelProfile>;
  readonly reasoning?: Readonly<ModelReasoningConfig>;
  readonly promptCache?: true | "breakpoints";
  /** Set for an embedding model: served at `/embeddings`, refused at `/chat/completions`. */
  readonly embedding?: Readonly<{ dimensions: number }>;
  /** Set for a rerank model: served at `/rerank`, refused at `/chat/completions`. */
  readonly rerank?: true;
  /** Set for a chat model that answers in prose whatever the `response_format`. */
  readonly ignoresResponseFormat?: true;
  /** The APIs `GET /models` lists it under (`supported_endpoint_types`). */
  readonly endpointTypes: readonly string[];
}

/** One call to either inference route, successful or not. */
export interface RequestLogEntry {
  /** The value sent in `X-Gateway-Request-Id`. */
  requestId: string;
  /** ISO date of arrival. */
  time: string;
  surface: Surface;
  /** Hosted surface: the requested model ID, when the body named one. */
  model?: string;
  /** Dedicated surface: the Service-Name header, when sent. */
  serviceName?: string;
  /** ID of the API key used, when it was valid. */
  keyId?: string;
  stream: boolean;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Credit debited (hosted surface, complete responses only). */
  cost: number;
  /** HTTP status sent, or 0 when the connection was closed with no response. */
  status: number;
  /** The injected fault, if any (`"429"`, `"reset"`, `"truncate"`, ...). */
  fault?: string;
}

/** An API key as the admin API shows it. */
export interface KeyDescription {
  id: string;
  name: string;
  /** Masked (`****demo`) except in the reply that creates the key. */
  secret: string;
  permissions: string[];
  /** ISO date. */
  expiresAt?: string;
  expired: boolean;
}
