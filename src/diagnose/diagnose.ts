/** @module `diagnose()`: checks a configuration with the cheapest possible requests and says what to change. */

import type { z } from "zod";
import { embeddingsProbe } from "../apis/embeddings/probe.js";
import { rerankProbe } from "../apis/rerank/probe.js";
import { readEnv } from "../config/env.js";
import {
  aFunction,
  checkedOnResolve,
  optionsSchema,
  parseOptions,
  timeoutMs,
} from "../config/options.js";
import { APIS } from "../transport/apis.js";
import type { Fetch } from "../transport/fetch.js";
import { listModels } from "../transport/model_list.js";
import { type ApiKeyRead, checkApiKey, keyFailure, readApiKey } from "./api_key.js";
import { checkBaseURL } from "./base_url.js";
import {
  type CheckId,
  type Diagnosis,
  type DiagnosisCheck,
  skipped,
  type Verdict,
} from "./check.js";
import { checkEndpoint } from "./endpoint.js";
import { checkModelAndCredit } from "./model.js";
import { checkProbe } from "./model_call.js";
import { NO_SUCH_MODEL, type Outcome, postChat, postCompletion, type Target } from "./probe.js";
import { checkReachable } from "./reachable.js";
import { checkServiceName, readServiceName } from "./service_name.js";

export { type Diagnosis, type DiagnosisCheck, errorSummary } from "./check.js";

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
  /**
   * A rerank model ID to check with one `POST …/rerank` of one word against one document (it may
   * cost a token or two); outer spaces are trimmed. The service contract does not show rerank,
   * so this says whether the deployment offers it. @default env `INFERENCE_SERVICE_RERANK_MODEL`; none: skipped
   */
  rerankModel: checkedOnResolve<string>().optional(),
  /** Dedicated endpoint's `Service-Name`, `<TENANT_ID>.<JOB_ALIAS_NAME>` (docs/service-contract.md#dedicated-endpoints). @default `tenantId` + "." + `jobAlias` */
  serviceName: checkedOnResolve<string>().optional(),
  /** Tenant ID (docs/service-contract.md#authentication, rule 5). @default env `INFERENCE_SERVICE_TENANT_ID` */
  tenantId: checkedOnResolve<string>().optional(),
  /** Job alias name of the endpoint. @default env `INFERENCE_SERVICE_JOB_ALIAS` */
  jobAlias: checkedOnResolve<string>().optional(),
  /** The fetch that sends requests (tests, proxies, the in-process emulator). @default `globalThis.fetch` */
  fetch: aFunction<Fetch>("a fetch function").optional(),
  /** Milliseconds each request may take; at most 2147483647 (about 24.8 days). @default 30000 */
  timeout: timeoutMs.default(30_000),
});

/** Options of {@link diagnose}: the same names, defaults and env variables as the models'. */
export type DiagnoseOptions = z.input<typeof diagnoseOptions>;

/** The APIs with a model class of their own, each checked by one call of its probe, in this order. */
const PROBES = [embeddingsProbe, rerankProbe] as const;

const TITLES: Record<CheckId, string> = {
  "base-url": "Base URL",
  reachable: "API reachable",
  "api-key": "API key",
  model: "Model ID",
  credit: "Account credit",
  ...(Object.fromEntries(PROBES.map(({ api }) => [api, APIS[api].checkTitle])) as Record<
    (typeof PROBES)[number]["api"],
    string
  >),
  "service-name": "Service-Name",
  endpoint: "Dedicated endpoint",
};

/** The hosted checks that need the API key accepted. */
const LATER: readonly CheckId[] = ["model", "credit", ...PROBES.map(({ api }) => api)];

/** The checks found so far, in order, each with its title. */
class Checks {
  readonly list: DiagnosisCheck[] = [];

  add({ id, ...rest }: Verdict): DiagnosisCheck {
    const check: DiagnosisCheck = { id, title: TITLES[id], ...rest };
    this.list.push(check);
    return check;
  }

  skip(ids: readonly CheckId[], why: string): void {
    for (const id of ids) this.add(skipped(id, why));
  }
}

