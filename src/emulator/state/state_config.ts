/**
 * @module Checks of the state's configuration (options, JSON config file, admin API): each entry
 * becomes what the state stores, or an `EmulatorConfigError` that names the field.
 */

import {
  expectedOfProfileField,
  type InferenceModelProfile,
  modelProfileSchema,
  PROFILE_FIELDS,
} from "../../config/profiles.js";
import { MAX_TIMER_MS } from "../../utils/sleep.js";
import type {
  ApiKeyConfig,
  EmulatorStateConfig,
  EndpointConfig,
  EndpointState,
  ModelConfig,
  ModelPrices,
  ModelReasoningConfig,
  TenantConfig,
} from "../options.js";
import {
  EmulatorConfigError,
  optionalArray,
  optionalNumber,
  optionalString,
  requireNumber,
  requireRecord,
  requireString,
  requireStringArray,
} from "../validate.js";
import { DEFAULT_STATE, INFERENCE_SERVICE_PERMISSION } from "./defaults.js";
import { type HostedModel, MODEL_KINDS, type ModelKind, type Tenant } from "./state_records.js";

/**
 * The most (and, negated, the least) a Wallet holds: far beyond any test, and small enough that
 * sums stay finite and exact to a millionth, as the gateway prints a balance.
 */
export const MAX_CREDIT = 1e12;

const DEFAULT_PRICES: Readonly<ModelPrices> = Object.freeze({ input: 1, output: 1 });

/**
 * The configuration every `reset()` goes back to: each collection given replaces its default, so
 * `{ models: [...] }` keeps the demo keys. Copies, so that changing the options object later
 * cannot change what `reset()` restores. The entries are checked when the state adds them.
 */
export function initialState(config: EmulatorStateConfig): Required<EmulatorStateConfig> {
  requireRecord(config, "emulator state");
  return {
    keys: configured<ApiKeyConfig>(config.keys, "keys") ?? DEFAULT_STATE.keys,
    tenants: configured<TenantConfig>(config.tenants, "tenants") ?? DEFAULT_STATE.tenants,
    endpoints: configured<EndpointConfig>(config.endpoints, "endpoints") ?? DEFAULT_STATE.endpoints,
    models: configured<ModelConfig>(config.models, "models") ?? DEFAULT_STATE.models,
    credit:
      config.credit === undefined ? DEFAULT_STATE.credit : requireCredit(config.credit, "credit"),
  };
}

/** A copy of a configured collection, or undefined when the config leaves it out. */
function configured<T>(value: unknown, field: string): T[] | undefined {
  const items = optionalArray(value, field);
  return items && (structuredClone(items) as T[]);
}

/** A key as configured, checked; no `id` when the config gives none (the state picks one). */
export interface CheckedKey {
  secret: string;
  id: string | undefined;
  name: string | undefined;
  permissions: readonly string[];
  /** Epoch milliseconds. */
  expiresAt: number | undefined;
}

/**
 * A key's secret, refused when it holds a character outside visible ASCII: it arrives as
 * `Authorization: Bearer <key>` (docs/service-contract.md#authentication, rule 1), which cannot
 * carry one, so such a key could never be used. Named by position, never shown: it is a secret.
 */
function requireSecret(value: unknown, field: string): string {
  const secret = requireString(value, field);
  const characters = Array.from(secret);
  const at = characters.findIndex((character) => !/^[\x21-\x7e]$/.test(character));
  if (at >= 0) {
    const code = characters[at]!.codePointAt(0)!.toString(16).toUpperCase();
    throw new EmulatorConfigError(
      `${field} has U+${code.padStart(4, "0")} at character ${at + 1}: a key arrives in the Authorization header and holds visible ASCII characters only`,
    );
  }
  return secret;
}

export function checkKey(input: ApiKeyConfig, field: string): CheckedKey {
  const config = requireRecord(input, field);
  return {
    secret: requireSecret(config.secret, `${field}.secret`),
    id: optionalString(config.id, `${field}.id`),
    name: optionalString(config.name, `${field}.name`),
    permissions: Object.freeze(
      config.permissions === undefined
        ? [INFERENCE_SERVICE_PERMISSION]
        : requireStringArray(config.permissions, `${field}.permissions`),
    ),
    expiresAt: parseExpiry(config.expiresAt, `${field}.expiresAt`),
  };
}

/**
 * The furthest a JavaScript `Date` reaches either side of 1970, in milliseconds: an instant past
 * it has no ISO date, so the state could not show it.
 */
export const MAX_DATE_MS = 8.64e15;

function parseExpiry(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = typeof value === "string" ? Date.parse(value) : value;
  if (typeof ms !== "number" || !Number.isFinite(ms)) {
    throw new EmulatorConfigError(`${field} must be an ISO date or epoch milliseconds`);
  }
  if (Math.abs(ms) > MAX_DATE_MS) {
    throw new EmulatorConfigError(
      `${field} must be a date JavaScript can hold: epoch milliseconds from -${MAX_DATE_MS} to ${MAX_DATE_MS}`,
    );
  }
  return ms;
}

/**
 * A delay such as `readyAfterMs`: at least 0 and at most {@link MAX_TIMER_MS} (about 24.8 days),
 * the longest delay the package's other options take, so the instant it ends is a date.
 */
export function optionalDelay(value: unknown, field: string): number | undefined {
  const delay = optionalNumber(value, field, 0);
  if (delay !== undefined && delay > MAX_TIMER_MS) {
    throw new EmulatorConfigError(`${field} must be at most ${MAX_TIMER_MS} (about 24.8 days)`);
  }
  return delay;
}

