/**
 * @module What a hosted model's prompt cache does for one chat call, on every route that serves
 * one (`/chat/completions`, `/responses`): the tokens it reads of a prompt seen before — kept
 * apart by OpenAI's `prompt_cache_key` — or, for a Claude model, what it reads and writes at the
 * request's `cache_control` breakpoints; and the header that says which controls arrived.
 */
import type { CacheUse } from "../model/generate.js";
import type { PromptCacheControls } from "../model/requests.js";
import type { PromptPart } from "../state/prompt_cache.js";
import type { EmulatorState } from "../state/state.js";
import type { HostedModel } from "../state/state_records.js";

/** The cache's reads (`cachedTokens`), or a Claude model's reads and writes (`cacheWrites`). */
export function promptCacheUse(
  state: EmulatorState,
  model: HostedModel,
  parts: readonly PromptPart[],
  controls: PromptCacheControls,
): { cachedTokens: number; cacheWrites?: CacheUse } {
  // OpenAI's `prompt_cache_key` keeps the prompts it names apart from others in the cache.
  const cacheName = controls.key === undefined ? model.id : `${model.id}\u0000${controls.key}`;
  const cachedTokens = model.promptCache === true ? state.readPromptCache(cacheName, parts) : 0;
  return model.promptCache === "breakpoints"
    ? { cachedTokens, cacheWrites: state.writePromptCache(model.id, parts, controls.breakpoints) }
    : { cachedTokens };
}

/**
 * Says which prompt-cache controls arrived, so a client can see that they passed through: e.g.
 * `key=support-v1; retention=24h; breakpoints=2 (1h, 5m)`. Undefined when none did.
 */
export function promptCacheHeader(controls: PromptCacheControls): string | undefined {
  const said: string[] = [];
  if (controls.key !== undefined) said.push(`key=${encodeURIComponent(controls.key)}`);
  if (controls.retention !== undefined) {
    said.push(`retention=${encodeURIComponent(controls.retention)}`);
  }
  const { breakpoints } = controls;
  if (breakpoints.length > 0) {
    said.push(`breakpoints=${breakpoints.length} (${breakpoints.map((b) => b.ttl).join(", ")})`);
  }
  return said.length > 0 ? said.join("; ") : undefined;
}
