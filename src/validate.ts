/**
 * Validation of request values, each taken from its object by the caller (`fields.ts` builds the
 * routes' declared fields on these). Each failure is a 400 whose sentence names the field;
 * out-of-range values are errors, never silently clamped.
 */
import { SvcError } from "./errors.ts";
import { MEMORY_ID } from "./ids.ts";

/** Characters a namespace or tag must not contain. */
// deno-lint-ignore no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
/**
 * Characters a text shown as one line (a key's label) must not hold: C0 and C1 controls, DEL,
 * and the bidirectional embeddings, overrides and isolates.
 */
// deno-lint-ignore no-control-regex
export const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
/** A character no byte stands for (a header's value holds only those that do). */
// deno-lint-ignore no-control-regex
const NOT_A_BYTE = /[^\u0000-\u00ff]/;
const encoder = new TextEncoder();

/** A 400 `bad_request` refusal whose `message` names the field. */
export function bad(message: string): SvcError {
  return new SvcError("bad_request", message);
}

/** A required string, non-empty after trimming, at most `maxBytes` of UTF-8. */
export function textValue(value: unknown, field: string, maxBytes: number): string {
  if (value === undefined || value === null) throw bad(`${field} is required`);
  if (typeof value !== "string") throw bad(`${field} must be a string`);
  if (value.trim() === "") throw bad(`${field} must not be empty`);
  if (encoder.encode(value).byteLength > maxBytes) {
    throw bad(`${field} must be at most ${maxBytes} bytes of UTF-8`);
  }
  return value;
}

/** A namespace: default `"default"`, else a non-empty string ≤ 256 bytes without control chars. */
export function namespaceValue(value: unknown, field = "namespace"): string {
  if (value === undefined || value === null) return "default";
  return validNamespace(value, field);
}

/** A given namespace: a non-empty string ≤ 256 bytes without control characters. */
export function validNamespace(value: unknown, field = "namespace"): string {
  if (typeof value !== "string") throw bad(`${field} must be a string`);
  if (value === "") throw bad(`${field} must not be empty`);
  if (encoder.encode(value).byteLength > 256) throw bad(`${field} must be at most 256 bytes`);
  if (CONTROL_CHARS.test(value)) throw bad(`${field} must not contain control characters`);
  return value;
}

/** Bidirectional embeddings, overrides and isolates: they reorder what is shown after them. */
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/;
/**
 * What shows as nothing: C1 controls, interlinear annotations and the characters Unicode says to
 * ignore when shown (zero-width spaces, direction marks, the soft hyphen, Hangul fillers, tag
 * characters…), except those that change how the character before them is shown: the zero-width
 * joiner and non-joiner (scripts and emoji need them) and variation selectors.
 */
export const INVISIBLE =
  /(?![\u200c\u200d\u180b-\u180d\u180f\ufe00-\ufe0f\u{e0100}-\u{e01ef}])[\p{Default_Ignorable_Code_Point}\u0080-\u009f\ufff9-\ufffb]/u;

/**
 * What a key's label must not hold, as it is shown in terminals and pages beside others:
 * controls, direction controls, line and paragraph separators, and what shows as nothing (two
 * labels that read alike would name two keys).
 */
export const UNSHOWN_IN_LABELS = new RegExp(
  `${UNPRINTABLE.source}|${INVISIBLE.source}|[\\u2028\\u2029]`,
  "u",
);

/**
 * A namespace memories are written to: a `validNamespace` that is not blank, does not begin or
 * end with white space and holds no bidirectional controls nor characters that show as nothing,
 * so that none hides characters (two can still look alike: Latin and Cyrillic letters). Namespaces
 * stored before this rule are still read, listed and erased.
 */
export function newNamespace(value: unknown, field = "namespace"): string {
  const namespace = validNamespace(value, field);
  if (namespace.trim() !== namespace) {
    throw bad(`${field} must not be blank, nor begin or end with white space`);
  }
  return shown(namespace, field);
}

/** `name`, refused when it holds bidirectional controls or characters that show as nothing. */
function shown(name: string, field: string): string {
  if (BIDI_CONTROLS.test(name)) {
    throw bad(
      `${field} must not contain bidirectional controls (U+202A to U+202E, U+2066 to U+2069)`,
    );
  }
  const invisible = name.match(INVISIBLE)?.[0];
  if (invisible) {
    const code = invisible.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
    throw bad(`${field} must not contain characters that show as nothing (U+${code})`);
  }
  return name;
}

/**
 * A header's value read as the UTF-8 its bytes spell: a server hands a header's bytes over one
 * character per byte, so `café` sent as UTF-8 arrives as `cafÃ©`. Bytes that are not UTF-8 are
 * read one character each (Latin-1), as a client that sends `café` so means it.
 */
export function utf8Header(value: string): string {
  if (NOT_A_BYTE.test(value)) return value;
  const bytes = Uint8Array.from(value, (char) => char.charCodeAt(0));
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return value;
  }
}

/** A string as the bytes of its UTF-8, one character per byte: how a header carries it. */
export function utf8HeaderValue(text: string): string {
  return String.fromCharCode(...encoder.encode(text));
}

/** An optional integer in `[min, max]`, `fallback` when absent. */
export function integerValue(
  value: unknown,
  field: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw bad(`${field} must be an integer`);
  }
  if (value < min || value > max) throw bad(`${field} must be between ${min} and ${max}`);
  return value;
}

