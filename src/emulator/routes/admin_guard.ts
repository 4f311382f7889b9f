/**
 * @module Which admin requests the emulator refuses: writes a browser could send from another
 * site (CSRF) and any request addressed to a host name it does not trust (DNS rebinding).
 */

import { type EmulatorRequest, headerValue } from "../reply.js";

/** Why an admin request is refused, as the admin API's error body says it. */
export interface AdminRefusal {
  status: 403 | 415;
  code: "untrusted_host" | "cross_origin" | "unsupported_media_type";
  message: string;
}

const LOOPBACK = /^(?:localhost|[\w-]+\.localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;
const WILDCARD = new Set(["0.0.0.0", "::", "[::]"]);
const SAFE_METHODS = new Set(["GET", "HEAD"]);
const JSON_TYPE = /^application\/json\s*(?:;|$)/i;

/**
 * Which `Host` names admin requests may carry: loopback names, and the interface the server
 * listens on when it is not a wildcard. On a wildcard (`0.0.0.0`, `::`) every name is trusted:
 * whoever exposed the emulator on the network chose so (docs/emulator.md says what that means).
 */
export function trustedHosts(listenHost: string | undefined): (hostname: string) => boolean {
  if (listenHost !== undefined && WILDCARD.has(listenHost)) return () => true;
  const own = listenHost?.includes(":") ? `[${listenHost}]` : listenHost;
  return (hostname) => LOOPBACK.test(hostname) || hostname.toLowerCase() === own?.toLowerCase();
}

/**
 * The refusal of an admin request, or undefined to serve it:
 *
 * 1. a `Host` the emulator does not trust (a DNS-rebinding page reaches 127.0.0.1 under its own
 *    name) → 403 `untrusted_host`;
 * 2. a write (any method but GET and HEAD) whose body is not labelled `application/json` → 415:
 *    browsers send `text/plain` and form bodies across sites without asking, JSON only after a
 *    CORS preflight, which the emulator never grants;
 * 3. a write whose `Origin` is not this host, or whose `Sec-Fetch-Site` says another site → 403
 *    `cross_origin`.
 *
 * Requests without `Host` or `Origin` (the in-process `fetch`, curl, Node) pass 1 and 3.
 */
export function refuseAdmin(
  request: EmulatorRequest,
  trustsHost: (hostname: string) => boolean,
): AdminRefusal | undefined {
  const host = headerValue(request, "host");
  if (host !== undefined && !trustsHost(hostnameOf(host))) {
    return {
      status: 403,
      code: "untrusted_host",
      message: `The admin API does not answer requests for host "${host}"; use 127.0.0.1 or localhost`,
    };
  }
  if (SAFE_METHODS.has(request.method)) return undefined;
  if (!JSON_TYPE.test(headerValue(request, "content-type") ?? "")) {
    return {
      status: 415,
      code: "unsupported_media_type",
      message: "Admin writes need Content-Type: application/json",
    };
  }
  const origin = headerValue(request, "origin");
  const site = headerValue(request, "sec-fetch-site");
  const sameOrigin = origin === undefined || (host !== undefined && origin === `http://${host}`);
  if (!sameOrigin || (site !== undefined && site !== "same-origin" && site !== "none")) {
    return {
      status: 403,
      code: "cross_origin",
      message: `Admin writes are accepted from the emulator's own pages only, not from origin "${origin ?? site}"`,
    };
  }
  return undefined;
}

/** `127.0.0.1:8787` → `127.0.0.1`; `[::1]:8787` → `[::1]`. */
function hostnameOf(host: string): string {
  const value = host.trim();
  if (value.startsWith("[")) return value.slice(0, value.indexOf("]") + 1);
  const colon = value.lastIndexOf(":");
  return colon < 0 ? value : value.slice(0, colon);
}
