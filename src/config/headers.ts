/**
 * @module Header values a request can carry: the characters each header allows, and a
 * `ConfigurationError` that names the first one it cannot carry by its position, never the value
 * (a header value may be a secret: the API key, a token of the caller's own).
 */
import { ConfigurationError } from "../errors/errors.js";

/** A character a header value cannot carry: where it is (from 1), what it is, how many follow. */
export interface BadCharacter {
  /** Its position in the value, counting characters (code points) from 1. */
  position: number;
  /** What it is, in words: `a zero-width space (U+200B)`, `a control character (U+0001)`. */
  what: string;
  /** How many more such characters follow it. */
  more: number;
}

/**
 * What fetch sends in a header value (RFC 9110 field content): tab, space, visible ASCII and the
 * Latin-1 range. Anything else is refused by the platform (a `TypeError` about a ByteString, or
 * an "invalid header" connection error) or would be sent mangled.
 */
const HEADER_VALUE_CHARACTER = /^[\t\x20-\x7e\x80-\xff]$/u;

/** RFC 9110 token: what a header name may hold. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const NAMED = new Map<number, string>([
  [0x09, "a tab"],
  [0x0a, "a line break"],
  [0x0d, "a line break"],
  [0x20, "a space"],
  [0xa0, "a no-break space"],
  [0xad, "a soft hyphen"],
  [0x200b, "a zero-width space"],
  [0x200c, "a zero-width non-joiner"],
  [0x200d, "a zero-width joiner"],
  [0x2060, "a word joiner"],
  [0xfeff, "a byte order mark"],
]);

/**
 * A character in words. Invisible ones (controls, spaces, format characters) carry their code
 * point, which says nothing about the value around them; a visible one is not shown at all.
 */
function describeCharacter(character: string): string {
  const codePoint = character.codePointAt(0) ?? 0;
  const code = `U+${codePoint.toString(16).toUpperCase().padStart(4, "0")}`;
  const named = NAMED.get(codePoint);
  if (named) return `${named} (${code})`;
  if (/\p{Cc}/u.test(character)) return `a control character (${code})`;
  if (/\p{Z}/u.test(character)) return `a space character (${code})`;
  if (/\p{Cf}|\p{Co}|\p{Cn}|\p{Cs}/u.test(character)) return `an invisible character (${code})`;
  return "a non-ASCII character";
}

/**
 * The first character of `value` that `allowed` (a one-character pattern) refuses, or undefined.
 *
 * @example
 * badCharacter("sk-\u200babc", /^[\x21-\x7e]$/); // { position: 4, what: "a zero-width space (U+200B)", more: 0 }
 */
export function badCharacter(value: string, allowed: RegExp): BadCharacter | undefined {
  const characters = Array.from(value);
  const bad = characters.flatMap((character, i) => (allowed.test(character) ? [] : [i]));
  const [first] = bad;
  if (first === undefined) return undefined;
  return { position: first + 1, what: describeCharacter(characters[first]!), more: bad.length - 1 };
}

/** `a zero-width space (U+200B) at character 17 of the key (and 2 more after it)`. */
export function badCharacterText({ position, what, more }: BadCharacter, where: string): string {
  return `${what} at character ${position} ${where}${more === 0 ? "" : ` (and ${more} more after it)`}`;
}

type HeaderEntry = readonly [name: unknown, value: unknown];

/** The entries of headers as the openai SDK takes them: a `Headers`, pairs, or a record. */
function entriesOf(headers: object): HeaderEntry[] {
  if (headers instanceof Headers) return [...headers];
  if (Array.isArray(headers)) {
    return headers.map(
      (pair): HeaderEntry => (Array.isArray(pair) ? [pair[0], pair[1]] : [pair, undefined]),
    );
  }
  return Object.entries(headers);
}

/**
 * Checks headers given as an option (`configuration.defaultHeaders`, a call's `options.headers`)
 * before any request: each name is an HTTP token, each value a string (or `null`, which removes a
 * default header, or a list of strings) whose characters a header can carry. Throws a
 * `ConfigurationError` naming the option, the header and the position of the first bad character;
 * the value is never shown. Returns the headers unchanged.
 *
 * @example
 * checkHeaders({ "X-Trace": "a\u200bb" }, "configuration.defaultHeaders");
 * // ConfigurationError: `configuration.defaultHeaders` header "X-Trace" has a zero-width space (U+200B) at character 2 …
 */
export function checkHeaders<T>(headers: T, option: string): T {
  if (headers === undefined || headers === null) return headers;
  if (typeof headers !== "object") {
    throw new ConfigurationError(
      option,
      `\`${option}\` must be an object of header names and values; got ${typeof headers}.`,
    );
  }
  for (const [name, value] of entriesOf(headers)) {
    if (typeof name !== "string" || !HEADER_NAME.test(name)) {
      throw new ConfigurationError(
        option,
        `\`${option}\` has a header name that is not a valid HTTP header name: ${typeof name === "string" ? JSON.stringify(name) : typeof name}. A name holds letters, digits and !#$%&'*+-.^_\`|~ only.`,
      );
    }
    for (const one of Array.isArray(value) ? value : [value]) {
      if (one === undefined || one === null) continue;
      if (typeof one === "object" || typeof one === "function" || typeof one === "symbol") {
        throw new ConfigurationError(
          option,
          `\`${option}\` header "${name}" must be a string (or null to leave the header out); got ${typeof one === "object" ? "an object" : `a ${typeof one}`}.`,
        );
      }
      const bad = badCharacter(String(one), HEADER_VALUE_CHARACTER);
      if (bad) {
        throw new ConfigurationError(
          option,
          `\`${option}\` header "${name}" has ${badCharacterText(bad, "of its value")}, which an HTTP header cannot carry. Remove it: a header value holds printable characters, spaces and tabs only.`,
        );
      }
    }
  }
  return headers;
}
