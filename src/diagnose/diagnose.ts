/** @module `diagnose()`: checks a configuration with the cheapest possible requests and says what to change. */

import type { OpenAI } from "openai";
import { z } from "zod";
import { resolveApiKey } from "../config/api_key.js";
import { resolveBaseURL } from "../config/base_url.js";
import { readEnv } from "../config/env.js";
import { checkedOnResolve, optionsSchema, parseOptions, timeoutMs } from "../config/options.js";
import { resolveServiceName } from "../config/service_name.js";
import { ENV, SERVICE_NAME_HEADER } from "../constants.js";
import { availableModelsText } from "../errors/available_models.js";
import {
  AuthenticationError,
  BaseURLError,
  ConfigurationError,
  EndpointNotReadyError,
  formatDetails,
  InferenceServiceError,
  InsufficientCreditError,
  InvalidURLError,
  MalformedResponseError,
  ModelNotFoundError,
  ServiceConnectionError,
  ServiceNameError,
} from "../errors/errors.js";
import { asServiceError, type FailureContext, headerRequestId } from "../errors/mapper.js";
import { tokenUsageFromWire } from "../spend/usage.js";
import { checkChatCompletion, parseCompletion, readEmbeddings } from "../transport/answer.js";
import { type Answer, sendRequest } from "../transport/attempt.js";
import { createServiceClient } from "../transport/client.js";
import { createServiceFetch, type Fetch } from "../transport/fetch.js";
import { listModelIds } from "../transport/model_list.js";
import { ServiceCaller } from "../transport/retry.js";

/**
 * Options of {@link diagnose}: the same names, defaults and env variables as the models'. Only
 * `timeout` is checked here; the others are checked as the checks read them, and reported there.
 */
export const diagnoseOptions = optionsSchema({
  /** API key, sent as `Authorization: Bearer …` (docs/service-contract.md#authentication). @default env `INFERENCE_SERVICE_API_KEY` */
  apiKey: checkedOnResolve<string>().optional(),
  /** The service's host root or `…/inference/v1` (normalised, docs/service-contract.md#versioning). @default env `INFERENCE_SERVICE_BASE_URL` */
  baseURL: checkedOnResolve<string>().optional(),
  /**
   * A hosted model ID to check (docs/service-contract.md#hosted-models, rule 4); outer spaces are
   * trimmed, as the models trim them. With it, the credit is checked too, by one real call with
   * `max_tokens: 1` that may cost a few tokens. @default none: model and credit are skipped
   */
  model: checkedOnResolve<string>().optional(),
  /**
   * An embedding model ID to check with one `POST …/embeddings` of one word (it may cost a token
   * or two); outer spaces are trimmed. The service contract does not show embeddings, so this
   * says whether the deployment offers them. @default env `INFERENCE_SERVICE_EMBEDDING_MODEL`; none: skipped
   */
  embeddingModel: checkedOnResolve<string>().optional(),
  /** Dedicated endpoint's `Service-Name`, `<TENANT_ID>.<JOB_ALIAS_NAME>` (docs/service-contract.md#dedicated-endpoints). @default `tenantId` + "." + `jobAlias` */
  serviceName: checkedOnResolve<string>().optional(),
  /** Tenant ID (docs/service-contract.md#authentication, rule 5). @default env `INFERENCE_SERVICE_TENANT_ID` */
  tenantId: checkedOnResolve<string>().optional(),
  /** Job alias name of the endpoint. @default env `INFERENCE_SERVICE_JOB_ALIAS` */
  jobAlias: checkedOnResolve<string>().optional(),
  /** The fetch that sends requests (tests, proxies, the in-process emulator). @default `globalThis.fetch` */
  fetch: z.custom<Fetch>().optional(),
  /** Milliseconds each request may take; at most 2147483647 (about 24.8 days). @default 30000 */
  timeout: timeoutMs.default(30_000),
});

/** Options of {@link diagnose}: the same names, defaults and env variables as the models'. */
export type DiagnoseOptions = z.input<typeof diagnoseOptions>;

