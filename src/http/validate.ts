/**
 * Field validation for request bodies. Each failure is a 400 whose sentence names the field;
 * out-of-range values are errors, never silently clamped.
 */
import { SvcError } from "../errors.ts";

// deno-lint-ignore no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
const encoder = new TextEncoder();

function bad(message: string): SvcError {
  return new SvcError("bad_request", message);
}

/** A required string, non-empty after trimming, at most `maxBytes` of UTF-8. */
export function requiredText(body: Record<string, unknown>, field: string, maxBytes: number) {
  const value = body[field];
  if (value === undefined || value === null) throw bad(`${field} is required`);
  if (typeof value !== "string") throw bad(`${field} must be a string`);
  if (value.trim() === "") throw bad(`${field} must not be empty`);
  if (encoder.encode(value).byteLength > maxBytes) {
    throw bad(`${field} must be at most ${maxBytes} bytes of UTF-8`);
  }
  return value;
}

/** A namespace: default `"default"`, else a non-empty string ≤ 256 bytes without control chars. */
export function namespaceField(body: Record<string, unknown>, field = "namespace"): string {
  const value = body[field];
  if (value === undefined || value === null) return "default";
  return validNamespace(value, field);
}

export function validNamespace(value: unknown, field = "namespace"): string {
  if (typeof value !== "string") throw bad(`${field} must be a string`);
  if (value === "") throw bad(`${field} must not be empty`);
  if (encoder.encode(value).byteLength > 256) throw bad(`${field} must be at most 256 bytes`);
  if (CONTROL_CHARS.test(value)) throw bad(`${field} must not contain control characters`);
  return value;
}

/** An optional integer in `[min, max]`, `fallback` when absent. */
export function integerField(
  body: Record<string, unknown>,
  field: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const value = body[field];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw bad(`${field} must be an integer`);
  }
  if (value < min || value > max) throw bad(`${field} must be between ${min} and ${max}`);
  return value;
}

/** A required array with between `min` and `max` entries. */
export function arrayField(
  body: Record<string, unknown>,
  field: string,
  min: number,
  max: number,
): unknown[] {
  const value = body[field];
  if (value === undefined || value === null) throw bad(`${field} is required`);
  if (!Array.isArray(value)) throw bad(`${field} must be an array`);
  if (value.length < min || value.length > max) {
    throw bad(`${field} must have between ${min} and ${max} entries`);
  }
  return value;
}

/** A JSON object (for example one item of a bulk request). */
export function objectValue(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw bad(`${field} must be an object`);
  }
  return value as Record<string, unknown>;
}

/** A vector of exactly `dimensions` finite numbers. */
export function vectorField(
  body: Record<string, unknown>,
  field: string,
  dimensions: number,
): number[] {
  const value = body[field];
  if (value === undefined || value === null) throw bad(`${field} is required`);
  if (!Array.isArray(value)) throw bad(`${field} must be an array of numbers`);
  if (value.length !== dimensions) {
    throw bad(`${field} must have exactly ${dimensions} numbers (the index's dimensions)`);
  }
  if (!value.every((x) => typeof x === "number" && Number.isFinite(x))) {
    throw bad(`${field} must contain only finite numbers`);
  }
  return value as number[];
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard base64 decoded to bytes; must not be empty. */
export function base64Field(body: Record<string, unknown>, field: string): Uint8Array<ArrayBuffer> {
  const value = body[field];
  if (value === undefined || value === null) throw bad(`${field} is required`);
  if (typeof value !== "string" || value === "" || !BASE64.test(value)) {
    throw bad(`${field} must be non-empty standard base64`);
  }
  return Uint8Array.fromBase64(value);
}
