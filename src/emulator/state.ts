/** @module The emulator's mutable world: keys, tenants, endpoints, models, credit and the request log. */

import {
  expectedOfProfileField,
  type InferenceModelProfile,
  modelProfileSchema,
  PROFILE_FIELDS,
} from "../config/profiles.js";
import {
  DEFAULT_EMBEDDING_DIMENSIONS,
  DEFAULT_STATE,
  INFERENCE_SERVICE_PERMISSION,
} from "./defaults.js";
import type {
  ApiKeyConfig,
  EmulatorStateConfig,
  EndpointConfig,
  EndpointState,
  ModelConfig,
  ModelPrices,
  ModelReasoningConfig,
  TenantConfig,
} from "./options.js";
import { PromptCache, type PromptPart } from "./prompt_cache.js";
import {
  EmulatorConfigError,
  optionalArray,
  optionalNumber,
  optionalString,
  requireNumber,
  requireRecord,
  requireString,
  requireStringArray,
} from "./validate.js";

/** The two call surfaces of docs/service-contract.md#the-two-surfaces. */
export type Surface = "hosted" | "dedicated";

/** An API key as stored. */
export interface ApiKey {
  readonly id: string;
  readonly name: string;
  readonly secret: string;
  readonly permissions: readonly string[];
  /** Epoch milliseconds, or undefined for a key that never expires. */
  readonly expiresAt: number | undefined;
}

export interface Tenant {
  readonly id: string;
  readonly name: string;
}

/** A dedicated endpoint as reported by {@link EmulatorState.endpoint} and the admin API. */
export interface Endpoint {
  /** `<TENANT_ID>.<JOB_ALIAS_NAME>`, the value of the Service-Name header (docs/service-contract.md#dedicated-endpoints). */
  readonly serviceName: string;
  readonly tenantId: string;
  readonly jobAlias: string;
  readonly replicas: number;
  readonly state: EndpointState;
  /** `<running_replicas>/<total_replicas>` (docs/service-contract.md#resources): every replica runs when Running, none when Pending. */
  readonly scaling: string;
  /** When a Pending endpoint with `readyAfterMs` turns Running (ISO date). */
  readonly readyAt?: string;
}

export interface HostedModel {
  readonly id: string;
  readonly prices: Readonly<ModelPrices>;
  readonly profile?: Readonly<InferenceModelProfile>;
  readonly reasoning?: Readonly<ModelReasoningConfig>;
  readonly promptCache?: boolean;
  /** Set for an embedding model: served at `/embeddings`, refused at `/chat/completions`. */
  readonly embedding?: Readonly<{ dimensions: number }>;
}

/** One call to either inference route, successful or not. */
export interface RequestLogEntry {
  /** The value sent in `X-Gateway-Request-Id`. */
  requestId: string;
  /** ISO date of arrival. */
  time: string;
  surface: Surface;
  /** Hosted surface: the requested model ID, when the body named one. */
  model?: string;
  /** Dedicated surface: the Service-Name header, when sent. */
  serviceName?: string;
  /** ID of the API key used, when it was valid. */
  keyId?: string;
  stream: boolean;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Credit debited (hosted surface, complete responses only). */
  cost: number;
  /** HTTP status sent, or 0 when the connection was closed with no response. */
  status: number;
  /** The injected fault, if any (`"429"`, `"reset"`, `"truncate"`, ...). */
  fault?: string;
}

/** An API key as the admin API shows it. */
export interface KeyDescription {
  id: string;
  name: string;
  /** Masked (`****demo`) except in the reply that creates the key. */
  secret: string;
  permissions: string[];
  /** ISO date. */
  expiresAt?: string;
  expired: boolean;
}

/** How the state behaves, as opposed to what it holds. */
export interface EmulatorStateOptions {
  /** Time source (epoch milliseconds) for expiry and `readyAfterMs`. Default `Date.now`. */
  clock?: () => number;
  /** Request log entries kept. Default 1000. */
  requestLogLimit?: number;
}

