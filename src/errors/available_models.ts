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
  if (distance > limit) return undefined;
  // A near miss keeps most of the part that differs: "emulator-caht" is "emulator-chat"
  // mistyped, not "emulator-r1", whose "r1" shares nothing with "caht" (only their prefix).
  // Letters added or left out are kept apart: "emulator-thinkr" is "emulator-thinker".
  const [a, b] = differingParts(wanted, id);
  if (distance > 1 && a !== "" && b !== "" && distance * 2 > Math.max(a.length, b.length)) {
    return undefined;
  }
  return 1 + distance;
}

/** `a` and `b` without the prefix and the suffix they share. */
function differingParts(a: string, b: string): [string, string] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (
    end < a.length - start &&
    end < b.length - start &&
    a[a.length - 1 - end] === b[b.length - 1 - end]
  ) {
    end++;
  }
  return [a.slice(start, a.length - end), b.slice(start, b.length - end)];
}

/**
 * Edit distance with adjacent transpositions (optimal string alignment): `modle` → `model` is 1,
 * where plain Levenshtein counts 2. With a `limit`, it gives up (returning `limit + 1`) once every
 * path exceeds it.
 *
 * @example
 * editDistance("caht", "chat"); // 1
 */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let previousBest = 0;
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, before[j - 2]! + 1);
      }
      current.push(value);
      best = Math.min(best, value);
    }
    // A transposition reaches back two rows: only two rows over the limit end the search.
    if (best > limit && previousBest > limit) return limit + 1;
    before = previous;
    previous = current;
    previousBest = best;
  }
  return Math.min(previous[b.length]!, limit + 1);
}
