/**
 * @module Finds the secrets a cassette holds, and removes them: for cassettes written before a
 * redaction existed (a key sent as a query parameter, echoed in a latin-1 page, …) or edited by
 * hand. A secret is a value it can tell is one — a credential header's or key-shaped query
 * parameter's value not `[redacted]`, a `Bearer`/`Basic` credential or an `sk-…` key anywhere in
 * any entry, decoded bodies included — or one the user names (their key). Each is then removed
 * wherever it shows, in every form, with the recorder's own redaction.
 */
import type { Cassette, CassetteEntry } from "./cassette.js";
import {
  credentialHeaderName,
  credentialQueryName,
  MIN_REDACT_LENGTH,
  REDACTED,
  Redactor,
  redactEntry,
  secretsOf,
} from "./redaction.js";

/** A value found to be secret, told by its kind and a hint that does not give it away. */
export interface FoundSecret {
  /** `the key sk-a… (51 characters)`, `query parameter "key"`, `a value you named`. */
  what: string;
}

/** Where one entry held secrets. */
export interface EntryFinding {
  /** The entry's index in `log.entries`. */
  entry: number;
  /** The fields that held one, as paths: `request.url`, `response.content.text`. */
  fields: string[];
}

/** What a scan found in one cassette, and the cassette without it. */
export interface ScanResult {
  secrets: FoundSecret[];
  entries: EntryFinding[];
  /** The cassette with every secret found `[redacted]` (the same object when none was). */
  redacted: Cassette;
}

/** Keys by their form: the service's `sk-…` keys, and credentials after their scheme. */
const KEY_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  [/\bsk-[A-Za-z0-9_-]{16,}/g, "the key"],
  [/\bbearer\s+([A-Za-z0-9._~+/-]{8,}=*)/gi, "a Bearer token"],
  [/\bbasic\s+([A-Za-z0-9+/]{8,}=*)/gi, "a Basic credential"],
];

/** A query parameter in any URL of any text: `?key=…`, `&access_token=…`. */
const QUERY_PARAMETER = /[?&]([A-Za-z0-9_.-]+)=([^&\s"'#\\<>]+)/g;

/**
 * The secrets `cassette` holds besides `named` (which are looked for too), where they are, and
 * the cassette without them.
 */
export function scanCassette(cassette: Cassette, named: readonly string[] = []): ScanResult {
  const found = new Map<string, string>();
  const add = (value: string, what: string) => {
    if (value.length >= MIN_REDACT_LENGTH && !value.includes(REDACTED) && !found.has(value)) {
      found.set(value, what);
    }
  };
  for (const value of named) add(value, "a value you named");
  for (const entry of cassette.log.entries) collect(entry, add);
  const secrets = [...found.keys()];
  const redactor = new Redactor(secretsOf({ named: secrets }));
  const entries: EntryFinding[] = [];
  const redactedEntries = cassette.log.entries.map((entry, index) => {
    const after = redactEntry(entry, redactor);
    const fields = changedFields(entry, after);
    if (fields.length === 0) return entry;
    entries.push({ entry: index, fields });
    return after;
  });
  const all = [...texts(cassette.log.entries)];
  const shows = (secret: string) => {
    const alone = new Redactor([secret]);
    return all.some((text) => alone.text(text) !== text);
  };
  return {
    secrets: [...found]
      .filter(([value]) => entries.length > 0 && shows(value))
      .map(([value, what]) => ({ what: hinted(what, value) })),
    entries,
    redacted:
      entries.length === 0
        ? cassette
        : { ...cassette, log: { ...cassette.log, entries: redactedEntries } },
  };
}

/** The secrets an entry shows: its credentials, keys by their form, query keys in any text. */
function collect(entry: CassetteEntry, add: (value: string, what: string) => void): void {
  const { request, response } = entry;
  for (const { name, value } of [...request.headers, ...response.headers]) {
    if (credentialHeaderName(name)) {
      for (const secret of secretsOf({ headers: [{ name, value }] })) {
        add(secret, `the value of header ${name}`);
      }
    }
  }
  for (const secret of secretsOf({ url: request.url })) add(secret, "a query parameter's key");
  for (const text of texts(entry)) {
    for (const [pattern, what] of KEY_PATTERNS) {
      for (const match of text.matchAll(pattern)) {
        const value = match[1] ?? match[0];
        add(value, what);
        // A Basic credential's password is a secret of its own.
        if (what === "a Basic credential") {
          const credential = { name: "authorization", value: `Basic ${value}` };
          for (const part of secretsOf({ headers: [credential] })) {
            // The scheme stays readable: `Basic [redacted]`.
            if (!/^basic\s/i.test(part)) add(part, what);
          }
        }
      }
    }
    for (const match of text.matchAll(QUERY_PARAMETER)) {
      if (credentialQueryName(match[1]!))
        add(decodeOrKeep(match[2]!), `query parameter "${match[1]}"`);
    }
  }
}

/** Every string of an entry, with bodies stored as base64 decoded (as latin-1: one character a byte). */
function* texts(value: unknown): Generator<string> {
  if (typeof value === "string") {
    yield value;
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) yield* texts(item);
    return;
  }
  if (typeof value !== "object" || value === null) return;
  const record = value as Record<string, unknown>;
  const base64 = record.encoding === "base64" || record._encoding === "base64";
  for (const [key, inner] of Object.entries(record)) {
    if (key === "text" && base64 && typeof inner === "string") {
      yield Buffer.from(inner, "base64").toString("latin1");
    } else yield* texts(inner);
  }
}

function decodeOrKeep(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The paths of the strings that differ between two copies of an entry. */
function changedFields(before: unknown, after: unknown, at = ""): string[] {
  if (typeof before === "string") return before === after ? [] : [at];
  if (typeof before !== "object" || before === null) return [];
  const out: string[] = [];
  for (const [key, inner] of Object.entries(before)) {
    const path = Array.isArray(before) ? `${at}[${key}]` : at === "" ? key : `${at}.${key}`;
    out.push(...changedFields(inner, (after as Record<string, unknown>)[key], path));
  }
  return out;
}

/** `what` with a hint of the value: its first characters when it is long enough to spare them. */
function hinted(what: string, value: string): string {
  const start = value.length >= 16 ? `${value.slice(0, 4)}…, ` : "";
  return `${what} (${start}${value.length} characters)`;
}

/** The cassette without the entries at `indexes` (their indexes in `log.entries`). */
export function withoutEntries(cassette: Cassette, indexes: ReadonlySet<number>): Cassette {
  return {
    ...cassette,
    log: {
      ...cassette.log,
      entries: cassette.log.entries.filter((_entry, index) => !indexes.has(index)),
    },
  };
}
