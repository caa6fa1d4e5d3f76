/**
 * The request fields of memories (namespaces, ids, tags, threads, times, expiry, vectors) and of
 * keys (addresses), built on `fields.ts`: each parses, refusing with a 400 that names the field,
 * and describes itself as JSON Schema.
 */
import { ADDRESS, isAddress } from "@svc/util/keys";
import { MEMORY_ID } from "../ids.ts";
import {
  absent,
  array,
  base64,
  described,
  type Field,
  field,
  type FieldGroup,
  object,
  type Shape,
  string,
  text,
} from "./fields.ts";
import {
  bad,
  expiryFields,
  ISO_TIME,
  MAX_TAG_CHARS,
  MAX_TAGS,
  MAX_THREAD_CHARS,
  MAX_TTL_SECONDS,
  memoryId as memoryIdValue,
  newNamespace,
  newTagsValue,
  tagsValue,
  threadValue,
  timeValue,
  validNamespace,
} from "../validate.ts";
import { utf8Length } from "../text_limits.ts";

/** A string without control characters. */
const NO_CONTROLS = "^[^\\u0000-\\u001f\\u007f]*$";

const NAMESPACE_SCHEMA = {
  type: "string",
  minLength: 1,
  maxLength: 256,
  pattern: NO_CONTROLS,
  "x-svc-max-bytes": 256,
};

/**
 * A namespace: at most 256 bytes, no control characters. Absent, it is `"default"`, unless
 * `required` (`true`, or the sentence to answer when it is missing).
 */
export function namespace(
  options: { required?: boolean | string; description?: string; written?: boolean } = {},
): Field<string> {
  const { required } = options;
  const check = options.written ? newNamespace : validNamespace;
  const missing = typeof required === "string" ? required : "namespace is required";
  const parse = (value: unknown, name: string) => {
    if (!absent(value)) return check(value, name);
    if (required) throw bad(missing.replace(/^namespace/, name));
    return "default";
  };
  const schema = required ? NAMESPACE_SCHEMA : { ...NAMESPACE_SCHEMA, default: "default" };
  return field(parse, () => schema, {
    required: Boolean(required),
    description: options.description ??
      (options.written
        ? "A namespace: 1 to 256 bytes of UTF-8, no control characters, no white space at " +
          "either end, no bidirectional controls."
        : "A namespace: 1 to 256 bytes of UTF-8, no control characters."),
  });
}

/**
 * The query of a namespace's erase: the namespace, and `confirm` repeating it, since erasing
 * cannot be undone; `refusal` is the 400's sentence when it does not.
 */
export function namespaceErase(
  refusal: string,
): Shape<{ namespace: string; confirm: string | undefined }> {
  return object({
    namespace: namespace({
      required: "namespace is required to erase a namespace",
      description: "The namespace to erase.",
    }),
    // Read when absent too, so that the check says what it must be.
    confirm: string({
      description: "The namespace's name again: erasing cannot be undone.",
      required: true,
    }),
  }, {
    check({ namespace, confirm }) {
      if (confirm !== namespace) throw bad(refusal);
    },
  });
}

/** An optional namespace, `undefined` when absent (a filter rather than a place). */
export function optionalNamespace(
  options: { description?: string } = {},
): Field<string | undefined> {
  return field(
    (value, name) => absent(value) ? undefined : validNamespace(value, name),
    () => NAMESPACE_SCHEMA,
    options,
  );
}

/** Optional namespaces (a repeated query parameter), without repeats; absent: `undefined`. */
export function namespaces(
  options: { description?: string; max: number },
): Field<string[] | undefined> {
  const { max, description = "Namespaces (repeat the parameter for more than one)." } = options;
  const parse = (value: unknown, name: string) => {
    if (absent(value)) return undefined;
    const list = [...new Set([value].flat().map((entry) => validNamespace(entry, name)))];
    if (list.length > max) throw bad(`${name} may name at most ${max} namespaces`);
    return list;
  };
  const schema = { type: "array", minItems: 1, maxItems: max, items: NAMESPACE_SCHEMA };
  return field(parse, () => schema, { description });
}

/**
 * Optional tags: at most 16, each 1 to 64 characters without control characters; `written`
 * ones (a memory's) also without bidirectional controls or characters that show as nothing.
 */
