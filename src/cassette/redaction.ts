/**
 * @module What a cassette never holds: the API key, any header value that is not the protocol's
 * own, and any value the user names. Every such value is replaced by `[redacted]` wherever it
 * shows: in headers, the URL, the request body and the response.
 */
import { MIN_SECRET_LENGTH, REDACTED, secretHeaderValues } from "../utils/secrets.js";
import type { NameValue } from "./cassette.js";

/** Header names whose value is a credential, whatever its length (`Authorization`, `X-Api-Key`, …). */
// `token` but not `tokens`: rate-limit headers count tokens (`x-ratelimit-remaining-tokens`).
const KEY_SHAPED =
  /authorization|api[-_]?key|token(?!s)|secret|password|passwd|cookie|session|signature|credential|^x-amz-|^x-goog-/i;

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

/** Response headers left out: the transport's own, and the date (every run would change it). */
const UNRECORDED_RESPONSE = new Set([
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
function* headerValues(headers: RawHeaders): Generator<[name: string, value: string]> {
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (Array.isArray(value)) for (const one of value) yield [lower, one];
    else if (value !== undefined) yield [lower, value];
  }
}

/**
 * The values to hide for one request: the secret header values (the token after `Bearer` too),
 * and the values the user names. Longest first, so that a value containing another goes whole.
 */
export function secretsOf(headers: RawHeaders, named: readonly string[] = []): string[] {
  const found = new Set<string>();
  for (const [name, one] of headerValues(headers)) {
    for (const secret of secretHeaderValues({ [name]: one })) found.add(secret);
    if (KEY_SHAPED.test(name) && one.trim() !== "") found.add(one.trim());
  }
  for (const value of named) if (value.length >= MIN_SECRET_LENGTH) found.add(value);
  return [...found].sort((a, b) => b.length - a.length);
}

/** `text` with every secret replaced by `[redacted]`. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_LENGTH && out.includes(secret)) {
      out = out.split(secret).join(REDACTED);
    }
  }
  return out;
}

/** Whether a header's whole value is a secret: a credential by its name, or not the protocol's own. */
function secretHeader(name: string, value: string): boolean {
  return KEY_SHAPED.test(name) || secretHeaderValues({ [name]: value }).length > 0;
}

/**
 * The request headers a cassette keeps, in the order sent: those that select behaviour
 * (`Content-Type`, `Service-Name`, `Accept`, …) as they are, any other one as `[redacted]`
 * (so a reader still sees that it was sent), telemetry and the transport's own left out.
 */
export function recordedRequestHeaders(
  headers: RawHeaders,
  secrets: readonly string[],
): NameValue[] {
  const out: NameValue[] = [];
  for (const [name, one] of headerValues(headers)) {
    // The SDK's telemetry and fetch's own `sec-fetch-*` say nothing about the request.
    if (UNRECORDED_REQUEST.has(name) || /^(x-stainless-|sec-fetch-)/.test(name)) continue;
    out.push({ name, value: secretHeader(name, one) ? REDACTED : scrub(one, secrets) });
  }
  return out;
}

/**
 * The response headers a cassette keeps: all that a client reads (`Content-Type`,
 * `X-Gateway-Request-Id`, `Retry-After`, rate-limit headers, …) without the transport's own and
 * the date; a credential-shaped one reads `[redacted]`.
 */
export function recordedResponseHeaders(
  headers: RawHeaders,
  secrets: readonly string[],
): NameValue[] {
  const out: NameValue[] = [];
  for (const [name, one] of headerValues(headers)) {
    if (UNRECORDED_RESPONSE.has(name)) continue;
    out.push({ name, value: KEY_SHAPED.test(name) ? REDACTED : scrub(one, secrets) });
  }
  return out;
}