export function checkTenant(input: TenantConfig, field: string): Tenant {
  const config = requireRecord(input, field);
  const id = requireString(config.id, `${field}.id`);
  return Object.freeze({ id, name: optionalString(config.name, `${field}.name`) ?? id });
}

/** An endpoint as configured, checked. */
export interface CheckedEndpoint {
  tenantId: string;
  jobAlias: string;
  replicas: number;
  /** The state it starts in; Pending whenever `readyAfterMs` is given. */
  state: EndpointState;
  readyAfterMs: number | undefined;
}

export function checkEndpoint(input: EndpointConfig, field: string): CheckedEndpoint {
  const config = requireRecord(input, field);
  const tenantId = requireServiceNamePart(config.tenantId, `${field}.tenantId`);
  const jobAlias = requireServiceNamePart(config.jobAlias, `${field}.jobAlias`);
  const replicas = optionalNumber(config.replicas, `${field}.replicas`, 1) ?? 1;
  const readyAfterMs = optionalDelay(config.readyAfterMs, `${field}.readyAfterMs`);
  const state =
    config.state === undefined ? "Running" : requireEndpointState(config.state, `${field}.state`);
  return {
    tenantId,
    jobAlias,
    replicas: Math.floor(replicas),
    state: readyAfterMs === undefined ? state : "Pending",
    readyAfterMs,
  };
}

export function requireEndpointState(value: unknown, field: string): EndpointState {
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

/** A hosted model as configured, checked and frozen: a chat model, or one of another kind. */
export function checkModel(input: ModelConfig, field: string): HostedModel {
  const config = requireRecord(input, field);
  const id = requireString(config.id, `${field}.id`);
  const prices =
    config.prices === undefined ? DEFAULT_PRICES : requirePrices(config.prices, `${field}.prices`);
  const profile =
    config.profile === undefined ? undefined : requireProfile(config.profile, `${field}.profile`);
  const reasoning =
    config.reasoning === undefined
      ? undefined
      : requireReasoning(config.reasoning, `${field}.reasoning`);
  if (
    config.promptCache !== undefined &&
    typeof config.promptCache !== "boolean" &&
    config.promptCache !== "breakpoints"
  ) {
    throw new EmulatorConfigError(`${field}.promptCache must be true, false or "breakpoints"`);
  }
  // The option that makes a model of another kind than chat (embedding, rerank), read in the
  // kinds' order: at most one may be given.
  const kinds = Object.values(MODEL_KINDS as Readonly<Record<string, ModelKind>>).flatMap(
    (kind) => {
      const fields = kind.read(config, field);
      return fields ? [{ kind, fields }] : [];
    },
  );
  if (
    config.ignoresResponseFormat !== undefined &&
    typeof config.ignoresResponseFormat !== "boolean"
  ) {
    throw new EmulatorConfigError(`${field}.ignoresResponseFormat must be true or false`);
  }
  const [first, second] = kinds;
  if (first && second) {
    throw new EmulatorConfigError(
      `${field} cannot be both ${first.kind.noun} and ${second.kind.noun}; give ${first.kind.option} or ${second.kind.option}`,
    );
  }
  const endpointTypes =
    config.endpointTypes === undefined
      ? [first?.kind.endpointType ?? "openai"]
      : requireEndpointTypes(config.endpointTypes, `${field}.endpointTypes`);
  return Object.freeze({
    id,
    prices,
    ...(profile ? { profile } : {}),
    ...(reasoning ? { reasoning } : {}),
    ...(config.promptCache ? { promptCache: config.promptCache } : {}),
    ...first?.fields,
    ...(config.ignoresResponseFormat ? { ignoresResponseFormat: true as const } : {}),
    endpointTypes: Object.freeze(endpointTypes),
  });
}

/** `endpointTypes`: an array of non-empty strings (new-api's endpoint type names). */
function requireEndpointTypes(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || !value.every((type) => typeof type === "string" && type !== "")) {
    throw new EmulatorConfigError(
      `${field} must be an array of endpoint type names, e.g. ["openai", "openai-response"]`,
    );
  }
  return [...value];
}

/** A credit within ±{@link MAX_CREDIT}. */
export function requireCredit(value: unknown, field: string): number {
  const credit = requireNumber(value, field);
  if (Math.abs(credit) > MAX_CREDIT) {
    throw new EmulatorConfigError(
      `${field} must be between -${MAX_CREDIT} and ${MAX_CREDIT}, the most the emulator's Wallet holds`,
    );
  }
  return credit;
}

function requirePrices(value: unknown, field: string): Readonly<ModelPrices> {
  const given = requireRecord(value, field);
  const optional = (name: "cachedInput" | "cacheWrite" | "cacheWrite1h") =>
    given[name] === undefined ? {} : { [name]: requirePrice(given[name], `${field}.${name}`) };
  return Object.freeze({
    input: requirePrice(given.input, `${field}.input`),
    output: requirePrice(given.output, `${field}.output`),
    ...optional("cachedInput"),
    ...optional("cacheWrite"),
    ...optional("cacheWrite1h"),
  });
}

/** A price per million tokens, from 0 to {@link MAX_CREDIT}: a call's cost then stays finite. */
function requirePrice(value: unknown, field: string): number {
  const price = requireNumber(value, field, 0);
  if (price > MAX_CREDIT) {
    throw new EmulatorConfigError(`${field} must be at most ${MAX_CREDIT} per million tokens`);
  }
  return price;
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
