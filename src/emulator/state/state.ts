/** @module The emulator's mutable world: keys, tenants, endpoints, models, credit and the request log. */

import type { InferenceModelProfile } from "../../config/profiles.js";
import type {
  ApiKeyConfig,
  EmulatorStateConfig,
  EndpointConfig,
  EndpointState,
  ModelConfig,
  TenantConfig,
} from "../options.js";
import { EmulatorConfigError, optionalNumber, requireNumber } from "../validate.js";
import { PromptCache, type PromptPart } from "./prompt_cache.js";
import {
  checkEndpoint,
  checkKey,
  checkModel,
  checkTenant,
  initialState,
  MAX_CREDIT,
  optionalDelay,
  requireCredit,
  requireEndpointState,
} from "./state_config.js";
import type {
  ApiKey,
  Endpoint,
  HostedModel,
  KeyDescription,
  RequestLogEntry,
  Tenant,
} from "./state_records.js";

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
  /** By secret, as calls find them. */
  #keys = new Map<string, ApiKey>();
  /** The same keys by ID, so adding one checks its ID in constant time. */
  #keyIds = new Map<string, ApiKey>();
  #tenants = new Map<string, Tenant>();
  #endpoints = new Map<string, EndpointRecord>();
  #models = new Map<string, HostedModel>();
  #credit = 0;
  #log: RequestLogEntry[] = [];
  readonly #promptCache = new PromptCache();
  #nextKeyNumber = 1;

  constructor(config: EmulatorStateConfig = {}, options: EmulatorStateOptions = {}) {
    this.#initial = initialState(config);
    this.#clock = options.clock ?? Date.now;
    this.#logLimit =
      optionalNumber(options.requestLogLimit, "requestLogLimit", 1) ?? DEFAULT_LOG_LIMIT;
    this.reset();
  }

  /** Back to the configuration: keys, tenants, endpoints (delays restart), models, credit; empty log. */
  reset(): void {
    this.#keys.clear();
    this.#keyIds.clear();
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
    if (match) {
      this.#keys.delete(match.secret);
      this.#keyIds.delete(match.id);
    }
    return match;
  }

  /** The key with this exact secret, expired or not. */
  findKey(secret: string): ApiKey | undefined {
    return this.#keys.get(secret);
  }

  /** Every key's secret: what the console masks wherever it shows a request or a reply. */
  keySecrets(): string[] {
    return [...this.#keys.keys()];
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
    const delay = optionalDelay(readyAfterMs, "readyAfterMs");
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

  /**
   * The prompt tokens of `parts` that model `id` read from its cache and wrote to it at
   * `breakpoints` (see `promptCache: "breakpoints"`), remembering what it wrote.
   */
  writePromptCache(
    id: string,
    parts: readonly PromptPart[],
    breakpoints: ReadonlyArray<{ part: number; ttl: "5m" | "1h" }>,
  ): { read: number; written: number; writtenForAnHour: number } {
    return this.#promptCache.write(id, parts, breakpoints);
  }

  // ---- request log --------------------------------------------------------------------------

  /** Appends to the request log, keeping the newest `requestLogLimit` entries. */
  record(entry: RequestLogEntry): void {
    this.#log.push(withLoggedText(entry));
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
    const checked = checkKey(input, field);
    if (this.#keys.has(checked.secret)) {
      throw new EmulatorConfigError(`${field}.secret is already in use`);
    }
    const id = checked.id ?? this.#freshKeyId();
    if (this.#keyIds.has(id)) {
      throw new EmulatorConfigError(`${field}.id "${id}" is already in use`);
    }
    const { secret, name = id, permissions, expiresAt } = checked;
    const key: ApiKey = Object.freeze({ id, name, secret, permissions, expiresAt });
    this.#keys.set(secret, key);
    this.#keyIds.set(id, key);
    return key;
  }

  #freshKeyId(): string {
    while (this.#keyIds.has(`key-${this.#nextKeyNumber}`)) this.#nextKeyNumber++;
    return `key-${this.#nextKeyNumber++}`;
  }

  #addTenant(input: TenantConfig, field: string): Tenant {
    const tenant = checkTenant(input, field);
    this.#tenants.set(tenant.id, tenant);
    return tenant;
  }

  #addEndpoint(input: EndpointConfig, field: string): Endpoint {
    const { tenantId, jobAlias, replicas, state, readyAfterMs } = checkEndpoint(input, field);
    if (!this.#tenants.has(tenantId)) this.#addTenant({ id: tenantId }, field);
    const record: EndpointRecord = {
      tenantId,
      jobAlias,
      replicas,
      state,
      readyAt: readyAfterMs === undefined ? undefined : this.#clock() + readyAfterMs,
    };
    const serviceName = `${tenantId}.${jobAlias}`;
    this.#endpoints.set(serviceName, record);
    return this.#view(serviceName, record);
  }

  #addModel(input: ModelConfig, field: string): HostedModel {
    const model = checkModel(input, field);
    this.#models.set(model.id, model);
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

/**
 * Characters the request log keeps of each text a caller chose (model ID, Service-Name, fault
 * header): enough to read any real one, while a 2 MiB model ID cannot make every poll of the
 * console carry megabytes.
 */
export const LOGGED_TEXT_LIMIT = 256;

/** The entry with each caller-chosen text cut to {@link LOGGED_TEXT_LIMIT} characters and "…". */
function withLoggedText(entry: RequestLogEntry): RequestLogEntry {
  const cut = (text: string | undefined) =>
    text === undefined || text.length <= LOGGED_TEXT_LIMIT
      ? text
      : `${text.slice(0, LOGGED_TEXT_LIMIT)}…`;
  const { model, serviceName, fault } = entry;
  if (cut(model) === model && cut(serviceName) === serviceName && cut(fault) === fault) {
    return entry;
  }
  return {
    ...entry,
    ...(model === undefined ? {} : { model: cut(model) }),
    ...(serviceName === undefined ? {} : { serviceName: cut(serviceName) }),
    ...(fault === undefined ? {} : { fault: cut(fault) }),
  };
}

/** `sk-emulator-demo` → `****demo`: enough to tell keys apart, as a console would show them. */
export function maskSecret(secret: string): string {
  return `****${secret.slice(-4)}`;
}