export function tags(
  options: { param?: string; description?: string; written?: boolean } = {},
): Field<string[] | undefined> {
  const check = options.written ? newTagsValue : tagsValue;
  return field((value, name) => check(value, name), () => ({
    type: "array",
    maxItems: MAX_TAGS,
    items: { type: "string", minLength: 1, maxLength: MAX_TAG_CHARS, pattern: NO_CONTROLS },
  }), {
    param: options.param,
    description: options.description ??
      `At most ${MAX_TAGS} tags of 1 to ${MAX_TAG_CHARS} characters` +
        (options.written ? ", no bidirectional controls." : "."),
  });
}

const TIME_SCHEMA = { type: "string", pattern: ISO_TIME.source };

/** An optional time in ISO 8601; Unix milliseconds. */
export function time(options: { description?: string } = {}): Field<number | undefined> {
  return field((value, name) => timeValue(value, name), () => TIME_SCHEMA, {
    description: options.description ??
      "ISO 8601, such as 2026-05-01T12:00:00Z; a time without an offset is UTC.",
  });
}

/** A memory id (a lowercase UUID); optional unless `required`. */
export function memoryId(options: { required: true; description?: string }): Field<string>;
export function memoryId(options?: { description?: string }): Field<string | undefined>;
export function memoryId(
  options: { required?: boolean; description?: string } = {},
): Field<string | undefined> {
  const { required, description = "A memory id (a lowercase UUID)." } = options;
  return field(
    (value, name) => !required && absent(value) ? undefined : memoryIdValue(value, name),
    () => ({ type: "string", format: "uuid", pattern: MEMORY_ID.source }),
    { required, description },
  );
}

/** An optional Sui address: 0x and 64 lowercase hex characters. */
export function address(options: { description?: string } = {}): Field<string | undefined> {
  const parse = (value: unknown, name: string) => {
    if (absent(value)) return undefined;
    if (isAddress(value)) return value;
    throw bad(`${name} must be a key's address (0x and 64 hex characters)`);
  };
  return field(parse, () => ({ type: "string", pattern: ADDRESS.source }), options);
}

/** An optional thread (a conversation or session id): 1–128 characters, no control characters. */
export function thread(options: { description?: string } = {}): Field<string | undefined> {
  return field((value, name) => threadValue(value, name), () => ({
    type: "string",
    minLength: 1,
    maxLength: MAX_THREAD_CHARS,
    pattern: NO_CONTROLS,
  }), {
    description: options.description ?? "A conversation or session id (1 to 128 characters).",
  });
}

/** A required vector of exactly `dimensions()` finite numbers. */
export function vector(
  options: { dimensions: () => number; description?: string },
): Field<number[]> {
  const parse = (value: unknown, name: string) => {
    const dimensions = options.dimensions();
    if (absent(value)) throw bad(`${name} is required`);
    if (!Array.isArray(value)) throw bad(`${name} must be an array of numbers`);
    if (value.length !== dimensions) {
      throw bad(`${name} must have exactly ${dimensions} numbers (the index's dimensions)`);
    }
    if (!value.every((x) => typeof x === "number" && Number.isFinite(x))) {
      throw bad(`${name} must contain only finite numbers`);
    }
    return value as number[];
  };
  return field(parse, () => {
    const size = options.dimensions();
    return described(
      { type: "array", items: { type: "number" }, minItems: size, maxItems: size },
      options.description ?? `Exactly ${size} finite numbers (the index's dimensions).`,
    );
  }, { required: true });
}

/**
 * When a memory expires, from `ttl_seconds` (1 s to ten years) or `expires_at` (in the
 * future, within ten years), never both: Unix milliseconds, or `undefined` for never.
 */
export function expiry(): FieldGroup<number | undefined> {
  return {
    kind: "group",
    parse: (object) => expiryFields(object, Date.now()),
    properties: () => ({
      ttl_seconds: {
        type: "integer",
        minimum: 1,
        maximum: MAX_TTL_SECONDS,
        description: "Seconds until the memory expires (1 s to ten years).",
      },
      expires_at: {
        ...TIME_SCHEMA,
        description: "When the memory expires (ISO 8601, in the future, within ten years).",
      },
    }),
    // Not both (a null one is not given).
    constraints: () => [{
      not: {
        required: ["ttl_seconds", "expires_at"],
        properties: {
          ttl_seconds: { not: { type: "null" } },
          expires_at: { not: { type: "null" } },
        },
      },
    }],
  };
}

