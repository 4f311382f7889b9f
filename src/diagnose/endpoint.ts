/** @module The `endpoint` check: one completion with `max_tokens: 1` from the dedicated endpoint. */

import { parseCompletion } from "../apis/completions/answer.js";
import { AuthenticationError, EndpointNotReadyError, ServiceNameError } from "../errors/errors.js";
import { type DiagnosisCheck, errorSummary, fromError, unexpected, type Verdict } from "./check.js";
import { answerError, type Outcome } from "./probe.js";

export function checkEndpoint(
  outcome: Outcome,
  serviceName: string,
  keyStatus: DiagnosisCheck["status"] | undefined,
): Verdict {
  if (outcome.ok) {
    const unusable = answerError(outcome, () =>
      parseCompletion(outcome.data, outcome.response, outcome.ctx),
    );
    if (unusable) return unexpected("endpoint", unusable, `${serviceName} answered`);
    return {
      id: "endpoint",
      status: "pass",
      detail: `${serviceName} is Running: it answered a completion with max_tokens 1; this check may cost a few tokens.`,
      requestId: outcome.requestId,
    };
  }
  const { error } = outcome;
  if (AuthenticationError.isInstance(error)) {
    const why =
      keyStatus === "pass"
        ? "the key works on the hosted surface, so it lacks the Inference Service permission"
        : keyStatus === "fail"
          ? "the key is invalid or expired (the hosted check rejected it too)"
          : "the key lacks the Inference Service permission or has expired";
    return fromError(
      "endpoint",
      error,
      // docs/service-contract.md#authentication, rule 3, docs/service-contract.md#errors, rule 7.
      `HTTP 401 from ${serviceName}: ${why}.`,
    );
  }
  if (ServiceNameError.isInstance(error)) {
    return fromError(
      "endpoint",
      error,
      // docs/service-contract.md#dedicated-endpoints, rule 2, docs/service-contract.md#errors, rule 7.
      `HTTP 404: no deployment answers to Service-Name ${serviceName}; check the tenant ID and the job alias.`,
    );
  }
  if (EndpointNotReadyError.isInstance(error)) {
    return fromError(
      "endpoint",
      error,
      // docs/service-contract.md#endpoint-states, docs/service-contract.md#errors, rule 7: the
      // mapper's summary names the URL and the cause (refused, closed, empty).
      errorSummary(error),
    );
  }
  return unexpected("endpoint", error, `${serviceName} could not be checked`);
}
