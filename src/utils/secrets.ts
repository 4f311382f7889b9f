/**
 * @module What counts as a secret of a request: the API key and every header value except the
 * protocol's own (content type, user agent, the SDK's `x-stainless-*` telemetry, Service-Name,
 * the client's request ID). These are the values errors, traces and serialised models must never
 * show.
 */

/** Header names whose values are not secret (lower case). */
const PUBLIC_HEADERS = new Set([
  "accept",
  "accept-encoding",
  "accept-language",
  "cache-control",
  "connection",
  "content-length",
  "content-type",
  "host",
  "idempotency-key",
  "openai-organization",
  "openai-project",
  "user-agent",
  // docs/service-contract.md#dedicated-endpoints: routes the call but grants nothing without a key; errors name it on purpose (docs/service-contract.md#errors, rule 7).
  "service-name",
  // The caller's own request IDs (docs/service-contract.md#errors, rule 6): theirs to quote.
  "x-client-request-id",
  "x-request-id",
  // The emulator's fault switch: its values are fault names such as the gateway's codes.
  "x-emulator-fault",
]);

/** Values shorter than this are never treated as secrets: replacing them would mangle messages. */
export const MIN_SECRET_LENGTH = 4;

function isPublic(name: string): boolean {
  const lower = name.toLowerCase();
  return PUBLIC_HEADERS.has(lower) || lower.startsWith("x-stainless-");
}

/**
 * The secret values among `headers` (a `Headers`, an array of pairs, or a record whose values
 * may be strings, `null` or `undefined`), in order. The value of `Authorization` counts whole, and
 * so does the token after `Bearer `.
 *
 * @example
 * secretHeaderValues({ "X-Org-Token": "hdr-1234", "Content-Type": "application/json" }); // ["hdr-1234"]
 */
export function secretHeaderValues(headers: unknown): string[] {
  // Most requests carry no headers of their own: nothing else is built for them.
  if (!headers || typeof headers !== "object") return [];
  const out: string[] = [];
  const add = (name: string, value: unknown) => {
    if (typeof value !== "string" || isPublic(name)) return;
    const trimmed = value.trim();
    if (trimmed.length >= MIN_SECRET_LENGTH) out.push(trimmed);
    const bearer = /^bearer\s+(.+)$/i.exec(trimmed)?.[1];
    if (bearer && bearer.length >= MIN_SECRET_LENGTH) out.push(bearer);
  };
  if (headers instanceof Headers) {
    for (const [name, value] of headers) add(name, value);
  } else if (Array.isArray(headers)) {
    for (const pair of headers) if (Array.isArray(pair)) add(String(pair[0]), pair[1]);
  } else {
    for (const [name, value] of Object.entries(headers)) add(name, value);
  }
  return out;
}

/** What a redacted header value reads as. */
export const REDACTED = "[redacted]";

/**
 * A copy of call options whose request options (`options.headers`, the openai SDK's per-call
 * headers) show `[redacted]` for every secret value; the same object when there is nothing to hide.
 *
 * @example
 * redactCallOptions({ options: { headers: { "X-Org-Token": "hdr-1234" } } });
 * // { options: { headers: { "X-Org-Token": "[redacted]" } } }
 */
export function redactCallOptions<T>(options: T): T {
  const request = (options as { options?: { headers?: unknown } } | null | undefined)?.options;
  const headers = request?.headers;
  if (!headers || typeof headers !== "object" || secretHeaderValues(headers).length === 0) {
    return options;
  }
  const entries: Array<[string, unknown]> =
    headers instanceof Headers
      ? [...headers]
      : Array.isArray(headers)
        ? headers.map((pair) => [String(pair[0]), pair[1]])
        : Object.entries(headers);
  const redacted = Object.fromEntries(
    entries.map(([name, value]) => [
      name,
      typeof value === "string" && secretHeaderValues({ [name]: value }).length > 0
        ? REDACTED
        : value,
    ]),
  );
  return { ...options, options: { ...request, headers: redacted } };
}
