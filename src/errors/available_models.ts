/** @module The available model IDs in words: the list a `ModelNotFoundError` hint shows, and the near misses of a model ID. */

const LISTED = 20;
const SUGGESTED = 3;

/**
 * The IDs close to `model`: equal but for case, one containing the other, or within an edit
 * distance of a third of the longer ID (at least 2). Closest first, at most three.
 *
 * @example
 * closestModelIds("emulator-caht", ["emulator-chat", "emulator-reasoner"]); // ["emulator-chat"]
 */
export function closestModelIds(model: string, ids: readonly string[]): string[] {
  const wanted = model.trim().toLowerCase();
  if (wanted === "") return [];
  return ids
    .map((id) => ({ id, distance: nearness(wanted, id.toLowerCase()) }))
    .filter((entry): entry is { id: string; distance: number } => entry.distance !== undefined)
    .sort((a, b) => a.distance - b.distance)
    .slice(0, SUGGESTED)
    .map((entry) => entry.id);
}

/**
 * One sentence for a hint: `Did you mean "a"? The service lists 3 models: a, b, c.` (at most 20
 * listed, then "and N more"); or that the service lists none.
 */
export function availableModelsText(model: string, ids: readonly string[]): string {
  if (ids.length === 0) return "The service lists no models for this key.";
  const close = closestModelIds(model, ids);
  const shown = ids.slice(0, LISTED).join(", ");
  const more = ids.length > LISTED ? ` and ${ids.length - LISTED} more` : "";
  const guess =
    close.length > 0 ? `Did you mean ${close.map((id) => `"${id}"`).join(" or ")}? ` : "";
  return `${guess}The service lists ${ids.length} model${ids.length === 1 ? "" : "s"}: ${shown}${more}.`;
}

/** A score (lower is closer) when `id` is a near miss of `wanted`, else undefined. Both lower case. */
function nearness(wanted: string, id: string): number | undefined {
  if (id === wanted) return 0;
  if (id.includes(wanted) || wanted.includes(id)) return 1;
  const limit = Math.max(2, Math.floor(Math.max(wanted.length, id.length) / 3));
  const distance = editDistance(wanted, id, limit);
  return distance <= limit ? 1 + distance : undefined;
}

/** Levenshtein distance, giving up (returning `limit + 1`) once every path exceeds `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
}
