/**
 * Scoped delegate keys: a key may be limited to some namespaces and some operations. The
 * relayer checks the operation of a route before it reads the body, and each handler the
 * namespaces it touches before it does any work. A refusal is 403 `forbidden` whose details
 * name the missing scope: `{reason: "missing_scope", scope: "write"}` or
 * `{reason: "missing_scope", scope: "namespace", namespace: "work"}`.
 */
import type { KeyScope, Operation } from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import { validNamespace } from "../validate.ts";

/** Every operation, in the order they are shown. */
export const OPERATIONS: readonly Operation[] = ["read", "write", "erase", "audit"];

/** A key may name at most this many namespaces. */
export const MAX_SCOPE_NAMESPACES = 32;

/** Whether `scope` allows `operation`. */
export function allowsOperation(scope: KeyScope | undefined, operation: Operation): boolean {
  return !scope?.operations || scope.operations.includes(operation);
}

/** Whether `scope` allows `namespace`. */
export function allowsNamespace(scope: KeyScope | undefined, namespace: string): boolean {
  return !scope?.namespaces || scope.namespaces.includes(namespace);
}

/** Refuses (403) a caller whose key lacks `operation`. */
export function requireOperation(caller: { scope?: KeyScope }, operation: Operation): void {
  if (allowsOperation(caller.scope, operation)) return;
  throw new SvcError("forbidden", `This delegate key lacks the "${operation}" scope`, {
    details: { reason: "missing_scope", scope: operation },
  });
}

/** Refuses (403) a caller whose key may not use `namespace`. */
export function requireNamespace(caller: { scope?: KeyScope }, namespace: string): void {
  if (allowsNamespace(caller.scope, namespace)) return;
  const allowed = caller.scope?.namespaces?.map((name) => JSON.stringify(name)).join(", ");
  throw new SvcError(
    "forbidden",
    `This delegate key may not use namespace ${JSON.stringify(namespace)}` +
      (allowed ? `: it may use only ${allowed}` : ""),
    {
      details: { reason: "missing_scope", scope: "namespace", namespace },
    },
  );
}

/**
 * A scope from untrusted JSON (`{namespaces?, operations?}`, each a list; `null` or absent: no
 * limit). Throws `SvcError("bad_request")` naming the problem; the lists come back sorted and
 * without repeats.
 */
export function parseScope(value: unknown): KeyScope {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new SvcError("bad_request", "scope must be an object with namespaces and operations");
  }
  const { namespaces, operations } = value as Record<string, unknown>;
  const scope: KeyScope = {};
  if (namespaces !== undefined && namespaces !== null) {
    if (
      !Array.isArray(namespaces) || namespaces.length === 0 ||
      namespaces.length > MAX_SCOPE_NAMESPACES
    ) {
      throw new SvcError(
        "bad_request",
        `scope.namespaces must be a list of 1 to ${MAX_SCOPE_NAMESPACES} namespaces`,
      );
    }
    scope.namespaces = [...new Set(namespaces.map((n) => validNamespace(n, "scope.namespaces")))]
      .sort();
  }
  if (operations !== undefined && operations !== null) {
    if (
      !Array.isArray(operations) || operations.length === 0 ||
      !operations.every((op) => OPERATIONS.includes(op))
    ) {
      throw new SvcError(
        "bad_request",
        `scope.operations must be a non-empty list of ${OPERATIONS.join(", ")}`,
      );
    }
    scope.operations = OPERATIONS.filter((op) => operations.includes(op));
  }
  return scope;
}