/** What {@link EmulatorState.snapshot} and `GET /_emulator/state` return; secrets are masked. */
export interface EmulatorStateSnapshot {
  credit: number;
  keys: KeyDescription[];
  tenants: Tenant[];
  endpoints: Endpoint[];
  models: HostedModel[];
  requestCount: number;
}

interface EndpointRecord {
  tenantId: string;
  jobAlias: string;
  replicas: number;
  state: EndpointState;
  readyAt: number | undefined;
}

const DEFAULT_PRICES: Readonly<ModelPrices> = Object.freeze({ input: 1, output: 1 });
/**
 * The most (and, negated, the least) a Wallet holds: far beyond any test, and small enough that
 * sums stay finite and exact to a millionth, as the gateway prints a balance.
 */
export const MAX_CREDIT = 1e12;
const DEFAULT_LOG_LIMIT = 1000;

/**
 * The emulator's state. Every change goes through a method, so tests and the admin API see the
 * same world the handler serves.
 *
 * @example
 * const emulator = createEmulator();
 * emulator.state.setCredit(0); // the next hosted call gets 403 insufficient_user_quota
 */
export class EmulatorState {
  readonly #initial: Required<EmulatorStateConfig>;
  readonly #clock: () => number;
  readonly #logLimit: number;
  #keys = new Map<string, ApiKey>();
  #tenants = new Map<string, Tenant>();
  #endpoints = new Map<string, EndpointRecord>();
  #models = new Map<string, HostedModel>();
  #credit = 0;
  #log: RequestLogEntry[] = [];
  readonly #promptCache = new PromptCache();
  #nextKeyNumber = 1;

