/**
 * @module The admin API under `/_emulator/`: JSON in, JSON out, no key (writes must be same-origin
 * JSON, see `admin_guard.ts`). It exists only on the emulator, so tests, users and the console
 * page can inspect and change the world between calls.
 */

import { randomBytes } from "node:crypto";
import {
  FAULT_KINDS,
  FAULT_SUMMARIES,
  FaultInjector,
  type FaultOptions,
} from "../faults/faults.js";
import type { ApiKeyConfig, EndpointConfig, ModelConfig, TenantConfig } from "../options.js";
import { type EmulatorRequest, type EmulatorResponse, jsonReply } from "../reply.js";
import { REQUEST_DETAILS_KEPT } from "../state/request_details.js";
import type { EmulatorStateSnapshot } from "../state/state.js";
import { optionalDelay } from "../state/state_config.js";
import type { RequestLogEntry } from "../state/state_records.js";
import { EmulatorConfigError, requireNumber, requireRecord } from "../validate.js";
import { refuseAdmin } from "./admin_guard.js";
import type { HandlerContext } from "./handler_context.js";

type AdminResult = { status: number; body: unknown };
type Route = (
  context: HandlerContext,
  body: Record<string, unknown>,
  param: string,
  query: URLSearchParams,
) => AdminResult;

const ok = (body: unknown): AdminResult => ({ status: 200, body });
const created = (body: unknown): AdminResult => ({ status: 201, body });
const notFound = (message: string): AdminResult => adminError(404, "not_found", message);

function adminError(status: number, code: string, message: string): AdminResult {
  return { status, body: { error: { code, message, type: "emulator_admin_error" } } };
}

// "METHOD /path", with ":param" for the one variable segment a route may have.
const ROUTES: Readonly<Record<string, Route>> = {
  "GET /state": (context) => ok(stateView(context)),
  "PUT /credit": ({ state }, body) => {
    state.setCredit(requireNumber(body.credit, "credit"));
    return ok({ credit: state.credit });
  },
  "POST /top-up": ({ state }, body) => ok({ credit: state.topUp(body.amount as number) }),
  "POST /keys": ({ state }, body) => {
    // Like the console's create-key action (docs/service-contract.md#authentication, rule 2): the full secret is shown once, here.
    const secret = body.secret ?? `sk-emu-${randomBytes(12).toString("hex")}`;
    return created(state.describeKey(state.addKey({ ...body, secret } as ApiKeyConfig), true));
  },
  "DELETE /keys/:ref": ({ state }, _body, ref) => {
    const removed = state.removeKey(ref);
    return removed
      ? ok({ deleted: state.describeKey(removed) })
      : notFound(`No key with id or suffix "${ref}"`);
  },
  "POST /tenants": ({ state }, body) => created(state.addTenant(body as unknown as TenantConfig)),
  "POST /endpoints": ({ state }, body) =>
    created(state.addEndpoint(body as unknown as EndpointConfig)),
  "PATCH /endpoints/:serviceName": ({ state }, body, serviceName) => {
    const endpoint = state.setEndpointState(
      serviceName,
      body.state as "Pending" | "Running",
      optionalDelay(body.readyAfterMs, "readyAfterMs"),
    );
    return endpoint ? ok(endpoint) : notFound(`No endpoint with Service-Name "${serviceName}"`);
  },
  "POST /models": ({ state }, body) => created(state.addModel(body as unknown as ModelConfig)),
  "GET /requests": ({ state }, _body, _param, query) => {
    // `?after=<request ID>`: only the newer entries, so a console polling every second stays
    // cheap; `continued: false` says the log restarted and the whole of it follows.
    const after = query.get("after");
    const newer = after === null ? undefined : state.requestsAfter(after);
    const view: RequestsView = {
      requests: newer ?? state.requests(),
      continued: newer !== undefined,
    };
    return ok(view);
  },
  "GET /requests/:requestId": ({ state, details }, _body, requestId) => {
    const detail = details.get(requestId, state.keySecrets());
    return detail
      ? ok(detail)
      : notFound(
          `No details of request "${requestId}": the emulator keeps the bodies of its last ${REQUEST_DETAILS_KEPT} calls only`,
        );
  },
  "DELETE /requests": ({ state, details }) => {
    state.clearRequests();
    details.clear();
    return ok({ requests: [] });
  },
  "PUT /faults": (context, body) => {
    context.faults = new FaultInjector(body as FaultOptions);
    return ok(faultsView(context.faults));
  },
  "POST /reset": (context) => {
    context.state.reset();
    context.details.clear();
    return ok(stateView(context));
  },
};

/** Serves `/_emulator<path>`; input errors are 400s that name the field. */
export function handleAdmin(
  context: HandlerContext,
  request: EmulatorRequest,
  path: string,
  requestId: string,
): EmulatorResponse {
  const refusal = refuseAdmin(request, context.trustsHost);
  const result = refusal
    ? adminError(refusal.status, refusal.code, refusal.message)
    : runAdmin(context, request, path);
  return jsonReply(result.status, result.body, requestId);
}

function runAdmin(context: HandlerContext, request: EmulatorRequest, path: string): AdminResult {
  const [, collection = "", ...rest] = path.split("/");
  const param = decodedSegment(rest.join("/"));
  if (param === undefined) {
    return adminError(
      400,
      "invalid_request",
      `The admin path /_emulator${path} has a malformed percent-encoding; encode each segment with encodeURIComponent`,
    );
  }
  const prefix = `${request.method} /${collection}`;
  const name =
    param === "" ? prefix : Object.keys(ROUTES).find((route) => route.startsWith(`${prefix}/:`));
  const route = name === undefined ? undefined : ROUTES[name];
  if (!route) return notFound(`No admin route ${request.method} /_emulator${path}`);
  try {
    const body =
      request.body.trim() === "" ? {} : requireRecord(JSON.parse(request.body), "request body");
    const search = request.url.indexOf("?");
    return route(
      context,
      body,
      param,
      new URLSearchParams(search < 0 ? "" : request.url.slice(search)),
    );
  } catch (error) {
    if (error instanceof EmulatorConfigError || error instanceof SyntaxError) {
      return adminError(400, "invalid_request", error.message);
    }
    throw error;
  }
}

/** The fault injection as the admin API shows it (in the state and the reply to `PUT /faults`). */
export interface FaultsView {
  rate: number;
  kinds: readonly string[];
  retryAfterSeconds: number;
  available: readonly string[];
  /** What each of `available` does, in a line (the console shows it beside the switch). */
  summaries: Readonly<Record<string, string>>;
}

/** `GET /_emulator/state`: the state, secrets masked, with the fault injection. */
export type StateView = EmulatorStateSnapshot & { faults: FaultsView };

/** `GET /_emulator/requests`: the log, or (`continued`) only what came after `?after=`. */
export interface RequestsView {
  requests: RequestLogEntry[];
  continued: boolean;
}

/** A path segment with its percent-encoding decoded, or undefined when the encoding is malformed. */
function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function stateView({ state, faults }: HandlerContext): StateView {
  return { ...state.snapshot(), faults: faultsView(faults) };
}

function faultsView(faults: FaultInjector): FaultsView {
  return {
    rate: faults.rate,
    kinds: faults.kinds,
    retryAfterSeconds: faults.retryAfterSeconds,
    // Every kind `kinds` and the X-Emulator-Fault header take; the console builds its switches from it.
    available: FAULT_KINDS,
    summaries: FAULT_SUMMARIES,
  };
}
