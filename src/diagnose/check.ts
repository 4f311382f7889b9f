/**
 * @module What a check of `diagnose` reports, and the verdicts every check builds the same way:
 * from a typed error (its hint is the fix), from a `ConfigurationError` (its message is).
 */
import { ConfigurationError, formatDetails, type InferenceServiceError } from "../errors/errors.js";
import type { CheckedApi } from "../transport/apis.js";

/** One line of a {@link Diagnosis}. */
export interface DiagnosisCheck {
  /**
   * Stable identifier, in the order the checks run: `base-url`, `reachable`, `api-key`, `model`,
   * `credit`, then one per API with a model class of its own (`embeddings`, `rerank`), then
   * `service-name`, `endpoint`.
   */
  id:
    | "base-url"
    | "reachable"
    | "api-key"
    | "model"
    | "credit"
    | CheckedApi
    | "service-name"
    | "endpoint";
  title: string;
  /** `warn`: works, but something deserves a change; `skip`: not checked, `detail` says why. */
  status: "pass" | "fail" | "warn" | "skip";
  /** What was found, in one or two sentences; never the API key (it is shown masked). */
  detail: string;
  /** What to change: the typed error's `hint`, or the `ConfigurationError`'s message. */
  fix?: string;
  /** `X-Gateway-Request-Id` of the response the check is based on (docs/service-contract.md#errors, rule 5); quote it to support. */
  requestId?: string;
  /** The typed error the check is based on. */
  error?: { name: string; code?: string; status?: number };
}

/** What {@link diagnose} found: `ok` is false when any check failed (warnings and skips are fine). */
export interface Diagnosis {
  ok: boolean;
  checks: DiagnosisCheck[];
  /**
   * The model IDs `GET …/models` listed once the key was accepted; absent when the service does
   * not answer that route with a list (the service contract does not show it).
   */
  availableModels?: string[];
}

export type CheckId = DiagnosisCheck["id"];

/** A check's finding, before `diagnose` gives it its title. */
export type Verdict = Omit<DiagnosisCheck, "title">;

/** A check that did not run, and why. */
export function skipped(id: CheckId, why: string): Verdict {
  return { id, status: "skip", detail: `Skipped: ${why}` };
}

/** A `ConfigurationError` as a failed check: its message is the fix. Anything else is a bug: rethrown. */
export function configurationFailure(id: CheckId, error: unknown, detail: string): Verdict {
  if (!ConfigurationError.isInstance(error)) throw error;
  return { id, status: "fail", detail, fix: error.message, error: { name: error.name } };
}

/** The error's message without its hint: what failed, then status, code and request ID. */
export function errorSummary(error: InferenceServiceError): string {
  return `${error.summary}${formatDetails(error)}`;
}

export function fromError(
  id: CheckId,
  error: InferenceServiceError,
  detail: string,
  status: "fail" | "warn" = "fail",
): Verdict {
  return {
    id,
    status,
    detail,
    fix: error.hint,
    requestId: error.requestId,
    error: { name: error.name, code: error.code, status: error.status },
  };
}

/** Transient failures (429, 5xx, timeouts) are warnings: nothing to change, try again later. */
export function unexpected(id: CheckId, error: InferenceServiceError, what: string) {
  return fromError(id, error, `${what}: ${errorSummary(error)}`, error.retryable ? "warn" : "fail");
}