/** One line of a {@link Diagnosis}. */
export interface DiagnosisCheck {
  /** Stable identifier, in the order the checks run. */
  id:
    | "base-url"
    | "reachable"
    | "api-key"
    | "model"
    | "credit"
    | "embeddings"
    | "service-name"
    | "endpoint";
  title: string;
  /** `warn`: works, but something deserves a change; `skip`: not checked, `detail` says why. */
  status: "pass" | "fail" | "warn" | "skip";
  /** What was found, in one or two sentences; never the API key (it is shown masked). */
  detail: string;
  /** What to change: the typed error's `hint`, or the `ConfigurationError`'s message. */
  fix?: string;
  /** `X-Gateway-Request-Id` of the response the check is based on (docs/service-contract.md#errors, rule 5); quote it to support. */
  requestId?: string;
  /** The typed error the check is based on. */
  error?: { name: string; code?: string; status?: number };
}

/** What {@link diagnose} found: `ok` is false when any check failed (warnings and skips are fine). */
export interface Diagnosis {
  ok: boolean;
  checks: DiagnosisCheck[];
  /**
   * The model IDs `GET …/models` listed once the key was accepted; absent when the service does
   * not answer that route with a list (the service contract does not show it).
   */
  availableModels?: string[];
}

/** Sent by the key check: no service can know it, so the key is judged without any cost. */
const NO_SUCH_MODEL = "inference-service-doctor-no-such-model";
/** The one-word prompt of every request (docs/service-contract.md#dedicated-endpoints, docs/service-contract.md#hosted-models), with `max_tokens: 1`. */
const PROMPT = "ping";

type CheckId = DiagnosisCheck["id"];
const TITLES: Record<CheckId, string> = {
  "base-url": "Base URL",
  reachable: "API reachable",
  "api-key": "API key",
  model: "Model ID",
  credit: "Account credit",
  embeddings: "Embedding model",
  "service-name": "Service-Name",
  endpoint: "Dedicated endpoint",
};

/** The answer to one request: a parsed 2xx body, or the typed error the package maps it to. */
type Outcome =
  | { ok: true; data: unknown; response: Response; ctx: FailureContext; requestId?: string }
  | { ok: false; error: InferenceServiceError };

interface Target {
  baseURL: string;
  apiKey?: string;
  fetch?: Fetch;
  timeout: number;
}

/**
 * Checks a configuration against the service, in order, each check skipped when an earlier one
 * makes it meaningless:
 *
 * 1. `base-url` — the base URL's shape, and its normalised form (no request);
 * 2. `reachable` — one `POST …/chat/completions` reaches the API: not HTML (docs/service-contract.md#hosted-models, rule 2), not
 *    404 `Invalid URL` (docs/service-contract.md#hosted-models, rule 1), not a network failure;
 * 3. `api-key` — the same request, sent with a model ID that cannot exist: 401 means the key is
 *    missing, invalid or expired (docs/service-contract.md#authentication, rule 4); 503 `model_not_found` means the service accepted the
 *    key and went on to the model, so this check costs nothing;
 * 4. `model`, 5. `credit` — first one free `GET …/models` (once the key is accepted): when the
 *    service answers it with a list, the model check names the listed IDs and the near misses of
 *    `model` (an unknown route changes nothing). Then, only with `model`, one chat completion with
 *    `max_tokens: 1` (it may cost a few tokens): 503 `model_not_found` (docs/service-contract.md#hosted-models, rule 4), 403
 *    `insufficient_user_quota` (docs/service-contract.md#errors);
 * 6. `embeddings` — only with `embeddingModel` (or its env variable): one `POST …/embeddings` of
 *    one word. The contract does not show this route, so a 404 says the deployment offers no
 *    embeddings; 503 `model_not_found` names the listed models, as for `model`;
 * 7. `service-name` — the Service-Name's shape (docs/service-contract.md#dedicated-endpoints, rule 2; no request);
 * 8. `endpoint` — one `POST …/completions` with `max_tokens: 1`: 401 → permission or expiry,
 *    404 → Service-Name, refused or empty → Pending, 200 → Running (docs/service-contract.md#endpoint-states, docs/service-contract.md#errors, rule 7).
 *
 * Every failure is the package's typed error, so `fix` is its `hint`. Never throws for a service
 * or configuration problem; throws `ConfigurationError` only for an invalid `timeout`.
 *
 * @example
 * ```ts
 * const { ok, checks } = await diagnose({ model: "emulator-chat", serviceName: "tenant-demo.demo-endpoint" });
 * for (const check of checks) if (check.status === "fail") console.error(check.title, check.fix);
 * // Account credit  Top up the account's credit; this is not a rate limit and retrying will not help.
 * ```
 */
