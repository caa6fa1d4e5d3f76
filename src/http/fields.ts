/**
 * Declarative request fields: each one parses a value, refusing it with a 400 that names the
 * field (the checks other callers share are `validate.ts`'s), and describes itself as JSON
 * Schema. A route declares its body, query and path parameters as {@link object}s of fields
 * (`input` in `router.ts`); the kernel parses them before the handler runs, and the OpenAPI
 * document (`src/openapi/`) is written from the same declarations, so the two cannot drift apart.
 * The fields of memories and keys (namespaces, ids, tags, expiry) are `memory_fields.ts`.
 *
 * @example
 * ```ts
 * const recall = object({
 *   query: text({ max: 65_536 }),
 *   limit: integer({ fallback: 10, min: 1, max: 100 }),
 *   explain: boolean(),
 * });
 * recall.parseObject({ query: "diet" }); // { query: "diet", limit: 10, explain: false }
 * recall.schema(); // { type: "object", properties: { query: {...}, ... }, required: ["query"] }
 * ```
 */
import { bad, BASE64, base64Value, integerValue, objectValue, textValue } from "../validate.ts";

/** A JSON Schema (draft 2020-12, as OpenAPI 3.1 uses it). */
export type JsonSchema = { [keyword: string]: unknown };

/** One property of a request: how it is read, and what it is. */
export interface Field<T> {
  /** A single property. */
  readonly kind: "field";
  /** Reads the property's value (`undefined` when absent); `name` is used in error sentences. */
  parse(value: unknown, name: string): T;
  /** The JSON Schema of a valid value. */
  schema(): JsonSchema;
  /** Whether a request must carry it. */
  readonly required: boolean;
  /** As a query parameter, its name when it differs from the field's (`tag` for `tags`). */
  readonly param?: string;
}

/** Several properties read together into one value (`ttl_seconds` or `expires_at`). */
export interface FieldGroup<T> {
  /** Several properties. */
  readonly kind: "group";
  /** Reads the value from the whole object. */
  parse(object: Record<string, unknown>): T;
  /** The JSON Schemas of the properties it reads. */
  properties(): Record<string, JsonSchema>;
  /** Rules across those properties, as JSON Schemas of the object. */
  constraints(): JsonSchema[];
}

/** A member of an {@link object}: a field or a group of fields. */
export type Member = Field<unknown> | FieldGroup<unknown>;

/** What a member reads into. */
export type Parsed<M> = M extends Field<infer T> ? T : M extends FieldGroup<infer T> ? T : never;

/** An object of members: a request body, its query or its path parameters. */
export interface Shape<T> extends Field<T> {
  /** Its members, by the name they are read into. */
  readonly members: Readonly<Record<string, Member>>;
  /** Reads a JSON object (already known to be one); unknown properties are ignored. */
  parseObject(object: Record<string, unknown>): T;
  /** Reads a query string: repeated parameters for list fields, integers for integer ones. */
  parseQuery(params: URLSearchParams): T;
}

export const absent = (value: unknown) => value === undefined || value === null;

/** A field from its parts (`required` false unless given), its schema with its `description`. */
export function field<T>(
  parse: (value: unknown, name: string) => T,
  schema: () => JsonSchema,
  options: { required?: boolean; param?: string; description?: string } = {},
): Field<T> {
  const { required = false, param, description } = options;
  return { kind: "field", parse, schema: () => described(schema(), description), required, param };
}

/** `schema`, `null` allowed too: an optional body field given as `null` takes its default. */
function orNull(schema: JsonSchema): JsonSchema {
  const { type, enum: values } = schema;
  if (Array.isArray(values)) {
    const nullable = typeof type === "string" ? { type: [type, "null"] } : {};
    return { ...schema, ...nullable, enum: [...values, null] };
  }
  if (typeof type === "string") return { ...schema, type: [type, "null"] };
  return { anyOf: [schema, { type: "null" }] };
}

/** Adds `description` to a schema when there is one. */
export function described(schema: JsonSchema, description?: string): JsonSchema {
  return description ? { ...schema, description } : schema;
}

/** A required string, not blank, at most `max` bytes of UTF-8. */
export function text(options: { max: number; description?: string }): Field<string> {
  const { max, description = `Not blank; at most ${max} bytes of UTF-8.` } = options;
  return field((value, name) => textValue(value, name, max), () => ({
    type: "string",
    minLength: 1,
    maxLength: max,
    pattern: "\\S",
    "x-svc-max-bytes": max,
  }), { required: true, description });
}

/**
 * A string taken as it is (anything else is ignored), such as a cursor; `required` marks it so in
 * the schema, its absence left to a check that says what it must be.
 */
export function string(
  options: { description?: string; required?: boolean } = {},
): Field<string | undefined> {
  const parse = (value: unknown) => typeof value === "string" ? value : undefined;
  return field(parse, () => ({ type: "string" }), options);
}

/** A non-empty string (an entry of a list of ids). */
export function nonEmptyString(options: { description?: string } = {}): Field<string> {
  return field(
    (value, name) => {
      if (typeof value !== "string" || value === "") {
        throw bad(`${name} must be a non-empty string`);
      }
      return value;
    },
    () => ({ type: "string", minLength: 1 }),
    { ...options, required: true },
  );
}

/** An optional integer in `[min, max]`; `fallback` when absent. */
export function integer(
  options: { fallback: number; min: number; max: number; description?: string },
): Field<number> {
  const { fallback, min, max } = options;
  return field(
    (value, name) => integerValue(value, name, fallback, min, max),
    () => ({ type: "integer", minimum: min, maximum: max, default: fallback }),
    options,
  );
}

