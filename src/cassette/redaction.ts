/**
 * @module What a cassette never holds: credentials, and the values the user names. A credential
 * is the value of a credential-shaped header (`Authorization`, `X-Api-Key`, `…-Token`, `Cookie`,
 * a `Bearer`/`Basic` value under any name), of a key-shaped query parameter (`?key=`,
 * `?api-key=`, `?access_token=`, …) or of the URL's user and password, with the parts of it a
 * server may echo (the token after `Bearer`, a `Basic` credential decoded). Each such value reads
 * `[redacted]` wherever it shows, in every form a cassette stores it or a server echoes it: as
 * written or in another case, URL-encoded, JSON-escaped, base64-encoded (alone, or inside longer
 * base64 text such as a `Basic` credential), and inside bodies that are not UTF-8. Any other
 * header is recorded as it is: only the user knows which of their own headers are secret, and
 * lists their values in `redact`.
 */
import { MIN_SECRET_LENGTH, REDACTED } from "../utils/secrets.js";
import type { CassetteEntry, NameValue } from "./cassette.js";

export { REDACTED };

/** The shortest value `redact` takes: a shorter one would be replaced inside ordinary words. */
export const MIN_REDACT_LENGTH = MIN_SECRET_LENGTH;

/**
 * Names of headers and query parameters whose value is a credential, whatever its length. `token`
 * but not `tokens`: rate-limit headers count tokens (`x-ratelimit-remaining-tokens`).
 */
const KEY_SHAPED =
  /authorization|api[-_]?key|token(?!s)|secret|password|passwd|cookie|session|signature|credential|^x-amz-|^x-goog-|(?:^|[-_])(?:auth|key)(?:$|[-_])/i;

/** Key-shaped names that are not credentials: an idempotency key only tells retries apart. */
const NOT_CREDENTIALS = new Set(["idempotency-key"]);

/** Query parameters that carry a key under a short name (`?sig=`, `?jwt=`), besides key-shaped ones. */
const QUERY_KEY_NAMES = /^(?:sig|jwt|pass|pwd)$/i;

/** A value that is a credential by its form, under any header name: `Bearer x`, `Basic x`. */
const CREDENTIAL_VALUE = /^(?:bearer|basic|token)\s+(\S+)$/i;

/** Request headers left out: the transport's own, and telemetry that changes with every machine. */
const UNRECORDED_REQUEST = new Set([
  "host",
  "connection",
  "keep-alive",
  "content-length",
  "transfer-encoding",
  "accept-encoding",
  "user-agent",
  "te",
  "upgrade",
]);

/**
 * Response headers left out when recording, and not sent when replaying: the transport's own (the
 * replay's transport sets them for the body it sends), and the date (every run would change it).
 */
export const TRANSPORT_RESPONSE_HEADERS: ReadonlySet<string> = new Set([
  "date",
  "connection",
  "keep-alive",
  "content-length",
  "transfer-encoding",
  "content-encoding",
  "set-cookie",
]);

/** Header values by lower-case name, as node:http and the emulator's requests give them. */
export type RawHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** Each value of `headers` with its lower-case name: a repeated header once per value, none for undefined. */
function* headerValues(
  headers: RawHeaders | readonly NameValue[],
): Generator<[name: string, value: string]> {
  if (Array.isArray(headers)) {
    for (const { name, value } of headers as readonly NameValue[]) {
      yield [name.toLowerCase(), value];
    }
    return;
  }
  for (const [name, value] of Object.entries(headers as RawHeaders)) {
    const lower = name.toLowerCase();
    if (Array.isArray(value)) for (const one of value) yield [lower, one];
    else if (value !== undefined) yield [lower, value];
  }
}

/** Whether a header of this name carries a credential (`Authorization`, `X-Api-Key`, `Cookie`, …). */
export function credentialHeaderName(name: string): boolean {
  const lower = name.toLowerCase();
  return KEY_SHAPED.test(lower) && !NOT_CREDENTIALS.has(lower);
}

/** Whether a query parameter of this name carries a key (`key`, `api-key`, `access_token`, `auth`, …). */
export function credentialQueryName(name: string): boolean {
  return KEY_SHAPED.test(name) || QUERY_KEY_NAMES.test(name);
}

/** Whether a header's value is recorded as `[redacted]`: a credential by its name or its form. */
function credentialHeader(name: string, value: string): boolean {
  const trimmed = value.trim();
  return trimmed !== "" && (credentialHeaderName(name) || CREDENTIAL_VALUE.test(trimmed));
}

