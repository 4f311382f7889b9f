/**
 * @module What the console shows of a call when its row is clicked: the request and the reply as
 * sent, how long the call took and whether it streamed. Kept for the newest
 * {@link REQUEST_DETAILS_KEPT} calls only, each body cut to {@link DETAIL_TEXT_LIMIT} characters,
 * and shown with every secret masked: the key of the call (wherever it appears), every key the
 * emulator holds, and the values of headers and query parameters that carry credentials.
 */

import { MIN_SECRET_LENGTH } from "../../utils/secrets.js";
import type { EmulatorReply, EmulatorRequest, EmulatorResponse } from "../reply.js";
import { maskSecret } from "./state.js";

/** Calls whose bodies are kept: as many as the console's request table shows. */
export const REQUEST_DETAILS_KEPT = 50;

/** Characters kept of each body: a request or a reply longer than that is shown cut, and says so. */
export const DETAIL_TEXT_LIMIT = 32_768;

/** A body as the console shows it. */
export interface DetailText {
  text: string;
  /** Whether `text` is only the first {@link DETAIL_TEXT_LIMIT} characters. */
  truncated: boolean;
}

/** `GET /_emulator/requests/<request ID>`: one call, as it went over the wire. */
export interface RequestDetail {
  requestId: string;
  request: {
    method: string;
    /** Path and query, credentials in the query masked. */
    url: string;
    headers: Record<string, string>;
    body: DetailText;
  };
  /** The reply; undefined when the connection was closed or reset without one (`dropped`). */
  response?: { status: number; headers: Record<string, string>; body: DetailText };
  /** How a call with no reply ended: `reset` (a TCP reset), `closed` (an empty response). */
  dropped?: "reset" | "closed";
  /** Whether the reply is a stream of server-sent events. */
  stream: boolean;
  /** For a stream: its events, and how many were relayed before the client left (once it ended or was left). */
  events?: { total: number; delivered?: number };
  /**
   * Milliseconds from the request's arrival to the end of its reply (the last event delivered, or
   * the client gone); undefined while a stream is still open, or for a stalled reply.
   */
  latencyMs?: number;
  /** The reply was left open on purpose (a `stall` fault): it never ends. */
  stalled?: boolean;
}

/** Headers whose whole value is a credential. */
const SECRET_HEADERS = new Set([
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "api-key",
  "cookie",
  "set-cookie",
]);

/** Query parameters that carry a credential (`?api-key=`, `?access_token=`). */
const SECRET_PARAMETER = /key|token|secret|password|auth|signature/i;

/** What is kept of one call until it is shown: the raw texts, masked only when read. */
interface Kept {
  detail: RequestDetail;
  /** The secrets this call itself carried (its bearer token, credential headers). */
  secrets: string[];
}

/** The newest calls' details, by request ID. */
export class RequestDetails {
  readonly #kept = new Map<string, Kept>();

  /**
   * Notes a call as the handler ends it. A stream's latency and delivered events are filled in
   * when the transport reports how far it went (the reply's `delivered`, wrapped here).
   */
  add(requestId: string, request: EmulatorRequest, reply: EmulatorReply, startedAt: number): void {
    const detail: RequestDetail = {
      requestId,
      request: {
        method: request.method,
        url: request.url,
        headers: flatHeaders(request.headers),
        body: cut(request.body),
      },
      stream: false,
    };
    if (reply.kind === "drop") {
      detail.dropped = reply.reset ? "reset" : "closed";
      detail.latencyMs = elapsed(startedAt) + reply.delayMs;
    } else {
      describeResponse(detail, reply, startedAt);
    }
    this.#kept.delete(requestId);
    this.#kept.set(requestId, { detail, secrets: secretsOf(detail.request.headers) });
    if (this.#kept.size > REQUEST_DETAILS_KEPT) {
      this.#kept.delete(this.#kept.keys().next().value!);
    }
  }

  /** The call with this request ID, every secret masked; undefined once it is no longer kept. */
  get(requestId: string, keySecrets: readonly string[]): RequestDetail | undefined {
    const kept = this.#kept.get(requestId);
    if (kept === undefined) return undefined;
    return masked(kept.detail, [...kept.secrets, ...keySecrets]);
  }

