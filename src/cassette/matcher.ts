/**
 * @module When a request is the one recorded: same method, same path (and query) under
 * `/inference/v1`, same `Service-Name`, and the same body — JSON compared canonically (key order
 * and whitespace do not matter; listed fields are ignored), anything else byte for byte. And,
 * when none is, what the nearest recorded one differs in.
 */
import { API_PREFIX } from "../constants.js";

/** A request as the matcher sees it. */
export interface RequestShape {
  method: string;
  /** The path called, with its query; anything up to `/inference/v1` is dropped. */
  path: string;
  serviceName?: string;
  /** The body as UTF-8 text, or its bytes in base64 when `encoding` says so. */
  body: string;
  encoding?: "base64";
}

/** What two requests must share to match, and its one-string form for lookups. */
export interface MatchKey {
  method: string;
  path: string;
  serviceName: string | undefined;
  /** The body: canonical JSON, or the bytes (base64 or text) when it is not JSON. */
  body: { json: unknown } | { bytes: string; encoding?: "base64" };
  /** The whole key as one string: equal strings, equal requests. */
  id: string;
}

/**
 * The path after `/inference/v1` (with the query), as both the proxy and the emulator see it:
 * `/inference/v1/chat/completions?x=1` → `/chat/completions?x=1`. A path without the prefix stays whole.
 */
export function apiPath(path: string): string {
  const query = path.indexOf("?");
  const bare = query < 0 ? path : path.slice(0, query);
  const at = bare.indexOf(API_PREFIX);
  if (at < 0) return path;
  const rest = path.slice(at + API_PREFIX.length);
  return rest === "" || rest.startsWith("?") ? `/${rest}` : rest;
}

/** The key of `request`, with the body fields at `ignore` (dotted paths: `metadata.run_id`) left out. */
export function matchKey(request: RequestShape, ignore: readonly string[] = []): MatchKey {
  const method = request.method.toUpperCase();
  const path = normalizedPath(apiPath(request.path));
  const serviceName = request.serviceName?.trim() || undefined;
  const body = bodyKey(request, ignore);
  const id = JSON.stringify([
    method,
    path,
    serviceName ?? null,
    "json" in body ? canonical(body.json) : `${body.encoding ?? "text"}:${body.bytes}`,
  ]);
  return { method, path, serviceName, body, id };
}

/**
 * The path and query as a URL writes them (`%XX` escapes where a URL has them), so a recorded URL
 * and the path a client sent compare alike.
 */
function normalizedPath(path: string): string {
  try {
    const url = new URL(`http://h${path.startsWith("/") ? "" : "/"}${path}`);
    return url.pathname + url.search;
  } catch {
    return path;
  }
}

function bodyKey(request: RequestShape, ignore: readonly string[]): MatchKey["body"] {
  if (request.encoding === "base64") return { bytes: request.body, encoding: "base64" };
  if (request.body.trim() === "") return { bytes: "" };
  try {
    const json = JSON.parse(request.body) as unknown;
    for (const path of ignore) drop(json, path.split("."));
    return { json };
  } catch {
    return { bytes: request.body };
  }
}

/** Deletes the field at `path` (into every element of an array met on the way). */
function drop(value: unknown, path: readonly string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) drop(item, path);
    return;
  }
  if (typeof value !== "object" || value === null || path.length === 0) return;
  const [head, ...rest] = path;
  const record = value as Record<string, unknown>;
  if (rest.length === 0) delete record[head!];
  else drop(record[head!], rest);
}

/** JSON text with every object's keys sorted: equal for values equal up to key order. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    typeof inner === "object" && inner !== null && !Array.isArray(inner)
      ? Object.fromEntries(
          Object.keys(inner)
            .sort()
            .map((key) => [key, (inner as Record<string, unknown>)[key]]),
        )
      : inner,
  );
}

const SHOWN_DIFFERENCES = 3;
const PREVIEW_CHARS = 60;
/** Characters shown before the first difference, when the window does not start at the beginning. */
const CONTEXT_BEFORE = 20;

/**
 * What `request` differs in from `recorded`, as phrases (`body.messages[0].content: "Hi" here,
 * "Hello" recorded`), the weightiest first: method, path, Service-Name, then body fields.
 */