export async function diagnose(options: DiagnoseOptions = {}): Promise<Diagnosis> {
  const { timeout } = parseOptions({ owner: "diagnose", schema: diagnoseOptions }, options);
  const checks: DiagnosisCheck[] = [];
  const add = ({ id, ...rest }: Omit<DiagnosisCheck, "title">): DiagnosisCheck => {
    const full: DiagnosisCheck = { id, title: TITLES[id], ...rest };
    checks.push(full);
    return full;
  };
  const skip = (id: CheckId, why: string) => add({ id, status: "skip", detail: `Skipped: ${why}` });

  const base = checkBaseURL(options.baseURL);
  const baseCheck = add(base.check);
  const key = readApiKey(options.apiKey);
  const target: Target | undefined = base.baseURL
    ? { baseURL: base.baseURL, apiKey: key.apiKey, fetch: options.fetch, timeout }
    : undefined;

  // Hosted surface: the probe is also the key check (docs/service-contract.md#hosted-models).
  let probe: Outcome | undefined;
  let keyCheck: DiagnosisCheck | undefined;
  let availableModels: string[] | undefined;
  if (!target) {
    skip("reachable", "the base URL is not usable.");
  } else {
    probe = await postChat(target, NO_SUCH_MODEL);
    const reached = add(checkReachable(probe, target.baseURL));
    if (reached.status === "fail") {
      probe = undefined;
      // The repaired URL is not the API either: advise nothing the check below rejects.
      if (base.unreachedFix) baseCheck.fix = base.unreachedFix;
    }
  }
  const embeddingModel =
    (options.embeddingModel ?? readEnv(ENV.embeddingModel))?.trim() || undefined;
  if (!probe) {
    // A key no header can carry is known without a request.
    if (key.error === undefined) skip("api-key", "the API could not be reached.");
    else add(keyFailure(key));
    skip("model", "the API could not be reached.");
    skip("credit", "the API could not be reached.");
    skip("embeddings", "the API could not be reached.");
  } else {
    keyCheck = add(checkApiKey(probe, key));
    if (keyCheck.status === "fail") {
      skip("model", "the API key was not accepted.");
      skip("credit", "the API key was not accepted.");
      skip("embeddings", "the API key was not accepted.");
    } else {
      // The one request diagnose adds for the model check: free, bounded, never retried.
      availableModels = await listModelIds({ ...target!, timeoutMs: target!.timeout });
      for (const check of await checkModelAndCredit(
        target!,
        probe,
        typeof options.model === "string" ? options.model.trim() : options.model,
        availableModels,
      )) {
        add(check);
      }
      add(
        embeddingModel === undefined
          ? {
              id: "embeddings",
              status: "skip",
              detail: `Skipped: no embedding model ID given (\`embeddingModel\` or ${ENV.embeddingModel}).`,
            }
          : checkEmbeddings(
              await postEmbeddings(target!, embeddingModel, availableModels),
              embeddingModel,
            ),
      );
    }
  }

  // Dedicated surface (docs/service-contract.md#dedicated-endpoints): the Service-Name is checked without a request, then the endpoint.
  const named = readServiceName(options);
  const nameCheck = add(checkServiceName(named));
  if (nameCheck.status !== "pass") {
    skip(
      "endpoint",
      nameCheck.status === "skip"
        ? "no Service-Name configured."
        : "the Service-Name is malformed; no request was sent.",
    );
  } else if (!probe) {
    skip("endpoint", "the API could not be reached.");
  } else if (!key.apiKey) {
    skip("endpoint", key.given ? "the API key cannot be sent." : "no API key.");
  } else {
    // Run even when the hosted key check failed: the two surfaces need different permissions (docs/service-contract.md#authentication, rules 3, 6).
    const outcome = await postCompletion(target!, named.serviceName!);
    add(checkEndpoint(outcome, named.serviceName!, keyCheck?.status));
  }

  return {
    ok: checks.every((check) => check.status !== "fail"),
    checks,
    ...(availableModels ? { availableModels } : {}),
  };
}

// ---- configuration (no request) -----------------------------------------------------------