/** What the hosted checks leave to the dedicated ones. */
interface HostedFindings {
  /** The key probe's answer, when the API was reached. */
  probe?: Outcome;
  keyStatus?: DiagnosisCheck["status"];
  availableModels?: string[];
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
 *    `model` (an unknown route changes nothing), and the APIs it lists the model under (whether it
 *    serves the Responses API). Then, only with `model`, one chat completion with
 *    `max_tokens: 1` (it may cost a few tokens): 503 `model_not_found` (docs/service-contract.md#hosted-models, rule 4), 403
 *    `insufficient_user_quota` (docs/service-contract.md#errors);
 * 6. `embeddings` — only with `embeddingModel` (or its env variable): one `POST …/embeddings` of
 *    one word. The contract does not show this route, so a 404 says the deployment offers no
 *    embeddings; 503 `model_not_found` names the listed models, as for `model`;
 * 7. `rerank` — only with `rerankModel` (or its env variable): one `POST …/rerank` of one word
 *    against one document, read as `InferenceServiceRerank` reads it; a 404 says the deployment
 *    offers no rerank, 503 `model_not_found` names the listed models;
 * 8. `service-name` — the Service-Name's shape (docs/service-contract.md#dedicated-endpoints, rule 2; no request);
 * 9. `endpoint` — one `POST …/completions` with `max_tokens: 1`: 401 → permission or expiry,
 *    404 → Service-Name, refused or empty → Pending, 200 → Running (docs/service-contract.md#endpoint-states, docs/service-contract.md#errors, rule 7).
 *
 * Every failure is the package's typed error, so `fix` is its `hint`. Never throws for a service
 * or configuration problem; throws `ConfigurationError` only for options of the wrong type (a
 * `timeout` that is not a number of milliseconds, a `fetch` that is not a function).
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
  const checks = new Checks();
  const base = checkBaseURL(options.baseURL);
  const baseCheck = checks.add(base.check);
  const key = readApiKey(options.apiKey);
  const target: Target | undefined = base.baseURL
    ? { baseURL: base.baseURL, apiKey: key.apiKey, fetch: options.fetch, timeout }
    : undefined;
  const hosted = await hostedChecks(checks, target, key, options);
  // The repaired URL is not the API either: advise nothing the check below rejects.
  if (target && !hosted.probe && base.unreachedFix) baseCheck.fix = base.unreachedFix;
  await dedicatedChecks(checks, target, key, hosted, options);
  const { availableModels } = hosted;
  return {
    ok: checks.list.every((check) => check.status !== "fail"),
    checks: checks.list,
    ...(availableModels ? { availableModels } : {}),
  };
}

/**
 * The hosted surface: the probe (a made-up model ID) is also the key check
 * (docs/service-contract.md#hosted-models); then the model, the credit, the embeddings and rerank.
 */
async function hostedChecks(
  checks: Checks,
  target: Target | undefined,
  key: ApiKeyRead,
  options: DiagnoseOptions,
): Promise<HostedFindings> {
  if (!target) {
    checks.skip(["reachable"], "the base URL is not usable.");
    unreached(checks, key, "the API could not be reached.");
    return {};
  }
  const probe = await postChat(target, NO_SUCH_MODEL);
  if (checks.add(checkReachable(probe, target.baseURL)).status === "fail") {
    unreached(checks, key, "the API could not be reached.");
    return {};
  }
  const keyStatus = checks.add(checkApiKey(probe, key)).status;
  if (keyStatus === "fail") {
    checks.skip(LATER, "the API key was not accepted.");
    return { probe, keyStatus };
  }
  // The one request diagnose adds for the model check: free, bounded, never retried.
  const listed = await listModels({ ...target, timeoutMs: target.timeout });
  const availableModels = listed?.map((entry) => entry.id);
  const model = typeof options.model === "string" ? options.model.trim() : options.model;
  const endpointTypes = listed?.find((entry) => entry.id === model)?.endpointTypes;
  for (const check of await checkModelAndCredit(
    target,
    probe,
    model,
    availableModels,
    endpointTypes,
  )) {
    checks.add(check);
  }
  for (const apiProbe of PROBES) {
    const given = (options[apiProbe.option] ?? readEnv(apiProbe.env))?.trim() || undefined;
    checks.add(
      given === undefined
        ? skipped(
            apiProbe.api,
            `no ${apiProbe.kind} model ID given (\`${apiProbe.option}\` or ${apiProbe.env}).`,
          )
        : await checkProbe(target, apiProbe, given, availableModels),
    );
  }
  return { probe, keyStatus, availableModels };
}

/**
 * The hosted checks that need the API, when it is out of reach: skipped, but for a key no
 * header can carry, which is known without a request.
 */
function unreached(checks: Checks, key: ApiKeyRead, why: string): void {
  if (key.error === undefined) checks.skip(["api-key"], why);
  else checks.add(keyFailure(key));
  checks.skip(LATER, why);
}

/**
 * The dedicated surface (docs/service-contract.md#dedicated-endpoints): the Service-Name is
 * checked without a request, then the endpoint — even when the hosted key check failed, since the
 * two surfaces need different permissions (docs/service-contract.md#authentication, rules 3, 6).
 */
async function dedicatedChecks(
  checks: Checks,
  target: Target | undefined,
  key: ApiKeyRead,
  hosted: HostedFindings,
  options: DiagnoseOptions,
): Promise<void> {
  const named = readServiceName(options);
  const nameCheck = checks.add(checkServiceName(named));
  if (nameCheck.status !== "pass") {
    checks.skip(
      ["endpoint"],
      nameCheck.status === "skip"
        ? "no Service-Name configured."
        : "the Service-Name is malformed; no request was sent.",
    );
  } else if (!target || !hosted.probe) {
    checks.skip(["endpoint"], "the API could not be reached.");
  } else if (!key.apiKey) {
    checks.skip(["endpoint"], key.given ? "the API key cannot be sent." : "no API key.");
  } else {
    const outcome = await postCompletion(target, named.serviceName!);
    checks.add(checkEndpoint(outcome, named.serviceName!, hosted.keyStatus));
  }
}