  clear(): void {
    this.#kept.clear();
  }
}

function describeResponse(detail: RequestDetail, reply: EmulatorResponse, startedAt: number): void {
  const { status, headers, body } = reply;
  const events = typeof body === "string" ? undefined : body;
  detail.response = { status, headers: { ...headers }, body: cut(events ?? body) };
  // A list of items is a stream of events (a JSON error labelled as a stream is not one).
  detail.stream = events !== undefined;
  if (reply.stall) {
    detail.stalled = true;
    return;
  }
  if (events === undefined) {
    detail.latencyMs = elapsed(startedAt) + reply.delayMs;
    return;
  }
  detail.events = { total: events.length };
  const billed = reply.delivered;
  reply.delivered = (items) => {
    billed?.(items);
    if (detail.latencyMs !== undefined) return;
    detail.latencyMs = elapsed(startedAt);
    detail.events = { total: events.length, delivered: items };
  };
}

const elapsed = (startedAt: number) => Math.round(performance.now() - startedAt);

/** The first {@link DETAIL_TEXT_LIMIT} characters of a body, or of a stream's events in order. */
function cut(body: string | readonly string[]): DetailText {
  const parts = typeof body === "string" ? [body] : body;
  let text = "";
  for (const part of parts) {
    if (text.length + part.length > DETAIL_TEXT_LIMIT) {
      // A copy, not a slice: a slice may keep a large body alive in memory.
      text += part.slice(0, DETAIL_TEXT_LIMIT - text.length);
      return { text: Buffer.from(text).toString(), truncated: true };
    }
    text += part;
  }
  return { text, truncated: false };
}

function flatHeaders(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}

/** The credentials a call carried: its bearer token and every credential header's value. */
function secretsOf(headers: Record<string, string>): string[] {
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!SECRET_HEADERS.has(name.toLowerCase())) continue;
    const token = /^(?:bearer|basic)\s+(.+)$/i.exec(value.trim())?.[1];
    secrets.push(token ?? value.trim());
  }
  return secrets;
}

/** A copy of `detail` with every secret masked, in headers, URL and bodies. */
function masked(detail: RequestDetail, secrets: readonly string[]): RequestDetail {
  // The longest first, so a key that contains another is masked whole.
  const known = [...new Set(secrets)]
    .filter((secret) => secret.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  const scrub = (text: string) =>
    known.reduce((out, secret) => out.split(secret).join(hidden(secret)), text);
  const headers = (all: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(all).map(([name, value]) => [
        name,
        SECRET_HEADERS.has(name.toLowerCase()) ? maskedCredential(value) : scrub(value),
      ]),
    );
  const text = ({ text: body, truncated }: DetailText) => ({ text: scrub(body), truncated });
  const { request, response } = detail;
  return {
    ...detail,
    request: {
      method: request.method,
      url: scrub(maskedQuery(request.url)),
      headers: headers(request.headers),
      body: text(request.body),
    },
    ...(response
      ? {
          response: {
            status: response.status,
            headers: headers(response.headers),
            body: text(response.body),
          },
        }
      : {}),
    ...(detail.events ? { events: { ...detail.events } } : {}),
  };
}

/**
 * A secret as the console shows it: its last 4 characters, as the state shows keys, when it is
 * long enough that they give nothing away; else nothing of it.
 */
function hidden(secret: string): string {
  return secret.length > 8 ? maskSecret(secret) : "****";
}

/** `Bearer sk-emulator-demo` → `Bearer ****demo`; any other credential as {@link hidden} shows it. */
function maskedCredential(value: string): string {
  const scheme = /^(bearer|basic)\s+(.+)$/i.exec(value.trim());
  return scheme ? `${scheme[1]} ${hidden(scheme[2]!)}` : hidden(value.trim());
}

/** The URL with the value of each credential-like query parameter masked. */
function maskedQuery(url: string): string {
  const at = url.indexOf("?");
  if (at < 0) return url;
  const query = url
    .slice(at + 1)
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      if (eq < 0) return pair;
      const name = pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {}
      return SECRET_PARAMETER.test(decoded) ? `${name}=${hidden(pair.slice(eq + 1))}` : pair;
    })
    .join("&");
  return `${url.slice(0, at)}?${query}`;
}
