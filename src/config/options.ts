/**
 * @module Option checking, made once where options enter: each owner has one zod schema, and one
 * helper, {@link parseOptions}, turns the first problem into a `ConfigurationError` naming the
 * option and saying what it must be.
 */
import { z } from "zod";
import { ConfigurationError } from "../errors/errors.js";

/** A schema and the words its problems are reported in. */
export interface OptionsSpec {
  /** The class or function the options are given to, named when an option is unknown. */
  owner: string;
  schema: z.ZodType;
  /**
   * What each option must be, by dotted path; a `*` segment matches any key (e.g. a model ID).
   * The longest path that matches the problem's wins.
   */
  expected: Readonly<Record<string, string>>;
  /** The options the owner takes, listed when an unknown one is given at the top level. */
  takes?: string;
}

/**
 * Checks `value` against `spec.schema` and returns it unchanged, or throws a `ConfigurationError`
 * for the first problem: its `option` is the dotted path (`retry.initialDelayMs`,
 * `prices.<model>.input`; an array counts as one option), its message says what the option must
 * be and what it got.
 */
export function parseOptions<T>(spec: OptionsSpec, value: T): T {
  const result = spec.schema.safeParse(value);
  if (result.success) return value;
  const issue = result.error.issues[0]!;
  // An array is one option: `stop` must be an array of strings, not `stop.0` a string.
  const firstIndex = issue.path.findIndex((key) => typeof key !== "string");
  const path = (firstIndex < 0 ? issue.path : issue.path.slice(0, firstIndex)).map(String);
  if (issue.code === "unrecognized_keys" && firstIndex < 0) {
    const option = [...path, issue.keys[0]!].join(".");
    throw new ConfigurationError(
      option,
      path.length === 0
        ? `\`${option}\` is not an option of ${spec.owner}; it takes ${spec.takes ?? Object.keys(spec.expected).join(", ")}.`
        : `\`${option}\` is not an option: \`${path.join(".")}\` must be ${expectedAt(spec, path)}.`,
    );
  }
  const option = path.join(".") || "options";
  const got = path.reduce<unknown>(
    (parent, key) => (parent as Record<string, unknown> | null | undefined)?.[key],
    value,
  );
  throw new ConfigurationError(
    option,
    `\`${option}\` must be ${expectedAt(spec, path)}; got ${describeValue(got)}.`,
  );
}

/** The `expected` entry of the longest pattern matching `path`. */
function expectedAt(spec: OptionsSpec, path: readonly string[]): string {
  for (let length = path.length; length > 0; length--) {
    for (const [pattern, text] of Object.entries(spec.expected)) {
      const parts = pattern.split(".");
      if (parts.length === length && parts.every((p, i) => p === "*" || p === path[i])) {
        return text;
      }
    }
  }
  return "an object";
}

/** A value as an error message shows it; never throws (BigInt, cycles). */
function describeValue(value: unknown): string {
  if (typeof value === "function") return "a function";
  // JSON writes Infinity and NaN as null: show what was really given.
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A number of milliseconds ≥ 0 (delays, waits). */
export const milliseconds = z.number().nonnegative();
