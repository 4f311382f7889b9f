/** @module The `api-key` check: the key as configured (shown masked), then judged by the probe's answer. */
import { resolveApiKey } from "../config/api_key.js";
import { ENV } from "../constants.js";
import {
  AuthenticationError,
  InsufficientCreditError,
  ModelNotFoundError,
} from "../errors/errors.js";
import { configurationFailure, fromError, unexpected, type Verdict } from "./check.js";
import type { Outcome } from "./probe.js";

export interface ApiKeyRead {
  apiKey?: string;
  /** `sk-e…demo (from INFERENCE_SERVICE_API_KEY)`. */
  shown: string;
  error?: unknown;
}

export function readApiKey(option: string | undefined): ApiKeyRead {
  const source = option === undefined ? ENV.apiKey : "the `apiKey` option";
  try {
    const apiKey = resolveApiKey(option);
    return { apiKey, shown: `${maskApiKey(apiKey)} (from ${source})` };
  } catch (error) {
    return { shown: "no key", error };
  }
}

/**
 * A key as it may be shown: its first and last four characters, `sk-e…demo`; a key shorter than
 * 12 characters shows only its last two.
 */
export function maskApiKey(apiKey: string): string {
  return apiKey.length >= 12 ? `${apiKey.slice(0, 4)}…${apiKey.slice(-4)}` : `…${apiKey.slice(-2)}`;
}

export function checkApiKey(probe: Outcome, key: ApiKeyRead): Verdict {
  if (!key.apiKey) {
    // docs/service-contract.md#authentication, rule 1: every call carries the key.
    return configurationFailure("api-key", key.error, "No API key configured.");
  }
  const accepted = {
    id: "api-key" as const,
    status: "pass" as const,
    detail: `${key.shown} accepted: the service went on to look up the model. This check sends a model ID that cannot exist, so it costs nothing.`,
    requestId: probe.ok ? probe.requestId : probe.error.requestId,
  };
  if (probe.ok) return accepted;
  const { error } = probe;
  if (ModelNotFoundError.isInstance(error) || InsufficientCreditError.isInstance(error)) {
    return accepted;
  }
  if (AuthenticationError.isInstance(error)) {
    return fromError(
      "api-key",
      error,
      // docs/service-contract.md#authentication, rule 4: a missing and an invalid key get the same 401.
      `${key.shown} rejected with HTTP 401: the key is missing, invalid or expired.`,
    );
  }
  return unexpected("api-key", error, `${key.shown} could not be confirmed`);
}
