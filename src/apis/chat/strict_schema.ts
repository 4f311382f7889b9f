/**
 * @module A structured output's JSON schema made to follow OpenAI's strict rules — every object
 * closed (`additionalProperties: false`), every property required, the optional ones nullable —
 * and the way back: the `null` a model writes for an optional field taken out of its answer, so
 * that the caller's own schema, in which the field is optional but not nullable, accepts it.
 */

type Schema = Record<string, unknown>;

/** How deep a schema or an answer is followed (nested objects, `$ref`s): far beyond any real one. */
const MAX_DEPTH = 64;

/** Keywords whose value is a list of schemas. */
const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"] as const;
/** Keywords whose value is a map of schemas by name. */
const SCHEMA_MAPS = ["$defs", "definitions"] as const;

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `schema` as strict structured outputs take it, in a copy: each object closed unless it says
 * what its other properties are (a record type, which strict mode cannot express: the service
 * then refuses the schema), each of its properties required, and each that was not required
 * made to accept `null` instead.
 */
export function toStrictSchema(schema: Schema): Schema {
  return strictNode(schema, 0) as Schema;
}

function strictNode(node: unknown, depth: number): unknown {
  if (!isSchema(node) || depth > MAX_DEPTH) return node;
  const out: Schema = { ...node };
  const next = (child: unknown) => strictNode(child, depth + 1);
  for (const key of SCHEMA_LISTS) {
    if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map(next);
  }
  for (const key of SCHEMA_MAPS) {
    if (isSchema(out[key])) out[key] = mapValues(out[key] as Schema, next);
  }
  if (isSchema(out.items)) out.items = next(out.items);
  if (isSchema(out.additionalProperties)) out.additionalProperties = next(out.additionalProperties);
  if (out.type !== "object" && !isSchema(out.properties)) return out;
  const properties = isSchema(out.properties) ? out.properties : {};
  const required = new Set(Array.isArray(out.required) ? out.required : []);
  out.properties = Object.fromEntries(
    Object.entries(properties).map(([key, value]) => [
      key,
      required.has(key) ? next(value) : nullable(next(value)),
    ]),
  );
  out.required = Object.keys(properties);
  if (out.additionalProperties === undefined || out.additionalProperties === true) {
    out.additionalProperties = false;
  }
  return out;
}

function mapValues(map: Schema, f: (value: unknown) => unknown): Schema {
  return Object.fromEntries(Object.entries(map).map(([key, value]) => [key, f(value)]));
}

/** The types a `type: [t, "null"]` widens cleanly; an object or array goes in a union instead. */
const PRIMITIVES = new Set(["string", "number", "integer", "boolean"]);

/** A schema that accepts `null` as well: a primitive `type` widened, anything else in a union. */
function nullable(schema: unknown): unknown {
  if (!isSchema(schema) || acceptsNull(schema)) return schema;
  const { type } = schema;
  if (
    typeof type === "string" &&
    PRIMITIVES.has(type) &&
    !("enum" in schema) &&
    !("const" in schema)
  ) {
    return { ...schema, type: [type, "null"] };
  }
  return { anyOf: [schema, { type: "null" }] };
}

/** Keywords that narrow what a schema accepts; one without any accepts anything, `null` too. */
const NARROWING = ["type", "enum", "const", "anyOf", "oneOf", "allOf", "not", "$ref"] as const;

/**
 * Whether a schema says outright that `null` is valid: a `null` type, in an `enum` or `const`,
 * a union branch that does, or no narrowing at all. A `$ref` is not followed here.
 */
function acceptsNull(schema: unknown, depth = 0): boolean {
  if (!isSchema(schema) || depth > MAX_DEPTH) return schema === true;
  if (NARROWING.every((key) => !(key in schema))) return true;
  const { type } = schema;
  if (type === "null" || (Array.isArray(type) && type.includes("null"))) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  if ("const" in schema && schema.const === null) return true;
  return [schema.anyOf, schema.oneOf].some(
    (branches) => Array.isArray(branches) && branches.some((b) => acceptsNull(b, depth + 1)),
  );
}

/**
 * `value` with each `null` taken out where `schema` — the caller's schema, before
 * {@link toStrictSchema} — has an optional property that does not accept `null`: strict mode made
 * the model write a `null` for a field it had nothing for. A copy; nothing else is changed.
 */
export function withoutOptionalNulls(value: unknown, schema: Schema): unknown {
  return denull(value, schema, schema, 0);
}

function denull(value: unknown, node: unknown, root: Schema, depth: number): unknown {
  const schema = resolved(node, root);
  if (schema === undefined || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    const { items } = schema;
    return isSchema(items) ? value.map((item) => denull(item, items, root, depth + 1)) : value;
  }
  if (!isSchema(value)) return value;
  const object = objectSchemaFor(value, schema, root);
  if (object === undefined) return value;
  const properties = object.properties as Schema;
  const required = new Set(Array.isArray(object.required) ? object.required : []);
  const out: Schema = {};
  for (const [key, field] of Object.entries(value)) {
    const sub = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (sub === undefined) out[key] = field;
    else if (field === null && !required.has(key) && !acceptsNull(resolved(sub, root) ?? sub)) {
    } else out[key] = denull(field, sub, root, depth + 1);
  }
  return out;
}

/** The schema a local `$ref` points at (`#/$defs/…`, `#/definitions/…`), followed a few times. */
function resolved(node: unknown, root: Schema): Schema | undefined {
  let schema = node;
  for (let hops = 0; isSchema(schema) && typeof schema.$ref === "string" && hops < 8; hops++) {
    const ref = schema.$ref as string;
    if (!ref.startsWith("#")) return undefined;
    schema = ref
      .slice(1)
      .split("/")
      .filter(Boolean)
      .map((part) => decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce<unknown>((at, part) => (isSchema(at) ? at[part] : undefined), root);
  }
  return isSchema(schema) ? schema : undefined;
}

/**
 * The object schema `value` is read by: `schema` itself when it lists properties, else the first
 * branch of its union that lists every key of `value`.
 */
function objectSchemaFor(value: Schema, schema: Schema, root: Schema): Schema | undefined {
  if (isSchema(schema.properties)) return schema;
  const branches = [schema.anyOf, schema.oneOf].flatMap((b) => (Array.isArray(b) ? b : []));
  return branches
    .map((branch) => resolved(branch, root))
    .find(
      (branch) =>
        branch !== undefined &&
        isSchema(branch.properties) &&
        Object.keys(value).every((key) => Object.hasOwn(branch.properties as Schema, key)),
    );
}
