/**
 * @module The emulator's router, over the transport-neutral request/reply types: each path of the
 * API to its route (one file per route beside this one), the admin API under `/_emulator`, and the
 * console page for any other path; a bug in the emulator still answers.
 */

import { consolePage } from "../console/index.js";
import type { EmulatorReply, EmulatorRequest } from "../reply.js";
import { handleAdmin } from "./admin.js";
import { hosted } from "./chat.js";
import { dedicated } from "./completions.js";
import { embeddings } from "./embeddings.js";
import { emulatorFailure, invalidUrl, requestTooLarge } from "./errors.js";
import type { HandlerContext } from "./handler_context.js";
import { listModels } from "./models.js";
import { createRequestIdGenerator } from "./request_id.js";
import { rerank } from "./rerank.js";
import { responses } from "./responses.js";

export type Handler = (request: EmulatorRequest) => EmulatorReply;

const API_PREFIX = "/inference/v1";
const CHAT_PATH = `${API_PREFIX}/chat/completions`;
const COMPLETIONS_PATH = `${API_PREFIX}/completions`;
const MODELS_PATH = `${API_PREFIX}/models`;
const EMBEDDINGS_PATH = `${API_PREFIX}/embeddings`;
const RERANK_PATH = `${API_PREFIX}/rerank`;
const RESPONSES_PATH = `${API_PREFIX}/responses`;
const ADMIN_PREFIX = "/_emulator";

/** The request handler; synchronous, so both transports can call it without extra awaits. */
export function createHandler(context: HandlerContext): Handler {
  const nextRequestId = createRequestIdGenerator(context.clock);
  // `created` of every listed model: when this emulator started, as a gateway lists its channels.
  const startedAt = Math.floor(context.clock() / 1000);
  return (request) => {
    const requestId = nextRequestId();
    if (request.bodyTooLarge) return requestTooLarge(requestId, context.maxBodyBytes);
    try {
      return route(context, request, requestId, startedAt);
    } catch (error) {
      // A bug in the emulator must still answer (with the ID), never hang the client.
      return emulatorFailure(requestId, error instanceof Error ? error.message : String(error));
    }
  };
}

function route(
  context: HandlerContext,
  request: EmulatorRequest,
  requestId: string,
  startedAt: number,
): EmulatorReply {
  const query = request.url.indexOf("?");
  const path = query < 0 ? request.url : request.url.slice(0, query);
  if (path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`)) {
    return handleAdmin(context, request, path.slice(ADMIN_PREFIX.length), requestId);
  }
  if (path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)) {
    if (request.method === "POST") {
      if (path === CHAT_PATH) return hosted(context, request, requestId);
      if (path === COMPLETIONS_PATH) return dedicated(context, request, requestId);
      if (path === EMBEDDINGS_PATH) return embeddings(context, request, requestId);
      if (path === RERANK_PATH) return rerank(context, request, requestId);
      if (path === RESPONSES_PATH) return responses(context, request, requestId);
    }
    if (request.method === "GET" && path === MODELS_PATH) {
      return listModels(context.state, request, requestId, startedAt);
    }
    // docs/service-contract.md#errors 404 row: the path after `/inference`, and no request ID in the body.
    return invalidUrl(requestId, request.method, path.slice("/inference".length));
  }
  // docs/service-contract.md#hosted-models, rule 2: a base missing `/v1` (or any other path) reaches the console's HTML page.
  return consolePage(requestId);
}
