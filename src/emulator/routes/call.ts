/**
 * @module One inference call, as every route makes it: the key, the faults, the body and the hosted
 * model checked in the gateway's order (docs/service-contract.md), then the answer delivered —
 * damaged by a fault, or metered and debited — and the call logged.
 */

import {
  damage,
  type FaultName,
  type FaultPlan,
  faultReply,
  UnknownFaultError,
} from "../faults/faults.js";
import type { CompletionIdentity } from "../model/completions.js";
import type { Usage } from "../model/generate.js";
import { InvalidBodyError } from "../model/requests.js";
import { relayedTokens } from "../model/sse.js";
import type { ModelPrices } from "../options.js";
import {
  type EmulatorReply,
  type EmulatorRequest,
  type EmulatorResponse,
  headerValue,
} from "../reply.js";
import { INFERENCE_SERVICE_PERMISSION } from "../state/defaults.js";
import type { EmulatorState } from "../state/state.js";
import {
  type ApiKey,
  type HostedModel,
  kindOf,
  MODEL_KINDS,
  type ModelKindName,
  type RequestLogEntry,
  type Surface,
} from "../state/state_records.js";
import {
  badRequest,
  inputTooLong,
  insufficientQuota,
  invalidToken,
  modelNotFound,
} from "./errors.js";
import type { HandlerContext } from "./handler_context.js";

/**
 * Hosted surface (docs/service-contract.md#hosted-models). Order: key (401) → faults → body (400) → model (503) → credit (403)
 * → a model of another kind than the route serves (400).
 * The model comes before the credit, as on a gateway that must know a model's price before it
 * can reserve credit for the call; docs/service-contract.md#errors does not order the two.
 * Returns the call, its body and its model, or the reply that ends it.
 */
export function openHosted<T extends { model: string; stream?: boolean }>(
  context: HandlerContext,
  request: EmulatorRequest,
  requestId: string,
  parser: (body: string) => T,
  kind: ModelKindName,
): { call: Call; body: T; model: HostedModel } | { reply: EmulatorReply } {
  const { state } = context;
  const call = new Call(context, request, requestId, "hosted");
  // docs/service-contract.md#authentication, rule 6 leaves the hosted surface's permission "not shown": any valid, unexpired key works.
  const refused = call.admit(false);
  if (refused) return { reply: refused };
  const read = call.read(parser);
  if ("reply" in read) return read;
  const { body } = read;
  call.entry.model = body.model;
  call.entry.stream = body.stream === true;
  const model = state.model(body.model);
  if (!model) return { reply: call.finish(modelNotFound(requestId, body.model)) };
  // docs/service-contract.md#errors: credit must be above zero; a call may still run it below zero, the next one gets 403.
  if (state.credit <= 0) return { reply: call.finish(insufficientQuota(requestId, state.credit)) };
  const wrongKind = kindProblem(model, kind);
  if (wrongKind) return { reply: call.finish(badRequest(requestId, wrongKind)) };
  return { call, body, model };
}

/** Why `model` cannot serve a route for `kind` models, or undefined when it can. */
function kindProblem(model: HostedModel, kind: ModelKindName): string | undefined {
  const own = kindOf(model);
  if (own === kind) return undefined;
  if (kind !== "chat") return `model ${model.id} does not support ${MODEL_KINDS[kind].serves}`;
  const { noun, path } = MODEL_KINDS[own as Exclude<ModelKindName, "chat">];
  return `model ${model.id} is ${noun}; call ${path}`;
}

/**
 * What a hosted call costs at `prices` (chat or embeddings), as the gateway bills it: its cached
 * prompt tokens at `cachedInput` (default `input`), its cache writes at `cacheWrite` (default
 * `input`) and those that live an hour at `cacheWrite1h` (default `cacheWrite`), the rest of the
 * prompt at `input`.
 */
function callCost(prices: Readonly<ModelPrices>, usage: Usage): number {
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const written = usage.prompt_tokens_details?.cached_creation_tokens ?? 0;
  const anHour = usage.claude_cache_creation_1_h_tokens ?? 0;
  const write = prices.cacheWrite ?? prices.input;
  return (
    (Math.max(0, usage.prompt_tokens - cached - written) * prices.input +
      cached * (prices.cachedInput ?? prices.input) +
      (written - anHour) * write +
      anHour * (prices.cacheWrite1h ?? write) +
      usage.completion_tokens * prices.output) /
    1e6
  );
}

/**
 * The 400 `context_length_exceeded` for the first text (an input, or a document with its query)
 * over the model's `maxInputTokens`; undefined when all fit or the model sets no limit.
 */
export function overInputLimit(
  model: HostedModel,
  tokens: readonly number[],
  field: "input" | "documents",
  requestId: string,
): EmulatorResponse | undefined {
  const limit = model.profile?.maxInputTokens;
  const at = limit === undefined ? -1 : tokens.findIndex((count) => count > limit);
  return at < 0 ? undefined : inputTooLong(requestId, limit!, tokens[at]!, at, field);
}

/** Delivers the answer of a call that reads tokens and writes none (embeddings, rerank). */
export function deliverPromptOnly(
  call: Call,
  reply: EmulatorResponse,
  model: HostedModel,
  promptTokens: number,
): EmulatorReply {
  const usage = { prompt_tokens: promptTokens, completion_tokens: 0, total_tokens: promptTokens };
  return call.deliver(reply, usage, model.prices);
}

