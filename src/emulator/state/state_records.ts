/** @module What the emulator's state holds, as the handler, the admin API and tests see it. */

import type { InferenceModelProfile } from "../../config/profiles.js";
import type { EndpointState, ModelPrices, ModelReasoningConfig } from "../options.js";
import { EmulatorConfigError, optionalNumber, requireRecord } from "../validate.js";

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

/** A kind of hosted model served beside chat models, at a route of its own. */
export interface ModelKind {
  /** The model option that makes a model of the kind. */
  option: string;
  /**
   * Reads and checks that option of a model's config (`field` names the model): what the model's
   * record keeps of it, or undefined when the model is not of the kind.
   */
  read: (config: Readonly<Record<string, unknown>>, field: string) => object | undefined;
  /** The endpoint type `GET /models` lists its models under unless configured (new-api's name). */
  endpointType: string;
  /** The route that serves models of the kind. */
  path: string;
  /** A model of the kind, as a refusal at another route names it. */
  noun: string;
  /** What the route does, as it refuses a model of another kind ("does not support …"). */
  serves: string;
  /** The heading of the kind's models in the command's banner. */
  heading: string;
  /** What its models' lines in the banner add after the price. */
  details: (model: HostedModel) => string;
  /** What `profile.maxInputTokens` bounds, in the banner. */
  limit: string;
  /** The kind as the console's model table shows it. */
  label: (model: HostedModel) => string;
}

/**
 * The kinds of hosted model served beside chat models: the one place the emulator's refusals,
 * banner and console read a kind's route and wording from.
 */
export const MODEL_KINDS = {
  embedding: {
    option: "embedding",
    read: (config, field) =>
      config.embedding === undefined
        ? undefined
        : { embedding: requireEmbedding(config.embedding, field) },
    endpointType: "embeddings",
    path: "/embeddings",
    noun: "an embedding model",
    serves: "embeddings",
    heading: "Embedding models (/embeddings):",
    details: (model) => `, ${model.embedding?.dimensions} dimensions`,
    limit: "tokens per input",
    label: (model) => `embeddings, ${model.embedding?.dimensions} dimensions`,
  },
  rerank: {
    option: "rerank",
    read: (config, field) => {
      if (config.rerank !== undefined && typeof config.rerank !== "boolean") {
        throw new EmulatorConfigError(`${field}.rerank must be true or false`);
      }
      return config.rerank ? { rerank: true as const } : undefined;
    },
    endpointType: "jina-rerank",
    path: "/rerank",
    noun: "a rerank model",
    serves: "rerank",
    heading: "Rerank models (/rerank):",
    details: () => "",
    limit: "tokens per document and query",
    label: () => "rerank",
  },
} as const satisfies Readonly<Record<string, ModelKind>>;

/** Length of `emulator-embedding`'s vectors, unless a request asks for fewer (`dimensions`). */
export const DEFAULT_EMBEDDING_DIMENSIONS = 256;

/**
 * The longest vectors an emulated embedding model returns: beyond the largest real models
 * (3,072 to 4,096), and small enough that every call stays quick.
 */
export const MAX_EMBEDDING_DIMENSIONS = 8192;

/** An embedding model's settings, with the default vector length. */
function requireEmbedding(value: unknown, field: string): Readonly<{ dimensions: number }> {
  const config = requireRecord(value, `${field}.embedding`);
  const dimensions =
    optionalNumber(config.dimensions, `${field}.embedding.dimensions`, 1) ??
    DEFAULT_EMBEDDING_DIMENSIONS;
  if (!Number.isInteger(dimensions) || dimensions > MAX_EMBEDDING_DIMENSIONS) {
    throw new EmulatorConfigError(
      `${field}.embedding.dimensions must be a whole number from 1 to ${MAX_EMBEDDING_DIMENSIONS}`,
    );
  }
  return Object.freeze({ dimensions });
}

/** What a hosted model is: a chat model, or one of {@link MODEL_KINDS}. */
export type ModelKindName = "chat" | keyof typeof MODEL_KINDS;

/** The kind of `model`, from the option that made it (`embedding`, `rerank`; none: chat). */
export function kindOf(model: HostedModel): ModelKindName {
  return model.embedding ? "embedding" : model.rerank ? "rerank" : "chat";
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
