/** @module `GET /models`: the listed models, as the new-api gateway serves them. */

import { type EmulatorReply, type EmulatorRequest, jsonReply } from "../reply.js";
import type { EmulatorState } from "../state/state.js";
import { authenticate } from "./call.js";
import { invalidToken } from "./errors.js";

/** What the listing says of a model that ignores `response_format` (see `ignoresResponseFormat`). */
export const IGNORES_RESPONSE_FORMAT =
  "Ignores response_format: answers json_schema and json_object requests in prose.";

/**
 * `GET /models`, as the new-api gateway serves it: `{ success, object: "list", data: [{ id,
 * object: "model", created, owned_by, supported_endpoint_types }] }`, and a `description` for a model that ignores
 * `response_format`. The service contract does not show this route; the key is checked as on the
 * hosted surface, and a listing is neither faulted, metered nor logged.
 */
export function listModels(
  state: EmulatorState,
  request: EmulatorRequest,
  requestId: string,
  created: number,
): EmulatorReply {
  if (!authenticate(state, request, false)) return invalidToken(requestId);
  const data = state.listModels().map((model) => ({
    id: model.id,
    object: "model",
    created,
    owned_by: "emulator",
    supported_endpoint_types: model.endpointTypes,
    ...(model.ignoresResponseFormat ? { description: IGNORES_RESPONSE_FORMAT } : {}),
  }));
  return jsonReply(200, { success: true, object: "list", data }, requestId);
}
