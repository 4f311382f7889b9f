/**
 * @module The service's APIs as this package calls them, one row each: the surface it belongs to
 * (docs/service-contract.md#the-two-surfaces), its path under `…/inference/v1`, whether an
 * unknown model's error names the models the service lists, the operation its telemetry names,
 * and how its errors word a refusal of its inputs. The layers every call crosses (transport,
 * spend, telemetry, errors) read an API's row and hold nothing of their own about it: a new API
 * is a new row.
 */
import type { Surface } from "../errors/errors.js";
import type { FailureContext, InputWording } from "../errors/mapper.js";

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
   * Whether a JSON request goes through the openai SDK's `post` (its timeout, its headers, the
   * chat model's `configuration`), or straight through the fetch layer (`post.ts`), where the SDK
   * has no method for the API and would only add its cost. Streams always go through the SDK.
   */
  sdk: boolean;
  /** The OpenTelemetry GenAI conventions' `gen_ai.operation.name` of a call (docs/observability.md). */
  operation: string;
  /** How a refusal of the request's inputs is worded; chat's advice about messages when undefined. */
  inputWording?: InputWording;
  /**
   * For an API with a model class of its own, the title of the `diagnose` check that calls it
   * (its probe, `apis/<api>/probe.ts`); the check is named by the API.
   */
  checkTitle?: string;
}

/** The APIs, by the name a channel is opened with. */
export const APIS = {
  /** Hosted models: the model is named in the body (docs/service-contract.md#hosted-models). */
  chat: {
    surface: "hosted",
    path: "/chat/completions",
    lookUpModels: true,
    sdk: true,
    operation: "chat",
  },
  /** Dedicated endpoints: routed by `Service-Name` (docs/service-contract.md#dedicated-endpoints). */
  completions: {
    surface: "dedicated",
    path: "/completions",
    lookUpModels: false,
    sdk: true,
    operation: "text_completion",
  },
  /** Hosted embedding models, which the contract does not show. */
  embeddings: {
    surface: "hosted",
    path: "/embeddings",
    api: "embeddings",
    lookUpModels: true,
    sdk: true,
    operation: "embeddings",
    checkTitle: "Embedding model",
    inputWording: {
      byPosition: true,
      tooLong: {
        summary: "{which} longer than the embedding model takes{message}.",
        hint: "Split the text into smaller pieces (a smaller `chunkSize` in your text splitter); retrying the same input will not help.",
        hintSeveral:
          "Split the longest texts into smaller pieces (a smaller `chunkSize` in your text splitter); if none is too long alone, the limit is on a request's total: lower `batchSize`.",
      },
    },
  },
  /** Hosted rerank models, which the contract does not show either (the Jina and Cohere shape). */
  rerank: {
    surface: "hosted",
    path: "/rerank",
    api: "rerank",
    lookUpModels: true,
    sdk: false,
    operation: "rerank",
    checkTitle: "Rerank model",
    // A reranker reads each document with the query: chat's advice (messages, maxTokens) does not apply.
    inputWording: {
      tooLong: {
        summary: "A document, read with the query, is longer than the rerank model takes{message}.",
        hint: "Split the documents into smaller pieces (a smaller `chunkSize` in your text splitter) or shorten the query; retrying the same documents will not help.",
      },
    },
  },
  /**
   * OpenAI's Responses API on the hosted surface, which the gateway relays to the channels that
   * serve it (docs/responses.md): `ChatInferenceService` with `useResponsesApi`.
   */
  responses: {
    surface: "hosted",
    path: "/responses",
    api: "responses",
    lookUpModels: true,
    sdk: true,
    operation: "chat",
  },
} as const satisfies Record<string, ApiRow>;

/** The name of one of the service's {@link APIS}. */
export type Api = keyof typeof APIS;

/**
 * The APIs `diagnose` checks with a call of their own: those whose row has a `checkTitle` (a type
 * test holds the two together). Spelled out, as it is part of the public `DiagnosisCheck` type.
 */
export type CheckedApi = "embeddings" | "rerank";