/**
 * `expiry` for an update, which keeps the old expiry when neither field is given:
 * `expires_at: null` alone is `null`, and the new version no longer expires.
 */
export function updatedExpiry(): FieldGroup<number | null | undefined> {
  const group = expiry();
  return {
    ...group,
    parse: (object) =>
      object.expires_at === null && (object.ttl_seconds ?? null) === null
        ? null
        : group.parse(object),
    properties: () => {
      const properties = group.properties();
      const description = "When the new version expires (ISO 8601, in the future, within ten " +
        "years); `null`: it no longer expires; absent: as the old one.";
      return { ...properties, expires_at: { ...properties.expires_at, description } };
    },
  };
}

/** Texts one embed request takes at most. */
const MAX_EMBED_TEXTS = 100;

/**
 * The bytes of UTF-8 the texts of one embed request hold together at most: what the embedder
 * does for one call stays short (about a third of a second on one core), so a recall waiting
 * behind it waits little.
 */
export const MAX_EMBED_TOTAL_BYTES = 256 * 1024;

/**
 * The texts to embed: `text` (one) or `texts` (1 to 100, together at most
 * `MAX_EMBED_TOTAL_BYTES`), not both, each at most `max` bytes; `one` tells which was sent.
 */
export function embedTexts(max: number): FieldGroup<{ texts: string[]; one: boolean }> {
  const one = text({ max, description: "One text to embed." });
  const many = array(text({ max }), {
    min: 1,
    max: MAX_EMBED_TEXTS,
    description: `Texts to embed (1 to ${MAX_EMBED_TEXTS}, together at most ` +
      `${MAX_EMBED_TOTAL_BYTES / 1024} KiB), instead of text.`,
  });
  return {
    kind: "group",
    parse(object) {
      if (absent(object.text) === absent(object.texts)) {
        throw bad(`Send either text or texts (1 to ${MAX_EMBED_TEXTS} of them), not both`);
      }
      if (absent(object.texts)) return { texts: [one.parse(object.text, "text")], one: true };
      const texts = many.parse(object.texts, "texts");
      const bytes = texts.reduce((sum, text) => sum + utf8Length(text), 0);
      if (bytes > MAX_EMBED_TOTAL_BYTES) {
        throw bad(
          `texts must hold at most ${MAX_EMBED_TOTAL_BYTES / 1024} KiB of UTF-8 together ` +
            `(got ${bytes} bytes): send them in several requests`,
        );
      }
      return { texts, one: false };
    },
    properties: () => ({ text: one.schema(), texts: many.schema() }),
    constraints: () => [{ oneOf: [{ required: ["text"] }, { required: ["texts"] }] }],
  };
}

/** A blob id as the blob stores give them (base64url: 43 characters for Walrus and SHA-256). */
const BLOB_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * A client-encrypted memory's blob: its bytes (`encrypted_data`) or the id of a blob the client
 * already stored (`blob_id`), not both.
 */
export function manualBlob(): FieldGroup<
  { ciphertext: Uint8Array<ArrayBuffer> } | { blobId: string }
> {
  const bytes = base64({ description: "The client's ciphertext, stored as it is." });
  const id = field((value, name) => {
    if (typeof value !== "string" || !BLOB_ID.test(value)) {
      throw bad(`${name} must be a blob id (1 to 128 base64url characters)`);
    }
    return value;
  }, () => ({
    type: "string",
    pattern: BLOB_ID.source,
    description:
      "Instead of encrypted_data: the id of a blob the client stored itself (on Walrus).",
  }));
  return {
    kind: "group",
    parse(object) {
      if (absent(object.encrypted_data) === absent(object.blob_id)) {
        throw bad("Send one of encrypted_data and blob_id, not both");
      }
      return absent(object.blob_id)
        ? { ciphertext: bytes.parse(object.encrypted_data, "encrypted_data") }
        : { blobId: id.parse(object.blob_id, "blob_id") };
    },
    properties: () => ({ encrypted_data: bytes.schema(), blob_id: id.schema() }),
    constraints: () => [{ oneOf: [{ required: ["encrypted_data"] }, { required: ["blob_id"] }] }],
  };
}
