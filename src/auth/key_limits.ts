/**
 * A delegate key's limits as every wire shows them (ledger transactions, the consent page and
 * its callback, whoami, CLI output): `namespaces` and `operations`, each a list or `null` for
 * no limit, and `expires_at`, ISO 8601 or `null` for never.
 *
 * @example
 * ```ts
 * const { scope, expiresAt } = parseKeyLimits({ operations: ["read"], expires_at: null });
 * keyLimitsJson(scope, expiresAt); // {namespaces: null, operations: ["read"], expires_at: null}
 * ```
 */
import type { KeyScope, Operation } from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import { parseScope } from "./scope.ts";

/** A key's scope and expiry on the wire; `null`: no limit. */
export interface KeyLimitsJson {
  /** The namespaces the key may use; `null`: all. */
  namespaces: string[] | null;
  /** The operations the key may perform; `null`: all. */
  operations: Operation[] | null;
  /** When the key stops working (ISO 8601 UTC); `null`: never. */
  expires_at: string | null;
}

/** A key's scope and expiry as parsed from the wire. */
export interface KeyLimits {
  /** The namespaces and operations; a field left out does not limit. */
  scope: KeyScope;
  /** Unix milliseconds; absent: never. */
  expiresAt?: number;
}

const INSTANT = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,3})?Z$/;

/** The wire form of `scope` and `expiresAt` (Unix milliseconds). */
export function keyLimitsJson(scope: KeyScope | undefined, expiresAt?: number): KeyLimitsJson {
  return {
    namespaces: scope?.namespaces ? [...scope.namespaces] : null,
    operations: scope?.operations ? [...scope.operations] : null,
    expires_at: expiresAt === undefined ? null : new Date(expiresAt).toISOString(),
  };
}

/**
 * `namespaces`, `operations` and `expires_at` of an untrusted object (each absent or `null`:
 * no limit). `expires_at` is an ISO 8601 UTC time (`2026-07-01T00:00:00Z`). Throws
 * `SvcError("bad_request")` naming the problem.
 */
export function parseKeyLimits(fields: Record<string, unknown>): KeyLimits {
  const scope = parseScope({ namespaces: fields.namespaces, operations: fields.operations });
  const expires = fields.expires_at;
  if (expires === undefined || expires === null) return { scope };
  // A calendar time only: `2030-02-30` is refused, not read as March 2.
  const at = typeof expires === "string" && INSTANT.test(expires) ? Date.parse(expires) : NaN;
  if (
    Number.isNaN(at) || new Date(at).toISOString().slice(0, 19) !== String(expires).slice(0, 19)
  ) {
    throw new SvcError(
      "bad_request",
      "expires_at must be an ISO 8601 UTC time such as 2026-07-01T00:00:00Z, or null",
    );
  }
  return { scope, expiresAt: at };
}

/**
 * A key's limits in words, such as `operations read, write; namespaces notes, work; expires
 * 2026-07-01T00:00:00.000Z` (`expired …` once `now` has reached it), or `full access` for a key
 * without any.
 */
export function describeKeyLimits(
  scope: KeyScope | undefined,
  expiresAt?: number,
  now = Date.now(),
): string {
  const parts = [
    ...(scope?.operations ? [`operations ${scope.operations.join(", ")}`] : []),
    ...(scope?.namespaces ? [`namespaces ${scope.namespaces.join(", ")}`] : []),
  ];
  if (parts.length === 0) parts.push("full access");
  if (expiresAt !== undefined) {
    parts.push(`${expiresAt <= now ? "expired" : "expires"} ${new Date(expiresAt).toISOString()}`);
  }
  return parts.join("; ");
}