/**
 * The secret parts of one credential: the value, the token after its scheme (`Bearer x`), and a
 * `Basic` credential decoded (`user:password`, and the password alone).
 */
function credentialParts(value: string): string[] {
  const trimmed = value.trim();
  const parts = [trimmed];
  const scheme = CREDENTIAL_VALUE.exec(trimmed);
  if (scheme) {
    parts.push(scheme[1]!);
    if (/^basic\s/i.test(trimmed)) {
      const decoded = Buffer.from(scheme[1]!, "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      if (colon >= 0) parts.push(decoded, decoded.slice(colon + 1));
    }
  }
  return parts;
}

/** `decodeURIComponent` that leaves a malformed escape as it is; `+` is a space, as forms write it. */
function decodeQueryPart(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll("+", " "));
  } catch {
    return text;
  }
}

/** The key-shaped query parameters of a path or URL, decoded. */
function* queryCredentials(pathOrURL: string): Generator<string> {
  const start = pathOrURL.indexOf("?");
  if (start < 0) return;
  for (const piece of pathOrURL.slice(start + 1).split(/[&#]/)) {
    const eq = piece.indexOf("=");
    if (eq < 0) continue;
    if (credentialQueryName(decodeQueryPart(piece.slice(0, eq)))) {
      yield decodeQueryPart(piece.slice(eq + 1));
    }
  }
}

/** Where a request's secrets are: its headers, its path or URL (query and user info), and the user's named values. */
export interface SecretSources {
  headers?: RawHeaders | readonly NameValue[];
  /** The path and query called, or the whole URL. */
  url?: string;
  /** The values the user names (`redact`). */
  named?: readonly string[];
}

/**
 * The values to hide for one request, longest first (so that a value containing another goes
 * whole), each at least {@link MIN_REDACT_LENGTH} characters: shorter ones would shred the JSON.
 */
export function secretsOf({ headers = {}, url, named = [] }: SecretSources): string[] {
  const found = new Set<string>();
  const add = (value: string) => {
    for (const part of credentialParts(value)) found.add(part);
  };
  for (const [name, one] of headerValues(headers)) if (credentialHeader(name, one)) add(one);
  if (url !== undefined) {
    for (const value of queryCredentials(url)) add(value);
    const userInfo = /^[a-z][a-z0-9+.-]*:\/\/([^/?#@]*)@/i.exec(url)?.[1];
    if (userInfo) for (const part of userInfo.split(":")) found.add(decodeQueryPart(part));
  }
  for (const value of named) found.add(value);
  return [...found]
    .filter((value) => value.length >= MIN_REDACT_LENGTH && !value.includes(REDACTED))
    .sort((a, b) => b.length - a.length);
}

/**
 * Why `values` cannot be `redact` (its first problem), or undefined. A short value is refused
 * rather than skipped: skipped, it would reach the cassette in clear.
 */
export function redactValuesProblem(
  values: readonly unknown[],
  name: (index: number) => string,
): string | undefined {
  const index = values.findIndex(
    (value) => typeof value === "string" && value.length < MIN_REDACT_LENGTH,
  );
  if (index < 0) return undefined;
  const length = (values[index] as string).length;
  return `${name(index)} has ${length} character${length === 1 ? "" : "s"}; a value to redact needs at least ${MIN_REDACT_LENGTH}: a shorter one would also be replaced inside ordinary words, numbers and JSON keys, and break the cassette. Give the whole secret it is part of, or leave it out`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** One alternation of `variants`, longest first; undefined when there are none. */
function alternation(variants: Iterable<string>, flags: string): RegExp | undefined {
  const list = [...new Set(variants)].filter((v) => v !== "").sort((a, b) => b.length - a.length);
  return list.length === 0 ? undefined : new RegExp(list.map(escapeRegExp).join("|"), flags);
}

/** Runs of base64 (or base64url) this long can hold an 8-character secret at any alignment. */
const MIN_BASE64_RUN = 11;
/** The characters of base64 and base64url, by code (a table: the scan runs over every answer). */
const BASE64_CHARS = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-") {
  BASE64_CHARS[c.charCodeAt(0)] = 1;
}

/** Where each run of base64 characters (with its `=` padding) of at least {@link MIN_BASE64_RUN} starts and ends. */
function* base64Runs(text: string): Generator<[start: number, end: number]> {
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 0;
    if (code < 128 && BASE64_CHARS[code] === 1) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0 && i - start >= MIN_BASE64_RUN) {
      let end = i;
      while (end < text.length && end - i < 2 && text.charCodeAt(end) === 61) end++;
      yield [start, end];
      i = end - 1;
    }
    start = -1;
  }
}
/** Secrets this long are also looked for inside decoded base64 runs; shorter ones could match by chance. */
const DEEP_SECRET_LENGTH = 8;

/**
 * Replaces a set of secrets, in every form a cassette may hold them, by `[redacted]`. Built once
 * per request (its secrets), used on every string of its entry.
 */
export class Redactor {
  /** As written, in any case: plain, URL-encoded, form-encoded, JSON-escaped, UTF-8 bytes read as latin-1. */
  readonly #anyCase: RegExp | undefined;
  /** Base64 and base64url forms, which are case-sensitive. */
  readonly #exact: RegExp | undefined;
  /** Long secrets in lower case, as latin-1 text of their UTF-8 bytes: found inside decoded base64. */
  readonly #deep: string[];

  constructor(readonly secrets: readonly string[]) {
    const anyCase: string[] = [];
    const exact: string[] = [];
    for (const secret of secrets) {
      if (secret.length < MIN_REDACT_LENGTH) continue;
      const url = encodeURIComponent(secret);
      anyCase.push(
        secret,
        url,
        url.replaceAll("%20", "+"),
        JSON.stringify(secret).slice(1, -1),
        secret.replace(
          /[^\x20-\x7e]/g,
          (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
        ),
        Buffer.from(secret, "utf8").toString("latin1"),
      );
      const bytes = Buffer.from(secret, "utf8");
      const base64 = bytes.toString("base64");
      const base64url = bytes.toString("base64url");
      // Its first whole groups of three bytes encode the same whatever follows the secret.
      const stable = Math.floor(bytes.length / 3) * 4;
      exact.push(base64, base64url);
      if (stable >= 8) exact.push(base64.slice(0, stable), base64url.slice(0, stable));
    }
    this.#anyCase = alternation(anyCase, "gi");
    this.#exact = alternation(exact, "g");
    this.#deep = secrets
      .filter((secret) => secret.length >= DEEP_SECRET_LENGTH)
      .map((secret) => Buffer.from(secret, "utf8").toString("latin1").toLowerCase());
  }

  /** Whether there is nothing to hide. */
  get empty(): boolean {
    return this.#anyCase === undefined;
  }

  /** `text` with every secret, in every form, replaced by `[redacted]`. */
  text(text: string): string {
    if (this.#anyCase === undefined || text === "") return text;
    let out = text.replace(this.#anyCase, REDACTED);
    if (this.#exact) out = out.replace(this.#exact, REDACTED);
    if (this.#deep.length > 0) out = this.#withoutHiddenSecrets(out);
    return out;
  }

  /** `text` with each base64 run that decodes to a secret replaced whole. */
  #withoutHiddenSecrets(text: string): string {
    let out = "";
    let from = 0;
    for (const [start, end] of base64Runs(text)) {
      if (!this.#hidesSecret(text.slice(start, end))) continue;
      out += `${text.slice(from, start)}${REDACTED}`;
      from = end;
    }
    return from === 0 ? text : out + text.slice(from);
  }

  /** Whether a base64 run, decoded from any of its first four characters, holds a secret. */
  #hidesSecret(run: string): boolean {
    for (let offset = 0; offset < 4; offset++) {
      const decoded = Buffer.from(run.slice(offset), "base64").toString("latin1").toLowerCase();
      if (this.#deep.some((secret) => decoded.includes(secret))) return true;
    }
    return false;
  }

  /** Bytes that are not UTF-8 text, redacted as latin-1 text (one character per byte, so the rest stays byte for byte). */
  bytes(bytes: Uint8Array): Buffer {
    const text = Buffer.from(bytes).toString("latin1");
    const out = this.text(text);
    return out === text ? Buffer.from(bytes) : Buffer.from(out, "latin1");
  }

  /** A body as a cassette stores it: UTF-8 text, or (`base64`) its bytes, decoded, redacted and encoded again. */
  body<T extends { text: string; encoding?: "base64" }>(body: T): T {
    if (this.empty) return body;
    if (body.encoding !== "base64") return { ...body, text: this.text(body.text) };
    return { ...body, text: this.bytes(Buffer.from(body.text, "base64")).toString("base64") };
  }

  /** A path or URL: every key-shaped query parameter's value `[redacted]`, and every secret elsewhere. */
  url(pathOrURL: string): string {
    const start = pathOrURL.indexOf("?");
    if (start < 0) return this.text(pathOrURL);
    const query = pathOrURL
      .slice(start + 1)
      .split("&")
      .map((piece) => {
        const eq = piece.indexOf("=");
        return eq >= 0 &&
          eq < piece.length - 1 &&
          credentialQueryName(decodeQueryPart(piece.slice(0, eq)))
          ? `${piece.slice(0, eq)}=${REDACTED}`
          : this.text(piece);
      });
    return `${this.text(pathOrURL.slice(0, start))}?${query.join("&")}`;
  }

  /** A header's value as recorded: `[redacted]` for a credential, else with every secret replaced. */
  header(name: string, value: string): string {
    return credentialHeader(name, value) ? REDACTED : this.text(value);
  }
}

/**
 * The request headers a cassette keeps, in the order sent: telemetry (`User-Agent`,
 * `X-Stainless-*`, `sec-fetch-*`) and the transport's own left out. {@link redactEntry} redacts them.
 */
export function recordedRequestHeaders(headers: RawHeaders): NameValue[] {
  const out: NameValue[] = [];
  for (const [name, value] of headerValues(headers)) {
    if (UNRECORDED_REQUEST.has(name) || /^(x-stainless-|sec-fetch-)/.test(name)) continue;
    out.push({ name, value });
  }
  return out;
}

/**
 * The response headers a cassette keeps: all that a client reads (`Content-Type`,
 * `X-Gateway-Request-Id`, `Retry-After`, rate-limit headers, …) without the transport's own and
 * the date. {@link redactEntry} redacts them.
 */
export function recordedResponseHeaders(headers: RawHeaders): NameValue[] {
  const out: NameValue[] = [];
  for (const [name, value] of headerValues(headers)) {
    if (!TRANSPORT_RESPONSE_HEADERS.has(name)) out.push({ name, value });
  }
  return out;
}

/**
 * Every string inside `value` passed through `text` (objects and arrays copied, the rest as is),
 * but the `text` of a body stored as base64, which is redacted in its bytes instead.
 */
function mapStrings(value: unknown, text: (s: string) => string): unknown {
  if (typeof value === "string") return text(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, text));
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    const base64 = record.encoding === "base64" || record._encoding === "base64";
    return Object.fromEntries(
      Object.entries(record).map(([key, inner]) => [
        key,
        base64 && key === "text" ? inner : mapStrings(inner, text),
      ]),
    );
  }
  return value;
}

/** Bytes of a body as a cassette stores it. */
function byteLength(text: string, encoding: "base64" | undefined): number {
  return Buffer.byteLength(text, encoding === "base64" ? "base64" : "utf8");
}

/**
 * `entry` with every secret of `redactor` replaced wherever it shows — every string of the
 * entry, custom fields included — credential headers and key-shaped query parameters read
 * `[redacted]`, bodies stored as base64 redacted in their bytes, and the sizes of a changed body
 * made true again.
 */
export function redactEntry(entry: CassetteEntry, redactor: Redactor): CassetteEntry {
  const text = (s: string) => redactor.text(s);
  const out = mapStrings(entry, text) as CassetteEntry;
  const { request, response } = entry;
  out.request.url = redactor.url(request.url);
  out.request.headers = request.headers.map((h) => ({
    ...(mapStrings(h, text) as NameValue),
    value: redactor.header(h.name, h.value),
  }));
  out.request.queryString = request.queryString.map((q) => ({
    ...(mapStrings(q, text) as NameValue),
    value: credentialQueryName(q.name) && q.value !== "" ? REDACTED : text(q.value),
  }));
  if (request.postData) {
    const encoding = request.postData._encoding;
    const posted = out.request.postData!;
    if (encoding === "base64") posted.text = redactor.body({ text: posted.text, encoding }).text;
    if (posted.text !== request.postData.text) {
      out.request.bodySize = byteLength(posted.text, encoding);
    }
  }
  out.response.headers = response.headers.map((h) => ({
    ...(mapStrings(h, text) as NameValue),
    value: redactor.header(h.name, h.value),
  }));
  const { content } = response;
  if (content._events) {
    out.response.content.text = out.response.content._events!.map((e) => e.text).join("");
    if (content.text === undefined) delete out.response.content.text;
  } else if (content.text !== undefined && content.encoding === "base64") {
    out.response.content.text = redactor.body({ text: content.text, encoding: "base64" }).text;
  }
  const after = out.response.content.text;
  if (after !== undefined && after !== content.text) {
    out.response.content.size = byteLength(after, content.encoding);
    out.response.bodySize = out.response.content.size;
  }
  return out;
}
