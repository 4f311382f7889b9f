/** @module Near-miss suggestions for the CLI: "did you mean --base-url?" for a mistyped flag or command. */
import { editDistance } from "../errors/available_models.js";

/** `baseURL`, `base_url`, `BASE-URL` → `base-url`: how a flag is spelt here. */
function kebab(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/_/g, "-")
    .toLowerCase();
}

/**
 * The candidate `input` most likely meant, or undefined when none is close: the same name in
 * camelCase or snake_case (`baseURL` → `base-url`), the only candidate it is a prefix of
 * (`base` → `base-url`; 3 characters or more), else the nearest within 1 edit (names under 5 characters) or 2.
 *
 * @example
 * closestName("bse-url", ["base-url", "api-key"]) // "base-url"
 * closestName("apiKey", ["base-url", "api-key"]) // "api-key"
 * closestName("colour", ["base-url", "api-key"]) // undefined
 */
export function closestName(input: string, candidates: readonly string[]): string | undefined {
  const wanted = kebab(input);
  if (wanted === "") return undefined;
  const exact = candidates.find((name) => name === wanted);
  if (exact) return exact;
  const extending = candidates.filter((name) => name.startsWith(wanted));
  if (wanted.length >= 3 && extending.length === 1) return extending[0];
  const limit = wanted.length < 5 ? 1 : 2;
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(wanted, name);
    if (distance <= limit && (best === undefined || distance < best.distance)) {
      best = { name, distance };
    }
  }
  return best?.name;
}
