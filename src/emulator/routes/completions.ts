/**
 * @module `POST /completions` on the dedicated surface
 * (docs/service-contract.md#dedicated-endpoints): the endpoint a Service-Name names answers,
 * metered in tokens, never debited.
 */
import { textCompletionBody } from "../model/completions.js";
import { generateCompletion } from "../model/generate.js";
import { parseCompletionRequest } from "../model/requests.js";
import { textCompletionEvents } from "../model/sse.js";
import {
  dropReply,
  type EmulatorReply,
  type EmulatorRequest,
  headerValue,
  jsonReply,
  streamReply,
} from "../reply.js";
import { Call } from "./call.js";
import { invalidUrl } from "./errors.js";
import type { HandlerContext } from "./handler_context.js";

/**
 * Dedicated surface (docs/service-contract.md#dedicated-endpoints). Order: key with the Inference Service permission (401) → faults →
 * Service-Name (404) → Pending (closed connection, docs/service-contract.md#endpoint-states) → body (400). Dedicated calls are metered
 * in tokens in the request log but debit no credit: docs/service-contract.md#the-two-surfaces says only the hosted surface is paid per
 * token from credit.
 */
export function dedicated(
  context: HandlerContext,
  request: EmulatorRequest,
  requestId: string,
): EmulatorReply {
  const { state } = context;
  const call = new Call(context, request, requestId, "dedicated");
  // docs/service-contract.md#authentication, rule 3: the permission is required here; a missing one is the same 401 as a bad key.
  const refused = call.admit(true);
  if (refused) return refused;
  const serviceName = headerValue(request, "service-name") ?? "";
  if (serviceName !== "") call.entry.serviceName = serviceName;
  // docs/service-contract.md#dedicated-endpoints, rule 2, docs/service-contract.md#errors, rule 8: the dedicated error bodies are not shown; a malformed or unknown
  // Service-Name gets the docs/service-contract.md#errors 404 body, so clients need one parser for both surfaces.
  const endpointState = state.endpointState(serviceName);
  if (endpointState === undefined) {
    return call.finish(invalidUrl(requestId, "POST", "/v1/completions"));
  }
  // docs/service-contract.md#endpoint-states: a Pending endpoint yields a refused connection or an empty response.
  if (endpointState === "Pending") return call.finish(dropReply(false));
  const read = call.read(parseCompletionRequest);
  if ("reply" in read) return read.reply;
  const { body } = read;
  call.entry.stream = body.stream;
  const output = generateCompletion(body);
  const identity = call.identity("cmpl", serviceName);
  const reply = body.stream
    ? streamReply(textCompletionEvents(identity, output, body.includeUsage), requestId)
    : jsonReply(200, textCompletionBody(identity, output), requestId);
  // Not paid per token (docs/service-contract.md#the-two-surfaces): metered, never debited.
  return call.deliver(reply, output.usage, undefined);
}
