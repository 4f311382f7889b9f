/**
 * @module Options have one source: each owner's zod schema. Its fields give the option's type
 * (`z.input<typeof schema>`), its check, its wording (`.describe()`: what the option must be) and,
 * written on the field, its JSDoc. {@link parseOptions} checks options where they enter and turns
 * the first problem into a `ConfigurationError` naming the option and saying what it must be.
 */
import type { Callbacks } from "@langchain/core/callbacks/manager";
import { z } from "zod";
import { ConfigurationError } from "../errors/errors.js";

/** A schema and the owner its problems are reported for. */
export interface OptionsSpec<S extends z.ZodType = z.ZodType> {
  /** The class or function the options are given to, named when an option is unknown. */
  owner: string;
  /**
   * The options. What each must be is the `.describe()` text of its field (the deepest one along
   * the problem's path that has one); a check given its own `error` text says it instead.
   */
  schema: S;
  /** The options the owner takes, listed when an unknown one is given at the top level. @default the schema's fields */
  takes?: string;
}

/**
 * `z.object(shape)`, typed by the shape itself. `z.object` maps the shape to a new type, which
 * declaration files print without the fields' JSDoc; typed this way they keep it, so an editor
 * shows each option's documentation on the types derived from the schema.
 */
export function optionsSchema<S extends z.core.$ZodLooseShape>(shape: S): z.ZodObject<S> {
  return z.object(shape);
}

/** Stands for zod's own wording of an issue, which is never shown: the field's description is. */
const ZOD_WORDING = "\u0000";

/**
 * Checks `value` against `spec.schema` and returns the checked options, defaults applied (only
 * the schema's fields: an owner that passes other fields on reads them from `value`). Throws a
 * `ConfigurationError` for the first problem: its `option` is the dotted path
 * (`retry.initialDelayMs`, `prices.<model>.input`; an array counts as one option), its message
 * says what the option must be and what it got.
 */
export function parseOptions<S extends z.ZodType>(
  spec: OptionsSpec<S>,
  value: unknown,
): z.output<S> {
  const result = spec.schema.safeParse(value, { error: () => ZOD_WORDING });
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  // An array is one option: `stop` must be an array of strings, not `stop.0` a string.
  const firstIndex = issue.path.findIndex((key) => typeof key !== "string");
  const path = (firstIndex < 0 ? issue.path : issue.path.slice(0, firstIndex)).map(String);
  if (issue.code === "unrecognized_keys" && firstIndex < 0) {
    const option = [...path, issue.keys[0]!].join(".");
    throw new ConfigurationError(
      option,
      path.length === 0
        ? `\`${option}\` is not an option of ${spec.owner}; it takes ${spec.takes ?? fieldsOf(spec.schema).join(", ")}.`
        : `\`${option}\` is not an option: \`${path.join(".")}\` must be ${expectedAt(spec.schema, path)}.`,
    );
  }
  const option = path.join(".") || "options";
  const got = path.reduce<unknown>(
    (parent, key) => (parent as Record<string, unknown> | null | undefined)?.[key],
    value,
  );
  const expected =
    firstIndex < 0 && issue.message !== ZOD_WORDING ? issue.message : expectedAt(spec.schema, path);
  throw new ConfigurationError(
    option,
    `\`${option}\` must be ${expected}; got ${describeValue(got)}.`,
  );
}

/** The wrappers a field's schema may sit in (`.optional()`, `.default()`, …), by zod's type name. */
const WRAPPERS = new Set([
  "optional",
  "nullable",
  "default",
  "prefault",
  "nonoptional",
  "readonly",
  "catch",
]);

type Def = {
  type: string;
  innerType?: z.core.$ZodType;
  shape?: Record<string, z.core.$ZodType>;
  valueType?: z.core.$ZodType;
};

const defOf = (schema: z.core.$ZodType): Def => schema._zod.def as unknown as Def;

/** A field's schema without its wrappers, and every layer from the outside in. */
export function unwrapField(schema: z.core.$ZodType): {
  inner: z.core.$ZodType;
  layers: z.core.$ZodType[];
} {
  const layers = [schema];
  let inner = schema;
  for (let def = defOf(inner); WRAPPERS.has(def.type) && def.innerType; def = defOf(inner)) {
    inner = def.innerType;
    layers.push(inner);
  }
  return { inner, layers };
}

