/** @module The `reachable` check: whether the probe reached the API. */
import {
  AuthenticationError,
  BaseURLError,
  InsufficientCreditError,
  InvalidURLError,
  MalformedResponseError,
  ModelNotFoundError,
  ServiceConnectionError,
} from "../errors/errors.js";
import { errorSummary, fromError, type Verdict } from "./check.js";
import type { Outcome } from "./probe.js";

/**
 * The mark says whether the API was reached, and the words never contradict it: an error status
 * is shown only next to `!` or `✖`. The probe's expected answers (model_not_found for its
 * made-up model, 401, 403 credit) pass without their status: the later checks judge them.
 */
export function checkReachable(probe: Outcome, baseURL: string): Verdict {
  const sent = `POST ${baseURL}/chat/completions`;
  const reached = (how: string, requestId: string | undefined): Verdict => ({
    id: "reachable",
    status: "pass",
    detail: `${sent} reached the API: ${how}.`,
    requestId,
  });
  if (probe.ok) return reached("it answered with a JSON completion", probe.requestId);
  const { error } = probe;
  if (ModelNotFoundError.isInstance(error)) {
    return reached(
      "it looked up the probe's made-up model ID and said it does not know it, as expected",
      error.requestId,
    );
  }
  if (AuthenticationError.isInstance(error)) {
    return reached("it refused the API key, which the API key check below judges", error.requestId);
  }
  if (InsufficientCreditError.isInstance(error)) {
    return reached(
      "it refused the call for credit, which the credit check below judges",
      error.requestId,
    );
  }
  if (
    BaseURLError.isInstance(error) &&
    (error.code === "cross_origin_redirect" || error.code === "too_many_redirects")
  ) {
    // Said as a redirect, with where it led (the mapper's summary names it): not as a page.
    return fromError("reachable", error, `${sent} was redirected: ${errorSummary(error)}`);
  }
  if (BaseURLError.isInstance(error)) {
    return fromError(
      "reachable",
      error,
      // docs/service-contract.md#hosted-models, rule 2, docs/service-contract.md#errors HTML 200 row.
      `${sent} answered HTTP 200 with an HTML page instead of the API's JSON.`,
    );
  }
  if (InvalidURLError.isInstance(error)) {
    return fromError(
      "reachable",
      error,
      // docs/service-contract.md#hosted-models, rule 1: e.g. a base ending in /chat/completions.
      `${sent} got HTTP 404 ${error.serviceMessage ?? "Invalid URL"}: the service does not serve this path.`,
    );
  }
  if (ServiceConnectionError.isInstance(error) || MalformedResponseError.isInstance(error)) {
    return fromError("reachable", error, errorSummary(error));
  }
  // Reached, but with an answer the probe does not expect (429, 5xx, an undocumented 403, 400):
  // something to look at, not proof that the configuration is wrong.
  return fromError(
    "reachable",
    error,
    `${sent} reached the service, but its answer was unexpected: ${errorSummary(error)}`,
    "warn",
  );
}
