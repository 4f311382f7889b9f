/**
 * @module Why a connection failed, in words a user can act on: the code Node, undici or the
 * resolver gives a failure, looked up in one table of causes, with what to check.
 */
import { bareMessage } from "./service_message.js";

function networkCode(cause: unknown): string | undefined {
  let current: unknown = cause;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && code !== "") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Why a connection failed, in words, with the code it came with, and what to check. */
export interface NetworkCause {
  code?: string;
  /** e.g. `nothing accepted the connection on that host and port (ECONNREFUSED)`. */
  words: string;
  /** What to check, without a final full stop. */
  fix: string;
}

const CHECK_URL = "Check the host and port of `baseURL` and that the service is up there";
const CHECK_NETWORK =
  "Check the network between this machine and the host (proxy, VPN, firewall) and the host of `baseURL`";

/** The causes a user meets, by the code Node, undici or the resolver gives them. */
const CAUSES: ReadonlyArray<[RegExp, string, string]> = [
  [/^ECONNREFUSED$/, "nothing accepted the connection on that host and port", CHECK_URL],
  [
    /^(ENOTFOUND|EAI_NONAME|EAI_NODATA)$/,
    "no DNS record has that host name",
    "Check the host name in `baseURL` for a typo",
  ],
  [/^EAI_AGAIN$/, "the host name could not be resolved now (DNS did not answer)", CHECK_NETWORK],
  [
    /^(ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)$/,
    "the server closed the connection without answering",
    CHECK_URL,
  ],
  [
    /^(ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT)$/,
    "the connection attempt timed out: the host did not answer",
    CHECK_NETWORK,
  ],
  [/^(EHOSTUNREACH|ENETUNREACH|ENETDOWN)$/, "there is no network route to the host", CHECK_NETWORK],
  [
    /^(CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|ERR_TLS_CERT_ALTNAME_INVALID$)/,
    "the server's TLS certificate is not trusted",
    "Check that `baseURL` names the service's own host; for a private certificate authority, set NODE_EXTRA_CA_CERTS to its certificate file",
  ],
  [
    /^(EPROTO|ERR_SSL_)/,
    "the TLS handshake failed, as when an https URL names a server that speaks plain http",
    "Check the scheme of `baseURL` (https or http)",
  ],
];

/** The innermost message of a cause chain: undici's "fetch failed" says less than its cause. */
function innermostMessage(cause: unknown): string | undefined {
  let message: string | undefined;
  let current: unknown = cause;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const text = (current as { message?: unknown }).message;
    if (typeof text === "string" && text.trim() !== "") message = text.trim();
    current = (current as { cause?: unknown }).cause;
  }
  return message;
}

/** Why a connection failed, in words a user can act on; the code, when there is one, follows. */
export function networkCause(cause: unknown): NetworkCause {
  const code = networkCode(cause);
  const known = code === undefined ? undefined : CAUSES.find(([pattern]) => pattern.test(code));
  if (known) return { code, words: `${known[1]} (${code})`, fix: known[2] };
  const message = innermostMessage(cause);
  if (message === "bad port") {
    return {
      code,
      words: "fetch refuses to connect to that port, one it blocks for safety (such as 9 or 6000)",
      fix: "Use another port in `baseURL`",
    };
  }
  const what = message && !/^fetch failed$/i.test(message) ? bareMessage(message) : undefined;
  return {
    code,
    words: what
      ? `${what}${code && !what.includes(code) ? ` (${code})` : ""}`
      : code
        ? `the connection failed (${code})`
        : "the connection failed",
    fix: "Check the host and port of `baseURL`, that the service is up there, and the network between",
  };
}

/** Codes that mean "nothing is listening" or "the peer hung up without answering" (docs/service-contract.md#endpoint-states Pending). */
const NOT_READY_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
]);

/** Whether a failed connection looks like a dedicated endpoint that is not serving yet (no code: nothing to tell it apart). */
export function isNotReady(cause: NetworkCause): boolean {
  return cause.code === undefined || NOT_READY_CODES.has(cause.code);
}