/** docs/service-contract.md#authentication, rules 1, 3, 4: a missing, unknown or expired key, or a missing permission, are all "no key". */
export function authenticate(
  state: EmulatorState,
  request: EmulatorRequest,
  needsPermission: boolean,
): ApiKey | undefined {
  const authorization = headerValue(request, "authorization");
  if (authorization === undefined || !/^bearer /i.test(authorization)) return undefined;
  const key = state.findKey(authorization.slice(7).trim());
  if (key === undefined || state.isExpired(key)) return undefined;
  if (needsPermission && !key.permissions.includes(INFERENCE_SERVICE_PERMISSION)) return undefined;
  return key;
}

/** One inference call: its request log entry, its faults, and the reply that ends it. */
export class Call {
  readonly entry: RequestLogEntry;
  #plan: FaultPlan | undefined;
  readonly #context: HandlerContext;
  readonly #request: EmulatorRequest;
  readonly #requestId: string;
  /** When the call arrived, on the monotonic clock: its latency is measured from here. */
  readonly #startedAt = performance.now();

  constructor(
    context: HandlerContext,
    request: EmulatorRequest,
    requestId: string,
    surface: Surface,
  ) {
    this.#context = context;
    this.#request = request;
    this.#requestId = requestId;
    this.entry = {
      requestId,
      time: new Date(context.clock()).toISOString(),
      surface,
      stream: false,
      promptTokens: 0,
      completionTokens: 0,
      totalTokens: 0,
      cost: 0,
      status: 0,
    };
  }

  /**
   * Authenticates the key (docs/service-contract.md#authentication, rules 1, 3, 4), then applies the request's faults. Faults come after
   * authentication, so a fault never hides a 401 and unauthenticated traffic cannot draw from the
   * seeded generator. Returns the reply when the call ends here.
   */
  admit(needsPermission: boolean): EmulatorReply | undefined {
    const key = authenticate(this.#context.state, this.#request, needsPermission);
    if (!key) return this.finish(invalidToken(this.#requestId));
    this.entry.keyId = key.id;
    return this.#applyFaults();
  }

  /** The body as `parser` reads it, or the 400 reply that ends the call. */
  read<T>(parser: (body: string) => T): { body: T } | { reply: EmulatorReply } {
    try {
      return { body: parser(this.#request.body) };
    } catch (error) {
      if (!(error instanceof InvalidBodyError)) throw error;
      return { reply: this.finish(badRequest(this.#requestId, error.message, error.param)) };
    }
  }

  #applyFaults(): EmulatorReply | undefined {
    let plan: FaultPlan;
    try {
      plan = this.#context.faults.plan(headerValue(this.#request, "x-emulator-fault"));
    } catch (error) {
      if (!(error instanceof UnknownFaultError)) throw error;
      return this.finish(badRequest(this.#requestId, error.message));
    }
    this.#plan = plan;
    if (plan.label !== undefined) this.entry.fault = plan.label;
    const reply = faultReply(plan.fault, {
      requestId: this.#requestId,
      body: this.#request.body,
      url: this.#request.url,
      retryAfterSeconds: this.#context.faults.retryAfterSeconds,
    });
    return reply && this.finish(reply);
  }

  /** The fault applied to this call, once `admit` has run. */
  get fault(): FaultName | undefined {
    return this.#plan?.fault;
  }

  /** `id`, `created` and `model` of a success body or chunk; the ID embeds the request ID. */
  identity(prefix: string, model: string): CompletionIdentity {
    return {
      id: `${prefix}-${this.#requestId}`,
      created: Math.floor(this.#context.clock() / 1000),
      model,
    };
  }

  /**
   * Sends a success, damaged by a `truncate` or `stream-error` fault; only an intact one is
   * metered, and debited at `prices` (none: not debited). A non-streamed answer is billed at
   * once; a stream by what was relayed before the client left, once the transport says how far it went.
   */
  deliver(reply: EmulatorResponse, usage: Usage, prices: ModelPrices | undefined): EmulatorReply {
    const damaged = damage(reply, this.#plan?.fault, this.#requestId);
    if (damaged === reply) {
      const { body } = reply;
      if (typeof body === "string") this.#bill(usage, prices);
      else {
        let billed = false;
        reply.delivered = (items) => {
          if (billed) return;
          billed = true;
          this.#bill(items >= body.length ? usage : relayedUsage(usage, body, items), prices);
        };
      }
    }
    return this.finish(damaged);
  }

  #bill(usage: Usage, prices: ModelPrices | undefined): void {
    const cost = prices ? callCost(prices, usage) : 0;
    this.entry.promptTokens = usage.prompt_tokens;
    this.entry.completionTokens = usage.completion_tokens;
    this.entry.totalTokens = usage.total_tokens;
    this.entry.cost = cost;
    if (cost !== 0) this.#context.state.debit(cost);
  }

  finish(reply: EmulatorReply): EmulatorReply {
    reply.delayMs = this.#plan?.latencyMs ?? 0;
    this.entry.status = reply.kind === "drop" ? 0 : reply.status;
    this.#context.state.record(this.entry);
    this.#context.details.add(this.#requestId, this.#request, reply, this.#startedAt);
    return reply;
  }
}

/**
 * The usage of a stream the client left after `items` of its events: the whole prompt, and the
 * tokens of the output those events carried.
 */
function relayedUsage(usage: Usage, events: readonly string[], items: number): Usage {
  const completion = relayedTokens(events.slice(0, items));
  const { completion_tokens_details: _reply, ...prompt } = usage;
  return {
    ...prompt,
    completion_tokens: completion,
    total_tokens: usage.prompt_tokens + completion,
  };
}