/**
 * What the option at `path` must be: the description of the deepest field along the path that
 * has one (a record's `*` is any key); "an object" when none has.
 */
export function expectedAt(schema: z.core.$ZodType, path: readonly string[]): string {
  let expected: string | undefined;
  let node: z.core.$ZodType | undefined = schema;
  for (let depth = 0; node !== undefined; depth++) {
    const { inner, layers } = unwrapField(node);
    // The outermost description wins: it was given last.
    expected =
      layers.map((layer) => z.globalRegistry.get(layer)?.description).find(Boolean) ?? expected;
    if (depth === path.length) break;
    const def = defOf(inner);
    node =
      def.type === "object"
        ? def.shape?.[path[depth]!]
        : def.type === "record"
          ? def.valueType
          : undefined;
  }
  return expected ?? "an object";
}

/** The fields of an object schema, in order. */
function fieldsOf(schema: z.core.$ZodType): string[] {
  return Object.keys(defOf(unwrapField(schema).inner).shape ?? {});
}

/** A value as an error message shows it; never throws (BigInt, cycles). */
export function describeValue(value: unknown): string {
  if (typeof value === "function") return "a function";
  // JSON writes Infinity and NaN as null: show what was really given.
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * A field whose type and documentation the schema gives but whose value is checked where it is
 * resolved (the API key, the base URL, the Service-Name and its parts): there the message can
 * name the env variable the value may come from instead.
 */
export function checkedOnResolve<T>(): z.ZodCustom<T, T> {
  return z.custom<T>();
}

/**
 * The longest delay a JavaScript timer keeps, 2^31 − 1 ms (about 24.8 days): Node runs a longer
 * one after 1 ms (with a `TimeoutOverflowWarning`), so a longer timeout would fail every call at
 * once. Options handed to a timer are refused above it rather than capped: a value that large is
 * a mistake or means "never", which no timer can do. Options only measured against the clock
 * (`waitForReady`, `recoveryMs`, `reservationLeaseMs`) take any length.
 */
export const MAX_TIMER_MS = 2_147_483_647;

const TIMER_TOO_LONG = `at most ${MAX_TIMER_MS} ms (about 24.8 days): a timer set any longer fires at once`;

/** Milliseconds ≥ 0 that are waited with a timer (a backoff, a pause). */
export const delayMs = z
  .number()
  .nonnegative()
  .max(MAX_TIMER_MS, { error: TIMER_TOO_LONG })
  .describe("a number of milliseconds ≥ 0");

/** Milliseconds > 0 that bound a wait with a timer (a timeout). */
export const timeoutMs = z
  .number()
  .positive()
  .max(MAX_TIMER_MS, { error: TIMER_TOO_LONG })
  .describe("a number of milliseconds > 0");

/**
 * An `AbortSignal`, recognised by its shape (a signal of another realm or polyfill passes): the
 * package adds listeners to it and reads `aborted` and `reason`.
 */
export const abortSignal = z
  .custom<AbortSignal>(
    (value) =>
      typeof value === "object" &&
      value !== null &&
      typeof (value as AbortSignal).aborted === "boolean" &&
      typeof (value as AbortSignal).addEventListener === "function" &&
      typeof (value as AbortSignal).removeEventListener === "function",
  )
  .describe("an AbortSignal (an AbortController's `signal`, or `AbortSignal.timeout(ms)`)");

/** A function, checked as one (a `z.custom` alone accepts anything). */
export const aFunction = <F extends (...args: never[]) => unknown>(what = "a function") =>
  z.custom<F>((value) => typeof value === "function").describe(what);

/**
 * LangChain's `Callbacks`: an array of handlers (objects with `handle…` methods), or a
 * `CallbackManager` (an object with `copy`). Undefined and null mean none.
 */
export const callbacks = z
  .custom<Callbacks>(
    (value) =>
      value === undefined ||
      value === null ||
      (Array.isArray(value) &&
        value.every((handler) => typeof handler === "object" && handler !== null)) ||
      (typeof value === "object" && typeof (value as { copy?: unknown }).copy === "function"),
  )
  .describe(
    "an array of callback handlers (a UsageTracker, a BaseCallbackHandler), or a CallbackManager",
  );
