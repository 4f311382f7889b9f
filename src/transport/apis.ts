/**
 * @module The service's APIs as this package calls them, one row each: the surface it belongs to
 * (docs/service-contract.md#the-two-surfaces), its path under `…/inference/v1`, whether an
 * unknown model's error names the models the service lists, and the operation its telemetry
 * names. A new API is a new row.
 */
import type { Surface } from "../errors/errors.js";
import type { FailureContext } from "../errors/mapper.js";

/** One API of the service. */
export interface ApiRow {
  surface: Surface;
  /** Appended to the base URL by the openai SDK. */
  path: string;
  /** What failures of this API are typed as, when it is not chat completions. */
  api?: FailureContext["api"];
  /**
   * On a `ModelNotFoundError`, one `GET …/models` names the IDs the service offers in the hint
   * (see `lookUpModels` in `fetch.ts`): only where the body names a model.
   */
  lookUpModels: boolean;
  /**
   * The OpenTelemetry GenAI conventions' `gen_ai.operation.name` of a call (docs/observability.md).
   * @default the last segment of `path` (`/rerank` is `rerank`)
   */
  operation?: string;
}

/** The `gen_ai.operation.name` of an API's calls. */
export function operationOf(row: ApiRow): string {
  return row.operation ?? row.path.slice(row.path.lastIndexOf("/") + 1);
}

/** The APIs, by the name a channel is opened with. */
export const APIS = {
  /** Hosted models: the model is named in the body (docs/service-contract.md#hosted-models). */
  chat: { surface: "hosted", path: "/chat/completions", lookUpModels: true, operation: "chat" },
  /** Dedicated endpoints: routed by `Service-Name` (docs/service-contract.md#dedicated-endpoints). */
  completions: {
    surface: "dedicated",
    path: "/completions",
    lookUpModels: false,
    operation: "text_completion",
  },
  /** Hosted embedding models, which the contract does not show. */
  embeddings: { surface: "hosted", path: "/embeddings", api: "embeddings", lookUpModels: true },
} as const satisfies Record<string, ApiRow>;

/** The name of one of the service's {@link APIS}. */
export type Api = keyof typeof APIS;
