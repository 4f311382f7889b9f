/**
 * @module Topic words: the emulator's one tokeniser and light stemmer, shared by the chat model
 * (tool and context matching), the embedding vectors and rerank's scores, so all three read a
 * text the same way.
 */

// Function words and request verbs carry no topic: they must not make a tool or a sentence match.
const STOPWORDS = new Set(
  (
    "a an the and or but if of to in on at by for with from into about as is are was were be been " +
    "being do does did have has had i me my we our us you your he she it its they them their this " +
    "that these those what which who whom whose when where why how can could would should will " +
    "shall may might must please tell give show get let make some any all no not yes than then " +
    "there here so such very just also want need like know s t don doesn isn what's it's i'm"
  ).split(" "),
);

// A few everyday synonyms, so "3 plus 4" finds an `add` tool and "forecast" a `weather` one. A
// Map, not an object: a caller's "constructor" or "__proto__" must not find Object's own members.
const SYNONYMS: ReadonlyMap<string, string> = new Map(
  Object.entries({
    plus: "add",
    sum: "add",
    addition: "add",
    total: "add",
    times: "multiply",
    multiplied: "multiply",
    product: "multiply",
    minus: "subtract",
    difference: "subtract",
    divided: "divide",
    quotient: "divide",
    forecast: "weather",
    temperature: "weather",
    lookup: "search",
    find: "search",
    look: "search",
  }),
);

const CAMEL_CASE = /([\p{Ll}\d])(\p{Lu})/gu;
const NOT_IN_A_WORD = /[^\p{L}\p{N}']+/u;

/** Words of `text`, splitting camelCase and snake_case, in their original case. */
export function words(text: string): string[] {
  const result: string[] = [];
  for (const piece of text.replace(CAMEL_CASE, "$1 $2").split(NOT_IN_A_WORD)) {
    // Quotes around a word are not part of it; one inside ("it's") is.
    const word = piece.includes("'") ? piece.replace(/^'+|'+$/g, "") : piece;
    if (word.length > 0) result.push(word);
  }
  return result;
}

export function isStopword(word: string): boolean {
  return STOPWORDS.has(word.toLowerCase());
}

// Derivational endings, longest first; one comes off when at least 4 letters stay.
const DERIVATIONS = ["ically", "ation", "ical", "ally", "ness", "ment", "ion", "ic", "ly"];

/**
 * Light English stemming of a lower-case word, so that word forms meet: "cities" and "city",
 * "searching" and "search", "volcano", "volcanoes" and "volcanic" (all "volcan"), "eruption" and
 * "erupted" ("erupt"). Plural and verb endings come off, then one derivational ending, then a
 * final vowel. A stem is a key to compare, not a word to show.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith("ies")) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && /(?:ss|x|z|ch|sh|o)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith("s") && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  // A verb ending comes off only where a vowel stays before it: "string", "red" are no verbs.
  if (w.length > 5 && /[aeiouy].*ing$/.test(w)) w = undoubled(w.slice(0, -3));
  else if (w.length > 4 && /[aeiouy].*ed$/.test(w)) w = undoubled(w.slice(0, -2));
  const ending = DERIVATIONS.find((end) => w.endsWith(end) && w.length - end.length >= 4);
  if (ending) w = w.slice(0, -ending.length);
  // A final vowel: "release"/"released", "volcano"/"volcanic"; a short word keeps all but an "e".
  return (w.length > 3 && w.endsWith("e")) || (w.length > 4 && /[aiouy]$/.test(w))
    ? w.slice(0, -1)
    : w;
}

/** "runn" → "run", "stopp" → "stop": the doubled consonant of an "-ing" or "-ed" form. */
function undoubled(w: string): string {
  const last = w.at(-1);
  return w.length > 3 && last === w.at(-2) && !/[aeioulsz]/.test(last ?? "a") ? w.slice(0, -1) : w;
}

// Normalising is the costliest step per word and words repeat (a corpus, a tool's description):
// results are remembered, and forgotten all at once when there are too many.
const NORMALISED_LIMIT = 10_000;
const normalised = new Map<string, string>();

/** A lower-case word as the emulator compares it: a synonym's target, stemmed. */
function normalize(lower: string): string {
  let result = normalised.get(lower);
  if (result === undefined) {
    const stemmed = stem(SYNONYMS.get(lower) ?? lower);
    result = SYNONYMS.get(stemmed) ?? stemmed;
    if (normalised.size >= NORMALISED_LIMIT) normalised.clear();
    normalised.set(lower, result);
  }
  return result;
}

/** Calls `take` with each topic word of `text`, in order: normalised, function words dropped. */
function eachTerm(text: string, take: (term: string) => void): void {
  for (const word of words(text)) {
    const lower = word.toLowerCase();
    if (!STOPWORDS.has(lower)) take(normalize(lower));
  }
}

/** The topic words of `text`, in order, repeats kept (rerank counts them). */
export function terms(text: string): string[] {
  const result: string[] = [];
  eachTerm(text, (term) => result.push(term));
  return result;
}

/** The topic words of `text`, each once. */
export function keywords(text: string): Set<string> {
  const result = new Set<string>();
  eachTerm(text, (term) => result.add(term));
  return result;
}

/** How many of `query`'s keywords occur in `candidate`. */
export function overlap(query: ReadonlySet<string>, candidate: ReadonlySet<string>): number {
  let score = 0;
  for (const word of query) if (candidate.has(word)) score++;
  return score;
}