function checkBaseURL(option: string | undefined): {
  check: Omit<DiagnosisCheck, "title">;
  baseURL?: string;
  /** The fix to give instead of "set it to <baseURL>" when that URL turns out not to reach the API. */
  unreachedFix?: string;
} {
  const source = option === undefined ? ENV.baseURL : "the `baseURL` option";
  let baseURL: string;
  try {
    baseURL = resolveBaseURL(option);
  } catch (error) {
    return { check: configurationFailure("base-url", error, "The base URL is not usable.") };
  }
  const raw = option ?? readEnv(ENV.baseURL) ?? "";
  const { removed, added, trailingSlash } = pathChange(raw, baseURL);
  const change =
    removed && added
      ? `replaced ${removed} with ${added}`
      : removed
        ? `removed ${removed}`
        : added
          ? `added ${added}`
          : trailingSlash
            ? "removed the trailing slash"
            : "as given";
  const check: Omit<DiagnosisCheck, "title"> = {
    id: "base-url",
    status: removed ? "warn" : "pass",
    detail: `${baseURL} (from ${source}; ${change}).`,
  };
  // This package repairs it, but the openai SDK or curl given the same value would get 404 (docs/service-contract.md#hosted-models, rule 1).
  if (removed) {
    check.fix = `Set ${source} to ${baseURL}, so that other clients (the openai SDK, curl) reach the API too.`;
    return {
      check,
      baseURL,
      unreachedFix: `Set ${source} to the service's own …/inference/v1 URL: ${baseURL}, made from it by this package, is not the API either (see the check below).`,
    };
  }
  return { check, baseURL };
}

/** What normalisation changed in the path, segment by segment. */
function pathChange(raw: string, normalised: string) {
  const rawPath = new URL(raw.trim()).pathname;
  const segments = (path: string) => path.split("/").filter((s) => s !== "");
  const before = segments(rawPath);
  const after = segments(new URL(normalised).pathname);
  let common = 0;
  while (common < before.length && before[common] === after[common]) common++;
  const join = (parts: string[]) => (parts.length > 0 ? `/${parts.join("/")}` : "");
  return {
    removed: join(before.slice(common)),
    added: join(after.slice(common)),
    trailingSlash: rawPath.length > 1 && rawPath.endsWith("/"),
  };
}

interface ApiKeyRead {
  apiKey?: string;
  /** `sk-e…demo (from INFERENCE_SERVICE_API_KEY)`. */
  shown: string;
  /** Whether a key was given at all (`error` then says why it cannot be used). */
  given?: boolean;
  error?: unknown;
}

function readApiKey(option: string | undefined): ApiKeyRead {
  const source = option === undefined ? ENV.apiKey : "the `apiKey` option";
  try {
    const apiKey = resolveApiKey(option);
    return { apiKey, shown: `${maskApiKey(apiKey)} (from ${source})` };
  } catch (error) {
    return { shown: "no key", given: Boolean((option ?? readEnv(ENV.apiKey))?.trim()), error };
  }
}

/**
 * A key as it may be shown: its first and last four characters, `sk-e…demo`; a key shorter than
 * 12 characters shows only its last two.
 */
function maskApiKey(apiKey: string): string {
  return apiKey.length >= 12 ? `${apiKey.slice(0, 4)}…${apiKey.slice(-4)}` : `…${apiKey.slice(-2)}`;
}

interface ServiceNameRead {
  serviceName?: string;
  error?: unknown;
}

/**
 * The Service-Name from the same options and env variables as `DedicatedEndpointLLM`:
 * `serviceName`, else `tenantId` and `jobAlias` (options, then env). Nothing configured → none.
 */
function readServiceName(options: DiagnoseOptions): ServiceNameRead {
  try {
    return { serviceName: resolveServiceName(options, { required: false })?.serviceName };
  } catch (error) {
    return { error };
  }
}

function checkServiceName(read: ServiceNameRead): Omit<DiagnosisCheck, "title"> {
  if (read.error !== undefined) {
    return configurationFailure(
      "service-name",
      read.error,
      // docs/service-contract.md#dedicated-endpoints, rule 2: the service would answer 404 or route to the wrong service.
      "The Service-Name is malformed; no request was sent.",
    );
  }
  if (read.serviceName === undefined) {
    return {
      id: "service-name",
      status: "skip",
      detail: `Skipped: no dedicated endpoint configured (\`serviceName\`, or \`tenantId\` and \`jobAlias\`, or ${ENV.tenantId} and ${ENV.jobAlias}).`,
    };
  }
  const [tenantId, jobAlias] = read.serviceName.split(".");
  return {
    id: "service-name",
    status: "pass",
    detail: `${read.serviceName}: tenant ID "${tenantId}", job alias "${jobAlias}".`,
  };
}

