/** @module The service's message as this package's summaries quote it: without request IDs or a final full stop. */

/** Each `(request id: …)` suffix the gateway adds to a message (chained gateways add several). */
export const REQUEST_ID_SUFFIX = /\(request id: ([^)\s]+)\)/g;

/**
 * The service's message as a summary quotes it: without its `(request id: …)` suffixes and
 * without a final full stop, since the summary ends the sentence itself.
 */
export function bareMessage(message: string | undefined): string | undefined {
  const bare = message
    ?.replace(REQUEST_ID_SUFFIX, "")
    .trim()
    .replace(/[.。]+$/, "")
    .trim();
  return bare ? bare : undefined;
}

/** `: <the service's message>`, or nothing when it sent none. */
export function quoted(message: string | undefined): string {
  const bare = bareMessage(message);
  return bare ? `: ${bare}` : "";
}