/** An optional value out of `values` (an enumeration). */
export function oneOf<T extends string>(
  values: readonly T[],
  options: { description?: string } = {},
): Field<T | undefined> {
  const parse = (value: unknown, name: string) => {
    if (absent(value)) return undefined;
    if (!values.includes(value as T)) throw bad(`${name} must be one of ${values.join(", ")}`);
    return value as T;
  };
  return field(parse, () => ({ type: "string", enum: [...values] }), options);
}

/** An optional number in `[min, max]`, `undefined` when absent. */
export function number(
  options: { min: number; max: number; description?: string },
): Field<number | undefined> {
  const { min, max } = options;
  const parse = (value: unknown, name: string) => {
    if (absent(value)) return undefined;
    if (typeof value !== "number" || !Number.isFinite(value)) throw bad(`${name} must be a number`);
    if (value < min || value > max) throw bad(`${name} must be between ${min} and ${max}`);
    return value;
  };
  return field(parse, () => ({ type: "number", minimum: min, maximum: max }), options);
}

/** An optional boolean, `false` when absent. */
export function boolean(options: { description?: string } = {}): Field<boolean> {
  const parse = (value: unknown, name: string) => {
    if (absent(value)) return false;
    if (typeof value !== "boolean") throw bad(`${name} must be true or false`);
    return value;
  };
  return field(parse, () => ({ type: "boolean", default: false }), options);
}

/** Standard base64, decoded to bytes; required unless `optional`. */
export function base64(
  options?: { description?: string; optional?: false },
): Field<Uint8Array<ArrayBuffer>>;
export function base64(
  options: { description?: string; optional: true },
): Field<Uint8Array<ArrayBuffer> | undefined>;
export function base64(
  options: { description?: string; optional?: boolean } = {},
): Field<Uint8Array<ArrayBuffer> | undefined> {
  return field(
    (value, name) => options.optional && absent(value) ? undefined : base64Value(value, name),
    () => ({ type: "string", minLength: 1, pattern: BASE64.source, contentEncoding: "base64" }),
    { required: !options.optional, description: options.description ?? "Standard base64, padded." },
  );
}

/** A required array of `min` to `max` entries, each read by `item` (named `field[i]`). */
export function array<T>(
  item: Field<T>,
  options: { min: number; max: number; description?: string },
): Field<T[]> {
  const { min, max } = options;
  const parse = (value: unknown, name: string) => {
    if (absent(value)) throw bad(`${name} is required`);
    if (!Array.isArray(value)) throw bad(`${name} must be an array`);
    if (value.length < min || value.length > max) {
      throw bad(`${name} must have between ${min} and ${max} entries`);
    }
    return value.map((entry, i) => item.parse(entry, `${name}[${i}]`));
  };
  const schema = () => ({ type: "array", minItems: min, maxItems: max, items: item.schema() });
  return field(parse, schema, { required: true, description: options.description });
}

/** What an {@link object} of these members reads into. */
export type ObjectOf<M extends Record<string, Member>> = { [K in keyof M]: Parsed<M[K]> };

/**
 * An object of members, read in their order; `check` runs on the result for rules across
 * members. As a field (an entry of an array), a value that is not an object is a 400.
 */
export function object<M extends Record<string, Member>>(
  members: M,
  options: { description?: string; check?: (parsed: ObjectOf<M>) => void } = {},
): Shape<ObjectOf<M>> {
  const entries = Object.entries(members);
  const parseObject = (object: Record<string, unknown>) => {
    const parsed: Record<string, unknown> = {};
    for (const [key, member] of entries) {
      parsed[key] = member.kind === "group" ? member.parse(object) : member.parse(object[key], key);
    }
    options.check?.(parsed as ObjectOf<M>);
    return parsed as ObjectOf<M>;
  };
  return {
    kind: "field",
    members,
    required: true,
    parse: (value, name) => parseObject(objectValue(value, name)),
    parseObject,
    parseQuery(params) {
      // A parameter given twice is ambiguous (namespace=a&namespace=b&confirm=a): refused.
      const once = (name: string) => {
        const values = params.getAll(name);
        if (values.length > 1) throw bad(`${name} must be given once`);
        return values[0];
      };
      const raw: Record<string, unknown> = {};
      for (const [key, member] of entries) {
        if (member.kind === "group") {
          for (const name of Object.keys(member.properties())) raw[name] = once(name);
          continue;
        }
        const name = member.param ?? key;
        const type = member.schema().type;
        if (type === "array") raw[key] = params.has(name) ? params.getAll(name) : undefined;
        else raw[key] = once(name);
        if (type === "integer" && typeof raw[key] === "string" && /^-?\d+$/.test(raw[key])) {
          raw[key] = Number(raw[key]);
        }
      }
      return parseObject(raw);
    },
    schema() {
      const properties: Record<string, JsonSchema> = {};
      const required: string[] = [];
      const constraints: JsonSchema[] = [];
      for (const [key, member] of entries) {
        if (member.kind === "group") {
          for (const [name, schema] of Object.entries(member.properties())) {
            properties[name] = orNull(schema);
          }
          constraints.push(...member.constraints());
          continue;
        }
        properties[key] = member.required ? member.schema() : orNull(member.schema());
        if (member.required) required.push(key);
      }
      return described({
        type: "object",
        properties,
        ...(required.length > 0 && { required }),
        ...(constraints.length > 0 && { allOf: constraints }),
      }, options.description);
    },
  };
}