/** A `ConfigurationError` as a failed check: its message is the fix. Anything else is a bug: rethrown. */
function configurationFailure(
  id: CheckId,
  error: unknown,
  detail: string,
): Omit<DiagnosisCheck, "title"> {
  if (!ConfigurationError.isInstance(error)) throw error;
  return { id, status: "fail", detail, fix: error.message, error: { name: error.name } };
}

// ---- requests -----------------------------------------------------------------------------

/**
 * One request through the models' pipeline (their fetch layer, SDK client and error mapper, with
 * no retry and no meter), so every failure arrives as the typed error a model would throw; a 2xx
 * answer is then checked by the models' own checks (see {@link answerError}).
 */
async function post(
  target: Target,
  path: "/chat/completions" | "/completions" | "/embeddings",
  body: Record<string, unknown>,
  ctx: FailureContext,
  headers: Record<string, string> = {},
): Promise<Outcome> {
  const client = createServiceClient({
    // A probe without a key still tells a 401 from HTML or a 404
    // (docs/service-contract.md#authentication, rule 4): the header is left out below.
    apiKey: target.apiKey ?? "no-key",
    baseURL: target.baseURL,
    fetch: createServiceFetch({
      ...ctx,
      fetch: target.fetch,
      headers,
      idleTimeout: target.timeout,
    }),
    timeout: target.timeout,
  });
  const options = (fetchOptions: RequestInit): OpenAI.RequestOptions => ({
    ...(target.apiKey ? {} : { headers: { Authorization: null } }),
    fetchOptions: fetchOptions as OpenAI.RequestOptions["fetchOptions"],
  });
  try {
    return await sendRequest({
      caller: new ServiceCaller({ maxRetries: 0 }),
      ctx,
      send: (fetchOptions): Promise<Answer<unknown>> =>
        client.post<unknown>(path, { body, ...options(fetchOptions) }).withResponse(),
      read: ({ data, response }): Outcome => ({
        ok: true,
        data,
        response,
        ctx,
        requestId: headerRequestId(response.headers),
      }),
    });
  } catch (error) {
    if (InferenceServiceError.isInstance(error)) return { ok: false, error };
    throw error;
  }
}

function postChat(target: Target, model: string, availableModels?: string[]): Promise<Outcome> {
  const ctx: FailureContext = {
    surface: "hosted",
    model,
    secrets: secretsOf(target),
    ...(availableModels ? { availableModels } : {}),
  };
  return post(
    target,
    "/chat/completions",
    { model, messages: [{ role: "user", content: PROMPT }], max_tokens: 1 },
    ctx,
  );
}

function postEmbeddings(
  target: Target,
  model: string,
  availableModels?: string[],
): Promise<Outcome> {
  const ctx: FailureContext = {
    surface: "hosted",
    api: "embeddings",
    model,
    secrets: secretsOf(target),
    ...(availableModels ? { availableModels } : {}),
  };
  return post(target, "/embeddings", { model, input: [PROMPT], encoding_format: "float" }, ctx);
}

function postCompletion(target: Target, serviceName: string): Promise<Outcome> {
  const ctx: FailureContext = { surface: "dedicated", serviceName, secrets: secretsOf(target) };
  // docs/service-contract.md#dedicated-endpoints, rule 1: the Service-Name header must be added explicitly.
  return post(target, "/completions", { prompt: PROMPT, max_tokens: 1 }, ctx, {
    [SERVICE_NAME_HEADER]: serviceName,
  });
}

function secretsOf(target: Target): string[] {
  return target.apiKey ? [target.apiKey] : [];
}

// ---- verdicts -----------------------------------------------------------------------------

/** The error's message without its hint: what failed, then status, code and request ID. */
export function errorSummary(error: InferenceServiceError): string {
  return `${error.summary}${formatDetails(error)}`;
}

