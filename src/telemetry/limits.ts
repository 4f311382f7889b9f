/**
 * @module How long a string the package puts on a span, an event or a metric may be. What it
 * records comes partly from the wire (an answer's `id` and `model`, its finish reasons, the
 * request-ID header, a gateway's error code) and partly from configuration (the base URL's host,
 * the model ID, the Service-Name): a server or a typo can make any of them kilobytes long, and
 * each would be copied into every span and exported. So each is cut to
 * {@link MAX_ATTRIBUTE_LENGTH} characters, its end marked with an ellipsis. Prompts and replies
 * recorded on request (`captureContent`) are content and are not cut here (the SDK's
 * `attributeValueLengthLimit` bounds them, if the app sets it).
 */

/** The most characters of a string attribute the package records (docs/observability.md). */
export const MAX_ATTRIBUTE_LENGTH = 256;

/** What ends a string that was cut. */
const ELLIPSIS = "…";

/**
 * `value` when it is at most {@link MAX_ATTRIBUTE_LENGTH} characters; else its start and an
 * ellipsis, {@link MAX_ATTRIBUTE_LENGTH} characters in all, never cutting a surrogate pair.
 */
export function bounded(value: string): string {
  if (value.length <= MAX_ATTRIBUTE_LENGTH) return value;
  let end = MAX_ATTRIBUTE_LENGTH - ELLIPSIS.length;
  const last = value.charCodeAt(end - 1);
  // A high surrogate whose pair would be cut off: stop before it.
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return value.slice(0, end) + ELLIPSIS;
}