/** A JSON object (for example one item of a bulk request). */
export function objectValue(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw bad(`${field} must be an object`);
  }
  return value as Record<string, unknown>;
}

/** Standard base64, padded. */
export const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard base64 decoded to bytes; must not be empty. */
export function base64Value(value: unknown, field: string): Uint8Array<ArrayBuffer> {
  if (value === undefined || value === null) throw bad(`${field} is required`);
  if (typeof value !== "string" || value === "" || !BASE64.test(value)) {
    throw bad(`${field} must be non-empty standard base64`);
  }
  return Uint8Array.fromBase64(value);
}

/** Tags a memory carries at most, and characters a tag has at most. */
export const MAX_TAGS = 16;
/** Characters a tag has at most. */
export const MAX_TAG_CHARS = 64;

/** Optional tags: at most 16, each 1–64 characters without control characters. */
export function tagsValue(value: unknown, field = "tags"): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw bad(`${field} must be an array of strings`);
  if (value.length > MAX_TAGS) throw bad(`${field} must have at most ${MAX_TAGS} entries`);
  return [...new Set(value.map((tag, i) => shortText(tag, `${field}[${i}]`, MAX_TAG_CHARS)))];
}

/** A string of 1 to `max` characters without control characters (a tag, a thread). */
function shortText(value: unknown, field: string, max: number): string {
  const chars = typeof value === "string" ? [...value].length : 0;
  if (typeof value !== "string" || chars < 1 || chars > max) {
    throw bad(`${field} must be a string of 1 to ${max} characters`);
  }
  if (CONTROL_CHARS.test(value)) throw bad(`${field} must not contain control characters`);
  return value;
}

/**
 * Tags memories are written with: `tagsValue` without bidirectional controls or characters that
 * show as nothing, as for a new namespace. Tags stored before this rule are still filtered by.
 */
export function newTagsValue(value: unknown, field = "tags"): string[] | undefined {
  return tagsValue(value, field)?.map((tag, i) => shown(tag, `${field}[${i}]`));
}

/** Characters a thread id has at most. */
export const MAX_THREAD_CHARS = 128;

/**
 * An optional thread (a conversation or session id): a string of 1–128 characters without
 * control characters.
 */
export function threadValue(value: unknown, field = "thread"): string | undefined {
  if (value === undefined || value === null) return undefined;
  return shortText(value, field, MAX_THREAD_CHARS);
}

/**
 * An ISO 8601 date, or date and time, with `T` or a space between: `2026-05-01`,
 * `2026-05-01T12:00`, `2026-05-01T12:00:00.5+02:00`. Without `Z` or an offset it is UTC, on every
 * machine.
 */
export const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/**
 * An ISO 8601 time (see {@link ISO_TIME}) in Unix milliseconds; `NaN` for anything else, a date
 * the calendar does not have (`2030-02-30`, which `Date.parse` rolls over) included.
 */
export function parseIsoTime(value: string): number {
  const parts = ISO_TIME.exec(value);
  if (!parts) return NaN;
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map((n) => Number(n ?? 0));
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return NaN;
  if (hour > 23 || minute > 59 || second > 59) return NaN;
  const offset = (parts[8] ?? "Z").toUpperCase()
    .replace(/^([+-]\d{2}):?(\d{2})?$/, (_, hours, minutes = "00") => `${hours}:${minutes}`);
  const fraction = (parts[7] ?? "").slice(0, 4);
  const clock = [hour, minute, second].map((n) => String(n).padStart(2, "0")).join(":");
  return Date.parse(`${parts.slice(1, 4).join("-")}T${clock}${fraction}${offset}`);
}

/** An optional time, as ISO 8601 (`2026-05-01T12:00:00Z`); Unix milliseconds. */
export function timeValue(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  const ms = typeof value === "string" ? parseIsoTime(value) : NaN;
  if (!Number.isFinite(ms)) throw bad(`${field} must be an ISO 8601 date and time`);
  return ms;
}

/** The longest a memory may be kept before it expires: ten years. */
export const MAX_TTL_SECONDS = 10 * 365 * 86_400;

/**
 * When a memory expires, from `ttl_seconds` (1 s to ten years) or `expires_at` (ISO 8601, in
 * the future); one of them at most. Unix milliseconds, or `undefined` for never.
 */
export function expiryFields(body: Record<string, unknown>, now: number): number | undefined {
  const expiresAt = timeValue(body.expires_at, "expires_at");
  if (body.ttl_seconds !== undefined && body.ttl_seconds !== null) {
    if (expiresAt !== undefined) throw bad("Send either ttl_seconds or expires_at, not both");
    return now + 1000 * integerValue(body.ttl_seconds, "ttl_seconds", 0, 1, MAX_TTL_SECONDS);
  }
  if (expiresAt !== undefined && expiresAt <= now) throw bad("expires_at must be in the future");
  if (expiresAt !== undefined && expiresAt > now + 1000 * MAX_TTL_SECONDS) {
    throw bad("expires_at must be within ten years");
  }
  return expiresAt;
}

/** A memory id (a UUID, lowercase). */
export function memoryId(value: unknown, field = "id"): string {
  if (typeof value !== "string" || !MEMORY_ID.test(value)) {
    throw bad(`${field} must be a memory id (a lowercase UUID)`);
  }
  return value;
}