function fromError(
  id: CheckId,
  error: InferenceServiceError,
  detail: string,
  status: "fail" | "warn" = "fail",
): Omit<DiagnosisCheck, "title"> {
  return {
    id,
    status,
    detail,
    fix: error.hint,
    requestId: error.requestId,
    error: { name: error.name, code: error.code, status: error.status },
  };
}

/** Transient failures (429, 5xx, timeouts) are warnings: nothing to change, try again later. */
function unexpected(id: CheckId, error: InferenceServiceError, what: string) {
  return fromError(id, error, `${what}: ${errorSummary(error)}`, error.retryable ? "warn" : "fail");
}

/**
 * The mark says whether the API was reached, and the words never contradict it: an error status
 * is shown only next to `!` or `✖`. The probe's expected answers (model_not_found for its
 * made-up model, 401, 403 credit) pass without their status: the later checks judge them.
 */
function checkReachable(probe: Outcome, baseURL: string): Omit<DiagnosisCheck, "title"> {
  const sent = `POST ${baseURL}/chat/completions`;
  const reached = (how: string, requestId: string | undefined): Omit<DiagnosisCheck, "title"> => ({
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

function checkApiKey(probe: Outcome, key: ApiKeyRead): Omit<DiagnosisCheck, "title"> {
  if (!key.apiKey) return keyFailure(key);
  const accepted = {
    id: "api-key" as const,
    status: "pass" as const,
    detail: `${key.shown} accepted: the service went on to look up the model. This check sends a model ID that cannot exist, so it costs nothing.`,
    requestId: probe.ok ? probe.requestId : probe.error.requestId,
  };
  if (probe.ok) return accepted;
  const { error } = probe;
  if (ModelNotFoundError.isInstance(error) || InsufficientCreditError.isInstance(error)) {
    return accepted;
  }
  if (AuthenticationError.isInstance(error)) {
    return fromError(
      "api-key",
      error,
      // docs/service-contract.md#authentication, rule 4: a missing and an invalid key get the same 401.
      `${key.shown} rejected with HTTP 401: the key is missing, invalid or expired.`,
    );
  }
  return unexpected("api-key", error, `${key.shown} could not be confirmed`);
}

/** The key could not be resolved: none given, or one holding a character no header can carry. */
function keyFailure(key: ApiKeyRead): Omit<DiagnosisCheck, "title"> {
  return configurationFailure(
    "api-key",
    key.error,
    // docs/service-contract.md#authentication, rule 1: every call carries the key.
    key.given
      ? "The API key cannot be sent: it holds a character that cannot be part of a key; no request carried it."
      : "No API key configured.",
  );
}

async function checkModelAndCredit(
  target: Target,
  probe: Outcome,
  model: string | undefined,
  availableModels: string[] | undefined,
): Promise<Array<Omit<DiagnosisCheck, "title">>> {
  // Some services check credit before the model: then the key probe already found it empty.
  const creditFromProbe =
    !probe.ok && InsufficientCreditError.isInstance(probe.error)
      ? noCredit(probe.error)
      : undefined;
  if (model === undefined || model.trim() === "") {
    return [
      {
        id: "model",
        status: "skip",
        detail: `Skipped: no model ID given (\`model\`).${
          availableModels ? ` ${availableModelsText("", availableModels)}` : ""
        }`,
      },
      creditFromProbe ?? {
        id: "credit",
        status: "skip",
        detail:
          "Skipped: needs a model ID (`model`); the check is one real call with max_tokens 1 and may cost a few tokens.",
      },
    ];
  }
  const outcome = await postChat(target, model, availableModels);
  if (outcome.ok) {
    const unusable = answerError(outcome, () =>
      checkChatCompletion(outcome.data, outcome.response.headers, outcome.ctx),
    );
    if (unusable) return [unexpected("model", unusable, `"${model}" answered`), skipCredit()];
    return [
      {
        id: "model",
        status: "pass",
        detail: `"${model}" answered one chat completion with max_tokens 1${tokensUsed(outcome)}; this check may cost a few tokens.`,
        requestId: outcome.requestId,
      },
      {
        id: "credit",
        status: "pass",
        detail: "Above zero: the service accepted a paid call.",
        requestId: outcome.requestId,
      },
    ];
  }
  const { error } = outcome;
  if (ModelNotFoundError.isInstance(error)) {
    return [
      fromError("model", error, unknownModel(model)),
      creditFromProbe ?? skipCredit("needs a model ID the service knows."),
    ];
  }
  if (InsufficientCreditError.isInstance(error)) {
    // The probe's unknown model got 503 while this call got 403: the model is checked first, so it passed.
    const modelFirst = !probe.ok && ModelNotFoundError.isInstance(probe.error);
    return [
      modelFirst
        ? {
            id: "model",
            status: "pass",
            detail: `"${model}" is known: the service checks the model before the credit, and refused this call for credit only.`,
            requestId: error.requestId,
          }
        : {
            id: "model",
            status: "skip",
            detail: `Skipped: the service refused the call for credit before it looked up "${model}".`,
          },
      noCredit(error),
    ];
  }
  return [unexpected("model", error, `"${model}" could not be checked`), skipCredit()];
}

/**
 * Runs a model's own check of a 2xx answer (`checkChatCompletion`, `parseCompletion`): the typed
 * error it throws, or undefined when the answer is usable.
 */
function answerError(
  outcome: Extract<Outcome, { ok: true }>,
  check: () => unknown,
): InferenceServiceError | undefined {
  try {
    check();
    return undefined;
  } catch (thrown) {
    const error = asServiceError(thrown, outcome.ctx);
    if (!InferenceServiceError.isInstance(error)) throw error;
    return error;
  }
}

function noCredit(error: InferenceServiceError): Omit<DiagnosisCheck, "title"> {
  return fromError(
    "credit",
    error,
    // docs/service-contract.md#errors, rule 3: credit exhaustion is a 403, not a 429.
    "No credit left: HTTP 403 insufficient_user_quota (a Wallet at or below zero, not a rate limit).",
  );
}

/** ` (N tokens used)` from a passing answer's usage, or nothing when it reports none. */
function tokensUsed(outcome: Extract<Outcome, { ok: true }>): string {
  const used = tokenUsageFromWire((outcome.data as { usage?: unknown }).usage)?.totalTokens;
  return used === undefined ? "" : ` (${used} ${used === 1 ? "token" : "tokens"} used)`;
}

/** A 503 `model_not_found` for a model check (chat or embeddings). */
function unknownModel(model: string): string {
  // docs/service-contract.md#hosted-models, rule 4: 503 model_not_found means an unknown model, not an outage.
  return `"${model}" is unknown to the service: HTTP 503 model_not_found; the service is not down.`;
}

function skipCredit(why = "the model check did not get an answer."): Omit<DiagnosisCheck, "title"> {
  return { id: "credit", status: "skip", detail: `Skipped: ${why}` };
}

function checkEmbeddings(outcome: Outcome, model: string): Omit<DiagnosisCheck, "title"> {
  if (outcome.ok) {
    let vectors: number[][] = [];
    const unusable = answerError(outcome, () => {
      vectors = readEmbeddings(outcome.data, outcome.response.headers, outcome.ctx, 1);
    });
    if (unusable) return unexpected("embeddings", unusable, `"${model}" answered`);
    return {
      id: "embeddings",
      status: "pass",
      detail: `"${model}" answered one embedding of ${vectors[0]?.length ?? 0} dimensions${tokensUsed(outcome)}; this check may cost a token or two.`,
      requestId: outcome.requestId,
    };
  }
  const { error } = outcome;
  if (ModelNotFoundError.isInstance(error)) {
    const check = fromError("embeddings", error, unknownModel(model));
    // The mapper's hint names the classes' option, `model`; here the ID came from `embeddingModel`.
    return { ...check, fix: check.fix?.replace("passed as `model`", "passed as `embeddingModel`") };
  }
  if (InvalidURLError.isInstance(error)) {
    // The mapper's summary says the service offers no embeddings at this URL.
    return fromError("embeddings", error, errorSummary(error));
  }
  if (InsufficientCreditError.isInstance(error)) {
    return fromError(
      "embeddings",
      error,
      `"${model}" could not be checked: no credit left (HTTP 403 insufficient_user_quota).`,
    );
  }
  return unexpected("embeddings", error, `"${model}" could not be checked`);
}

function checkEndpoint(
  outcome: Outcome,
  serviceName: string,
  keyStatus: DiagnosisCheck["status"] | undefined,
): Omit<DiagnosisCheck, "title"> {
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