  constructor(config: EmulatorStateConfig = {}, options: EmulatorStateOptions = {}) {
    requireRecord(config, "emulator state");
    this.#clock = options.clock ?? Date.now;
    this.#logLimit =
      optionalNumber(options.requestLogLimit, "requestLogLimit", 1) ?? DEFAULT_LOG_LIMIT;
    // Each collection given replaces its default, so `{ models: [...] }` keeps the demo keys.
    // Copies, so that changing the options object later cannot change what reset() restores.
    this.#initial = {
      keys: configured<ApiKeyConfig>(config.keys, "keys") ?? DEFAULT_STATE.keys,
      tenants: configured<TenantConfig>(config.tenants, "tenants") ?? DEFAULT_STATE.tenants,
      endpoints:
        configured<EndpointConfig>(config.endpoints, "endpoints") ?? DEFAULT_STATE.endpoints,
      models: configured<ModelConfig>(config.models, "models") ?? DEFAULT_STATE.models,
      credit:
        config.credit === undefined ? DEFAULT_STATE.credit : requireCredit(config.credit, "credit"),
    };
    this.reset();
  }

  /** Back to the configuration: keys, tenants, endpoints (delays restart), models, credit; empty log. */
  reset(): void {
    this.#keys.clear();
    this.#tenants.clear();
    this.#endpoints.clear();
    this.#models.clear();
    this.#promptCache.clear();
    this.#log = [];
    this.#nextKeyNumber = 1;
    const { keys, tenants, endpoints, models, credit } = this.#initial;
    keys.forEach((key, i) => void this.#addKey(key, `keys[${i}]`));
    tenants.forEach((tenant, i) => void this.#addTenant(tenant, `tenants[${i}]`));
    endpoints.forEach((endpoint, i) => void this.#addEndpoint(endpoint, `endpoints[${i}]`));
    models.forEach((model, i) => void this.#addModel(model, `models[${i}]`));
    this.#credit = credit;
  }

  // ---- credit -------------------------------------------------------------------------------

  /** Account credit (Wallet). Hosted calls need it above zero (docs/service-contract.md#resources, docs/service-contract.md#errors). */
  get credit(): number {
    return this.#credit;
  }

  /** Sets the credit, within ±{@link MAX_CREDIT}. */
  setCredit(credit: number): void {
    this.#credit = requireCredit(credit, "credit");
  }

  /**
   * Adds to the credit, as the console's top-up does; `amount` must be above zero and the credit
   * stay within {@link MAX_CREDIT}, else nothing changes.
   */
  topUp(amount: number): number {
    const credit = this.#credit + requireNumber(amount, "amount", Number.MIN_VALUE);
    if (!(credit <= MAX_CREDIT)) {
      throw new EmulatorConfigError(
        `a top-up of ${amount} is refused: the credit would be ${credit}, above the most the emulator's Wallet holds (${MAX_CREDIT})`,
      );
    }
    this.#credit = credit;
    return credit;
  }

  /**
   * Subtracts a call's cost; credit may go below zero (the call that does so still succeeds),
   * down to -{@link MAX_CREDIT}, never to -Infinity.
   */
  debit(cost: number): number {
    this.#credit = Math.max(-MAX_CREDIT, this.#credit - cost);
    return this.#credit;
  }

  // ---- keys ---------------------------------------------------------------------------------

  addKey(config: ApiKeyConfig): ApiKey {
    return this.#addKey(config, "key");
  }

  /** Removes the key whose id equals `ref`, or whose secret ends with `ref` (4 characters or more). */
  removeKey(ref: string): ApiKey | undefined {
    const matches = this.listKeys().filter(
      (key) => key.id === ref || (ref.length >= 4 && key.secret.endsWith(ref)),
    );
    const exact = matches.find((key) => key.id === ref);
    const match = exact ?? (matches.length === 1 ? matches[0] : undefined);
    if (matches.length > 1 && !exact) {
      throw new EmulatorConfigError(`key reference "${ref}" matches ${matches.length} keys`);
    }
    if (match) this.#keys.delete(match.secret);
    return match;
  }

  /** The key with this exact secret, expired or not. */
  findKey(secret: string): ApiKey | undefined {
    return this.#keys.get(secret);
  }

  isExpired(key: ApiKey): boolean {
    return key.expiresAt !== undefined && this.#clock() >= key.expiresAt;
  }

  listKeys(): ApiKey[] {
    return [...this.#keys.values()];
  }

  // ---- tenants ------------------------------------------------------------------------------

  addTenant(config: TenantConfig): Tenant {
    return this.#addTenant(config, "tenant");
  }

  tenant(id: string): Tenant | undefined {
    return this.#tenants.get(id);
  }

  listTenants(): Tenant[] {
    return [...this.#tenants.values()];
  }

  // ---- endpoints ----------------------------------------------------------------------------

  /** Adds (or replaces) an endpoint; an unknown tenant is created with its ID as name. */
  addEndpoint(config: EndpointConfig): Endpoint {
    return this.#addEndpoint(config, "endpoint");
  }

  /** Forces an endpoint's state; `readyAfterMs` makes it Pending now and Running after the delay. */
  setEndpointState(
    serviceName: string,
    state: EndpointState,
    readyAfterMs?: number,
  ): Endpoint | undefined {
    const record = this.#endpoints.get(serviceName);
    if (!record) return undefined;
    const delay = optionalNumber(readyAfterMs, "readyAfterMs", 0);
    record.state = delay === undefined ? requireEndpointState(state, "state") : "Pending";
    record.readyAt = delay === undefined ? undefined : this.#clock() + delay;
    return this.#view(serviceName, record);
  }

  /** The endpoint routed by this Service-Name, with a due `readyAfterMs` transition applied. */
  endpoint(serviceName: string): Endpoint | undefined {
    const record = this.#endpoints.get(serviceName);
    return record && this.#view(serviceName, record);
  }

  /** Cheap readiness check for the request path (no view object). */
  endpointState(serviceName: string): EndpointState | undefined {
    const record = this.#endpoints.get(serviceName);
    return record && this.#settle(record).state;
  }

  listEndpoints(): Endpoint[] {
    return [...this.#endpoints].map(([name, record]) => this.#view(name, record));
  }

  // ---- models -------------------------------------------------------------------------------

  /** Adds (or re-prices) a hosted model: a chat model, or an embedding model with `embedding`. */
  addModel(config: ModelConfig): HostedModel {
    return this.#addModel(config, "model");
  }

  model(id: string): HostedModel | undefined {
    return this.#models.get(id);
  }

  listModels(): HostedModel[] {
    return [...this.#models.values()];
  }

  /**
   * The profiles of the models that have one, by model ID: pass them as `ChatInferenceService`'s
   * `profiles` so agents and middleware see the emulated models' context windows.
   *
   * @example
   * const model = new ChatInferenceService("emulator-chat", { profiles: emulator.state.modelProfiles() });
   * model.profile.maxInputTokens; // 32768
   */
  modelProfiles(): Record<string, InferenceModelProfile> {
    return Object.fromEntries(
      this.listModels().flatMap((model) =>
        model.profile ? [[model.id, { ...model.profile }]] : [],
      ),
    );
  }

  /**
   * The prompt tokens of `parts` that model `id` read before (see `promptCache`), and remembers
   * them for the next prompts.
   */
  readPromptCache(id: string, parts: readonly PromptPart[]): number {
    return this.#promptCache.read(id, parts);
  }

  // ---- request log --------------------------------------------------------------------------

  /** Appends to the request log, keeping the newest `requestLogLimit` entries. */
  record(entry: RequestLogEntry): void {
    this.#log.push(entry);
    // Trim in batches so the hot path stays O(1) amortised.
    if (this.#log.length >= this.#logLimit * 2) this.#log = this.#log.slice(-this.#logLimit);
  }

  /** The request log, oldest first (at most `requestLogLimit` entries). */
  requests(): RequestLogEntry[] {
    return this.#log.slice(-this.#logLimit);
  }

  /**
   * The entries logged after the one with `requestId`, oldest first; undefined when that entry is
   * no longer in the log (cleared, reset or trimmed), so a poller knows to start over.
   */
  requestsAfter(requestId: string): RequestLogEntry[] | undefined {
    const log = this.requests();
    for (let i = log.length - 1; i >= 0; i--) {
      if (log[i]!.requestId === requestId) return log.slice(i + 1);
    }
    return undefined;
  }

  /** The newest request log entry. */
  lastRequest(): RequestLogEntry | undefined {
    return this.#log.at(-1);
  }

  clearRequests(): void {
    this.#log = [];
  }

  // ---- snapshot -----------------------------------------------------------------------------

  /** A JSON-ready copy of the state with every secret masked except its last 4 characters. */
  snapshot(): EmulatorStateSnapshot {
    return {
      credit: this.#credit,
      keys: this.listKeys().map((key) => this.describeKey(key)),
      tenants: this.listTenants(),
      endpoints: this.listEndpoints(),
      models: this.listModels(),
      requestCount: this.requests().length,
    };
  }

  /** A key as JSON: its secret masked to the last 4 characters unless `showSecret` (at creation only). */
  describeKey(key: ApiKey, showSecret = false): KeyDescription {
    return {
      id: key.id,
      name: key.name,
      secret: showSecret ? key.secret : maskSecret(key.secret),
      permissions: [...key.permissions],
      ...(key.expiresAt === undefined ? {} : { expiresAt: new Date(key.expiresAt).toISOString() }),
      expired: this.isExpired(key),
    };
  }

  // ---- internals ----------------------------------------------------------------------------

  #addKey(input: ApiKeyConfig, field: string): ApiKey {
    const config = requireRecord(input, field);
    const secret = requireString(config.secret, `${field}.secret`);
    if (this.#keys.has(secret)) throw new EmulatorConfigError(`${field}.secret is already in use`);
    const id = optionalString(config.id, `${field}.id`) ?? this.#freshKeyId();
    if (this.listKeys().some((key) => key.id === id)) {
      throw new EmulatorConfigError(`${field}.id "${id}" is already in use`);
    }
    const key: ApiKey = Object.freeze({
      id,
      name: optionalString(config.name, `${field}.name`) ?? id,
      secret,
      permissions: Object.freeze(
        config.permissions === undefined
          ? [INFERENCE_SERVICE_PERMISSION]
          : requireStringArray(config.permissions, `${field}.permissions`),
      ),
      expiresAt: parseExpiry(config.expiresAt, `${field}.expiresAt`),
    });
    this.#keys.set(secret, key);
    return key;
  }

  #freshKeyId(): string {
    const taken = new Set(this.listKeys().map((key) => key.id));
    while (taken.has(`key-${this.#nextKeyNumber}`)) this.#nextKeyNumber++;
    return `key-${this.#nextKeyNumber++}`;
  }

  #addTenant(input: TenantConfig, field: string): Tenant {
    const config = requireRecord(input, field);
    const id = requireString(config.id, `${field}.id`);
    const tenant = Object.freeze({ id, name: optionalString(config.name, `${field}.name`) ?? id });
    this.#tenants.set(id, tenant);
    return tenant;
  }

  #addEndpoint(input: EndpointConfig, field: string): Endpoint {
    const config = requireRecord(input, field);
    const tenantId = requireServiceNamePart(config.tenantId, `${field}.tenantId`);
    const jobAlias = requireServiceNamePart(config.jobAlias, `${field}.jobAlias`);
    const replicas = optionalNumber(config.replicas, `${field}.replicas`, 1) ?? 1;
    const delay = optionalNumber(config.readyAfterMs, `${field}.readyAfterMs`, 0);
    const state =
      config.state === undefined ? "Running" : requireEndpointState(config.state, `${field}.state`);
    if (!this.#tenants.has(tenantId)) this.#addTenant({ id: tenantId }, field);
    const record: EndpointRecord = {
      tenantId,
      jobAlias,
      replicas: Math.floor(replicas),
      state: delay === undefined ? state : "Pending",
      readyAt: delay === undefined ? undefined : this.#clock() + delay,
    };
    const serviceName = `${tenantId}.${jobAlias}`;
    this.#endpoints.set(serviceName, record);
    return this.#view(serviceName, record);
  }

  #addModel(input: ModelConfig, field: string): HostedModel {
    const config = requireRecord(input, field);
    const id = requireString(config.id, `${field}.id`);
    let prices = DEFAULT_PRICES;
    if (config.prices !== undefined) {
      const given = requireRecord(config.prices, `${field}.prices`);
      const cachedInput =
        given.cachedInput === undefined
          ? undefined
          : requirePrice(given.cachedInput, `${field}.prices.cachedInput`);
      prices = Object.freeze({
        input: requirePrice(given.input, `${field}.prices.input`),
        output: requirePrice(given.output, `${field}.prices.output`),
        ...(cachedInput === undefined ? {} : { cachedInput }),
      });
    }
    const profile =
      config.profile === undefined ? undefined : requireProfile(config.profile, `${field}.profile`);
    const reasoning =
      config.reasoning === undefined
        ? undefined
        : requireReasoning(config.reasoning, `${field}.reasoning`);
    if (config.promptCache !== undefined && typeof config.promptCache !== "boolean") {
      throw new EmulatorConfigError(`${field}.promptCache must be true or false`);
    }
    const embedding =
      config.embedding === undefined ? undefined : requireEmbedding(config.embedding, field);
    const model = Object.freeze({
      id,
      prices,
      ...(profile ? { profile } : {}),
      ...(reasoning ? { reasoning } : {}),
      ...(config.promptCache ? { promptCache: true } : {}),
      ...(embedding ? { embedding } : {}),
    });
    this.#models.set(id, model);
    return model;
  }

  /** Applies a due Pending → Running transition lazily, so no timer keeps the process alive. */
  #settle(record: EndpointRecord): EndpointRecord {
    if (record.readyAt !== undefined && this.#clock() >= record.readyAt) {
      record.state = "Running";
      record.readyAt = undefined;
    }
    return record;
  }

  #view(serviceName: string, record: EndpointRecord): Endpoint {
    const { tenantId, jobAlias, replicas, state, readyAt } = this.#settle(record);
    return {
      serviceName,
      tenantId,
      jobAlias,
      replicas,
      state,
      scaling: `${state === "Running" ? replicas : 0}/${replicas}`,
      ...(readyAt === undefined ? {} : { readyAt: new Date(readyAt).toISOString() }),
    };
  }
}

/** A credit within ±{@link MAX_CREDIT}. */
function requireCredit(value: unknown, field: string): number {
  const credit = requireNumber(value, field);
  if (Math.abs(credit) > MAX_CREDIT) {
    throw new EmulatorConfigError(
      `${field} must be between -${MAX_CREDIT} and ${MAX_CREDIT}, the most the emulator's Wallet holds`,
    );
  }
  return credit;
}

/** A price per million tokens, from 0 to {@link MAX_CREDIT}: a call's cost then stays finite. */
function requirePrice(value: unknown, field: string): number {
  const price = requireNumber(value, field, 0);
  if (price > MAX_CREDIT) {
    throw new EmulatorConfigError(`${field} must be at most ${MAX_CREDIT} per million tokens`);
  }
  return price;
}

/** `sk-emulator-demo` → `****demo`: enough to tell keys apart, as a console would show them. */
export function maskSecret(secret: string): string {
  return `****${secret.slice(-4)}`;
}

/** A copy of a configured collection, or undefined when the config leaves it out. */
function configured<T>(value: unknown, field: string): T[] | undefined {
  const items = optionalArray(value, field);
  return items && (structuredClone(items) as T[]);
}

const REASONING_FORMATS = ["reasoning_content", "reasoning", "tags", "opened-tags"];
const REASONING_INPUTS = ["ignore", "require", "refuse"];

/** How a model thinks: a known format and, if given, a known input rule; frozen. */
function requireReasoning(value: unknown, field: string): Readonly<ModelReasoningConfig> {
  const { format, input, ...unknown } = requireRecord(value, field);
  const extra = Object.keys(unknown)[0];
  if (extra !== undefined) {
    throw new EmulatorConfigError(`${field}.${extra} is not a field; reasoning has format, input`);
  }
  if (typeof format !== "string" || !REASONING_FORMATS.includes(format)) {
    throw new EmulatorConfigError(`${field}.format must be one of ${REASONING_FORMATS.join(", ")}`);
  }
  if (input !== undefined && (typeof input !== "string" || !REASONING_INPUTS.includes(input))) {
    throw new EmulatorConfigError(`${field}.input must be one of ${REASONING_INPUTS.join(", ")}`);
  }
  return Object.freeze({ ...(value as ModelReasoningConfig) });
}

/** A model profile with known fields of the right types (the shape `profiles` takes), frozen. */
function requireProfile(value: unknown, field: string): Readonly<InferenceModelProfile> {
  const result = modelProfileSchema.safeParse(requireRecord(value, field));
  if (result.success) return Object.freeze({ ...(result.data as InferenceModelProfile) });
  const issue = result.error.issues[0]!;
  if (issue.code === "unrecognized_keys") {
    throw new EmulatorConfigError(
      `${field}.${issue.keys[0]} is not a profile field; a profile has ${PROFILE_FIELDS.join(", ")}`,
    );
  }
  const name = String(issue.path[0]);
  throw new EmulatorConfigError(`${field}.${name} must be ${expectedOfProfileField(name)}`);
}

/** An embedding model's settings, with the default vector length. */
function requireEmbedding(value: unknown, field: string): Readonly<{ dimensions: number }> {
  const config = requireRecord(value, `${field}.embedding`);
  const dimensions =
    optionalNumber(config.dimensions, `${field}.embedding.dimensions`, 1) ??
    DEFAULT_EMBEDDING_DIMENSIONS;
  if (!Number.isInteger(dimensions)) {
    throw new EmulatorConfigError(`${field}.embedding.dimensions must be a whole number >= 1`);
  }
  return Object.freeze({ dimensions });
}

function requireEndpointState(value: unknown, field: string): EndpointState {
  if (value !== "Pending" && value !== "Running") {
    throw new EmulatorConfigError(`${field} must be "Pending" or "Running"`);
  }
  return value;
}

/** Each half of a Service-Name is dot-free, or the name could not be split back (docs/service-contract.md#dedicated-endpoints). */
function requireServiceNamePart(value: unknown, field: string): string {
  const part = requireString(value, field);
  if (part.includes(".") || /\s/.test(part)) {
    throw new EmulatorConfigError(`${field} must not contain dots or whitespace`);
  }
  return part;
}

function parseExpiry(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = typeof value === "string" ? Date.parse(value) : value;
  if (typeof ms !== "number" || !Number.isFinite(ms)) {
    throw new EmulatorConfigError(`${field} must be an ISO date or epoch milliseconds`);
  }
  return ms;
}