export function differences(request: MatchKey, recorded: MatchKey): string[] {
  const out: string[] = [];
  if (request.method !== recorded.method) {
    out.push(`method: ${request.method} here, ${recorded.method} recorded`);
  }
  if (request.path !== recorded.path)
    out.push(`path: ${request.path} here, ${recorded.path} recorded`);
  if (request.serviceName !== recorded.serviceName) {
    out.push(
      `Service-Name: ${request.serviceName ?? "none"} here, ${recorded.serviceName ?? "none"} recorded`,
    );
  }
  const a = request.body;
  const b = recorded.body;
  if ("json" in a && "json" in b) {
    const fields: string[] = [];
    diffJSON(a.json, b.json, "body", fields);
    out.push(...fields);
  } else if (!("json" in a) && !("json" in b)) {
    if (a.bytes !== b.bytes || a.encoding !== b.encoding) {
      out.push(`body (not JSON): ${byteLength(a)} bytes here, ${byteLength(b)} bytes recorded`);
    }
  } else {
    out.push(
      `body: ${"json" in a ? "JSON" : "not JSON"} here, ${"json" in b ? "JSON" : "not JSON"} recorded`,
    );
  }
  return out;
}

/** How far apart two requests are, for picking the nearest: a different route outweighs any body. */
export function distance(request: MatchKey, recorded: MatchKey): number {
  let score = 0;
  if (request.path !== recorded.path) score += 10_000;
  if (request.method !== recorded.method) score += 5_000;
  if (request.serviceName !== recorded.serviceName) score += 1_000;
  const a = request.body;
  const b = recorded.body;
  if ("json" in a && "json" in b) {
    const fields: string[] = [];
    diffJSON(a.json, b.json, "body", fields, Number.POSITIVE_INFINITY);
    score += fields.length;
  } else if ("json" in a || "json" in b || a.bytes !== b.bytes) {
    score += 500;
  }
  return score;
}

/** Short phrases for the paths where two JSON values differ (at most `limit`). */
function diffJSON(
  a: unknown,
  b: unknown,
  at: string,
  out: string[],
  limit = SHOWN_DIFFERENCES,
): void {
  if (out.length >= limit) return;
  if (Array.isArray(a) && Array.isArray(b)) {
    const common = Math.min(a.length, b.length);
    for (let i = 0; i < common; i++) diffJSON(a[i], b[i], `${at}[${i}]`, out, limit);
    if (a.length !== b.length && out.length < limit) {
      out.push(`${at}: ${a.length} items here, ${b.length} recorded`);
    }
    return;
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const key of keys) {
      const path = `${at}.${key}`;
      if (!(key in b)) pushLimited(out, `${path}: present here, absent recorded`, limit);
      else if (!(key in a)) pushLimited(out, `${path}: absent here, present recorded`, limit);
      else diffJSON(a[key], b[key], path, out, limit);
    }
    return;
  }
  if (canonical(a) !== canonical(b)) {
    const [here, recorded] = previews(a, b);
    pushLimited(out, `${at}: ${here} here, ${recorded} recorded`, limit);
  }
}

function pushLimited(out: string[], phrase: string, limit: number): void {
  if (out.length < limit) out.push(phrase);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Two differing values as JSON, each cut to a window around where they first differ: a prompt
 * that differs late shows its difference, not twice the same start.
 */
function previews(a: unknown, b: unknown): [string, string] {
  const texts = [JSON.stringify(a) ?? "undefined", JSON.stringify(b) ?? "undefined"] as const;
  let first = 0;
  while (first < texts[0].length && texts[0][first] === texts[1][first]) first++;
  const start = first > PREVIEW_CHARS - CONTEXT_BEFORE ? first - CONTEXT_BEFORE : 0;
  return texts.map((text) => {
    const end = start + PREVIEW_CHARS;
    return `${start > 0 ? "…" : ""}${text.slice(start, end)}${text.length > end ? "…" : ""}`;
  }) as [string, string];
}

function byteLength(body: { bytes: string; encoding?: "base64" }): number {
  return body.encoding === "base64"
    ? Buffer.byteLength(body.bytes, "base64")
    : Buffer.byteLength(body.bytes, "utf8");
}
