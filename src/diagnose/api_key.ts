/** @module The `api-key` check: the key as configured (shown masked), then judged by the probe's answer. */
import { resolveApiKey } from "../config/api_key.js";
import { readEnv } from "../config/env.js";
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
  /** Whether a key was given at all (`error` then says why it cannot be used). */
  given?: boolean;
  error?: unknown;
}

export function readApiKey(option: string | undefined): ApiKeyRead {
  const source = option === undefined ? ENV.apiKey : "the `apiKey` option";
  try {
    const apiKey = resolveApiKey(option);
    return { apiKey, shown: `${maskApiKey(apiKey)} (from ${source})` };
  } catch (error) {
    return { shown: "no key", given: Boolean((option ?? readEnv(ENV.apiKey))?.trim()), error };
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
  if (!key.apiKey) return keyFailure(key);
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

/** The key could not be resolved: none given, or one holding a character no header can carry. */
export function keyFailure(key: ApiKeyRead): Verdict {
  return configurationFailure(
    "api-key",
    key.error,
    // docs/service-contract.md#authentication, rule 1: every call carries the key.
    key.given
      ? "The API key cannot be sent: it holds a character that cannot be part of a key; no request carried it."
      : "No API key configured.",
  );
}
